// Seed 004's block in f16 as a JAX/StableHLO frontend lowers it to linalg (NHWC, f16 accumulation):
// 3x3 stride-2 conv + bias + relu, 1x1 conv to 128 channels over the 56x56 map, residual add, relu.
#nhwc = affine_map<(n, h, w, c) -> (n, h, w, c)>
#chan = affine_map<(n, h, w, c) -> (c)>
func.func @block(%x: tensor<1x114x114x64xf16>, %w1: tensor<3x3x64x64xf16>, %b1: tensor<64xf16>, %w2: tensor<1x1x64x128xf16>, %skip: tensor<1x56x56x128xf16>) -> tensor<1x56x56x128xf16> {
  %zero = arith.constant 0.0 : f16
  %e1 = tensor.empty() : tensor<1x56x56x64xf16>
  %f1 = linalg.fill ins(%zero : f16) outs(%e1 : tensor<1x56x56x64xf16>) -> tensor<1x56x56x64xf16>
  %c1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w1 : tensor<1x114x114x64xf16>, tensor<3x3x64x64xf16>) outs(%f1 : tensor<1x56x56x64xf16>) -> tensor<1x56x56x64xf16>
  %r1 = linalg.generic {indexing_maps = [#nhwc, #chan, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1, %b1 : tensor<1x56x56x64xf16>, tensor<64xf16>) outs(%e1 : tensor<1x56x56x64xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %s = arith.addf %a, %b : f16
    %m = arith.maximumf %s, %zero : f16
    linalg.yield %m : f16
  } -> tensor<1x56x56x64xf16>
  %e2 = tensor.empty() : tensor<1x56x56x128xf16>
  %f2 = linalg.fill ins(%zero : f16) outs(%e2 : tensor<1x56x56x128xf16>) -> tensor<1x56x56x128xf16>
  %c2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%r1, %w2 : tensor<1x56x56x64xf16>, tensor<1x1x64x128xf16>) outs(%f2 : tensor<1x56x56x128xf16>) -> tensor<1x56x56x128xf16>
  %y = linalg.generic {indexing_maps = [#nhwc, #nhwc, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c2, %skip : tensor<1x56x56x128xf16>, tensor<1x56x56x128xf16>) outs(%e2 : tensor<1x56x56x128xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %s = arith.addf %a, %b : f16
    %m = arith.maximumf %s, %zero : f16
    linalg.yield %m : f16
  } -> tensor<1x56x56x128xf16>
  return %y : tensor<1x56x56x128xf16>
}
