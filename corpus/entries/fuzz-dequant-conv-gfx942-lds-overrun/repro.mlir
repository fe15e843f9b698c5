module {
  func.func @main(%arg0: !torch.vtensor<[17,17,3,5],f32>, %arg1: !torch.vtensor<[2,17,8,23],si8>) -> !torch.vtensor<[2,17,6,19],f32> attributes {torch.onnx_meta.opset_version = 23 : si64} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0.000000e+00> : tensor<1xf32>} : () -> !torch.vtensor<[1],f32> 
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<1xsi8>} : () -> !torch.vtensor<[1],si8> 
    %2 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0.000000e+00> : tensor<17xf32>} : () -> !torch.vtensor<[17],f32> 
    %3 = torch.operator "onnx.DequantizeLinear"(%arg1, %0, %1) : (!torch.vtensor<[2,17,8,23],si8>, !torch.vtensor<[1],f32>, !torch.vtensor<[1],si8>) -> !torch.vtensor<[2,17,8,23],f32> 
    %4 = torch.operator "onnx.Conv"(%3, %arg0, %2) : (!torch.vtensor<[2,17,8,23],f32>, !torch.vtensor<[17,17,3,5],f32>, !torch.vtensor<[17],f32>) -> !torch.vtensor<[2,17,6,19],f32> 
    return %4 : !torch.vtensor<[2,17,6,19],f32>
  }
}
