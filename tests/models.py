"""Small programs the tests (and benchmarks) build: torch-dialect chains with one bad op in them."""

from __future__ import annotations

_META = "attributes {torch.onnx_meta.opset_version = 21 : si64}"
_UNARY = ("onnx.Relu", "onnx.Sigmoid", "onnx.Tanh", "onnx.Neg", "onnx.Abs")


def _vt(shape: tuple[int, ...]) -> str:
    return f"!torch.vtensor<[{','.join(map(str, shape))}],f32>"


def torch_chain(n_ops: int, bad_at: int, bad_op: str, channels: int = 32, size: int = 16, out_channels: int = 64) -> str:
    """A function of about n_ops torch.operator ops on 1xCxSxS tensors; op `bad_at` is `bad_op`.

    bad_op "conv" is a 1x1 onnx.Conv C -> out_channels with its weight a function argument
    (17152 bytes of LDS on gfx942 at the defaults); any other string is emitted as that ONNX op name (e.g. "onnx.NoSuchOp", which the
    importer's legalization rejects). Ops alternate unary activations and adds with a constant.
    """
    x = (1, channels, size, size)
    lines = []
    args = [f"%arg0: {_vt(x)}"]
    value = "%arg0"
    shape = x
    for i in range(n_ops):
        if i == bad_at and bad_op == "conv":
            out = (1, out_channels, size, size)
            args.append(f"%w: !torch.vtensor<[{out_channels},{shape[1]},1,1],f32>")
            lines.append(f'    %v{i} = torch.operator "onnx.Conv"({value}, %w) {{torch.onnx.kernel_shape = [1 : si64, 1 : si64]}} : ({_vt(shape)}, !torch.vtensor<[{out_channels},{shape[1]},1,1],f32>) -> {_vt(out)}')
            shape = out
        elif i == bad_at:
            lines.append(f'    %v{i} = torch.operator "{bad_op}"({value}) : ({_vt(shape)}) -> {_vt(shape)}')
        elif i % 3 == 2:
            lines.append(f'    %c{i} = torch.vtensor.literal(dense<{i}.0> : tensor<{"x".join(map(str, shape))}xf32>) : {_vt(shape)}')
            lines.append(f'    %v{i} = torch.operator "onnx.Add"({value}, %c{i}) : ({_vt(shape)}, {_vt(shape)}) -> {_vt(shape)}')
        else:
            op = _UNARY[i % len(_UNARY)]
            lines.append(f'    %v{i} = torch.operator "{op}"({value}) : ({_vt(shape)}) -> {_vt(shape)}')
        value = f"%v{i}"
    body = "\n".join(lines)
    return f"""module {{
  func.func @main({", ".join(args)}) -> {_vt(shape)} {_META} {{
{body}
    return {value} : {_vt(shape)}
  }}
}}
"""


def global_cache_update(noise_ops: int = 4) -> str:
    """A KV-cache-like global updated with tensor.insert_slice at a dynamic index, plus unrelated math."""
    noise = []
    value = "%x"
    for i in range(noise_ops):
        noise.append(f"    %n{i} = arith.mulf {value}, {value} : tensor<8x16xf32>")
        value = f"%n{i}"
    body = "\n".join(noise)
    return f"""module {{
  util.global private mutable @cache : tensor<64x16xf32>
  func.func @step(%x: tensor<8x16xf32>, %row: tensor<1x16xf32>, %i: index) -> tensor<8x16xf32> {{
    %c = util.global.load @cache : tensor<64x16xf32>
    %u = tensor.insert_slice %row into %c[%i, 0] [1, 16] [1, 1] : tensor<1x16xf32> into tensor<64x16xf32>
    util.global.store %u, @cache : tensor<64x16xf32>
{body}
    return {value} : tensor<8x16xf32>
  }}
}}
"""


def linalg_chain(n_ops: int, bad_at: int, size: int = 64) -> str:
    """About n_ops elementwise arith ops on tensors with a matmul in the middle; at op `bad_at` a
    value is truncated to f6E2M3FN and extended back, which gfx942 codegen cannot store (a
    compile error inside one dispatch: "failed to legalize operation 'vector.store'")."""
    t = f"tensor<{size}x{size}xf32>"
    lines = [f"    %empty = tensor.empty() : {t}", "    %zero = arith.constant 0.0 : f32"]
    lines.append(f"    %acc = linalg.fill ins(%zero : f32) outs(%empty : {t}) -> {t}")
    value = "%x"
    for i in range(n_ops):
        if i == bad_at:
            f6 = f"tensor<{size}x{size}xf6E2M3FN>"
            lines.append(f"    %t{i} = arith.truncf {value} : {t} to {f6}")
            lines.append(f"    %e{i} = arith.extf %t{i} : {f6} to {t}")
            lines.append(f"    %v{i} = linalg.matmul ins(%e{i}, %w : {t}, {t}) outs(%acc : {t}) -> {t}")
        elif i % 2:
            lines.append(f"    %v{i} = arith.mulf {value}, %w : {t}")
        else:
            lines.append(f"    %v{i} = arith.addf {value}, %x : {t}")
        value = f"%v{i}"
    body = "\n".join(lines)
    return f"""module {{
  func.func @main(%x: {t}, %w: {t}) -> {t} {{
{body}
    return {value} : {t}
  }}
}}
"""


def linalg_matmul(m: int, k: int, n: int) -> str:
    """One f32 matmul on linalg (fill + matmul): one dispatch, no global, nothing transient."""
    return f"""
func.func @mm(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<{m}x{n}xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) outs(%init : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %mm : tensor<{m}x{n}xf32>
}}
"""


def matmul_like_block(m: int = 128, k: int = 64, h: int = 56, w: int = 56) -> str:
    """Seed 004's dispatch in linalg: the 1x1 conv as a matmul-like generic (gemmA MxK, gemmB
    KxHxW: one more trailing dim than a matmul) and its elementwise epilogue (bias, quantize /
    dequantize at scale 1/64, residual add, relu). On gfx942 its dispatch needs 50176 bytes of LDS."""
    out = f"tensor<{m}x{h}x{w}xf32>"
    return f"""#lhs = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
#rhs = affine_map<(d0, d1, d2, d3) -> (d3, d1, d2)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#chan = affine_map<(d0, d1, d2) -> (d0)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
module {{
  func.func @matmul_like(%w: tensor<{m}x{k}xf32>, %x: tensor<{k}x{h}x{w}xf32>, %bias: tensor<{m}xf32>, %res: {out}) -> {out} {{
    %zero = arith.constant 0.0 : f32
    %scale = arith.constant 1.562500e-02 : f32
    %lo = arith.constant -128.0 : f32
    %hi = arith.constant 127.0 : f32
    %empty = tensor.empty() : {out}
    %acc = linalg.fill ins(%zero : f32) outs(%empty : {out}) -> {out}
    %mm = linalg.generic {{indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}}
        ins(%w, %x : tensor<{m}x{k}xf32>, tensor<{k}x{h}x{w}xf32>) outs(%acc : {out}) {{
    ^bb0(%a: f32, %b: f32, %c: f32):
      %p = arith.mulf %a, %b : f32
      %s = arith.addf %c, %p : f32
      linalg.yield %s : f32
    }} -> {out}
    %ew = linalg.generic {{indexing_maps = [#id, #chan, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]}}
        ins(%mm, %bias, %res : {out}, tensor<{m}xf32>, {out}) outs(%empty : {out}) {{
    ^bb0(%v: f32, %b: f32, %r: f32, %o: f32):
      %biased = arith.addf %v, %b : f32
      %q = arith.divf %biased, %scale : f32
      %rq = math.roundeven %q : f32
      %cl = arith.maximumf %rq, %lo : f32
      %ch = arith.minimumf %cl, %hi : f32
      %dq = arith.mulf %ch, %scale : f32
      %sum = arith.addf %dq, %r : f32
      %relu = arith.maximumf %sum, %zero : f32
      linalg.yield %relu : f32
    }} -> {out}
    return %ew : {out}
  }}
}}
"""
