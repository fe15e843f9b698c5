// RUN: iree-opt '--pass-pipeline=builtin.module(func.func(convert-torch-onnx-to-torch{allow-non-finites=true}))' --verify-diagnostics %s

module {
  func.func @main(%arg0: !torch.vtensor<[],f32>, %arg1: !torch.vtensor<[],si4>, %arg2: !torch.vtensor<[1,1,1,1],si4>) -> !torch.vtensor<[1,1,1,1],f32> attributes {torch.onnx_meta.opset_version = 22 : si64} {
    // expected-error @+1 {{failed to legalize operation 'torch.operator' that was explicitly marked illegal}}
    %0 = torch.operator "onnx.DequantizeLinear"(%arg2, %arg0, %arg1) : (!torch.vtensor<[1,1,1,1],si4>, !torch.vtensor<[],f32>, !torch.vtensor<[],si4>) -> !torch.vtensor<[1,1,1,1],f32> 
    return %0 : !torch.vtensor<[1,1,1,1],f32>
  }
}
