// RUN: iree-opt '--pass-pipeline=builtin.module(func.func(convert-torch-to-linalg{allow-non-finites=true}))' --verify-diagnostics %s

module {
  func.func @main(%arg0: !torch.list<int>, %arg1: !torch.list<int>, %arg2: !torch.list<int>, %arg3: !torch.vtensor<[1,1,1],!torch.quint8>, %arg4: !torch.vtensor<[1,1,1],!torch.quint8>, %arg5: !torch.none, %arg6: !torch.int, %arg7: !torch.bool) -> !torch.vtensor<[1,1,1],si32> {
    // expected-error @+1 {{failed to legalize operation 'torch.aten.convolution' that was explicitly marked illegal}}
    %0 = torch.aten.convolution %arg4, %arg3, %arg5, %arg1, %arg2, %arg1, %arg7, %arg0, %arg6 : !torch.vtensor<[1,1,1],!torch.quint8>, !torch.vtensor<[1,1,1],!torch.quint8>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int -> !torch.vtensor<[1,1,1],si32>
    return %0 : !torch.vtensor<[1,1,1],si32>
  }
}
