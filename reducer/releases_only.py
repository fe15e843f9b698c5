"""`reduce --releases-only FILE`: since which release a case that is reduced already fails, without reducing it."""

from __future__ import annotations

import time
from dataclasses import dataclass

from oracles import Verdict, refusals
from oracles.releases.history import SinceWhen
from reducer.formats.registry import format_for
from reducer.releases import ReleaseSettings, judge_releases
from reducer.session import Request, load_with_data
from reducer.user_error import UserError


@dataclass
class ReleasesOnly:
    input_path: str
    oracle: str
    verdict: Verdict
    since: SinceWhen
    seconds: float


def releases_only(request: Request, chosen: ReleaseSettings) -> ReleasesOnly:
    """`reduce --releases-only FILE`: one judgement with the installed IREE pins the failure, then the releases."""
    start = time.monotonic()
    case = load_with_data(request)
    oracle = request.oracle
    judging = format_for(request.input_path).judging_oracle(oracle)
    verdict = judging.judge(case)
    if not verdict.interesting:
        raise UserError(refusals.RELEASES_ONLY_NOT_FAILING.say(path=request.input_path, oracle=oracle.name, detail=verdict.detail),
                        refusals.RELEASES_ONLY_NOT_FAILING.exit_code)
    since = judge_releases(case, oracle, verdict, chosen, request.log)
    return ReleasesOnly(str(request.input_path), oracle.name, verdict, since, time.monotonic() - start)
