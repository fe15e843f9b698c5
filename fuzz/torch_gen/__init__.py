"""The PyTorch front end of `fuzz` (`fuzz run --frontend torch`): programs written as PyTorch users
write them, exported with `torch.export`, imported as `reduce` imports a `.pt2`, judged against
PyTorch eager.

Modules, each importing only those before it: `features` (the swarm catalogue), `spec` (the
JSON-round-trippable `TorchSpec`), `draw` and `blocks` (drawing a spec from a seed, no torch),
`modules` (the `nn.Module`s a spec builds), `build` (a spec to a module, its inputs and dynamic
shapes), `export` (the redraw loop: a program `torch.export` takes, made functional, its archive
and imported MLIR), `reference` (PyTorch eager's answers, f64 where half types disagree), `case`
(one case through the campaign's pipelines), `finding` (a finding's `.pt2` and inputs, for `reduce`)
and `forms` (a reduced `.pt2`'s root-cause form).
Only `modules` and the modules after it import torch, and only where a torch case is handled:
`features`, `spec`, `draw` and `blocks` load without it.
"""
