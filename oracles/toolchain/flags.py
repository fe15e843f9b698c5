"""Compile flags: what a user pastes from a bug report, and the targets oracles add.

A pasted command line carries words that are not flags of the failure (the `iree-compile`
word, the input path, `-o out`, shell redirections) and flags that only dump diagnostics; both
are dropped here so the reducer works on flags that can matter.
"""

from __future__ import annotations

import difflib
import os
import re
import shlex
from dataclasses import dataclass, field

from oracles import refusals
from oracles.toolchain.compiler_options import CompilerOptions, compiler_options

GFX942 = ("--iree-hal-target-device=hip", "--iree-rocm-target=gfx942")
GENERIC_CPU = (
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=generic",
)

# Every value `--compile-to=` takes in IREE 3.13, in pipeline order.
PHASES = (
    "input",
    "abi",
    "preprocessing",
    "global-optimization",
    "dispatch-creation",
    "flow",
    "stream",
    "executable-sources",
    "executable-configurations",
    "executable-targets",
    "hal",
    "vm",
    "end",
)
# The phases that compile the dispatches' code: a failure first seen there is a dispatch's.
CODEGEN_PHASES = ("executable-configurations", "executable-targets")
# Constant evaluation: JIT-compiling a program's initializers for the host and running them, at
# the end of global-optimization (40% of a compile of a small conv with constant weights).
CONST_EVAL = "--iree-opt-const-eval"


def judging_shortcuts(user_flags: list[str] | tuple[str, ...], stop_phase: str) -> tuple[str, ...]:
    """Flags that skip work a failure at `stop_phase` may not need: constant evaluation, when the
    failure is past the phase it runs in and the user left it as it is. Unlike stopping at the
    phase, this is no prefix of the user's compile (a conv on constants fails only when it is not
    folded), so a result judged with them is judged again without (ReductionProblem.retreat)."""
    if stop_phase not in PHASES or PHASES.index(stop_phase) <= PHASES.index("global-optimization"):
        return ()
    if any(flag.split("=", 1)[0] == CONST_EVAL for flag in user_flags):
        return ()
    return (f"{CONST_EVAL}=false",)


# Flags renamed since older bug reports were written (old name -> new name, without dashes); a
# rename applies only when the installed compiler rejects the old name and accepts the new one, and
# the other way round for an older compiler (oracles/releases/: a case judged under an old release).
_RENAMES = {
    "iree-hip-target": "iree-rocm-target",
    "iree-rocm-target-chip": "iree-rocm-target",
    "iree-cuda-llvm-target-arch": "iree-cuda-target",
    "iree-flow-enable-aggressive-fusion": "iree-dispatch-creation-enable-aggressive-fusion",
}
_PREFIX_RENAMES = (("iree-hip-", "iree-rocm-"), ("iree-llvm-", "iree-llvmcpu-"))
# Flags that only print or dump: they never change what the compiler does.
_DIAGNOSTIC_PREFIXES = (
    "mlir-print-ir",
    "mlir-print-debuginfo",
    "mlir-print-op-on-diagnostic",
    "mlir-elide",
    "mlir-timing",
    "mlir-disable-threading",
    "iree-hal-dump-",
    "dump-compilation-phases-to",
    "iree-scheduling-dump-",
)
_OUTPUT_NAMES = ("o", "output-file")
_COMMAND_ENDS = {"|", "||", "|&", "&&", ";", "&"}
# A redirection: `>`, `2>>`, `&>`, `<`, `2>&1`, `>out.txt` (fd, operator, dup marker, target).
_REDIRECTION = re.compile(r"^(\d*|&)(>>?|<)(&?)(.*)$")
_ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_GPU_DEVICES = ("hip", "rocm", "cuda", "vulkan", "metal")


class PasteError(ValueError):
    """The pasted command line cannot be split into words; the message is one line."""


@dataclass
class PastedCommand:
    flags: list[str]
    dropped: list[str] = field(default_factory=list)
    renamed: list[tuple[str, str]] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)  # flags the installed compiler rejects
    suggestions: dict[str, str] = field(default_factory=dict)  # unknown flag -> the nearest accepted one

    def rejection(self) -> str:
        """One line for the user when the installed compiler rejects some pasted flags."""
        hints = "".join(f"; did you mean {new} for {old}?" for old, new in self.suggestions.items())
        return refusals.FLAG_REJECTED.say(flags=", ".join(self.unknown), hints=hints)


def pasted_words(words: list[str]) -> list[str]:
    """The words of a command line pasted as one string (continuations, quotes, backticks) or as argv."""
    if len(words) != 1 or not any(c in words[0] for c in " \t\n"):
        return [w for w in words if w not in ("\\", "\\\n")]
    text = re.sub(r"\\\r?\n", " ", words[0]).strip().strip("`")
    try:
        return shlex.split(text)
    except ValueError as err:
        raise PasteError(refusals.PASTE_UNSPLITTABLE.say(error=err)) from None


def _is_compiler(word: str) -> bool:
    return os.path.basename(word).startswith("iree-compile")


def _command_start(tokens: list[str]) -> int:
    """Where the compiler's own arguments begin: after a prompt, `VAR=value` assignments and the
    `iree-compile` word(s); 0 when the paste is flags only."""
    at = next((i for i, token in enumerate(tokens) if _is_compiler(token)), None)
    if at is None:
        return next((i for i, token in enumerate(tokens) if not _ENV_ASSIGNMENT.match(token)), len(tokens))
    while at < len(tokens) and _is_compiler(tokens[at]):
        at += 1
    return at


def _resolve(name: str, options: CompilerOptions | None) -> str:
    """The name this compiler knows the flag by: itself, or its rename when only that is accepted."""
    if options is None:
        return _RENAMES.get(name, name)
    if options.accepts(name):
        return name
    renamed = _RENAMES.get(name)
    if renamed is not None and options.accepts(renamed):
        return renamed
    for old, new in _PREFIX_RENAMES:
        if name.startswith(old) and options.accepts(new + name[len(old) :]):
            return new + name[len(old) :]
    # The other direction: a newer name, for an older compiler (a case judged under an older release).
    older = [old for old, new in _RENAMES.items() if new == name]
    older += [old + name[len(new) :] for old, new in _PREFIX_RENAMES if name.startswith(new)]
    return next((old for old in older if options.accepts(old)), name)


def parse_pasted(words: list[str], options: CompilerOptions | None | bool = True) -> PastedCommand:
    """Turns a pasted `iree-compile ...` command line into the flags that may matter.

    Each flag comes out as `--name` or `--name=value` whether it was pasted as `--name value`,
    `-name=value` or `--name="value"`; whether a flag takes the next word as its value is the
    compiler's own answer (`oracles/toolchain/compiler_options.py`). The input path, `-o out` / `-oout`,
    redirections, pipes, a prompt or `VAR=value` before the command and dump-only flags are
    dropped; a flag this compiler rejects is renamed when its new name is known, else listed in
    `unknown`. `options=True` asks the installed compiler.
    """
    tokens = pasted_words(words)
    if options is True:
        options = compiler_options() if tokens else None
    start = _command_start(tokens)
    result = PastedCommand(flags=[], dropped=tokens[:start])
    i = start
    while i < len(tokens):
        token = tokens[i]
        i += 1
        if token in _COMMAND_ENDS:
            result.dropped.extend(tokens[i - 1 :])
            break
        redirection = _REDIRECTION.match(token)
        if redirection is not None:
            takes_target = not redirection.group(4) and not redirection.group(3)
            result.dropped.extend(tokens[i - 1 : i + takes_target])
            i += takes_target
            continue
        if not token.startswith("-") or token in ("-", "--"):
            result.dropped.append(token)  # the input path (or `-`, stdin)
            continue
        name, has_value, value = token.lstrip("-").partition("=")
        if name in _OUTPUT_NAMES or (token.startswith("-o") and not token.startswith("--") and not _known(name, options)):
            takes_target = name in _OUTPUT_NAMES and not has_value
            result.dropped.extend(tokens[i - 1 : i + takes_target])
            i += takes_target
            continue
        resolved = _resolve(name, options)
        consumed = [token]
        if not has_value and options and options.takes_value(resolved) and i < len(tokens) and tokens[i] not in _COMMAND_ENDS:
            has_value, value = "=", tokens[i]
            consumed.append(tokens[i])
            i += 1
        if resolved.startswith(_DIAGNOSTIC_PREFIXES):
            result.dropped.extend(consumed)
            continue
        flag = f"--{resolved}{has_value}{_absolute_if_path(value)}"
        if resolved != name:
            result.renamed.append((" ".join(consumed), flag))
        elif options and not options.accepts(name):
            result.unknown.append(token)
            close = difflib.get_close_matches(name, options.names, n=1, cutoff=0.8)
            if close:
                result.suggestions[token] = f"--{close[0]}"
        result.flags.append(flag)
    return result


@dataclass
class Respelled:
    """Flags as one compiler names them: the flags, the renames made and the names it has none for."""

    flags: list[str]
    renamed: list[tuple[str, str]] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)


def respelled(flags: list[str] | tuple[str, ...], options: CompilerOptions | None | bool = True) -> Respelled:
    """`--name[=value]` flags with each name as this compiler accepts it (renamed either way, as
    `parse_pasted` does), nothing dropped; `options=True` asks the installed compiler."""
    if options is True:
        options = compiler_options() if flags else None
    result = Respelled([])
    for flag in flags:
        name, has_value, value = flag.lstrip("-").partition("=")
        resolved = _resolve(name, options) if flag.startswith("--") else name
        if resolved != name:
            result.renamed.append((flag, f"--{resolved}{has_value}{value}"))
            flag = f"--{resolved}{has_value}{value}"
        elif options and flag.startswith("-") and not options.accepts(name):
            result.unknown.append(flag)
        result.flags.append(flag)
    return result


def _absolute_if_path(value: str) -> str:
    """A relative path to an existing file or directory, made absolute: compiles run elsewhere."""
    if value and not os.path.isabs(value) and ("/" in value or "." in value) and os.path.exists(value):
        return os.path.abspath(value)
    return value


def _known(name: str, options: CompilerOptions | None) -> bool:
    return bool(options) and options.accepts(name)


def names_any_target(flags: list[str] | tuple[str, ...]) -> bool:
    return any(f.startswith(("--iree-hal-target-device=", "--iree-hal-target-backends=")) for f in flags)


def names_gpu_target(flags: list[str] | tuple[str, ...]) -> bool:
    for flag in flags:
        if flag.startswith(("--iree-hal-target-device=", "--iree-hal-target-backends=")):
            value = flag.split("=", 1)[1]
            if any(value.startswith(device) for device in _GPU_DEVICES):
                return True
    return False


def gpu_backend(flags: list[str] | tuple[str, ...]) -> str:
    """'rocm', 'cuda', 'vulkan' or '' for the GPU the flags target."""
    for flag in flags:
        if flag.startswith(("--iree-hal-target-device=", "--iree-hal-target-backends=")):
            value = flag.split("=", 1)[1]
            if value.startswith(("hip", "rocm")):
                return "rocm"
            for name in ("cuda", "vulkan", "metal"):
                if value.startswith(name):
                    return name
    return ""


def without_phase(flags: list[str] | tuple[str, ...]) -> list[str]:
    """Drops any --compile-to the user gave, for oracles that choose the phase themselves."""
    return [f for f in flags if not f.startswith("--compile-to")]


# Target options that imply their device: what `reduce` leaves once the device flag is dropped.
_IMPLIED_DEVICE = {
    "--iree-hal-local-target-device-backends=": "local",
    "--iree-rocm-target=": "hip",
    "--iree-cuda-target=": "cuda",
    "--iree-vulkan-target=": "vulkan",
}


def implied_device(flags: list[str] | tuple[str, ...]) -> str | None:
    """The device a target option implies (`--iree-rocm-target=gfx1100` -> 'hip'), or None."""
    for flag in flags:
        for prefix, device in _IMPLIED_DEVICE.items():
            if flag.startswith(prefix):
                return device
    return None


def with_device(flags: list[str] | tuple[str, ...], default: tuple[str, ...], accepts=names_any_target) -> list[str]:
    """`flags` with a target: as they are when `accepts` them, with only the device flag when a
    target option implies it (a command that names two targets is no repro), else `default` first."""
    if accepts(flags):
        return list(flags)
    device = implied_device(flags)
    default_device = next((f.split("=", 1)[1] for f in default if f.startswith("--iree-hal-target-device=")), None)
    if device is not None and (device == default_device or accepts([f"--iree-hal-target-device={device}"])):
        return [f"--iree-hal-target-device={device}", *flags]
    return [*default, *flags]


def with_default_target(flags: list[str] | tuple[str, ...], default: tuple[str, ...] = GENERIC_CPU) -> list[str]:
    return with_device(flags, default)
