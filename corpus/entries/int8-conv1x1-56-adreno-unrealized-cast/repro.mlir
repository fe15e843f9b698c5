module {
  func.func @conv_block(%arg0: tensor<1x56x56x64xi8>, %arg1: tensor<1x1x64x128xi8>, %arg2: tensor<1x56x56x128xi32>) -> tensor<1x56x56x128xi32> {
    %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%arg0, %arg1 : tensor<1x56x56x64xi8>, tensor<1x1x64x128xi8>) outs(%arg2 : tensor<1x56x56x128xi32>) -> tensor<1x56x56x128xi32>
    return %0 : tensor<1x56x56x128xi32>
  }
}
