func.func @pack(%arg0: tensor<16x16xf32>) -> tensor<2x2x8x8xf32> {
  %0 = tensor.empty() : tensor<2x2x8x8xf32>
  %1 = linalg.pack %arg0 inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %0 : tensor<16x16xf32> -> tensor<2x2x8x8xf32>
  return %1 : tensor<2x2x8x8xf32>
}
