"""The differential fuzzer (generation, pipelines, triage); imports `oracles` and `reducer`."""
