// RUN: iree-opt '--pass-pipeline=builtin.module(func.func(convert-torch-to-linalg{allow-non-finites=true}))' --verify-diagnostics %s

module {
  func.func @main(%arg0: !torch.vtensor<[1,1,1,1],f32>, %arg1: !torch.vtensor<[1],f32>) -> !torch.vtensor<[1,1,1],f32> {
    // expected-error @+1 {{failed to legalize operation 'torch.aten.matmul' that was explicitly marked illegal}}
    %0 = torch.aten.matmul %arg0, %arg1 : !torch.vtensor<[1,1,1,1],f32>, !torch.vtensor<[1],f32> -> !torch.vtensor<[1,1,1],f32>
    return %0 : !torch.vtensor<[1,1,1],f32>
  }
}
