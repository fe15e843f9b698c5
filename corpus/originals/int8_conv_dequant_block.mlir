// An int8 1x1 conv over a 56x56 map as a quantized-model frontend lowers it to linalg:
// i8 x i8 -> i32 convolution, bias add, dequantization to f32 with the product of the input and
// weight scales, a residual add and relu (the quantized block of seed 004, NHWC).
#nhwc = affine_map<(n, h, w, c) -> (n, h, w, c)>
#chan = affine_map<(n, h, w, c) -> (c)>
func.func @conv_block(%x: tensor<1x56x56x64xi8>, %w: tensor<1x1x64x128xi8>, %bias: tensor<128xi32>, %skip: tensor<1x56x56x128xf32>) -> tensor<1x56x56x128xf32> {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x56x56x128xi32>
  %f = linalg.fill ins(%c0 : i32) outs(%e : tensor<1x56x56x128xi32>) -> tensor<1x56x56x128xi32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x56x56x64xi8>, tensor<1x1x64x128xi8>) outs(%f : tensor<1x56x56x128xi32>) -> tensor<1x56x56x128xi32>
  %ef = tensor.empty() : tensor<1x56x56x128xf32>
  %y = linalg.generic {indexing_maps = [#nhwc, #chan, #nhwc, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv, %bias, %skip : tensor<1x56x56x128xi32>, tensor<128xi32>, tensor<1x56x56x128xf32>) outs(%ef : tensor<1x56x56x128xf32>) {
  ^bb0(%acc: i32, %b: i32, %s: f32, %o: f32):
    %scale = arith.constant 1.953125e-04 : f32
    %zero = arith.constant 0.0 : f32
    %sum = arith.addi %acc, %b : i32
    %sf = arith.sitofp %sum : i32 to f32
    %dq = arith.mulf %sf, %scale : f32
    %r = arith.addf %dq, %s : f32
    %relu = arith.maximumf %r, %zero : f32
    linalg.yield %relu : f32
  } -> tensor<1x56x56x128xf32>
  return %y : tensor<1x56x56x128xf32>
}
