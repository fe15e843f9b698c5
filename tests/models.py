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
