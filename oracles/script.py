"""script: an external interestingness test; exit 0 means interesting (C-Reduce / llvm-reduce convention)."""

from __future__ import annotations

import shlex
from pathlib import Path

from oracles import refusals
from oracles.base import Oracle, OracleSetupError
from oracles.candidate import Candidate
from oracles.toolchain.tools import run_tool
from oracles.verdict import Verdict


class Script(Oracle):
    name = "script"

    def __init__(self, options=None) -> None:
        super().__init__(options)
        if not self.options.cmd:
            raise OracleSetupError(refusals.SCRIPT_NEEDS_CMD.say())

    def command_for(self, path: str) -> str:
        cmd = self.options.cmd or ""
        return cmd.replace("{}", shlex.quote(path)) if "{}" in cmd else f"{cmd} {shlex.quote(path)}"

    def reproduce_command(self, candidate: Candidate, path: str) -> str:
        return self.command_for(path)

    def observe(self, candidate: Candidate, workdir: Path) -> Verdict:
        path = workdir / f"candidate{candidate.suffix}"
        candidate.write(path)
        command = self.command_for(str(path))
        env_flags = shlex.join(candidate.flags)
        result = run_tool(
            ["/bin/sh", "-c", f"IREE_FLAGS={shlex.quote(env_flags)}; export IREE_FLAGS; {command}"],
            self.options.limits,
            cwd=str(Path.cwd()),
        )
        output = (result.stdout + result.stderr).strip()
        if result.timed_out:
            return Verdict(False, "timeout", f"script timed out after {result.seconds:.0f} s")
        if result.returncode == 0:
            return Verdict(True, "script: exit 0", "the script exits 0", excerpt=output[-4000:])
        return Verdict(False, "", f"the script exits {result.returncode}", excerpt=output[-4000:])
