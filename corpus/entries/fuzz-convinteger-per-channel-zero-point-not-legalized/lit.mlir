// RUN: iree-opt '--pass-pipeline=builtin.module(func.func(convert-torch-onnx-to-torch{allow-non-finites=true}))' --verify-diagnostics %s

module {
  func.func @main(%arg0: !torch.vtensor<[1,1,1,1],si8>, %arg1: !torch.vtensor<[2],si8>, %arg2: !torch.vtensor<[2,1,1,1],si8>, %arg3: !torch.vtensor<[],si8>) -> !torch.vtensor<[1,2,1,1],si32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
    // expected-error @+1 {{failed to legalize operation 'torch.operator' that was explicitly marked illegal}}
    %0 = torch.operator "onnx.ConvInteger"(%arg0, %arg2, %arg3, %arg1) : (!torch.vtensor<[1,1,1,1],si8>, !torch.vtensor<[2,1,1,1],si8>, !torch.vtensor<[],si8>, !torch.vtensor<[2],si8>) -> !torch.vtensor<[1,2,1,1],si32> 
    return %0 : !torch.vtensor<[1,2,1,1],si32>
  }
}
