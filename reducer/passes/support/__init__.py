"""What passes (and localisation) share but that is not a pass: the edit protocols of ONNX models
and FX graphs, value replacement and signature edits on MLIR, the plain-value ladders, and the
user's data following the arguments through an edit."""
