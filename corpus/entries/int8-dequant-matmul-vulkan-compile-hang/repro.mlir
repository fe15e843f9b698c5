#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @mlp(%arg0: tensor<16x1024xf16>, %arg1: tensor<1024x2816xi8>, %arg2: tensor<2816xf16>, %arg3: tensor<16x2816xf32>, %arg4: tensor<1024x2816xf16>) -> tensor<16x2816xf32> {
    %0 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1, %arg2 : tensor<1024x2816xi8>, tensor<2816xf16>) outs(%arg4 : tensor<1024x2816xf16>) {
    ^bb0(%in: i8, %in_0: f16, %out: f16):
      %2 = arith.sitofp %in : i8 to f16
      linalg.yield %2 : f16
    } -> tensor<1024x2816xf16>
    %1 = linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %0 : tensor<16x1024xf16>, tensor<1024x2816xf16>) outs(%arg3 : tensor<16x2816xf32>) {
    ^bb0(%in: f16, %in_0: f16, %out: f32):
      linalg.yield %out : f32
    } -> tensor<16x2816xf32>
    return %1 : tensor<16x2816xf32>
  }
}
