"""Drawing the fuzzer's `GraphSpec`s: swarm features, one chooser for Hypothesis or a seed, blocks.

Modules, each importing only those before it: `choosers` (Hypothesis or `random.Random` behind
one interface), `features` (the swarm catalogue and its draw), `ranges` (the bounds that keep a
case fast and its reference exact, and the sizes and parameters drawn from), `graph` (the graph
under construction), `geometry` (conv and matmul shapes), `operands` (inputs, weights and finishes
the blocks share), `conv_block`, `matmul_block` and `quant_block` (one per op family),
`epilogues`, and `draw` (the whole case: `graph_specs`, `spec_for_seed`).
"""
