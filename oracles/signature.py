"""Failure signatures: compiler output normalised so one bug keeps one identity while it shrinks.

Locations, file names, SSA names, symbol names and numbers are stripped; the op that reported
the error and the message shape stay. The fuzzer's dedup uses the same functions.
"""

from __future__ import annotations

import re

_LOCATION = re.compile(r"^(?:[^\s:]+|<[^>]+>):\d+:\d+:\s*")
_UNKNOWN_LOCATION = re.compile(r"^(?:[^\s:]*):0:0:\s*")
_SSA = re.compile(r"%[\w$.#-]+")
# A dispatch's function name spells its shapes and types ('main$async_dispatch_1_conv_2x65x6x123_f32'):
# the same failure in another graph names another dispatch.
_DISPATCH_NAME = re.compile(r"[\w$]*_dispatch_\d+[\w$]*")
_SYMBOL = re.compile(r"@[\"\w$.#-]+")
_NUMBER = re.compile(r"(?<!\w)-?\d+(?:\.\d+)?(?:e[+-]?\d+)?")
# A shaped type's dims once its first is N ("tensor<Nx16xi1>"; `_NUMBER` cannot tell "x16" from a
# name): a reduction shrinks them, drops or adds a unit dim, makes one dynamic, and the bug stays
# (Vulkan's online_attention left as a memref of rank 3, of rank 4 from a grouped-query broadcast,
# or with a dynamic batch is one bug), so the dims are one N whatever their number: "tensor<Nxi1>".
_DIMS = re.compile(r"(?<![\w.])(?:N|\?)(?:x(?:\d+|N|\?))*(?=x)")
# A strided layout's strides, one per dim: their number is the rank again.
_STRIDES = re.compile(r"strided<\[[^\]]*\]")
_PATH = re.compile(r"(?<![\w])(?:/[\w.+-]+)+")  # a path, not the slash of "input/output"
_HEX = re.compile(r"0x[0-9a-fA-F]+")
_SPACES = re.compile(r"\s+")
# An op printed inside a message ("... marked illegal: %? = "arith.fptoui"(%?) : (f32) -> i8"): its
# operands, attributes and types change as the input shrinks, its name is the bug.
_PRINTED_OP = re.compile(r'(?:%\?(?::N)?(?:, %\?)*) = "([\w.]+)"\(.*$')
# A `torch.operator`'s own op is its name attribute: an ONNX node's type ("onnx.Conv") or, from the FX
# importer, the ATen op no lowering took ("torch.aten.diff"): two such ops are two bugs.
_OPERATOR_NAME = re.compile(r'name = "((?:onnx|torch)\.[\w.]+)"')
# A stack frame of LLVM's crash handler: "#4 0x00007f... mlir::Foo::bar(args) File.cpp:0:0".
_FRAME = re.compile(r"^\s*#\d+\s+0x[0-9a-fA-F]+\s+(.+?)(?:\s+\S+:\d+:\d+)?$")
_HANDLER_FRAMES = ("llvm::sys::", "SignalHandler", "/lib", "libc.so", "__libc_start", "_start")
# Generic IR machinery every crash passes through; the frames after it say where the bug is.
_MACHINERY_FRAMES = ("mlir::detail::", "mlir::Operation::", "mlir::OpBuilder::", "llvm::function_ref", "std::", "void llvm::function_ref")
CRASH_FRAMES = 3

_CRASH_MARKERS = (
    "Assertion",
    "PLEASE submit a bug report",
    "Stack dump:",
    "LLVM ERROR:",
    "UNREACHABLE executed",
    "Segmentation fault",
)


def strip_loc_attributes(text: str) -> str:
    """Drops printed `loc(...)` attributes (ops in messages carry them under --mlir-print-debuginfo)."""
    out, i = [], 0
    while True:
        start = text.find("loc(", i)
        if start < 0 or (start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_")):
            if start < 0:
                out.append(text[i:])
                return "".join(out).rstrip()
            out.append(text[i : start + 4])
            i = start + 4
            continue
        depth, j, quoted = 0, start + 3, False
        while j < len(text):
            char = text[j]
            if char == '"' and text[j - 1] != "\\":
                quoted = not quoted
            elif not quoted and char == "(":
                depth += 1
            elif not quoted and char == ")":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        out.append(text[i:start].rstrip())
        i = j + 1


def normalise(line: str) -> str:
    """Strips what varies between reductions of one failure; keeps the message shape."""
    text = _LOCATION.sub("", strip_loc_attributes(line.strip()))
    text = _UNKNOWN_LOCATION.sub("", text)
    text = _HEX.sub("0x?", text)
    text = _PATH.sub("<path>", text)
    text = _DISPATCH_NAME.sub("<dispatch>", text)
    text = _SSA.sub("%?", text)
    text = _SYMBOL.sub("@?", text)
    text = _NUMBER.sub("N", text)
    text = _DIMS.sub("N", text)
    text = _STRIDES.sub("strided<[N]", text)
    text = _PRINTED_OP.sub(_printed_op_name, text)
    return _SPACES.sub(" ", text).strip()


def _printed_op_name(match: re.Match) -> str:
    operator = _OPERATOR_NAME.search(match.group(0))
    return f'"{match.group(1)}"' + (f" ({operator.group(1)})" if operator else "")


def first_error(stderr: str) -> str:
    """The first `error:` diagnostic line, as the compiler printed it (location included)."""
    for line in stderr.splitlines():
        if "error:" in line:
            return line.strip()
    for line in stderr.splitlines():
        if line.strip():
            return line.strip()
    return ""


def error_lines(stderr: str) -> list[str]:
    """Every `error:` diagnostic line, in the order printed."""
    return [line.strip() for line in stderr.splitlines() if "error:" in line]


# Errors IREE reports on top of another one (the pass or translation that contained it failed):
# they name no bug of their own.
_FOLLOW_ON = re.compile(
    r"failed to run translation of source executable|conversion to vm\.module failed|"
    r"failed to translate the MLIR LLVM dialect|failed to serialize executable|failed to translate executables|"
    r"Failures have been detected while processing an MLIR pass pipeline|failed to link executables|"
    r"failed to run configuration of source executable|failed to configure executables"
)


def is_follow_on(text: str) -> bool:
    """An error (or signature) that IREE reports on top of another one."""
    return bool(_FOLLOW_ON.search(text))


def root_error_lines(stderr: str) -> list[str]:
    """The error lines that are not follow-ons of another error (all of them if every one is)."""
    lines = error_lines(stderr)
    roots = [line for line in lines if not _FOLLOW_ON.search(line)]
    return roots or lines[:1]


def error_signature(stderr: str) -> str:
    """'error: <normalised message>' for the first error the compiler reported."""
    line = first_error(stderr)
    if "error:" in line:
        return "error: " + normalise(line.split("error:", 1)[1])
    return normalise(line)


def is_crash(returncode: int, stderr: str) -> bool:
    return returncode < 0 or any(marker in stderr for marker in _CRASH_MARKERS)


def crash_signature(returncode: int, stderr: str, signal_name: str | None) -> str:
    """'crash: SIGNAL: <normalised assertion, fatal message, error, or the innermost stack frames>'.

    A compiler that dies in its own signal handler exits with a code that varies from run to run,
    so only a real signal name goes into the signature, never the exit code.
    """
    reason = ""
    for line in stderr.splitlines():
        if any(marker in line for marker in ("Assertion", "LLVM ERROR:", "UNREACHABLE")):
            reason = normalise(line)
            break
    if not reason:
        reason = error_signature(stderr) if "error:" in stderr else " <- ".join(crash_frames(stderr))
    head = signal_name or "died"
    return f"crash: {head}: {reason}".rstrip(": ")


def crash_frames(stderr: str, limit: int = CRASH_FRAMES) -> list[str]:
    """The innermost functions of the crash handler's stack dump, argument lists dropped."""
    frames = []
    for line in stderr.splitlines():
        match = _FRAME.match(line)
        if not match or any(marker in match.group(1) for marker in _HANDLER_FRAMES):
            continue
        name = match.group(1).split("(", 1)[0].strip()
        if name.startswith(_MACHINERY_FRAMES) or (frames and frames[-1] == name):
            continue
        frames.append(name)
        if len(frames) == limit:
            break
    return frames


def excerpt(stderr: str, max_lines: int = 25) -> str:
    """The first lines of the error output, for reports (warnings before the first error skipped)."""
    lines = stderr.splitlines()
    start = next((i for i, line in enumerate(lines) if "error:" in line or "Assertion" in line), 0)
    return "\n".join(lines[start : start + max_lines])
