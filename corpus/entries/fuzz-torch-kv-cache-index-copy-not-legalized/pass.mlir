module {
  func.func @main(%arg0: !torch.vtensor<[1,1,1,1],f32>, %arg1: !torch.vtensor<[1],si64>, %arg2: !torch.int, %arg3: !torch.vtensor<[1,1,1,1],f32>) -> !torch.vtensor<[1,1,1,1],f32> {
    %0 = torch.operator "torch.aten.index_copy"(%arg3, %arg2, %arg1, %arg0) : (!torch.vtensor<[1,1,1,1],f32>, !torch.int, !torch.vtensor<[1],si64>, !torch.vtensor<[1,1,1,1],f32>) -> !torch.vtensor<[1,1,1,1],f32> 
    return %0 : !torch.vtensor<[1,1,1,1],f32>
  }
}
