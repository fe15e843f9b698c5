"""IREE release versions: their order, and the `--releases FIRST:LAST` range a user gives.

Releases are `X.Y.Z`; a nightly is `X.Y.ZrcYYYYMMDD` and sorts before its release, after the one
before it, so dated nightlies bisect between two releases the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from oracles import refusals

_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)(?:(rc|\.dev)(\d+))?$")


def version_key(version: str) -> tuple[int, ...]:
    """A sort key: 3.9.0 < 3.10.0rc20250101 < 3.10.0 < 3.10.1; ValueError for anything else."""
    match = _VERSION.match(version.strip())
    if match is None:
        raise ValueError(refusals.RELEASE_NOT_A_VERSION.say(version=version))
    major, minor, patch, pre, number = match.groups()
    return (int(major), int(minor), int(patch), 0 if pre else 1, int(number or 0))


def is_version(text: str) -> bool:
    return _VERSION.match(text.strip()) is not None


def ordered(versions: list[str]) -> list[str]:
    """The versions, oldest first, without repeats or names that are not versions."""
    return sorted({v for v in versions if is_version(v)}, key=version_key)


@dataclass(frozen=True)
class ReleaseRange:
    """`FIRST:LAST`, either end open (`:3.13.0`, `3.8.0:`), or a list (`3.0.0,3.13.0`); `ALL` when
    the user names none."""

    first: str | None = None
    last: str | None = None
    listed: tuple[str, ...] = ()

    def select(self, versions: list[str]) -> list[str]:
        """The versions inside the range, oldest first."""
        if self.listed:
            return [v for v in ordered(versions) if v in self.listed]
        low = version_key(self.first) if self.first else None
        high = version_key(self.last) if self.last else None
        return [v for v in ordered(versions) if (low is None or version_key(v) >= low) and (high is None or version_key(v) <= high)]

    def spelled(self) -> str:
        return ",".join(self.listed) if self.listed else f"{self.first or ''}:{self.last or ''}"


ALL = ReleaseRange()


def parse_range(text: str | None) -> ReleaseRange:
    """`3.8.0:3.13.0`, `3.8.0:`, `:3.12.0`, one version (that release and the newer ones), a list
    `3.0.0,3.13.0` (those releases only), or None / '' (every release); ValueError (one line) otherwise."""
    if not text:
        return ALL
    if "," in text:
        listed = tuple(v.strip() for v in text.split(",") if v.strip())
        if not all(map(is_version, listed)):
            raise ValueError(refusals.RELEASE_RANGE.say(text=text))
        return ReleaseRange(listed=tuple(ordered(list(listed))))
    first, sep, last = text.partition(":")
    first, last = first.strip() or None, last.strip() or None
    if not sep:
        last = None
    for end in (first, last):
        if end is not None and not is_version(end):
            raise ValueError(refusals.RELEASE_RANGE.say(text=text))
    if first and last and version_key(first) > version_key(last):
        raise ValueError(refusals.RELEASE_RANGE.say(text=text))
    return ReleaseRange(first, last)
