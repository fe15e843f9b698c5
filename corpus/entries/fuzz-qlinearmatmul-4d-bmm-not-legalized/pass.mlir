module {
  func.func @main(%arg0: !torch.vtensor<[1,1,1,1],!torch.quint8>, %arg1: !torch.vtensor<[1,1,1,1],!torch.qint8>) -> !torch.vtensor<[1,1,1,1],si32> {
    %0 = torch.aten.bmm %arg0, %arg1 : !torch.vtensor<[1,1,1,1],!torch.quint8>, !torch.vtensor<[1,1,1,1],!torch.qint8> -> !torch.vtensor<[1,1,1,1],si32>
    return %0 : !torch.vtensor<[1,1,1,1],si32>
  }
}
