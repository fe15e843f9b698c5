"""Since when: a case judged under other IREE releases, each in a cached environment of its own.

`versions.py` orders releases and reads a `--releases` range, `index.py` asks the package index
which releases exist, `environments.py` keeps one environment per release (created once, locked,
size-limited), `remote.py` writes a case and runs the judge (`judge.py`, in that environment's
python) in one of them, `bisect.py` is the search over the ordered releases and `history.py` its
result, `since.py` all of it for one case. Imports the layers of `oracles` below it (the judge
spec and the oracle table among them); `reducer/` and `fuzz/` use it.
"""
