module {
  func.func @main(%arg0: !torch.vtensor<[1,1,1,1],f32>, %arg1: !torch.vtensor<[1],f32>) -> !torch.vtensor<[1,1,1],f32> {
    %0 = torch.aten.matmul %arg0, %arg1 : !torch.vtensor<[1,1,1,1],f32>, !torch.vtensor<[1],f32> -> !torch.vtensor<[1,1,1],f32>
    return %0 : !torch.vtensor<[1,1,1],f32>
  }
}
