"""The layers are a contract: `lint-imports` checks the import-linter contracts of pyproject.toml
([tool.importlinter]): fuzz above reducer above oracles, the layers inside oracles/, and no import
cycles between the packages of one package. A failure names the import that breaks a layer."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_imports_keep_the_layers():
    # The CLI, in a process of its own: it imports nothing of the project, it reads the sources.
    command = [sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()",
               "--no-cache", "--no-logo"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
