"""The passes on PyTorch programs (a `.pt2`'s FX graph): one module per pass, rows in ../registry.py."""
