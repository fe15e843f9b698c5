module {
  func.func @block(%arg0: tensor<1x1x16x16xf16>, %arg1: tensor<1x4x4x16xf16>, %arg2: tensor<1x4x4x16xf16>) -> tensor<1x4x4x16xf16> {
    %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%arg1, %arg0 : tensor<1x4x4x16xf16>, tensor<1x1x16x16xf16>) outs(%arg2 : tensor<1x4x4x16xf16>) -> tensor<1x4x4x16xf16>
    return %0 : tensor<1x4x4x16xf16>
  }
}
