func.func @forward(%arg0: !torch.vtensor<[4,8],f32>, %arg1: !torch.vtensor<[8,16],f32>) -> !torch.vtensor<[4,16],f32> {
  %0 = torch.aten.mm %arg0, %arg1 : !torch.vtensor<[4,8],f32>, !torch.vtensor<[8,16],f32> -> !torch.vtensor<[4,16],f32>
  %1 = torch.aten.relu %0 : !torch.vtensor<[4,16],f32> -> !torch.vtensor<[4,16],f32>
  %2 = torch.aten.tanh %1 : !torch.vtensor<[4,16],f32> -> !torch.vtensor<[4,16],f32>
  %int1 = torch.constant.int 1
  %3 = torch.aten.add.Tensor %2, %1, %int1 : !torch.vtensor<[4,16],f32>, !torch.vtensor<[4,16],f32>, !torch.int -> !torch.vtensor<[4,16],f32>
  return %3 : !torch.vtensor<[4,16],f32>
}
