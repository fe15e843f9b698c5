// One decode step of a Llama-style attention layer (seed 000). As in the original report, the
// KV cache is one global state tensor (K and V stacked on dim 0); each step the new key/value
// rows are concatenated to the cached context [0, step) and the newest row is written back.
util.global private mutable @global_state : tensor<2x8x64x32xf32> = dense<0.0> : tensor<2x8x64x32xf32>
util.global private mutable @seq_step : index = 0 : index
func.func @run_forward(%x: tensor<1x256xf32>, %wq: tensor<256x256xf32>, %wkv: tensor<256x512xf32>, %norm_w: tensor<256xf32>) -> tensor<8x1x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %eps = arith.constant 1.0e-05 : f32
  %inv_n = arith.constant 0.00390625 : f32
  %step = util.global.load @seq_step : index
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
  // Q and the fused KV projection.
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x256xf32>) -> tensor<1x256xf32>
  %q = linalg.matmul ins(%h, %wq : tensor<1x256xf32>, tensor<256x256xf32>) outs(%f2 : tensor<1x256xf32>) -> tensor<1x256xf32>
  %ekv = tensor.empty() : tensor<1x512xf32>
  %fkv = linalg.fill ins(%zero : f32) outs(%ekv : tensor<1x512xf32>) -> tensor<1x512xf32>
  %kv = linalg.matmul ins(%h, %wkv : tensor<1x256xf32>, tensor<256x512xf32>) outs(%fkv : tensor<1x512xf32>) -> tensor<1x512xf32>
  %kvflat = tensor.collapse_shape %kv [[0, 1]] : tensor<1x512xf32> into tensor<512xf32>
  %kvrow = tensor.expand_shape %kvflat [[0, 1, 2, 3]] output_shape [2, 8, 1, 32] : tensor<512xf32> into tensor<2x8x1x32xf32>
  // The growing context: cached rows [0, step) concatenated with the new row.
  %state = util.global.load @global_state : tensor<2x8x64x32xf32>
  %past = tensor.extract_slice %state[0, 0, 0, 0] [2, 8, %step, 32] [1, 1, 1, 1] : tensor<2x8x64x32xf32> to tensor<2x8x?x32xf32>
  %context = tensor.concat dim(2) %past, %kvrow : (tensor<2x8x?x32xf32>, tensor<2x8x1x32xf32>) -> tensor<2x8x?x32xf32>
  // Write the newest row back into the state at `step`.
  %last = tensor.extract_slice %context[0, 0, %step, 0] [2, 8, 1, 32] [1, 1, 1, 1] : tensor<2x8x?x32xf32> to tensor<2x8x1x32xf32>
  %updated = tensor.insert_slice %last into %state[0, 0, %step, 0] [2, 8, 1, 32] [1, 1, 1, 1] : tensor<2x8x1x32xf32> into tensor<2x8x64x32xf32>
  util.global.store %updated, @global_state : tensor<2x8x64x32xf32>
  %next = arith.addi %step, %c1 : index
  util.global.store %next, @seq_step : index
  // Attention of the new query over the context.
  %len = tensor.dim %context, %c2 : tensor<2x8x?x32xf32>
  %keys = tensor.extract_slice %context[0, 0, 0, 0] [1, 8, %len, 32] [1, 1, 1, 1] : tensor<2x8x?x32xf32> to tensor<8x?x32xf32>
  %values = tensor.extract_slice %context[1, 0, 0, 0] [1, 8, %len, 32] [1, 1, 1, 1] : tensor<2x8x?x32xf32> to tensor<8x?x32xf32>
  %qflat = tensor.collapse_shape %q [[0, 1]] : tensor<1x256xf32> into tensor<256xf32>
  %qb = tensor.expand_shape %qflat [[0, 1, 2]] output_shape [8, 1, 32] : tensor<256xf32> into tensor<8x1x32xf32>
  %es = tensor.empty(%len) : tensor<8x1x?xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<8x1x?xf32>) -> tensor<8x1x?xf32>
  %scores = linalg.generic {indexing_maps = [affine_map<(b, m, n, d) -> (b, m, d)>, affine_map<(b, m, n, d) -> (b, n, d)>, affine_map<(b, m, n, d) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%qb, %keys : tensor<8x1x32xf32>, tensor<8x?x32xf32>) outs(%fs : tensor<8x1x?xf32>) {
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
