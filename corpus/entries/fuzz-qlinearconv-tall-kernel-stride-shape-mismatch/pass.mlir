#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 3 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> ()>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  util.func public @main$async(%arg0: tensor<1x2x3x1xi8>, %arg1: tensor<1x1x1x1xi32>, %arg2: i32, %arg3: tensor<1x2x2x1xi8>) -> tensor<1x1x1x1xi32> attributes {inlining_policy = #util.inline.never} {
    %0 = linalg.generic {indexing_maps = [#map, #map1, #map2, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %arg3, %arg2, %arg2 : tensor<1x2x3x1xi8>, tensor<1x2x2x1xi8>, i32, i32) outs(%arg1 : tensor<1x1x1x1xi32>) {
    ^bb0(%in: i8, %in_0: i8, %in_1: i32, %in_2: i32, %out: i32):
      linalg.yield %out : i32
    } -> tensor<1x1x1x1xi32>
    util.return %0 : tensor<1x1x1x1xi32>
  }
}
