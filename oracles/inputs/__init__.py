"""The user's data for the original: `--inputs` / `--expected-outputs` files read (`readers.py`),
checked against the original's arguments and attached to it (`attach.py`), and the `--dim` sizes
of a program's dynamic dimensions (`dims.py`).

Above the importers: reading a `torch.save` file takes `oracles.torch`, and an ONNX model's
arguments and the values it computes take `oracles.onnx`.
"""
