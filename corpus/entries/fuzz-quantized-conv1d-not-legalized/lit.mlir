// RUN: iree-opt '--pass-pipeline=builtin.module(func.func(convert-torch-to-linalg{allow-non-finites=true}))' --verify-diagnostics %s

module {
  func.func @main(%arg0: !torch.list<int>, %arg1: !torch.vtensor<[1,1,1],!torch.qint8>, %arg2: !torch.vtensor<[1,1,1],!torch.quint8>, %arg3: !torch.list<int>, %arg4: !torch.list<int>, %arg5: !torch.none, %arg6: !torch.int, %arg7: !torch.bool) -> !torch.vtensor<[1,1,1],!torch.qint32> {
    // expected-error @+1 {{failed to legalize operation 'torch.aten.convolution' that was explicitly marked illegal}}
    %0 = torch.aten.convolution %arg1, %arg2, %arg5, %arg4, %arg0, %arg4, %arg7, %arg3, %arg6 : !torch.vtensor<[1,1,1],!torch.qint8>, !torch.vtensor<[1,1,1],!torch.quint8>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int -> !torch.vtensor<[1,1,1],!torch.qint32>
    return %0 : !torch.vtensor<[1,1,1],!torch.qint32>
  }
}
