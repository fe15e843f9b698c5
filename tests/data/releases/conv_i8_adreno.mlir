module {
  func.func @conv_block(%arg0: tensor<1x1x2x18xi8>, %arg1: tensor<1x1x18x8xi8>, %arg2: tensor<1x1x2x8xi32>) -> tensor<1x1x2x8xi32> {
    %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%arg0, %arg1 : tensor<1x1x2x18xi8>, tensor<1x1x18x8xi8>) outs(%arg2 : tensor<1x1x2x8xi32>) -> tensor<1x1x2x8xi32>
    return %0 : tensor<1x1x2x8xi32>
  }
}
