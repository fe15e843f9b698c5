// The gated MLP of an LLM with int8 weight-only quantization, as a quantizer lowers it to linalg:
// per-channel dequantization of the i8 weights feeding f16 x f16 -> f32 matmuls, SiLU gating.
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#w = affine_map<(k, n) -> (k, n)>
#col = affine_map<(k, n) -> (n)>
func.func @mlp(%x: tensor<16x1024xf16>, %wg: tensor<1024x2816xi8>, %sg: tensor<2816xf16>, %wu: tensor<1024x2816xi8>, %su: tensor<2816xf16>) -> tensor<16x2816xf32> {
  %zero = arith.constant 0.0 : f32
  %ew = tensor.empty() : tensor<1024x2816xf16>
  %dg = linalg.generic {indexing_maps = [#w, #col, #w], iterator_types = ["parallel", "parallel"]} ins(%wg, %sg : tensor<1024x2816xi8>, tensor<2816xf16>) outs(%ew : tensor<1024x2816xf16>) {
  ^bb0(%q: i8, %s: f16, %o: f16):
    %f = arith.sitofp %q : i8 to f16
    %d = arith.mulf %f, %s : f16
    linalg.yield %d : f16
  } -> tensor<1024x2816xf16>
  %du = linalg.generic {indexing_maps = [#w, #col, #w], iterator_types = ["parallel", "parallel"]} ins(%wu, %su : tensor<1024x2816xi8>, tensor<2816xf16>) outs(%ew : tensor<1024x2816xf16>) {
  ^bb0(%q: i8, %s: f16, %o: f16):
    %f = arith.sitofp %q : i8 to f16
    %d = arith.mulf %f, %s : f16
    linalg.yield %d : f16
  } -> tensor<1024x2816xf16>
  %e = tensor.empty() : tensor<16x2816xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<16x2816xf32>) -> tensor<16x2816xf32>
  %gate = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %dg : tensor<16x1024xf16>, tensor<1024x2816xf16>) outs(%fill : tensor<16x2816xf32>) {
  ^bb0(%a: f16, %b: f16, %acc: f32):
    %ae = arith.extf %a : f16 to f32
    %be = arith.extf %b : f16 to f32
    %p = arith.mulf %ae, %be : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x2816xf32>
  %up = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %du : tensor<16x1024xf16>, tensor<1024x2816xf16>) outs(%fill : tensor<16x2816xf32>) {
  ^bb0(%a: f16, %b: f16, %acc: f32):
    %ae = arith.extf %a : f16 to f32
    %be = arith.extf %b : f16 to f32
    %p = arith.mulf %ae, %be : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x2816xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]} ins(%gate, %up : tensor<16x2816xf32>, tensor<16x2816xf32>) outs(%e : tensor<16x2816xf32>) {
  ^bb0(%g: f32, %u: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %ng = arith.negf %g : f32
    %ex = math.exp %ng : f32
    %den = arith.addf %ex, %one : f32
    %sig = arith.divf %g, %den : f32
    %r = arith.mulf %sig, %u : f32
    linalg.yield %r : f32
  } -> tensor<16x2816xf32>
  return %y : tensor<16x2816xf32>
}
