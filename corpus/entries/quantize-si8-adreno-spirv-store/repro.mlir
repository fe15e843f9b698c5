module {
  func.func @main_graph(%arg0: !torch.vtensor<[1,68,56,56],f32>) -> !torch.vtensor<[1,68,56,56],si8> attributes {torch.onnx_meta.opset_version = 21 : si64} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<si8>} : () -> !torch.vtensor<[],si8> 
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<1.562500e-02> : tensor<f32>} : () -> !torch.vtensor<[],f32> 
    %2 = torch.operator "onnx.QuantizeLinear"(%arg0, %1, %0) : (!torch.vtensor<[1,68,56,56],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[1,68,56,56],si8> 
    return %2 : !torch.vtensor<[1,68,56,56],si8>
  }
}
