"""`reduce --culprit-only FILE`: where a case that is already reduced breaks, without reducing it.

One judgement of FILE pins the failure's signature (the original's, as a reduction would); the
culprit step (or, for lds-limit, the dispatch configuration) follows. The files go beside FILE,
or beside `-o`.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from pathlib import Path

from oracles import Verdict, refusals
from oracles.base import renamed
from oracles.compiling.dispatch_config import DispatchConfig
from reducer.culprit import CULPRIT_ORACLES, Culprit, step_process_ahead, where_it_breaks
from reducer.formats.registry import format_for
from reducer.search.interrupt import Interruption
from reducer.session import Request, load_reduced
from reducer.user_error import INTERRUPTED, UserError


@dataclass
class CulpritOnly:
    oracle: str
    input_path: str
    verdict: Verdict
    culprit: Culprit | None
    dispatch_config: DispatchConfig | None
    seconds: float


def culprit_only(request: Request, base: Path) -> CulpritOnly:
    """The culprit step on `request.input_path`; its files are named after `base`."""
    if request.oracle.name not in (*CULPRIT_ORACLES, "lds-limit"):
        raise UserError(refusals.CULPRIT_ONLY_ORACLE.say(oracle=request.oracle.name))
    case = load_reduced(request)
    start = time.monotonic()
    fmt = format_for(request.input_path)
    oracle = fmt.judging_oracle(request.oracle)
    ahead = step_process_ahead(request.oracle, request.jobs, True, request.warm)  # it loads the step while FILE is judged
    with Interruption().installed() as interruption, ahead or contextlib.nullcontext() as process:
        verdict = renamed(oracle.judge(case), f"input{case.suffix}", request.input_path.name)
        if interruption.requested:
            raise UserError(refusals.INTERRUPTED_NOTHING_WRITTEN.say(), INTERRUPTED)
        if not verdict.interesting:
            raise UserError(refusals.CULPRIT_ONLY_NOT_INTERESTING.say(path=request.input_path, oracle=oracle.name, detail=verdict.detail),
                            refusals.CULPRIT_ONLY_NOT_INTERESTING.exit_code)
        mlir = fmt.mlir_of(case, request.oracle)  # a model's or a program's imported MLIR: the culprit is found on that
        culprit, config = where_it_breaks(request.oracle, mlir, verdict, base, request.jobs, request.log, interruption,
                                          warm=request.warm, process=process)
    return CulpritOnly(oracle.name, str(request.input_path), verdict, culprit, config, time.monotonic() - start)

