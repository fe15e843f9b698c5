"""The reducer: search over candidates (delta debugging), input formats and reduction passes."""
