module {
  func.func @main(%arg0: !torch.vtensor<[1,1,1],si8>) -> !torch.vtensor<[1,1,2],si8> attributes {torch.onnx_meta.ir_version = 10 : si64, torch.onnx_meta.opset_version = 21 : si64, torch.onnx_meta.producer_name = "iree-reduce-fuzz", torch.onnx_meta.producer_version = ""} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense_resource<s1> : tensor<f32>} : () -> !torch.vtensor<[],f32> 
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense_resource<z2> : tensor<si8>} : () -> !torch.vtensor<[],si8> 
    %2 = torch.operator "onnx.Constant"() {torch.onnx.value = dense_resource<w4> : tensor<1x1x1xsi8>} : () -> !torch.vtensor<[1,1,1],si8> 
    %3 = torch.operator "onnx.Constant"() {torch.onnx.value = dense_resource<z5> : tensor<si8>} : () -> !torch.vtensor<[],si8> 
    %4 = torch.operator "onnx.Constant"() {torch.onnx.value = dense_resource<s6> : tensor<f32>} : () -> !torch.vtensor<[],f32> 
    %5 = torch.operator "onnx.Constant"() {torch.onnx.value = dense_resource<c7> : tensor<f32>} : () -> !torch.vtensor<[],f32> 
    %6 = torch.operator "onnx.Constant"() {torch.onnx.value = dense_resource<c8> : tensor<si8>} : () -> !torch.vtensor<[],si8> 
    %none = torch.constant.none
    %7 = torch.operator "onnx.QLinearConv"(%arg0, %0, %1, %2, %4, %3, %5, %6) {torch.onnx.pads = [1 : si64, 0 : si64]} : (!torch.vtensor<[1,1,1],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[1,1,1],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[1,1,2],si8> 
    return %7 : !torch.vtensor<[1,1,2],si8>
  }
}

{-#
  dialect_resources: {
    builtin: {
      s1: "0x0800000000000000",
      z2: "0x0800000000",
      w4: "0x0800000000",
      z5: "0x0800000000",
      s6: "0x0800000000000000",
      c7: "0x0800000000000000",
      c8: "0x0800000000"
    }
  }
#-}

