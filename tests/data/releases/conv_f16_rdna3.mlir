func.func @conv_f16(%arg0: !torch.vtensor<[1,64,56,56],f16>, %arg1: !torch.vtensor<[128,64,1,1],f16>) -> !torch.vtensor<[1,128,56,56],f16> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = torch.operator "onnx.Conv"(%arg0, %arg1) : (!torch.vtensor<[1,64,56,56],f16>, !torch.vtensor<[128,64,1,1],f16>) -> !torch.vtensor<[1,128,56,56],f16>
  return %0 : !torch.vtensor<[1,128,56,56],f16>
}
