"""Since when: a case judged under other IREE releases, each in a cached environment of its own.

`versions.py` orders releases and reads a `--releases` range, `index.py` asks the package index
which releases exist, `environments.py` keeps one environment per release (created once, locked,
size-limited), `remote.py` runs the judge (`oracles/releases/judge.py`) in one of them,
`bisect.py` is the search over the ordered releases and `history.py` its result. Imports only
`oracles`; `reducer/` and `fuzz/` use it.
"""
