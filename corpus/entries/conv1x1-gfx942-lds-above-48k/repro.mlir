module {
  func.func @main_graph(%arg0: !torch.vtensor<[113,61,1,1],f32>, %arg1: !torch.vtensor<[113],f32>, %arg2: !torch.vtensor<[1,61,20,9],f32>) -> !torch.vtensor<[1,113,20,9],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
    %0 = torch.operator "onnx.Conv"(%arg2, %arg0, %arg1) : (!torch.vtensor<[1,61,20,9],f32>, !torch.vtensor<[113,61,1,1],f32>, !torch.vtensor<[113],f32>) -> !torch.vtensor<[1,113,20,9],f32> 
    return %0 : !torch.vtensor<[1,113,20,9],f32>
  }
}
