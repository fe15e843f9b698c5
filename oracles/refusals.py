"""Every refusal a user can see, in one catalogue: the line the tool prints, its cause, what to do.

`reduce` and `fuzz` refuse bad input, limits that make no sense and failures that are not the
compiler's in one line. Each such line is an entry here and each raise site builds its message
with `ENTRY.say(field=value)`, so a message is written once: `docs/gen.py` writes the
troubleshooting page from this list, and `tests/test_refusals.py` fails when code raises a
user-facing error whose message is not built from an entry. Nothing here imports the rest of
the project: `oracles/`, `reducer/` and `fuzz/` all use it.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass

# Topics, in the order the troubleshooting page lists them.
COMMAND_LINE = "The command line and its limits"
INPUT = "The input file"
ORACLE_OPTIONS = "Oracle options"
USER_DATA = "Your data and sizes (--inputs, --expected-outputs, --dim)"
ARGUMENTS = "The program's arguments and types"
NOT_THE_COMPILER = "A failure that is not the compiler's"
DEVICES = "Devices and GPUs"
STATE = "Resume state, verdict cache, cluster, corpus"
OUTCOME = "The original and the result"
RELEASES = "Other IREE releases (--releases)"
FUZZ = "fuzz"
TOPICS = (COMMAND_LINE, INPUT, ORACLE_OPTIONS, USER_DATA, ARGUMENTS, NOT_THE_COMPILER, DEVICES, STATE, OUTCOME, RELEASES, FUZZ)


# --- Exit statuses ----------------------------------------------------------------------------------
# Every status `reduce` and `fuzz` end with, in one place: the raise sites and the commands use these
# names, and docs/gen.py writes the outputs page's table from EXIT_STATUSES.

EXIT_OK = 0
EXIT_REFUSED = 1  # a one-line refusal (the entries below whose exit_code is not given), or a command line that does not parse
EXIT_NOT_INTERESTING = 2
EXIT_FLAKY = 3  # reduce: the result did not fail on its final check
EXIT_CHANGED = 3  # fuzz nightly / fuzz conformance: a corpus entry or a node test changed outcome
EXIT_INTERRUPTED = 130  # Ctrl-C; `reduce` ends with 128 + the signal's number for SIGTERM and SIGHUP too (129, 143)


@dataclass(frozen=True)
class ExitStatus:
    code: int
    commands: str  # the commands that end with it
    meaning: str


EXIT_STATUSES: tuple[ExitStatus, ...] = (
    ExitStatus(EXIT_OK, "reduce, fuzz", "done: the result is written (reduce), the command finished (fuzz)"),
    ExitStatus(EXIT_REFUSED, "reduce, fuzz", "refused in one line (`reduce: error: ...`, `fuzz: error: ...`): the command line, the "
               "input, the options or the machine; each line is on the troubleshooting page"),
    ExitStatus(EXIT_NOT_INTERESTING, "reduce", "the original does not show the failure: the line says what the oracle saw"),
    ExitStatus(EXIT_FLAKY, "reduce", "the result passed its final uncached check: the failure is flaky (the output holds the last "
               "candidate that failed)"),
    ExitStatus(EXIT_CHANGED, "fuzz nightly", "a corpus entry changed state (fixed, or failing another way); summary.md says which"),
    ExitStatus(EXIT_CHANGED, "fuzz conformance", "a node test's outcome is not the one the expectations file lists"),
    ExitStatus(EXIT_INTERRUPTED, "reduce, fuzz", "stopped by Ctrl-C: reduce keeps the best result so far, written and valid; fuzz "
               "keeps every case that finished in its database"),
    ExitStatus(143, "reduce", "stopped by SIGTERM (a job scheduler, `kill`), as by Ctrl-C"),
    ExitStatus(129, "reduce", "stopped by SIGHUP (a closed terminal), as by Ctrl-C"),
)


@dataclass(frozen=True)
class Refusal:
    """One refusal: `template` is the message (str.format fields), `cause` why it happens,
    `action` what to do; `exit_code` the status the command ends with."""

    id: str
    topic: str
    template: str
    cause: str
    action: str
    exit_code: int = EXIT_REFUSED

    def say(self, **fields: object) -> str:
        """The message with its fields filled in: the exact line the user sees."""
        return self.template.format(**fields)

    def fields(self) -> tuple[str, ...]:
        """The names of the template's fields, in order."""
        return tuple(dict.fromkeys(name for _, name, _, _ in string.Formatter().parse(self.template) if name))

    def literal_length(self) -> int:
        """How many characters of the message are fixed text."""
        return sum(len(literal) for literal, _, _, _ in string.Formatter().parse(self.template))

    def pattern(self) -> re.Pattern:
        """A regex that matches any message this entry can say."""
        parts = [re.escape(literal) + ("(.*?)" if name is not None else "")
                 for literal, name, _, _ in string.Formatter().parse(self.template)]
        return re.compile("".join(parts) + r"\Z", re.DOTALL)


CATALOGUE: list[Refusal] = []



def _entry(id: str, topic: str, template: str, cause: str, action: str, exit_code: int = EXIT_REFUSED) -> Refusal:
    refusal = Refusal(id, topic, template, cause, action, exit_code)
    CATALOGUE.append(refusal)
    return refusal


def matching(message: str) -> Refusal | None:
    """The most specific entry that says `message` (the most fixed text), or None; how a test
    checks a message it saw. An entry that is only fields (a relay) matches nothing by itself."""
    found = [r for r in CATALOGUE if r.literal_length() and r.pattern().match(message)]
    return max(found, key=Refusal.literal_length, default=None)


def relayed(message: str) -> str:
    """A message that an entry said elsewhere (a verdict's tool error, a check's answer), passed on
    unchanged; marks the raise site as relaying, not writing, a refusal."""
    return message


# --- The command line and its limits --------------------------------------------------------

USAGE = _entry(
    "usage", COMMAND_LINE,
    "usage: reduce INPUT --oracle=NAME [-- iree-compile flags]; see reduce --help",
    "`reduce` was run without an input file or without `--oracle`.",
    "Name the failing file and an oracle (`reduce --list-oracles` lists them).")
LIMIT_NOT_POSITIVE = _entry(
    "limit-not-positive", COMMAND_LINE,
    "{name} {value:g} makes no sense: it must be positive",
    "A time, size or count (`--timeout`, `--memory-cap-mb`, `--hang-seconds`, `-j`, `--time-budget`, "
    "`--lds-bytes`, `--threshold`) is zero or negative.",
    "Give a positive value, or leave the option out for its default.")
SHRINK_THRESHOLD_RANGE = _entry(
    "shrink-threshold-range", COMMAND_LINE,
    "--shrink-threshold {value:g} makes no sense: it must be at least 0 and below 0.5",
    "`--shrink-threshold` is the smallest share of a dim a shape search still takes a step for; at 0.5 or "
    "more it would skip halvings, and a result one halving could still shrink is not minimal.",
    "Give a share in [0, 0.5) (0: every dim down to one less than loses the failure), or leave it out for its default.")
CANDIDATE_TIMEOUT_NEGATIVE = _entry(
    "candidate-timeout-negative", COMMAND_LINE,
    "--candidate-timeout {value:g} makes no sense: it must be 0 (no limit below --timeout) or more",
    "`--candidate-timeout` is how many seconds one candidate's compile may take before it counts as not interesting.",
    "Give seconds, `auto` (10 times the original's, at least 10 s), or 0 (the default: every compile runs to `--timeout`).")
CANDIDATE_TIMEOUT_MALFORMED = _entry(
    "candidate-timeout-malformed", COMMAND_LINE,
    "give seconds or auto, not {text!r}",
    "`--candidate-timeout` takes a number of seconds or the word `auto`.",
    "Give seconds (`--candidate-timeout 20`), `auto` (10 times the original's, at least 10 s), or leave it out.")
UNKNOWN_PASS = _entry(
    "unknown-pass", COMMAND_LINE,
    "unknown pass {name!r}; valid: {valid}",
    "`--passes` names a pass that does not exist, or one that does not apply to this kind of input.",
    "Use names from `reduce --list-passes`; ONNX inputs have passes of their own.")
DATA_ORACLE_ONLY = _entry(
    "inputs-wrong-oracle", COMMAND_LINE,
    "--inputs / --expected-outputs are for --oracle={oracles}, not {oracle}",
    "Only the oracles that run a candidate take data.",
    "Drop the data options, or use `miscompile`, `reference-mismatch`, `eager-mismatch` (a `.pt2`) or `run-error`.")
DIM_WRONG_ORACLE = _entry(
    "dim-wrong-oracle", COMMAND_LINE,
    "--dim is for --oracle={oracles}, not {oracle}",
    "Only the oracles that run a program need the sizes its dynamic dims run at.",
    "Drop --dim, or use `miscompile`, `reference-mismatch`, `eager-mismatch` (a `.pt2`) or `run-error`.")
DIM_AND_INPUTS = _entry(
    "dim-and-inputs", COMMAND_LINE,
    "give --inputs or --dim, not both: the data's shapes are the sizes it runs at",
    "--dim draws seeded data at the sizes it names; --inputs brings data whose shapes already say them.",
    "Keep one of the two.")
DYNAMIC_WITHOUT_SIZES = _entry(
    "dynamic-without-sizes", INPUT,
    "{path}: the program has dynamic dimensions ({dims}) and {oracle} runs it: give --inputs with data at the sizes "
    "to run it at, or --dim {first}=SIZE",
    "A program with dynamic dims can only run at some size, and a wrong answer or run error may show at one size "
    "alone; the tool will not guess it (the dynamic dims are an ONNX dim_param, or argI.axis for MLIR).",
    "Give the data that showed the failure (--inputs), or name each size (--dim M=1, --dim arg0.1=4).")
EXPECTED_NEEDS_ANSWER = _entry(
    "expected-outputs-wrong-oracle", COMMAND_LINE,
    "--expected-outputs is for --oracle={oracles}: {oracle} judges no answer",
    "`run-error` judges whether a run fails, not what it computes.",
    "Drop `--expected-outputs`, or use `miscompile` or `reference-mismatch`.")
CORPUS_WITH_CULPRIT_ONLY = _entry(
    "save-to-corpus-with-culprit-only", COMMAND_LINE,
    "--save-to-corpus saves a reduction; run without --culprit-only",
    "`--culprit-only` reduces nothing, so there is no result to save.",
    "Run the reduction itself with `--save-to-corpus NAME`.")
CULPRIT_ONLY_ORACLE = _entry(
    "culprit-only-wrong-oracle", COMMAND_LINE,
    "--culprit-only is for compile-error, crash and lds-limit, not --oracle={oracle}",
    "The failing-pass step exists for compile failures and LDS overruns only.",
    "Use `--oracle=compile-error`, `crash` or `lds-limit`, or run a whole reduction.")
PASTE_UNSPLITTABLE = _entry(
    "pasted-command-unsplittable", COMMAND_LINE,
    "cannot split the pasted command line into words: {error}",
    "The command after `--` has an unclosed quote or a stray character the shell would reject too.",
    "Paste the `iree-compile` line as the bug report has it, its quotes closed.")
FLAG_REJECTED = _entry(
    "pasted-flag-rejected", COMMAND_LINE,
    "the installed iree-compile rejects {flags} (unknown command-line argument in the pasted command): "
    "drop or rename it{hints}",
    "A pasted flag is not one this compiler accepts and has no known new name (a typo, or a flag of "
    "another IREE version).",
    "Drop it or rename it; the line names the nearest accepted flag when there is one.")
DURATION = _entry(
    "fuzz-duration", COMMAND_LINE,
    "{text!r} is not a duration like 90s, 10m or 2h",
    "`fuzz --time` or `--reduce-budget` was given something other than a number with `s`, `m` or `h`.",
    "Write the time as `90s`, `10m` or `2h`.")

# --- The input file -----------------------------------------------------------------------------

NO_SUCH_INPUT = _entry(
    "input-missing", INPUT,
    "cannot read {path}: no such file",
    "The input path, or a data file `--inputs` / `--expected-outputs` names, does not exist.",
    "Check the path; it is relative to the directory `reduce` runs in.")
OUTPUT_IS_INPUT = _entry(
    "output-is-input", INPUT,
    "-o {output} is the input file; choose another output path",
    "`-o` names the input itself; `reduce` never modifies its input.",
    "Give another output path, or leave `-o` out (INPUT.reduced.mlir).")
MLIR_NOT_TEXT = _entry(
    "mlir-not-text", INPUT,
    "{path}: neither MLIR text nor MLIR bytecode (nor an .onnx model)",
    "The input is some other binary file: MLIR text and bytecode (`.mlirbc`, which exporters write) are read, "
    "ONNX models by their `.onnx` suffix.",
    "Give the program as MLIR text or bytecode, or an ONNX model named `*.onnx`.")
MLIR_BYTECODE_UNREADABLE = _entry(
    "mlir-bytecode-unreadable", INPUT,
    "cannot read the MLIR bytecode of {path}: {error}",
    "The bytecode is truncated, or written by an MLIR this IREE's cannot read (bytecode versions move).",
    "Print it as text with the tool that wrote it (`mlir-opt FILE -o FILE.mlir`) and reduce the text.")
INPUT_IS_DIRECTORY = _entry(
    "input-directory", INPUT,
    "{path} is a directory: give the failing .mlir, .mlirbc or .onnx file in it",
    "`reduce` reduces one file; a directory (an ONNX test case, an export folder) is not one.",
    "Name the model or program file; the data beside it goes to --inputs (a test_data_set_0/ directory is fine there).")
EMPTY_INPUT = _entry(
    "input-empty", INPUT,
    "{path} is empty: there is no program to reduce",
    "The file holds nothing but whitespace (an export or a redirect that failed).",
    "Give the failing program; check the command that wrote the file.")
ONNX_OUTPUT_NAME = _entry(
    "onnx-output-name", INPUT,
    "-o {output}: name an .onnx output; the imported MLIR goes next to it as {mlir}",
    "An ONNX reduction writes the model and its imported MLIR; `-o` named the MLIR's path.",
    "Give `-o` a path ending in `.onnx`.")
MLIRBC_OUTPUT_NAME = _entry(
    "mlirbc-output-name", INPUT,
    "-o {output}: name an .mlirbc output; the result's text goes next to it as {text}",
    "An MLIR bytecode reduction writes the result as bytecode and its text beside it; `-o` named the text's path.",
    "Give `-o` a path ending in `.mlirbc`.")
INVALID_ONNX = _entry(
    "onnx-invalid", INPUT,
    "{path}: invalid ONNX model: {error}",
    "The file does not load as an ONNX model, or `onnx.checker` / strict shape inference rejects it.",
    "Fix the model (the checker's message says where); a model no runtime accepts cannot be reduced.")
TORCH_MISSING = _entry(
    "pt2-torch-missing", INPUT,
    "{path}: a .pt2 program needs PyTorch: {why}",
    "A `torch.export` archive is read, edited and run eagerly with PyTorch, which is an optional extra of "
    "this project (a large download most users of ONNX and MLIR inputs do not need).",
    "Install the extra with `pip install -e '.[torch]'` (torch 2.13 or 2.14, the tests run 2.13.0; the CPU "
    "build is a fraction of the default CUDA one), then run the same command.")
TORCH_UNSUPPORTED = _entry(
    "pt2-torch-unsupported", INPUT,
    "{path}: a .pt2 program needs another torch: {why}",
    "The installed torch is outside the versions the `[torch]` extra accepts: those IREE 3.13's FX importer "
    "and this tool's reading, re-export and import of a program are known to work with (tested on 2.13.0, "
    "tried on 2.14.1). Another torch may write archives, or decompose and trace programs, differently.",
    "Install a torch in the range (`pip install -e '.[torch]'` chooses one), for example in a virtual "
    "environment of its own, then run the same command.")
PT2_PICKLED = _entry(
    "pt2-pickled-module", INPUT,
    "{path}: {error}; export the program instead: torch.export.save(torch.export.export(model.eval(), "
    "example_args), 'model.pt2')",
    "The file is what `torch.save` writes (a pickled `nn.Module` or a state dict): Python objects, not a "
    "program. Only an exported program has a graph to import and reduce.",
    "Load the model in Python and export it with `torch.export.export` on example inputs, then save the "
    "`ExportedProgram` with `torch.export.save` and reduce that file.")
PT2_UNREADABLE = _entry(
    "pt2-unreadable", INPUT,
    "{path}: cannot read the torch.export archive: {error}",
    "The file is no `torch.export.save` archive, or one this torch cannot load (saved by another torch "
    "version, or with a custom op whose library is not loaded).",
    "Export the program again with the torch installed here (the `[torch]` extra's range), with the custom "
    "op's library imported, and save it with `torch.export.save`.")
PT2_NOT_DECOMPOSABLE = _entry(
    "pt2-not-decomposable", INPUT,
    "{path}: torch cannot decompose the program as --torch-import={how} asks: {error}",
    "Before the FX importer the program is decomposed as IREE's PyTorch users' front end (iree-turbine) "
    "decomposes it, and one of those decompositions fails on this program.",
    "Reduce it as it is with `--torch-import=functional` (made functional, nothing decomposed); the "
    "decomposition's failure is PyTorch's to report.")
PT2_NOT_IMPORTABLE = _entry(
    "pt2-not-importable", INPUT,
    "{path}: IREE's FX importer cannot import the program: {error}",
    "The program holds an op the FX importer of this IREE cannot turn into torch-dialect MLIR (a custom op, "
    "a higher-order op it does not know); reducing it would only reduce the import's failure.",
    "Replace the custom op with ATen ops (or decompose it with `ExportedProgram.run_decompositions`) before "
    "exporting; a failure of the importer itself is a bug to report with the program.")
PT2_OUTPUT_NAME = _entry(
    "pt2-output-name", INPUT,
    "-o {output}: name a .pt2 output; the imported MLIR and the repro script go next to it as {mlir} and {script}",
    "A `.pt2` reduction writes the program, its imported MLIR and a standalone script; `-o` named one of "
    "the other two paths.",
    "Give `-o` a path ending in `.pt2`.")
EAGER_NEEDS_PT2 = _entry(
    "eager-mismatch-needs-pt2", INPUT,
    "--oracle=eager-mismatch judges PyTorch programs (.pt2 archives of torch.export); for {kind} compare two "
    "pipelines with --oracle=miscompile, or an ONNX model with --oracle=reference-mismatch",
    "The reference of `eager-mismatch` is the program run eagerly by PyTorch, which only an exported program has.",
    "Give the `.pt2` archive, or use `miscompile` or `reference-mismatch`.")
ONNX_ORACLE_ON_PT2 = _entry(
    "onnx-oracle-on-pt2", INPUT,
    "--oracle={oracle} judges ONNX models; a .pt2 program's answer is judged against PyTorch with "
    "--oracle=eager-mismatch",
    "`reference-mismatch` compares with `onnx.reference`, which cannot run a PyTorch program.",
    "Use `--oracle=eager-mismatch` for a wrong answer of a `.pt2` program.")
UNPARSEABLE_MLIR = _entry(
    "mlir-unparseable", INPUT,
    "cannot parse {error}",
    "The MLIR does not parse with this IREE's bindings; the message has the location.",
    "Fix the IR at that location, or export it again with this IREE's version.")
CANNOT_JUDGE = _entry(
    "oracle-cannot-judge-input", INPUT,
    "{path}: {why}",
    "The oracle cannot judge this kind of input at all, or needs a device this machine lacks; "
    "the reason follows the path.",
    "Do what the reason says (another oracle, another machine).")
NOT_LIFTABLE = _entry(
    "reference-mismatch-not-liftable", INPUT,
    "--oracle=reference-mismatch judges ONNX models and torch-onnx IR (iree-import-onnx output), and the lift "
    "of this IR to ONNX stops: {error}; for other IR compare two pipelines with --oracle=miscompile",
    "`onnx.reference` needs an ONNX graph; this IR holds an op with no ONNX counterpart (linalg, flow, a plain "
    "torch op) or a weight blob elided on printing.",
    "Give the `.onnx` model or `iree-import-onnx` output, or compare two pipelines with `--oracle=miscompile`.")

# --- Oracle options -----------------------------------------------------------------------------

UNKNOWN_ORACLE = _entry(
    "unknown-oracle", ORACLE_OPTIONS,
    "unknown oracle {name!r}; valid: {valid}",
    "`--oracle` names no oracle.",
    "Pick one from `reduce --list-oracles`.")
KEEP_WRONG_ORACLE = _entry(
    "keep-wrong-oracle", ORACLE_OPTIONS,
    "--keep is for --oracle=transient-copy or readwrite-constant, not {name}",
    "Only the oracles with numbered symptoms can keep one of them.",
    "Drop `--keep`.")
KEEP_OUT_OF_RANGE = _entry(
    "keep-number-out-of-range", ORACLE_OPTIONS,
    "--keep {spec}: the original shows {count} symptoms, numbered 1 to {count}: {listing}",
    "`--keep N` names a symptom number the original does not have.",
    "Pick a number from the listed symptoms.")
KEEP_NO_KIND = _entry(
    "keep-kind-unknown", ORACLE_OPTIONS,
    "--keep {spec!r} {why} of the original's symptom kinds; give a number or a kind: {listing}",
    "`--keep KIND` matches none, or more than one, of the kinds the original shows.",
    "Give a symptom's number, or a kind that names exactly one of those listed.")
PHASE_MISSING = _entry(
    "phase-missing", ORACLE_OPTIONS,
    "--oracle={oracle} needs --phase PHASE (one of: {allowed})",
    "`ir-match` reads the IR at a phase and none was given.",
    "Add `--phase` with one of the listed phases.")
PHASE_INVALID = _entry(
    "phase-invalid", ORACLE_OPTIONS,
    "--phase {phase!r} {why}; valid for --oracle={oracle}: {allowed}",
    "`--phase` is not a `--compile-to` phase, or not one this oracle can read.",
    "Use one of the listed phases.")
THRESHOLD_BELOW_ONE = _entry(
    "threshold-below-one", ORACLE_OPTIONS,
    "--threshold {threshold} must be at least 1",
    "A count threshold of zero or less matches every candidate.",
    "Give `--threshold 1` or more.")
DISPATCH_COUNT_NEEDS_THRESHOLD = _entry(
    "dispatch-count-needs-threshold", ORACLE_OPTIONS,
    "--oracle=dispatch-count needs --threshold N (the minimum number of dispatches)",
    "`dispatch-count` keeps candidates with at least N dispatches and N was not given.",
    "Add `--threshold N`, e.g. the original's dispatch count.")
IR_MATCH_NEEDS_PATTERN = _entry(
    "ir-match-needs-pattern", ORACLE_OPTIONS,
    "--oracle=ir-match needs --pattern REGEX (searched in the IR at --phase)",
    "`ir-match` has nothing to look for.",
    "Add `--pattern REGEX`.")
BAD_REGEX = _entry(
    "regex-invalid", ORACLE_OPTIONS,
    "{option} {pattern!r} is not a valid regex: {error}",
    "`--pattern` or `--match` is not a Python regular expression.",
    "Fix the expression (escape `(`, `[`, `.` and the like when you mean them literally).")
SCRIPT_NEEDS_CMD = _entry(
    "script-needs-cmd", ORACLE_OPTIONS,
    "--oracle=script needs --cmd 'COMMAND {{}}' (exit 0 = interesting)",
    "The `script` oracle runs a command of yours and none was given.",
    "Add `--cmd './interesting.sh {}'`; `{}` is the candidate's path.")
MISCOMPILE_NEEDS_PIPELINES = _entry(
    "miscompile-needs-pipelines", ORACLE_OPTIONS,
    "--oracle=miscompile needs two pipelines: --pipeline-a 'FLAGS' --pipeline-b 'FLAGS' "
    "(e.g. --pipeline-b '--iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx'), "
    "or --expected-outputs (pipeline B is then the reference pipeline, {reference})",
    "`miscompile` compares two compiles of one program and neither pipeline was given.",
    "Give `--pipeline-a` and `--pipeline-b`, or the right answer with `--expected-outputs`.")
WRONG_SHARE_RANGE = _entry(
    "wrong-share-range", ORACLE_OPTIONS,
    "--wrong-share must lie between 0 and 1 (a share of the original's wrong fraction and error), not {share!r}",
    "`--wrong-share` is a fraction of the original's wrong answer a candidate must keep.",
    "Give a value from 0 to 1 (default 0.5).")

# --- Your data and sizes (oracles/data/binding.py, oracles/inputs/) -------------------------------

DATA_SOURCE_MISSING = _entry(
    "data-source-missing", USER_DATA,
    "cannot read {source}: no such file (give .npy, .npz, .pt, .pb, a test_data_set directory, a flagfile, or an "
    "iree-run-module value such as 2x3xf32=@x.bin)",
    "`--inputs` / `--expected-outputs` names no file or directory, and is not an `iree-run-module` value either.",
    "Fix the path, or write the value as `iree-run-module` takes it (`2x3xf32=@x.bin`, `2x2xi32=1,2,3,4`).")
DATA_UNREADABLE = _entry(
    "data-unreadable", USER_DATA,
    "cannot read {path}: {error}",
    "A data file is there but does not load: a flagfile that is not text, an .npy / .npz that is damaged "
    "or holds Python objects (they are never unpickled).",
    "Save the arrays again with `numpy.save` / `numpy.savez` (plain numeric dtypes), or fix the flagfile.")
DATA_PT_NOT_TENSORS = _entry(
    "data-pt-not-tensors", USER_DATA,
    "cannot read {path}: {key!r} holds a {kind}, not a tensor (save a tensor, a list or tuple of tensors, or a dict of them)",
    "A `.pt` file given to `--inputs` holds something other than tensors (a module, a number, a nested structure).",
    "Save the inputs with `torch.save((x, y), 'inputs.pt')` or `torch.save({'x': x}, 'inputs.pt')`.")
DATA_NOT_TENSOR_PROTO = _entry(
    "data-not-tensor-proto", USER_DATA,
    "cannot read {path}: not a serialised TensorProto ({error})",
    "A `.pb` file does not parse as an ONNX `TensorProto`.",
    "Write it with `onnx.numpy_helper.from_array(...).SerializeToString()`, as the ONNX test data is.")
DATA_NO_TEST_SET = _entry(
    "data-no-test-data-set", USER_DATA,
    "{path}: no input_0.pb and no test_data_set_0 directory in it",
    "A directory given as data is neither an ONNX test-data set nor a test that holds one.",
    "Give the `test_data_set_N` directory (with `input_0.pb`, `output_0.pb`), or its parent.")
FLAGFILE_UNKNOWN_FLAG = _entry(
    "flagfile-unknown-flag", USER_DATA,
    "{where}: unknown flag {flag!r} in a flagfile (known: {known})",
    "A flagfile line has a flag that is neither data (`--input`, `--expected_output`) nor one known to say "
    "nothing about it; it is refused rather than skipped, since it may change what runs.",
    "Remove the line, or pass that setting another way (the pasted flags after `--`).")
VALUE_NEEDS_TYPE = _entry(
    "value-needs-type", USER_DATA,
    "{where}: {spec} needs its type (SHAPExTYPE=@{name}); only .npy files carry one",
    "A raw file (`@x.bin`) was given without its shape and element type.",
    "Write it as `SHAPExTYPE=@file`, e.g. `2x3xf32=@x.bin`, or save it as .npy.")
VALUE_UNREADABLE = _entry(
    "value-unreadable", USER_DATA,
    "{where}: cannot read the value {spec!r} (expected @x.npy, 2x3xf32=@x.bin or 2x2xi32=1,2,3,4)",
    "A value is not in one of the forms `iree-run-module` takes.",
    "Use one of the forms the message lists.")
VALUE_WRONG_BYTES = _entry(
    "value-wrong-byte-count", USER_DATA,
    "{where}: {name} holds {size} bytes; {type} needs {needed}",
    "A raw file's size is not the shape times the element size.",
    "Fix the shape or element type in front of `=@`, or the file.")
VALUE_NOT_NUMBERS = _entry(
    "value-not-numbers", USER_DATA,
    "{where}: {text!r} is not a list of {element} numbers",
    "An inline value (`2x2xi32=1,2,3,4`) holds something that is not a number of that type.",
    "Write numbers separated by commas or spaces (integers for integer types).")
VALUE_WRONG_COUNT = _entry(
    "value-wrong-element-count", USER_DATA,
    "{where}: {count} elements for the type {type}, which has {wanted}",
    "An inline value or a file holds more or fewer elements than its shape (one value is a splat).",
    "Give exactly as many values as the shape has elements, or a single one to fill it.")
NAMED_FILE_MISSING = _entry(
    "data-named-file-missing", USER_DATA,
    "{where}: cannot read {name}: no such file",
    "A value names a file that is neither beside the flagfile nor in the current directory.",
    "Fix the path; in a flagfile it is relative to the flagfile.")
TOO_MANY_VALUES = _entry(
    "too-many-values", USER_DATA,
    "{count} {what} values for {wanted} {what}s; the first extra is {source}",
    "More arrays were given than the program has arguments (or results, for `--expected-outputs`).",
    "Drop the extra ones, or name the arrays after the arguments (an .npz's keys, the ONNX inputs' names).")
VALUE_MISSING = _entry(
    "value-missing", USER_DATA,
    "{what} {position} {name!r} ({type}) has no value: {count} given for {wanted} {what}s",
    "Fewer arrays were given than the program has arguments, or the names do not cover them all.",
    "Give one array per argument, in order or by name.")
VALUE_WRONG_DTYPE = _entry(
    "value-wrong-dtype", USER_DATA,
    "{what} {name!r} expects {type}; {source} holds {dtype} elements",
    "An array's element type is not the argument's (or the result's).",
    "Convert the array (`x.astype(...)`) or give the one meant for this argument.")
VALUE_WRONG_SHAPE = _entry(
    "value-wrong-shape", USER_DATA,
    "{what} {name!r} expects {type}; {source} has shape {shape}",
    "An array's shape is not the argument's; a dynamic dim takes any size, a static one only its own.",
    "Give data of the argument's shape, or check the order of the arrays.")
EXPECTED_WITHOUT_INPUTS = _entry(
    "expected-outputs-without-inputs", USER_DATA,
    "--expected-outputs needs the inputs they were computed from (--inputs SOURCE)",
    "Expected outputs say what the right answer is on some inputs; without them there is nothing to compare.",
    "Add `--inputs` with the data the outputs were computed from.")
CANNOT_BIND_INPUTS = _entry(
    "cannot-bind-inputs", USER_DATA,
    "cannot bind inputs: {error}",
    "The program's arguments cannot be read, so the data cannot be matched to them; the reason follows.",
    "Do what the reason says (its entry is under \"The program's arguments and types\").")
CANNOT_BIND_EXPECTED = _entry(
    "cannot-bind-expected-outputs", USER_DATA,
    "cannot bind expected outputs: {error}",
    "The program's result types cannot be read (unranked, or with no numpy counterpart), so expected "
    "outputs cannot be matched to them.",
    "Leave out `--expected-outputs`; the oracle's reference then judges alone.")
DIM_MALFORMED = _entry(
    "dim-malformed", USER_DATA,
    "--dim {text}: give NAME=SIZE with a positive size (M=1 for an ONNX dim_param, arg0.1=4 for dim 1 of MLIR "
    "argument 0)",
    "`--dim` is not NAME=SIZE with a positive whole number.",
    "Write it as the message shows.")
CANNOT_SIZE = _entry(
    "cannot-size-inputs", USER_DATA,
    "cannot size the inputs: {error}",
    "The program's arguments cannot be read, so `--dim` cannot say their sizes; the reason follows.",
    "Do what the reason says (its entry is under \"The program's arguments and types\").")
DIM_UNKNOWN = _entry(
    "dim-unknown", USER_DATA,
    "--dim {key}=...: the program has no dynamic dimension {key} (its dynamic dimensions: {known})",
    "`--dim` names a dim the program does not have, or one that is static.",
    "Use a name from the list: the ONNX dim_param, else `input.axis`, or `argI.axis` for MLIR.")
DIM_NOT_GIVEN = _entry(
    "dim-not-given", USER_DATA,
    "--dim names no size for the dynamic dimension {key}: add --dim {key}=SIZE",
    "With `--dim` every dynamic dim needs a size, and this one has none.",
    "Add `--dim` for it.")

# --- The program's arguments and types (oracles/data/arrays.py, oracles/onnx/reference.py) ----

ELEMENT_TYPE_UNSUPPORTED = _entry(
    "element-type-unsupported", ARGUMENTS,
    "{where}: element type {name} is not supported (supported: {supported})",
    "An argument, result or value has an element type the tool cannot make numpy data for.",
    "Use a supported element type; a reduction cannot run a program it cannot feed.")
NEEDS_ML_DTYPES = _entry(
    "needs-ml-dtypes", ARGUMENTS,
    "{where}: {name} needs the ml_dtypes package (pip install ml_dtypes)",
    "bf16 and the f8 types have numpy counterparts only through `ml_dtypes`, which is missing.",
    "Install it into the environment the tool runs from.")
TYPE_NOT_STATIC = _entry(
    "type-not-static", ARGUMENTS,
    "{where} {why} ({text}); the program needs static shapes",
    "An argument or result is unranked, a torch tensor without sizes, or (where the oracle needs static shapes) "
    "has a dynamic dim.",
    "Give the function typed, ranked arguments; for a dynamic dim give its size with `--dim` or `--inputs`.")
TYPE_NO_NUMPY = _entry(
    "type-no-numpy-counterpart", ARGUMENTS,
    "{where} has type {text}, which has no numpy counterpart",
    "An argument or result is not a tensor or scalar of a numeric element type (a list, a string, a custom type).",
    "Reduce a function whose arguments are tensors, or an oracle that does not run the program (`compile-error`).")
PROGRAM_UNPARSEABLE = _entry(
    "program-unparseable", ARGUMENTS,
    "cannot parse the program: {error}",
    "The MLIR does not parse with this IREE's bindings; the message has the location.",
    "Fix the IR at that location, or export it again with this IREE's version.")
NOTHING_TO_RUN = _entry(
    "nothing-to-run", ARGUMENTS,
    "no public func.func or util.func with a body: nothing to run",
    "The module has no public function with a body to call.",
    "Make the entry function public (drop `private`) and give it a body.")
ARGUMENT_DYNAMIC = _entry(
    "argument-dynamic-shape", ARGUMENTS,
    "argument {position} has a dynamic shape ({shape}): give --inputs with the sizes to run it at, or "
    "--dim arg{position}.{axis}=SIZE",
    "An MLIR argument has a dynamic dim and no data says the size to run it at.",
    "Give `--inputs` whose shapes are the sizes, or `--dim argI.AXIS=SIZE`.")
NO_INPUTS_FOR_DTYPE = _entry(
    "no-inputs-for-dtype", ARGUMENTS,
    "no inputs for dtype {dtype}",
    "An argument's element type has a numpy counterpart the seeded inputs cannot draw (complex, string).",
    "Give the data yourself with `--inputs`, or reduce a program with numeric arguments.")
INPUT_NOT_TENSOR = _entry(
    "onnx-input-not-tensor", ARGUMENTS,
    "input {name!r} is not a tensor",
    "An ONNX graph input is a sequence, map or optional, which the tool cannot feed.",
    "Reduce a model whose inputs are tensors.")
INPUT_NO_SHAPE = _entry(
    "onnx-input-no-shape", ARGUMENTS,
    "input {name!r} has no shape (not even its rank): give the model typed inputs",
    "An ONNX graph input declares no shape, so no data can be made or checked for it.",
    "Give the input a shape in the model (its rank at least, with `dim_param`s for sizes that vary).")
INPUT_ELEMENT_TYPE = _entry(
    "onnx-input-element-type", ARGUMENTS,
    "input {name!r} has element type {element}, which has no numpy counterpart",
    "An ONNX graph input's element type is undefined or has no numpy counterpart.",
    "Give the input a numeric element type.")
INPUT_DYNAMIC = _entry(
    "onnx-input-dynamic-dimension", ARGUMENTS,
    "input {name!r} has a dynamic dimension {param} ({shape}): give --inputs with data at the size to run it at, "
    "or --dim {param}=SIZE",
    "An ONNX input has a dynamic dim and no data says the size to run it at.",
    "Give `--inputs` whose shapes are the sizes, or `--dim NAME=SIZE` (the dim_param, else `input.axis`).")
SCALE_NOT_POSITIVE = _entry(
    "reference-scale-not-positive", ARGUMENTS,
    "{op} scale {name!r} is not positive ({values})",
    "A quantization scale the model computes is zero, negative or not finite, so the exact reference has no "
    "answer a quantized model can mean (it follows `onnx.reference fails:`).",
    "Give the model positive scales, or `--inputs` on which they are.")
REFERENCE_FAILS = _entry(
    "onnx-reference-fails", ARGUMENTS,
    "onnx.reference fails: {error}",
    "`onnx.reference` cannot evaluate the model (an op it does not implement, a scale that is not positive).",
    "Judge with `--oracle=miscompile` against another pipeline, or with `--expected-outputs`.")

# --- A failure that is not the compiler's (oracles/toolchain/tool_errors.py) ---------------------

TOOL_NOT_FOUND = _entry(
    "tool-not-found", NOT_THE_COMPILER,
    "{name} not found: install the pinned IREE wheels (pip install iree-base-compiler==3.13.0 iree-base-runtime==3.13.0)",
    "`iree-compile` (or `iree-import-onnx`, `iree-run-module`) is neither beside Python, on PATH, nor in "
    "`$IREE_REDUCE_TOOLS_DIR`.",
    "Install the project (`pip install -e .` installs the pinned wheels), or point `IREE_REDUCE_TOOLS_DIR` "
    "at a build.")
TOOLS_DO_NOT_LOAD_UNDER_CAP = _entry(
    "tools-do-not-load-under-cap", NOT_THE_COMPILER,
    "the tools cannot even load under --memory-cap-mb {cap} (their libraries do not fit): raise --memory-cap-mb "
    "(16384 is the default)",
    "The address-space cap is smaller than the compiler's own libraries.",
    "Raise `--memory-cap-mb`.")
TOOLS_DO_NOT_START = _entry(
    "tools-do-not-start", NOT_THE_COMPILER,
    "the tools do not start ({error}): reinstall the pinned wheels (pip install iree-base-compiler==3.13.0 "
    "iree-base-runtime==3.13.0)",
    "A tool fails before it reads its input: a Python import error or a shared library that does not load.",
    "Reinstall the pinned wheels into the environment `reduce` runs from.")
COMPILER_REJECTS_FLAG = _entry(
    "compiler-rejects-flag", NOT_THE_COMPILER,
    "iree-compile rejects {flag} (unknown command-line argument): drop or rename it in the pasted command",
    "The compiler rejected a flag when it ran the original (one the pasted-command check let through).",
    "Drop or rename the flag.")
NO_SUCH_COMPILE_DEVICE = _entry(
    "compiler-has-no-device", NOT_THE_COMPILER,
    "iree-compile has no device \"{device}\" {available}: fix --iree-hal-target-device",
    "`--iree-hal-target-device` names a device this compiler build does not have.",
    "Use one of the devices the message lists.")
UNKNOWN_TARGET = _entry(
    "compiler-unknown-target", NOT_THE_COMPILER,
    "iree-compile does not know the {backend} target '{target}': fix the target flag in the pasted command",
    "The target architecture (e.g. `--iree-rocm-target=gfx9999`) is not one this compiler knows.",
    "Fix the target flag.")
GPU_TARGET_MISSING = _entry(
    "compiler-has-no-gpu-target", NOT_THE_COMPILER,
    "the target flags name a GPU this compiler has no target for (e.g. --iree-cuda-target=sm_90a): fix the target flag",
    "The flags name a GPU architecture IREE 3.13 has no target for.",
    "Name an architecture it has (`sm_89` runs on newer NVIDIA GPUs through PTX).")
RUN_REJECTS_INPUTS = _entry(
    "run-rejects-inputs", NOT_THE_COMPILER,
    "the run rejects its inputs ({reason}): give --inputs that match the entry function's arguments",
    "`iree-run-module` refused the inputs (shape or count), so the failure is the command's, not the module's.",
    "Give `--inputs` that match the entry function's arguments.")
GPU_DRIVER_DOES_NOT_LOAD = _entry(
    "gpu-driver-does-not-load", NOT_THE_COMPILER,
    "the GPU driver does not load ({reason}): run on a machine with that GPU and its driver, or compile for the CPU",
    "The runtime could not load the GPU's driver library.",
    "Run on a machine with that GPU and its driver, or compile for the CPU.")
FILE_MISSING = _entry(
    "named-file-missing", NOT_THE_COMPILER,
    "a file the command names does not exist ({path}): fix its path in the pasted command",
    "A flag's value names a file that is not there.",
    "Fix the path in the pasted command.")
TOOL_PROBLEM = _entry(
    "tool-problem", NOT_THE_COMPILER,
    "{problem}",
    "Judging the original failed for a reason that is not the compiler's work on it; the line is one of the "
    "entries of this section or of the device section.",
    "Do what that entry says.")
MEMORY_CAP_ORIGINAL = _entry(
    "original-hit-memory-cap", NOT_THE_COMPILER,
    "judging the original ran out of this tool's memory cap (--memory-cap-mb {cap}), so what it saw is the cap, "
    "not the compiler: raise --memory-cap-mb",
    "The original's compile or run was stopped by the memory cap this tool sets.",
    "Raise `--memory-cap-mb`.")
GPU_OOM_ORIGINAL = _entry(
    "original-gpu-out-of-memory", NOT_THE_COMPILER,
    "the GPU ran out of memory running the original (another process may hold it): free the GPU, or give smaller --inputs",
    "The GPU ran out of memory while running the original (judged twice).",
    "Free the GPU, or give smaller `--inputs`.")
TIMEOUT_ORIGINAL = _entry(
    "original-hit-timeout", NOT_THE_COMPILER,
    "judging the original hit this tool's time limit (--timeout {timeout:g} s), so what it saw is the limit, "
    "not the compiler: raise --timeout, or reduce the hang itself with --oracle=timeout",
    "The original's compile ran past `--timeout` (judged twice).",
    "Raise `--timeout`, or reduce the hang itself with `--oracle=timeout`.")
HANG_BELOW_TRIVIAL = _entry(
    "hang-seconds-below-trivial-compile", NOT_THE_COMPILER,
    "--hang-seconds {hang:g} is below the {seconds:.1f} s a trivial program takes to compile with these flags, "
    "so every candidate would count as a hang: use a limit well above it (e.g. --hang-seconds {suggestion})",
    "With this limit even an empty program would count as a hang.",
    "Use the suggested `--hang-seconds` or more.")

# --- Devices and GPUs (oracles/toolchain/devices.py) ---------------------------------------------

NO_SUCH_DRIVER = _entry(
    "runtime-has-no-driver", DEVICES,
    "device {device!r}: the runtime has no driver {driver!r} (drivers: {drivers})",
    "`--device` (or the device the flags target) names a driver the runtime does not have.",
    "Use one of the listed drivers.")
DEVICE_ABSENT = _entry(
    "device-absent", DEVICES,
    "the {driver} driver {state} on this machine (the runtime sees: {present}): run on a machine with {hardware}, "
    "or compile for the CPU (--iree-hal-target-device=local)",
    "The modules would run on a GPU this machine lacks, or whose driver does not load; checked before anything runs.",
    "Run on a machine with that GPU, or compile and run for the CPU.")
NO_PRESENT_GPU = _entry(
    "no-present-gpu", DEVICES,
    "--targets {name}: no GPU here that the runtime sees and that its architecture can be read of",
    "`fuzz --targets gpu` stands for the GPU present, and none was found (no driver sees a device, or "
    "`nvidia-smi` / `rocminfo` is missing).",
    "Run on the GPU machine, or name targets (`fuzz pipelines` lists them).")
PRESENT_GPU_HAS_NO_TARGET = _entry(
    "present-gpu-has-no-fuzz-target", DEVICES,
    "{note}, but no fuzz target compiles for it: add one to fuzz/pipelines.py",
    "The GPU here has an architecture no fuzz target names.",
    "Add a target for it to `fuzz/pipelines.py`, or name another target.")

# --- Resume state, verdict cache, cluster, corpus -----------------------------------------------

RESUME_OTHER_RUN = _entry(
    "resume-state-of-another-run", STATE,
    "--resume: {path} is the state of a run on another input, oracle, flags or passes; run without --resume to "
    "start over (it is then replaced)",
    "The state beside the output belongs to a different command.",
    "Run the same command that was killed, or run without `--resume`.")
CACHE_UNUSABLE = _entry(
    "verdict-cache-unusable", STATE,
    "cannot use the verdict cache in {directory}: {error}; pass --no-cache or --cache-dir DIR",
    "The cache directory cannot be created or written.",
    "Pass `--no-cache`, or `--cache-dir` a writable directory.")
SCHEDULER_ADDRESS = _entry(
    "scheduler-address", STATE,
    "--scheduler {address}: {error}; expected tcp://HOST:PORT",
    "`--scheduler` is not an address.",
    "Give the Dask scheduler as `tcp://HOST:PORT`.")
SCHEDULER_UNREACHABLE = _entry(
    "scheduler-unreachable", STATE,
    "cannot reach a Dask scheduler at {address}: {error}",
    "Nothing listens at that address.",
    "Start the scheduler (`dask scheduler`), or fix the address.")
SCHEDULER_SILENT = _entry(
    "scheduler-silent", STATE,
    "no Dask scheduler answered at {address} within {timeout:.0f} s",
    "Something listens there but never completed the Dask handshake.",
    "Check that the address is a Dask scheduler's, not another service's.")
SCHEDULER_REFUSED = _entry(
    "scheduler-refused", STATE,
    "cannot connect to the Dask scheduler at {address}: {error}",
    "The scheduler answered and refused the connection (a version mismatch, TLS).",
    "Use the same `distributed` version on both sides.")
CORPUS_NAME = _entry(
    "corpus-name", STATE,
    "corpus entry name {name!r}: use letters, digits, '.', '_' and '-'",
    "`--save-to-corpus` names an entry with other characters.",
    "Rename it.")
CORPUS_SCRIPT = _entry(
    "corpus-script-oracle", STATE,
    "a script oracle cannot be saved to the corpus: its command lives on this machine",
    "A corpus entry must check anywhere; a script is yours alone.",
    "Reduce with a built-in oracle to save the result.")
CORPUS_EXISTS = _entry(
    "corpus-entry-exists", STATE,
    "corpus entry {directory} exists already; choose another name",
    "An entry of that name is there already.",
    "Choose another name.")

# --- The original and the result ----------------------------------------------------------------

NOT_INTERESTING = _entry(
    "original-not-interesting", OUTCOME,
    "the original is not interesting for {oracle}: {detail}",
    "The original does not show the failure the oracle looks for; the line says what it saw instead "
    "(e.g. \"compiles fine; largest LDS use 50688 bytes <= 65536\").",
    "Check the flags after `--` and the oracle options; `--verbose` logs the oracle's answer.",
    exit_code=EXIT_NOT_INTERESTING)
CULPRIT_ONLY_NOT_INTERESTING = _entry(
    "culprit-only-not-interesting", OUTCOME,
    "{path} is not interesting for {oracle}: {detail}",
    "The case given to `--culprit-only` does not show the failure.",
    "Check the flags and the oracle; the reduced file should be what `reduce` wrote.",
    exit_code=EXIT_NOT_INTERESTING)
FLAKY = _entry(
    "result-flaky", OUTCOME,
    "the reduced result no longer fails on a fresh check (flaky oracle?): {detail}",
    "The result failed while reducing and passes on the final uncached check: the failure depends on load, "
    "timing or memory.",
    "Raise `--timeout` / `--memory-cap-mb`, reduce with `-j 1`, or pin the failure with `--match`.",
    exit_code=EXIT_FLAKY)
INTERRUPTED_JUDGING = _entry(
    "interrupted-judging-original", OUTCOME,
    "interrupted while judging the original; nothing written",
    "Ctrl-C, SIGTERM or SIGHUP came before any result existed.",
    "Run again; nothing needs cleaning up.",
    exit_code=EXIT_INTERRUPTED)
INTERRUPTED_NOTHING_WRITTEN = _entry(
    "interrupted-nothing-written", OUTCOME,
    "interrupted; nothing written",
    "`--culprit-only` was stopped before it wrote anything.",
    "Run again.",
    exit_code=EXIT_INTERRUPTED)

# --- Other IREE releases (oracles/releases/) ------------------------------------------------------

RELEASE_NOT_A_VERSION = _entry(
    "release-not-a-version", RELEASES,
    "{version!r} is not an IREE release version: expected X.Y.Z (or a nightly's X.Y.ZrcYYYYMMDD)",
    "A version in `--releases` is spelled otherwise.",
    "Give versions as the package index lists them, e.g. `--releases 3.8.0:3.13.0`.")
RELEASE_RANGE = _entry(
    "release-range", RELEASES,
    "--releases {text}: expected FIRST:LAST (either may be left out), oldest first, e.g. 3.8.0:3.13.0, or a list 3.0.0,3.13.0",
    "The range is not two versions around a colon nor a comma-separated list of versions, or its first version is "
    "newer than its last.",
    "Write the range oldest first; `:3.12.0` and `3.8.0:` leave one end open; a list names the releases to judge.")
RELEASES_UNREACHABLE = _entry(
    "releases-unreachable", RELEASES,
    "cannot list IREE releases: {error}; the reduction's result stands (judge other releases later with "
    "reduce --releases-only)",
    "The package index did not answer (offline, a proxy, a wrong `--index-url` / `--find-links`), or refused.",
    "Connect, or point `--index-url` / `--find-links` at an index that has iree-base-compiler and iree-base-runtime.")
RELEASES_NONE_IN_RANGE = _entry(
    "releases-none-in-range", RELEASES,
    "no IREE release in {range} (the index has {available})",
    "`--releases` names a range the index has no release in (both iree-base-compiler and iree-base-runtime).",
    "Widen the range; the message lists what the index has.")
RELEASE_INSTALL_FAILED = _entry(
    "release-install-failed", RELEASES,
    "cannot install IREE {release} into {directory}: {error}",
    "The package installer failed for that release: offline, the index refused, no wheel for this Python or "
    "platform, or the disk is full.",
    "Check the network and the index options; a release that has no wheel for this Python is stepped over.")
RELEASES_CACHE_UNUSABLE = _entry(
    "releases-cache-unusable", RELEASES,
    "cannot use {directory} for IREE release environments: {error}; pass --releases-cache DIR",
    "The directory for the release environments cannot be created, written or locked.",
    "Give `--releases-cache` a writable directory on a disk with a few GB free.")
RELEASES_ONLY_NOT_FAILING = _entry(
    "releases-only-not-failing", RELEASES,
    "{path} does not fail with the installed IREE ({oracle}: {detail}): nothing to bisect",
    "`--releases-only` bisects a failure the installed IREE shows; this input does not show it.",
    "Check the oracle and flags (they must be those of the reduction), or reduce the input first.",
    exit_code=EXIT_NOT_INTERESTING)
CORPUS_WITH_RELEASES_ONLY = _entry(
    "save-to-corpus-with-releases-only", RELEASES,
    "--save-to-corpus saves a reduction; run without --releases-only, or reduce with --releases --save-to-corpus NAME",
    "`--releases-only` reduces nothing, so there is no result to save.",
    "Reduce with `--releases --save-to-corpus NAME`, or add `fails_since` to an entry with `python bench/corpus_releases.py`.")
RELEASES_WITH_CULPRIT_ONLY = _entry(
    "releases-with-culprit-only", RELEASES,
    "--releases-only and --culprit-only are separate runs: give one",
    "Both steps take a reduced input and write different results.",
    "Run `reduce --releases-only` and `reduce --culprit-only` one after the other.")


# --- fuzz -----------------------------------------------------------------------------------------

UNKNOWN_PIPELINE = _entry(
    "unknown-pipeline", FUZZ,
    "unknown pipeline {name!r}; valid: {valid}",
    "`--pipelines`, `--targets` or `--pipeline` names no pipeline or target.",
    "Use names from `fuzz pipelines`.")
NO_CAMPAIGN = _entry(
    "no-campaign", FUZZ,
    "{out} holds no {db}: run `fuzz run --out {out}` first",
    "`fuzz show`, `report` or `reduce` was given a directory no campaign wrote.",
    "Run a campaign there first, or give the campaign's `--out`.")
FUZZ_TORCH_MISSING = _entry(
    "fuzz-torch-missing", FUZZ,
    "--frontend {frontend} needs PyTorch: {why}",
    "PyTorch programs are exported, imported and run eagerly with PyTorch, an optional extra of this project.",
    "Install the extra (the command in the message), or run `--frontend onnx`.")
NO_DIRECTORY = _entry(
    "no-directory", FUZZ,
    "cannot write {path}: no directory {parent}",
    "The file's directory does not exist.",
    "Create it, or write elsewhere.")
CANNOT_WRITE = _entry(
    "cannot-write", FUZZ,
    "cannot write {path}: {error}",
    "The file cannot be written (permissions, a full disk).",
    "Write elsewhere.")
NO_NODE_TEST = _entry(
    "no-node-test", FUZZ,
    "no node test name contains {text!r}",
    "`fuzz conformance -k` matches no node test of the four families.",
    "Use part of a test's name, e.g. `qlinearmatmul`.")
UNKNOWN_FAMILY = _entry(
    "unknown-family", FUZZ,
    "unknown family {name!r}; valid: {valid}",
    "A conformance family that does not exist.",
    "Use one of the listed families.")
CONFORMANCE_GPU = _entry(
    "conformance-gpu-target", FUZZ,
    "{name} is a GPU target; the conformance run needs a CPU pipeline (see fuzz pipelines)",
    "The conformance run must run each test; GPU targets only compile here.",
    "Give a CPU pipeline.")
EXPECTATIONS_MISSING = _entry(
    "expectations-missing", FUZZ,
    "{path}: no such expectations file (create it with `{command} --expectations {path}`)",
    "`--expectations` names a file that does not exist.",
    "Create it with the command in the message.")
EXPECTATIONS_UNREADABLE = _entry(
    "expectations-unreadable", FUZZ,
    "{path}: not a readable JSON expectations file: {error}",
    "The expectations file is not JSON.",
    "Regenerate it with `fuzz conformance --update-expectations`.")
EXPECTATIONS_NOT_OBJECT = _entry(
    "expectations-not-object", FUZZ,
    "{path}: expected a JSON object with {keys}",
    "The expectations file holds JSON of another shape.",
    "Regenerate it with `fuzz conformance --update-expectations`.")
EXPECTATIONS_NOT_LIST = _entry(
    "expectations-not-list", FUZZ,
    "{path}: {key} must be a list of test names",
    "One of the lists is not a list of strings.",
    "Fix that list, or regenerate the file.")
EXPECTATIONS_TWICE = _entry(
    "expectations-listed-twice", FUZZ,
    "{path}: {name} is listed twice ({first} and {second})",
    "A node test is expected to fail in two ways.",
    "Keep it in one list.")
EXPECTATIONS_OPSET = _entry(
    "expectations-opset", FUZZ,
    "{path}: opset_version must be a whole number, not {opset!r}",
    "`opset_version` is not an integer.",
    "Write it as a number, e.g. 17.")
