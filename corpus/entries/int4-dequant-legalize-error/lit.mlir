// RUN: iree-opt '--pass-pipeline=builtin.module(func.func(convert-torch-onnx-to-torch{allow-non-finites=true}))' --verify-diagnostics %s

module {
  func.func @int4_blocked_linear_raw(%arg0: !torch.vtensor<[1,1],f32>, %arg1: !torch.vtensor<[1,1],si4>) -> !torch.vtensor<[1,1],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
    // expected-error @+1 {{failed to legalize operation 'torch.operator' that was explicitly marked illegal}}
    %0 = torch.operator "onnx.DequantizeLinear"(%arg1, %arg0) : (!torch.vtensor<[1,1],si4>, !torch.vtensor<[1,1],f32>) -> !torch.vtensor<[1,1],f32> 
    return %0 : !torch.vtensor<[1,1],f32>
  }
}
