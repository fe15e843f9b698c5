// One decode step of a Llama-style attention layer (seed 000). As in the report, the KV cache is
// one global state tensor, 1 x (8 key + 8 value heads) x 64 positions x 32; the cache position
// comes in as an argument. The new key/value row (projected, then rotated by the position's
// rotary factors) is concatenated to the cached context [0, pos) and written back at `pos`.
util.global private mutable @kv_state : tensor<1x16x64x32xf32> = dense<0.0> : tensor<1x16x64x32xf32>
func.func @run_forward(%x: tensor<1x256xf32>, %wq: tensor<256x256xf32>, %wkv: tensor<256x512xf32>, %norm_w: tensor<256xf32>, %rotary: tensor<1x16x1x32xf32>, %pos: index) -> tensor<8x1x32xf32> {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %eps = arith.constant 1.0e-05 : f32
  %inv_n = arith.constant 0.00390625 : f32
  // RMSNorm of the token embedding.
  %e1 = tensor.empty() : tensor<1xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1xf32>) -> tensor<1xf32>
  %ss = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<1x256xf32>) outs(%f1 : tensor<1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %sq, %o : f32
    linalg.yield %s : f32
  } -> tensor<1xf32>
  %e2 = tensor.empty() : tensor<1x256xf32>
  %h = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x, %ss, %norm_w : tensor<1x256xf32>, tensor<1xf32>, tensor<256xf32>) outs(%e2 : tensor<1x256xf32>) {
  ^bb0(%a: f32, %s: f32, %w: f32, %o: f32):
    %m = arith.mulf %s, %inv_n : f32
    %me = arith.addf %m, %eps : f32
    %r = math.rsqrt %me : f32
    %n = arith.mulf %a, %r : f32
    %y = arith.mulf %n, %w : f32
    linalg.yield %y : f32
  } -> tensor<1x256xf32>
  // Q and the fused KV projection; the new KV row rotated by the position's factors.
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x256xf32>) -> tensor<1x256xf32>
  %q = linalg.matmul ins(%h, %wq : tensor<1x256xf32>, tensor<256x256xf32>) outs(%f2 : tensor<1x256xf32>) -> tensor<1x256xf32>
  %ekv = tensor.empty() : tensor<1x512xf32>
  %fkv = linalg.fill ins(%zero : f32) outs(%ekv : tensor<1x512xf32>) -> tensor<1x512xf32>
  %kv = linalg.matmul ins(%h, %wkv : tensor<1x256xf32>, tensor<256x512xf32>) outs(%fkv : tensor<1x512xf32>) -> tensor<1x512xf32>
  %kvrow = tensor.expand_shape %kv [[0], [1, 2, 3]] output_shape [1, 16, 1, 32] : tensor<1x512xf32> into tensor<1x16x1x32xf32>
  %kvrot = arith.mulf %kvrow, %rotary : tensor<1x16x1x32xf32>
  // The growing context: cached rows [0, pos) concatenated with the new row.
  %state = util.global.load @kv_state : tensor<1x16x64x32xf32>
  %past = tensor.extract_slice %state[0, 0, 0, 0] [1, 16, %pos, 32] [1, 1, 1, 1] : tensor<1x16x64x32xf32> to tensor<1x16x?x32xf32>
  %context = tensor.concat dim(2) %past, %kvrot : (tensor<1x16x?x32xf32>, tensor<1x16x1x32xf32>) -> tensor<1x16x?x32xf32>
  // Write the newest row back into the state at `pos`.
  %last = tensor.extract_slice %context[0, 0, %pos, 0] [1, 16, 1, 32] [1, 1, 1, 1] : tensor<1x16x?x32xf32> to tensor<1x16x1x32xf32>
  %updated = tensor.insert_slice %last into %state[0, 0, %pos, 0] [1, 16, 1, 32] [1, 1, 1, 1] : tensor<1x16x1x32xf32> into tensor<1x16x64x32xf32>
  util.global.store %updated, @kv_state : tensor<1x16x64x32xf32>
  // Attention of the new query over the context.
  %len = arith.addi %pos, %c1 : index
  %keys = tensor.extract_slice %context[0, 0, 0, 0] [1, 8, %len, 32] [1, 1, 1, 1] : tensor<1x16x?x32xf32> to tensor<8x?x32xf32>
  %values = tensor.extract_slice %context[0, 8, 0, 0] [1, 8, %len, 32] [1, 1, 1, 1] : tensor<1x16x?x32xf32> to tensor<8x?x32xf32>
  %qb = tensor.expand_shape %q [[0], [1, 2]] output_shape [1, 8, 32] : tensor<1x256xf32> into tensor<1x8x32xf32>
  %eqt = tensor.empty() : tensor<8x1x32xf32>
  %qt = linalg.transpose ins(%qb : tensor<1x8x32xf32>) outs(%eqt : tensor<8x1x32xf32>) permutation = [1, 0, 2]
  %es = tensor.empty(%len) : tensor<8x1x?xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<8x1x?xf32>) -> tensor<8x1x?xf32>
  %scores = linalg.generic {indexing_maps = [affine_map<(b, m, n, d) -> (b, m, d)>, affine_map<(b, m, n, d) -> (b, n, d)>, affine_map<(b, m, n, d) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%qt, %keys : tensor<8x1x32xf32>, tensor<8x?x32xf32>) outs(%fs : tensor<8x1x?xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x1x?xf32>
  %ep = tensor.empty(%len) : tensor<8x1x?xf32>
  %p = linalg.softmax dimension(2) ins(%scores : tensor<8x1x?xf32>) outs(%ep : tensor<8x1x?xf32>) -> tensor<8x1x?xf32>
  %eo = tensor.empty() : tensor<8x1x32xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<8x1x32xf32>) -> tensor<8x1x32xf32>
  %o = linalg.batch_matmul ins(%p, %values : tensor<8x1x?xf32>, tensor<8x?x32xf32>) outs(%fo : tensor<8x1x32xf32>) -> tensor<8x1x32xf32>
  return %o : tensor<8x1x32xf32>
}
