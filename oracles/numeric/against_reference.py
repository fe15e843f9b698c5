"""What an oracle that judges IREE's answer against a reference's is: one compile with the
candidate's flags (the generic CPU when they name no target), one run, the outputs compared with
the reference's and pinned to the original's wrong share (`--wrong-share`). `reference-mismatch`
(onnx.reference) and `eager-mismatch` (PyTorch eager) are two."""

from __future__ import annotations

from oracles import refusals
from oracles.base import Oracle, OracleOptions, OracleSetupError
from oracles.numeric.wrong_answer import check_share
from oracles.toolchain.flags import with_default_target


class AgainstReference(Oracle):
    warm_ok = True  # a compile failure is only "not interesting"; a worker's crash is re-run isolated
    runs_modules = True
    output_name = "model.vmfb"

    def __init__(self, options: OracleOptions | None = None) -> None:
        super().__init__(options)
        bad_share = check_share(self.options.wrong_share)
        if bad_share:
            raise OracleSetupError(refusals.relayed(bad_share))

    def compile_flags(self, user_flags):
        return with_default_target(list(user_flags))
