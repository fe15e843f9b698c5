// RUN: iree-opt '--pass-pipeline=builtin.module(iree-dispatch-creation-fold-unit-extent-dims)' --verify-diagnostics %s

#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 3 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  util.func public @main$async(%arg0: tensor<1x1x3x1xf32>, %arg1: tensor<1x1x2x1xf32>, %arg2: tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32> attributes {inlining_policy = #util.inline.never} {
    // expected-error @+1 {{'linalg.generic' op inferred input/output operand #1 has shape's dimension #0 to be 3, but found 2}}
    %0 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %arg1 : tensor<1x1x3x1xf32>, tensor<1x1x2x1xf32>) outs(%arg2 : tensor<1x1x1x1xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      linalg.yield %out : f32
    } -> tensor<1x1x1x1xf32>
    util.return %0 : tensor<1x1x1x1xf32>
  }
}
