"""Loaded by every Python a fault test starts with this folder on PYTHONPATH: the first
EDIT_FAULT_TIMES edits die of a real SIGSEGV, as a crash inside the MLIR bindings would: those
of the edit worker, or with EDIT_FAULT_IN=culprit those the failing-pass step makes in its own
process (the edits of its one-pass repro, not in a worker)."""

import os

if os.environ.get("EDIT_FAULT_TIMES"):
    import ctypes
    import multiprocessing
    from pathlib import Path

    from reducer.search import engine

    _real_apply = engine._apply

    def segfaulting_apply(session, reduction, current, indices):
        process = multiprocessing.current_process().name
        where = process if process in ("MainProcess", "edit-worker") else "culprit"  # the step's own child
        if where == os.environ.get("EDIT_FAULT_IN", "edit-worker"):
            counter = Path(os.environ["EDIT_FAULT_STATE"])
            seen = int(counter.read_text()) if counter.exists() else 0
            if seen < int(os.environ["EDIT_FAULT_TIMES"]):
                counter.write_text(str(seen + 1))
                ctypes.string_at(0)  # a real SIGSEGV, in the worker only
        return _real_apply(session, reduction, current, indices)

    engine._apply = segfaulting_apply
