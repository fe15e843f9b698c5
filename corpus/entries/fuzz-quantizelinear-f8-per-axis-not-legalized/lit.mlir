// RUN: iree-opt '--pass-pipeline=builtin.module(func.func(convert-torch-onnx-to-torch{allow-non-finites=true}))' --verify-diagnostics %s

module {
  func.func @main(%arg0: !torch.vtensor<[1,1,1],f32>, %arg1: !torch.vtensor<[1],f8E5M2FNUZ>, %arg2: !torch.vtensor<[1],f32>) -> !torch.vtensor<[1,1,1],f8E5M2FNUZ> attributes {torch.onnx_meta.opset_version = 22 : si64} {
    // expected-error @+1 {{failed to legalize operation 'torch.operator' that was explicitly marked illegal}}
    %0 = torch.operator "onnx.QuantizeLinear"(%arg0, %arg2, %arg1) : (!torch.vtensor<[1,1,1],f32>, !torch.vtensor<[1],f32>, !torch.vtensor<[1],f8E5M2FNUZ>) -> !torch.vtensor<[1,1,1],f8E5M2FNUZ> 
    return %0 : !torch.vtensor<[1,1,1],f8E5M2FNUZ>
  }
}
