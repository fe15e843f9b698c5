"""What the user gets at the end: a terminal summary and an issue-ready markdown report."""

from __future__ import annotations

from dataclasses import dataclass, field

from oracles import Verdict
from oracles.compiling.dispatch_config import DispatchConfig
from oracles.formats import Format
from oracles.releases.history import SinceWhen
from oracles.toolchain.tools import iree_version
from reducer.culprit import Culprit, markdown_section, summary_lines
from reducer.localize.failure_site import IsolatedDispatch
from reducer.proposal import Proposal
from reducer.search.evaluate import EvaluationStats
from reducer.shapes.shape_search import shapes_kept_by, shapes_of


@dataclass
class Outcome:
    oracle: str
    input_path: str
    output_path: str
    original: Proposal
    best: Proposal
    verdict: Verdict
    command: str
    stats: EvaluationStats
    seconds: float  # the command's, from the process's start (reducer/clock.py)
    jobs: int
    dropped_flags: list[str]
    complete: bool = True
    unit: str = "ops"  # "nodes" for an ONNX model
    imported_path: str | None = None  # ONNX input: the reduced model's iree-import-onnx output
    imported_mlir: str | None = None
    input_text: str | None = None  # ONNX: the reduced model in ONNX's textual syntax (if small); .pt2: its repro script
    script_path: str | None = None  # .pt2 input: the standalone repro script (bug.reduced.py)
    dispatch: IsolatedDispatch | None = None  # the result's failing dispatch, standalone
    culprit: Culprit | None = None  # compile-error / crash: the failing pass, its one-pass repro
    dispatch_config: DispatchConfig | None = None  # lds-limit: how the compiler configured the dispatch
    wrong_value: list[str] = field(default_factory=list)  # miscompile: the dispatch that first computes a wrong value
    symptoms: list[str] = field(default_factory=list)  # IR-phase oracles: the original's symptoms, numbered
    localised: tuple[int, int] | None = None  # (ops of the first candidate, candidates tried) when localisation kept one
    wrong_value_record: dict | None = None  # the same, typed, for --json
    test_reproduces: bool | None = None  # wrong answers: whether the dispatch-level test fails alone (None: none written)
    devices: list[str] = field(default_factory=list)  # numeric oracles: the runtime devices the modules ran on
    parts: dict[str, float] = field(default_factory=dict)  # the wall time by step (they add up to `seconds`)
    pipelines: list[tuple[str, list[str], str]] = field(default_factory=list)  # miscompile: (A or B, final flags, device)
    sizes: dict[str, int] = field(default_factory=dict)  # the size each dynamic dim of the result runs at (--dim keys)
    original_sizes: dict[str, int] = field(default_factory=dict)  # the same of the original
    dynamic_need: str = ""  # ONNX: whether the original, made static at those sizes, still fails
    releases: SinceWhen | None = None  # --releases: since which IREE release the result fails
    shape_stops: list[tuple[str, int, int]] = field(default_factory=list)  # (dim, size, a size that loses it): stopped by the threshold
    shrink_threshold: float = 0.0  # --shrink-threshold the shape searches ran with


def releases_lines(since: SinceWhen | None) -> list[str]:
    """The summary's lines on other releases: the headline after `releases`, the rest under it."""
    if since is None:
        return []
    first, *rest = since.lines()
    return [f"  releases      {first}", *(f"                {line}" for line in rest)]


def _sizes_lines(outcome: Outcome) -> list[str]:
    """Where the original has dynamic dims: the sizes the result runs them at, or that it needs none."""
    need = [f"                {outcome.dynamic_need}"] if outcome.dynamic_need else []
    if outcome.sizes:
        return [f"  sizes         {_spelled(outcome.sizes)} (dynamic dims, run at; the original at {_spelled(outcome.original_sizes)})",
                *need]
    if outcome.original_sizes:
        static = f"none dynamic: the failure does not need a dynamic dim (the original ran at {_spelled(outcome.original_sizes)})"
        return [f"  sizes         {static}", *need]
    return []


def recorded_seconds(seconds: float) -> float:
    """A wall time as `--json` records it; the text rounds this figure again, so both show the same
    (0.04996 s read 0.0 in the text and 0.1 from the JSON's 0.05 when each rounded on its own)."""
    return round(seconds, 3)


def _parts(parts: dict[str, float]) -> str:
    """' (start-up 0.6, original 4.1, ...)': where the wall time went."""
    return f" ({', '.join(f'{name} {recorded_seconds(seconds):.1f}' for name, seconds in parts.items())})" if parts else ""


def _spelled(sizes: dict[str, int]) -> str:
    return ", ".join(f"{key}={size}" for key, size in sizes.items())


def summary(outcome: Outcome) -> str:
    o, b = outcome.original, outcome.best
    state = "reduced" if outcome.complete else "partial result (interrupted)"
    lines = [
        f"reduce: {outcome.oracle} on {outcome.input_path}: {state}",
        f"  {outcome.unit:<14}{o.ops} -> {b.ops}",
        f"  bytes         {o.candidate.size} -> {b.candidate.size}",
        f"  flags         {len(o.candidate.flags)} -> {len(b.candidate.flags)}",
        f"  oracle calls  {outcome.stats.oracle_calls} (cache hits {outcome.stats.cache_hits}{_cache_detail(outcome.stats)})",
        f"  wall time     {recorded_seconds(outcome.seconds):.1f} s with -j {outcome.jobs}{_parts(outcome.parts)}",
        f"  failure       {outcome.verdict.detail}",
        *([f"  devices       {', '.join(outcome.devices)}"] if outcome.devices else []),
        *(f"  pipeline {name}    {' '.join(flags)} (on {device})" for name, flags, device in outcome.pipelines),
        *_sizes_lines(outcome),
        f"  IREE          {iree_version()}",
        f"  wrote         {outcome.output_path}",
        *([f"  imported      {outcome.imported_path}"] if outcome.imported_path else []),
        *([f"  script        {outcome.script_path} (python {outcome.script_path}: torch and IREE only)"] if outcome.script_path else []),
        f"  reproduce     {outcome.command}",
        *_dispatch_lines(outcome.dispatch),
        *_config_lines(outcome.dispatch_config),
        *(summary_lines(outcome.culprit) if outcome.culprit else []),
        *(f"  {line}" for line in outcome.wrong_value),
        *_localised_lines(outcome),
        *_shape_stop_lines(outcome),
        *releases_lines(outcome.releases),
    ]
    before, after = shapes_of(o.candidate), shapes_of(b.candidate)
    kept = shapes_kept_by(b.candidate)
    if kept:
        lines.insert(4, f"  shapes kept   by {kept}")
    if before and before != after:
        lines.insert(4, f"  shapes        {before}\n             -> {after}")
    if outcome.dropped_flags:
        lines.insert(4, f"  not flags     {' '.join(outcome.dropped_flags)} (dropped from the pasted command)")
    return "\n".join(lines)


def _shape_stop_lines(outcome: Outcome) -> list[str]:
    """Which dims a shape search left where its next step would gain less than the threshold, and
    a size known to lose the failure (the smallest lies between)."""
    if not outcome.shape_stops:
        return []
    where = ", ".join(f"{key} at {size} ({above} loses it)" for key, size, above in outcome.shape_stops)
    share = outcome.shrink_threshold
    return [f"  shapes near   {len(outcome.shape_stops)} dims stopped short of their smallest, no step under {share:.0%} taken (--shrink-threshold {share:g}): {where}"]


def _localised_lines(outcome: Outcome) -> list[str]:
    """How many symptoms the original showed (their list is in the log) and where localisation started."""
    lines = []
    if outcome.symptoms:
        kinds = len({line.split(". ", 1)[1].split(" in ")[0] for line in outcome.symptoms})
        lines.append(f"  symptoms      {len(outcome.symptoms)} of {kinds} kinds in the original")
    if outcome.localised is not None:
        ops, tried = outcome.localised
        lines.append(f"  localised     {outcome.original.ops} -> {ops} {outcome.unit} in {tried} candidates")
    return lines


def _cache_detail(stats: EvaluationStats) -> str:
    """How many answers came from earlier runs, how many the oracle gave without a call (a
    candidate that cannot show the failure), how many calls broke (a lost cluster worker), how
    many edits crashed (in the bindings, in the edit worker) and how many compiles ran past their
    time limit twice (--candidate-timeout, else --timeout)."""
    stored = f", {stats.stored_hits} from earlier runs" if stats.stored_hits else ""
    ruled = f"; {stats.ruled_out} more ruled out without a compile" if stats.ruled_out else ""
    failed = f"; {stats.failed_calls} calls failed and counted as uninteresting" if stats.failed_calls else ""
    crashed = f"; {stats.edit_crashes} edits crashed their worker and counted as invalid" if stats.edit_crashes else ""
    slow = f"; {stats.timed_out} compiles stopped at the time limit and counted as uninteresting" if stats.timed_out else ""
    return stored + ruled + failed + crashed + slow


def _dispatch_lines(dispatch: IsolatedDispatch | None) -> list[str]:
    if dispatch is None:
        return []
    alone = "shows the same failure alone" if dispatch.reproduces else "alone it does not show the failure"
    return [f"  dispatch      {dispatch.path} ({alone})", f"  alone         {dispatch.command}"]


def _config_lines(config: DispatchConfig | None) -> list[str]:
    return [f"  configured    {config.describe()} ({config.dispatch})"] if config else []


def _config_section(config: DispatchConfig | None) -> str:
    if config is None:
        return ""
    return f"\n## Dispatch configuration (`{config.dispatch}`)\n\nAs the compiler chose it: {config.describe()}.\n"


def _dispatch_section(dispatch: IsolatedDispatch | None) -> str:
    if dispatch is None:
        return ""
    alone = "Compiled alone it shows the same failure:" if dispatch.reproduces else "Compiled alone it does not show the failure:"
    return f"""
## Failing dispatch (`{dispatch.path}`)

{alone}

```shell
{dispatch.command}
```

```mlir
{dispatch.source.strip()}
```
"""


def _reduced_input(outcome: Outcome) -> str:
    b = outcome.best
    head = f"## Reduced input (`{outcome.output_path}`, {b.ops} {outcome.unit}, {b.candidate.size} bytes)"
    if b.candidate.binary is None:
        return f"{head}\n\n```mlir\n{b.candidate.text.strip()}\n```"
    if b.candidate.format is Format.PT2:  # a .pt2 program: its repro script, then the MLIR it imports to
        parts = [head]
        if outcome.input_text:
            parts += ["", f"As a PyTorch module (`{outcome.script_path}`, runs with torch and the IREE wheels alone):", "",
                      "```python", outcome.input_text.strip(), "```"]
        parts += ["", f"Imported with IREE's FX importer (`{outcome.imported_path}`):", "", "```mlir", b.candidate.text.strip(), "```"]
        return "\n".join(parts)
    parts = [head, "", b.candidate.text.strip()]
    if outcome.input_text:
        parts += ["", "```", outcome.input_text.strip(), "```"]
    if outcome.imported_mlir is not None:
        parts += ["", f"Imported with `iree-import-onnx` (`{outcome.imported_path}`):", "", "```mlir", outcome.imported_mlir.strip(), "```"]
    return "\n".join(parts)


def markdown(outcome: Outcome) -> str:
    b = outcome.best
    excerpt = outcome.verdict.excerpt or outcome.verdict.detail
    return f"""# {outcome.oracle}: {outcome.verdict.detail}

**IREE version:** `{iree_version()}`
{_devices_and_sizes(outcome)}
## Reproduce

```shell
{outcome.command}
```

{_reduced_input(outcome)}
{_dispatch_section(outcome.dispatch)}{_config_section(outcome.dispatch_config)}{markdown_section(outcome.culprit)}{_wrong_value_section(outcome.wrong_value)}{outcome.releases.markdown() if outcome.releases else ""}
## Error

```
{excerpt.strip()}
```

## Reduction

Reduced from {outcome.original.ops} {outcome.unit} / {outcome.original.candidate.size} bytes / {len(outcome.original.candidate.flags)} flags
to {b.ops} {outcome.unit} / {b.candidate.size} bytes / {len(b.candidate.flags)} flags with `reduce --oracle={outcome.oracle}`
({outcome.stats.oracle_calls} oracle calls, {recorded_seconds(outcome.seconds):.1f} s).
"""


def _devices_and_sizes(outcome: Outcome) -> str:
    """The report's lines on where the modules ran and at which sizes (none for a compile failure)."""
    lines = [f"**Devices:** {', '.join(f'`{d}`' for d in outcome.devices)}"] if outcome.devices else []
    lines += [f"**Sizes:** {' '.join(line.strip() for line in _sizes_lines(outcome)).removeprefix('sizes').strip()}"] \
        if outcome.original_sizes else []
    return "\n" + "\n\n".join(lines) + "\n" if lines else ""


def culprit_only_summary(oracle: str, input_path: str, verdict: Verdict, culprit: Culprit | None,
                         config: DispatchConfig | None, seconds: float) -> str:
    """`reduce --culprit-only`: the failure and where it breaks, no reduction figures."""
    lines = [
        f"reduce --culprit-only: {oracle} on {input_path}",
        f"  failure       {verdict.detail}",
        f"  IREE          {iree_version()}",
        f"  wall time     {seconds:.1f} s",
        *_config_lines(config),
        *(summary_lines(culprit) if culprit else []),
    ]
    if config is None and culprit is None:
        lines.append("  configured    no dumped dispatch configuration matched the failing dispatch")
    return "\n".join(lines)


def culprit_only_markdown(oracle: str, verdict: Verdict, culprit: Culprit | None, config: DispatchConfig | None) -> str:
    return f"""# {oracle}: {verdict.detail}

**IREE version:** `{iree_version()}`
{_config_section(config)}{markdown_section(culprit)}"""


def releases_only_summary(found) -> str:
    """`reduce --releases-only`: the failure now, then since when (a `reducer.releases.ReleasesOnly`)."""
    return "\n".join([
        f"reduce --releases-only: {found.oracle} on {found.input_path}",
        f"  failure       {found.verdict.detail}",
        f"  IREE          {iree_version()}",
        *releases_lines(found.since),
        f"  wall time     {found.seconds:.1f} s",
    ])


def releases_only_markdown(found) -> str:
    return f"""# {found.oracle}: {found.verdict.detail}

**IREE version:** `{iree_version()}`
{found.since.markdown()}"""


def _wrong_value_section(lines: list[str]) -> str:
    """Where the wrong value is first computed (miscompile localisation), as a report section."""
    if not lines:
        return ""
    body = "\n".join(lines)
    return f"## Where the wrong value is computed\n\n```\n{body}\n```\n\n"
