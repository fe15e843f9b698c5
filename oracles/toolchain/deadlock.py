"""Telling a deadlocked compile from a slow one, from what the kernel says about its threads.

A compile whose every thread sleeps (state S: a futex, a pipe, a sleep) while the CPU time of its
whole process tree stays put for `QUIET_S` seconds is waiting for something only itself could
give: a deadlock. It is stopped then rather than at the timeout, and called a hang. A compile
merely starved on a busy machine has runnable threads (state R) and is left alone; so is one in
uninterruptible disk waits (D) or stopped by a debugger (T), which the machine, not the compiler,
holds up. Linux only: elsewhere nothing is ever called a deadlock and the timeout decides.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

QUIET_S = 5.0  # how long everything must sleep with no CPU time before it is a deadlock
POLL_S = 0.5  # how often a waiting caller looks
_PROC = Path("/proc")


def _stat_fields(path: Path) -> list[str] | None:
    """The fields of a /proc stat file after the command name (which may hold spaces)."""
    try:
        text = path.read_text()
    except OSError:  # gone meanwhile
        return None
    return text[text.rfind(")") + 2 :].split()


def process_tree(root: int) -> list[int]:
    """`root` and every process descended from it (a tool's wrapper script runs the real binary).

    Walked down each thread's `children` list: a watch polls twice a second for every compile in
    flight, and reading the stat file of every process on a shared machine (hundreds) made the
    polls a tenth of a reduction's CPU. A kernel without those lists gets the whole scan."""
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        children = _children(pid)
        if children is None:
            return _scanned_tree(root)
        todo.extend(children)
    return tree


def _children(pid: int) -> list[int] | None:
    """The processes `pid`'s threads started ([] when it is gone), or None when the kernel keeps no lists."""
    try:
        tasks = os.listdir(_PROC / str(pid) / "task")
    except OSError:
        return []
    found: list[int] = []
    for task in tasks:
        path = _PROC / str(pid) / "task" / task
        try:
            found += [int(child) for child in (path / "children").read_text().split()]
        except FileNotFoundError:
            if path.is_dir():  # the thread is there, its list is not: no lists on this kernel
                return None
        except OSError:  # gone meanwhile
            continue
    return found


def _scanned_tree(root: int) -> list[int]:
    """`process_tree` from every process's parent, read off the whole of /proc."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir(_PROC)
    except OSError:
        return [root]
    for entry in entries:
        if entry.isdigit():
            fields = _stat_fields(_PROC / entry / "stat")
            if fields is not None:
                children.setdefault(int(fields[1]), []).append(int(entry))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, ()))
    return tree


def snapshot(root: int) -> tuple[int, bool] | None:
    """(CPU ticks of the tree, whether every live thread in it sleeps), or None if it is gone."""
    ticks, sleeping, threads = 0, True, 0
    for pid in process_tree(root):
        try:
            tasks = os.listdir(_PROC / str(pid) / "task")
        except OSError:
            continue
        for task in tasks:
            fields = _stat_fields(_PROC / str(pid) / "task" / task / "stat")
            if fields is None or fields[0] in ("Z", "X"):  # exited
                continue
            threads += 1
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
            sleeping = sleeping and fields[0] == "S"
    return (ticks, sleeping) if threads else None


class DeadlockWatch:
    """Sampled while a process runs: `poll()` is True once it has been deadlocked for `quiet_s`."""

    def __init__(self, pid: int, quiet_s: float = QUIET_S) -> None:
        self.pid = pid
        self.quiet_s = quiet_s
        self._ticks: int | None = None
        self._since = time.monotonic()

    def poll(self) -> bool:
        now = time.monotonic()
        state = snapshot(self.pid)
        if state is None or not state[1] or state[0] != self._ticks:
            self._ticks = None if state is None or not state[1] else state[0]
            self._since = now
            return False
        return now - self._since >= self.quiet_s
