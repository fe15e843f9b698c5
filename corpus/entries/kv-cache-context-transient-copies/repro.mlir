module {
  util.global private mutable @kv_state = dense<0.000000e+00> : tensor<1x16x64x32xf32>
  func.func @run_forward(%arg0: tensor<1x16x1x32xf32>, %arg1: index, %arg2: index, %arg3: tensor<1x16x1x32xf32>) -> tensor<8x?x32xf32> {
    %0 = arith.mulf %arg3, %arg0 : tensor<1x16x1x32xf32>
    %kv_state = util.global.load @kv_state : tensor<1x16x64x32xf32>
    %extracted_slice = tensor.extract_slice %kv_state[0, 0, 0, 0] [1, 16, %arg1, 32] [1, 1, 1, 1] : tensor<1x16x64x32xf32> to tensor<1x16x?x32xf32>
    %concat = tensor.concat dim(2) %extracted_slice, %0 : (tensor<1x16x?x32xf32>, tensor<1x16x1x32xf32>) -> tensor<1x16x?x32xf32>
    %extracted_slice_0 = tensor.extract_slice %concat[0, 0, %arg1, 0] [1, 16, 1, 32] [1, 1, 1, 1] : tensor<1x16x?x32xf32> to tensor<1x16x1x32xf32>
    %inserted_slice = tensor.insert_slice %extracted_slice_0 into %kv_state[0, 0, %arg1, 0] [1, 16, 1, 32] [1, 1, 1, 1] : tensor<1x16x1x32xf32> into tensor<1x16x64x32xf32>
    util.global.store %inserted_slice, @kv_state : tensor<1x16x64x32xf32>
    %extracted_slice_1 = tensor.extract_slice %concat[0, 0, 0, 0] [1, 8, %arg2, 32] [1, 1, 1, 1] : tensor<1x16x?x32xf32> to tensor<8x?x32xf32>
    return %extracted_slice_1 : tensor<8x?x32xf32>
  }
}
