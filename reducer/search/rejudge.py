"""A verdict decided by this tool's own limit is judged once more before it counts.

A compile killed at its time limit or memory cap says as much about the machine's load at that
moment as about the candidate; the second judgement decides (and, still load-dependent, is never
stored on disk: reducer/storage/verdict_store.py). A warm worker that dies is already judged again, as
the tool (oracles/toolchain/warm.py). Module-level so an executor on another machine can run it.
"""

from __future__ import annotations

from oracles import Candidate, Oracle, Verdict


def judge_settled(oracle: Oracle, candidate: Candidate) -> Verdict:
    verdict = oracle.judge(candidate)
    return oracle.judge(candidate) if verdict.limit else verdict
