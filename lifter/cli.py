"""The `lift` command: a thin layer over the Python API that behaves like a compiler driver.

It takes cc's preprocessing flags (-I, -D, -U, -include, -std=, -isystem, -iquote,
-idirafter, -x c, -E, `-` for standard input) so it drops into a Makefile next to cc,
and accepts and ignores flags that do not change preprocessing (-Wall, -march=native,
-fopenmp, ...). Errors are printed as gcc prints them (`path:line:col: error: message`,
the source line and a caret: lifter/display.py) with exit status 1, usage errors as
`lift: error: ...` (lifter/cli_help.py); remarks as clang's -Rpass or gcc's -fopt-info
select them (lifter/remarks.py). Output files are written to a temporary file and
renamed only on success, and never over an input.
"""
from __future__ import annotations

import atexit
import gc
import os
import re
import sys

# Objects allocated (less those freed) between two collections of the young generation (_collect_less).
COLLECT_AFTER = 250_000


def _collect_less() -> None:
    """Let Python's cycle collector run less often in this process. A lift run allocates much that
    lives as long as the run (the AST of the file and its headers, the polyhedral model, the graphs)
    and makes little cyclic garbage, so the default thresholds (a collection every 700 allocations,
    a full one every 100 of those) had it scan the same objects again and again: a full collection
    alone cost 35 ms of correlation's 0.43 s. The output does not depend on when it runs.

    A collection of the young generation traces every object in it, and during a run that is all
    the run has made so far: its cost grows with the threshold, and one that is never reached costs
    nothing. Lifts of suite kernels make 64,000 (trisolv) to 91,000 (deriche) objects after `main`
    starts, about 120,000 (deriche) counted from here; at a threshold of 50,000 each paid for one
    collection (12 to 56 ms of CPU on a loaded machine, to free fewer than 1,000 objects).
    `COLLECT_AFTER` lies above what such a run makes; longer runs still collect, once per that
    many objects, which costs per object what smaller thresholds do.

    Called as this module is imported, before its imports below (click, and through the driver
    pycparser and the frontend; `lifter/__init__.py` imports nothing heavy first): at the default
    thresholds those imports paid for 35 collections, some of them full, 0.7% of the instructions
    of a whole `lift gemm.c`."""
    gen0, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(max(gen0, COLLECT_AFTER), gen1, gen2)


_collect_less()

import click  # noqa: E402  (this import and the ones below come after `_collect_less()`)

from lifter.version import __version__
from lifter import depfile
from lifter.cli_help import CompilerChoice, GroupedCommand, usage_error
from lifter.files import write_atomically  # noqa: F401  (part of this module's interface)
from lifter.diagnostics import Diagnostic, LiftError
from lifter.display import COLOR_CHOICES, SourceLines, render, use_color
from lifter.driver import LiftOptions, lift_file, lift_source
from lifter.frontend import header_cache
from lifter.frontend.preprocess import PreprocessOptions, preprocess_only
from lifter.frontend.source import ENCODING_ERRORS, MAX_SOURCE_BYTES, SourceFile, check_text, read_source
from lifter.remarks import RemarkOptionError, RemarkSelection, gcc_line, remark

# cc flags that do not change preprocessing: accepted so `lift $(CFLAGS) ...` works.
_IGNORED_FLAG = re.compile(r"^-(W.*|f.*|m.*|g.*|pedantic.*|pthread|pipe|ansi|c|shared|static|fPIC|l.*|L.*|s)$")
_OPT_FLAG = re.compile(r"^-O([0-9s]|fast|z|g)?$")
# cc flags taking a directory or a language, joined (-isystemDIR) or apart (-isystem DIR).
_SPACED = {"-isystem": "--isystem", "-iquote": "--iquote", "-idirafter": "--idirafter", "-x": "--language"}
_JOINED = re.compile(r"^(-isystem|-iquote|-idirafter|-x)(.+)$")
# -Rpass alone, as in clang, selects the remarks of every pass (the empty regex matches all).
_RPASS = re.compile(r"^-Rpass(-missed|-analysis)?(?:=(.*))?$")
_COLOR_FLAG = re.compile(r"^-f(no-)?diagnostics-colou?r(?:=(.*))?$")


def normalize_argv(argv: list[str]) -> list[str]:
    """Rewrite cc-style spellings into this command's options; drop ignored cc flags."""
    out = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            out += argv[i:]
            break
        if arg.startswith("-std="):
            out += ["--std", arg[len("-std="):]]
        elif arg in _SPACED and i + 1 < len(argv):
            out += [_SPACED[arg], argv[i + 1]]
            i += 1
        elif (m := _JOINED.match(arg)) and arg not in _SPACED:
            out += [_SPACED[m[1]], m[2]]
        elif m := _RPASS.match(arg):
            out += [f"--rpass{m[1] or ''}", m[2] or ""]
        elif arg.startswith("-fopt-info"):
            out += ["--opt-info", arg]
        elif m := _COLOR_FLAG.match(arg):
            out += ["--diagnostics-color", "never" if m[1] else m[2] or "always"]
        elif arg == "-include" and i + 1 < len(argv):
            out += ["--include", argv[i + 1]]
            i += 1
        elif arg in ("-MF", "-MT", "-MQ") and i + 1 < len(argv):
            out += [arg, argv[i + 1]]  # the value is a name, never a flag to drop
            i += 1
        elif arg[:3] in ("-MF", "-MT", "-MQ") and len(arg) > 3:
            out += [arg[:3], arg[3:]]  # cc's joined spelling: -MFdeps.d
        elif _OPT_FLAG.match(arg):
            level = arg[2:] or "1"
            out += ["--opt-level", level if level in ("0", "1", "2") else "2"]
        elif arg in ("-fargument-noalias", "-fargument-noalias-global"):
            out.append("--assume-no-alias")
        elif arg == "-fno-strict-aliasing":
            out.append("--no-strict-aliasing")
        elif arg == "-fstrict-aliasing":  # as in cc, the last of the pair wins
            out = [a for a in out if a != "--no-strict-aliasing"]
        elif _IGNORED_FLAG.match(arg) and not arg.startswith(("--",)):
            pass
        else:
            out.append(arg)
        i += 1
    return out


def target_for(output: str | None, target: str | None) -> str:
    if target:
        return target
    if output and output.endswith(".cu"):
        return "cuda"
    if output and output.endswith(".mpi.c"):
        return "mpi"
    return "openmp"


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


@click.command(cls=GroupedCommand, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("inputs", nargs=-1, type=click.Path(dir_okay=True, allow_dash=True), metavar="INPUT.c...")
@click.option("-o", "output", metavar="FILE", help="Output file (default, or '-': stdout).")
@click.option("-d", "--output-dir", "outdir", metavar="OUTDIR",
              help="Lift every INPUT into OUTDIR.")
@click.option("--target", type=CompilerChoice(["openmp", "cuda", "mpi"], "--target"),
              help="Code to emit (default: from -o's extension).")
@click.option("-I", "include_dirs", multiple=True, metavar="DIR", help="Add DIR to the include search path.")
@click.option("--isystem", "-isystem", "system_dirs", multiple=True, metavar="DIR",
              help="Add DIR to the system include path.")
@click.option("--iquote", "-iquote", "quote_dirs", multiple=True, metavar="DIR",
              help="Add DIR to the path of #include \"...\" only.")
@click.option("--idirafter", "-idirafter", "after_dirs", multiple=True, metavar="DIR",
              help="Search DIR after the system directories.")
@click.option("-D", "defines", multiple=True, metavar="NAME[=VALUE]", help="Define a macro.")
@click.option("-U", "undefines", multiple=True, metavar="NAME", help="Undefine a macro.")
@click.option("--include", "-include", "forced_includes", multiple=True, metavar="FILE",
              help="Include FILE before the input.")
@click.option("--std", "-std", "std", default="c11",
              type=CompilerChoice(["c89", "c90", "c99", "c11", "c17", "c18", "c2x", "c23", "gnu89", "gnu90",
                                   "gnu99", "gnu11", "gnu17", "gnu18", "gnu2x", "gnu23"], "-std="),
              help="C standard, c89 to c23, gnu89 to gnu23 (c11).")
@click.option("--language", "-x", "language", metavar="c", help="The inputs are C (the only language).")
@click.option("-E", "preprocess_only", is_flag=True, help="Only preprocess, as cc -E does.")
@click.option("--opt-level", "opt_level", type=click.IntRange(0, 2), default=2,
              help="Re-emit only; parallelize; also reshape (-O2).")
@click.option("--no-tile", "no_tile", is_flag=True, help="Do not tile (nor run wavefronts).")
@click.option("--no-fuse", "no_fuse", is_flag=True, help="Do not fuse sibling loops (nor contract).")
@click.option("--no-unroll", "no_unroll", is_flag=True, help="Do not unroll and jam.")
@click.option("--assume-no-alias", "assume_no_alias", is_flag=True,
              help="Pointer parameters never overlap.")
@click.option("--no-strict-aliasing", "no_strict_aliasing", is_flag=True,
              help="Objects may be accessed through any type.")
@click.option("--tile-sizes", "tile_sizes", metavar="A,B,C", callback=lambda ctx, param, value: _sizes(value),
              help="Tile sizes, outermost loop first.")
@click.option("--report", "report_path", metavar="FILE", help="Write the per-loop verdicts as JSON.")
@click.option("--report-html", "html_path", metavar="FILE", help="Write the source with each loop's verdict.")
@click.option("-v", "--remarks", "remarks", is_flag=True, help="Print every remark, one line each.")
@click.option("--rpass", "rpass", multiple=True, metavar="REGEX",
              help="Remarks of loops transformed.")
@click.option("--rpass-missed", "rpass_missed", multiple=True, metavar="REGEX",
              help="Remarks of loops not parallelized.")
@click.option("--rpass-analysis", "rpass_analysis", multiple=True, metavar="REGEX",
              help="Remarks of the analysis.")
@click.option("--opt-info", "opt_info", multiple=True, metavar="FLAG",
              help="Remarks as gcc prints them.")
@click.option("--diagnostics-color", "color", type=CompilerChoice(COLOR_CHOICES, "-fdiagnostics-color="),
              default="auto",
              help="Colour: auto, always, never.")
@click.option("--emit-graph", "graph_path", metavar="FILE",
              help="Write the graphs (.dot .json .svg .sdfg).")
@click.option("--function", "graph_function", metavar="NAME",
              help="With --emit-graph: only function NAME.")
@click.option("-j", "--jobs", "jobs", type=click.IntRange(min=1), metavar="N",
              help="N files at a time (default: the cores).")
@click.option("--fail-fast", "fail_fast", is_flag=True, help="Stop at the first failure.")
@click.option("-q", "--quiet", "quiet", is_flag=True, help="No progress bar, no summary.")
@click.option("--cache", "cache_dir", metavar="DIR", help="Reuse and store results in DIR.")
@click.option("--no-cache", "no_cache", is_flag=True, help="Lift every file again, store nothing.")
@click.option("-MD", "dep_md", is_flag=True, help="Also write a Make dependency file (OUTPUT.d).")
@click.option("-MMD", "dep_mmd", is_flag=True, help="Like -MD, user headers only.")
@click.option("-MF", "dep_file", metavar="FILE", help="Name of the dependency file.")
@click.option("-MT", "dep_targets", multiple=True, metavar="TARGET", help="Target of the rule, as written.")
@click.option("-MQ", "dep_quoted", multiple=True, metavar="TARGET", help="Target of the rule, quoted for make.")
@click.option("-MP", "dep_phony", is_flag=True, help="An empty rule for each header.")
@click.version_option(__version__, "--version", prog_name="lift")
def lift(inputs, output, outdir, target, include_dirs, system_dirs, quote_dirs, after_dirs, defines, undefines,
         forced_includes, std, language, preprocess_only, opt_level, no_tile, no_fuse, no_unroll, assume_no_alias,
         tile_sizes, report_path, html_path, remarks, rpass, rpass_missed, rpass_analysis, opt_info, color,
         graph_path, graph_function, jobs, fail_fast, quiet, cache_dir, no_cache, dep_md, dep_mmd, dep_file, dep_targets, dep_quoted,
         dep_phony, no_strict_aliasing):
    """Lift sequential C loop nests into parallel OpenMP C, CUDA C or MPI C.

    \b
    Examples:
      lift stencil.c -o stencil_omp.c      OpenMP C for multicore CPUs
      lift stencil.c -o stencil.cu         CUDA C for NVIDIA GPUs
      lift stencil.c -o stencil.mpi.c      MPI C for clusters
      lift -DN=1000 -I include k.c -o -    preprocess like cc, print the result
      lift src/ main.c -d out -j 4         a whole tree: out/src/..., out/main.c
      lift k.c -o k.lifted.c -MMD -MP      also write k.lifted.d for make

    cc flags that do not affect preprocessing (-Wall, -march=..., -fopenmp, -g)
    are accepted and ignored. -O0..-O3 map to --opt-level. Details: docs/options.md.
    """
    if not inputs:
        raise click.UsageError("no input files")
    if graph_function and not graph_path:
        raise click.UsageError("--function NAME picks the function of --emit-graph FILE; give --emit-graph too")
    if language not in (None, "c", "none"):
        raise click.UsageError(f"language '{language}' not supported: lift reads C (-x c)")
    if no_cache:  # store nothing: no parsed headers either (this process and its workers)
        os.environ[header_cache.CACHE_ENV] = ""
    try:
        selection = RemarkSelection.from_flags(rpass, rpass_missed, rpass_analysis, remarks, opt_info)
    except RemarkOptionError as exc:
        raise click.UsageError(str(exc)) from None
    _display.color = use_color(color, sys.stderr)
    preprocess = PreprocessOptions(list(include_dirs), list(defines), list(undefines), list(forced_includes), std,
                                   system_dirs=list(system_dirs), quote_dirs=list(quote_dirs),
                                   after_dirs=list(after_dirs))
    deps = None
    if dep_md or dep_mmd or dep_file:
        deps = depfile.DepOptions(system=not dep_mmd, phony=dep_phony, file=dep_file,
                                targets=list(dep_targets) + [depfile.make_quote(t) for t in dep_quoted])
    locality = {"tile": not no_tile, "fuse": not no_fuse, "unroll": not no_unroll, "tile_sizes": tile_sizes,
                "assume_no_alias": assume_no_alias, "strict_aliasing": not no_strict_aliasing}
    if outdir is not None:
        if "-" in inputs or preprocess_only or html_path:
            raise click.UsageError("-d OUTDIR lifts files: standard input ('-'), -E and --report-html take a "
                                   "single input")
        _lift_batch(inputs, outdir, output, target, preprocess, opt_level, locality, report_path, selection,
                    graph_path, jobs, fail_fast, quiet, cache_dir, no_cache, deps)
        return
    if len(inputs) > 1:
        raise click.UsageError("several inputs need an output directory: give -d OUTDIR (or one input)")
    path = inputs[0]
    if preprocess_only:
        if output not in (None, "-") and path != "-" and os.path.exists(output) and _same_file(path, output):
            _fail(Diagnostic(output, 0, 0, "error", "output would overwrite the input"))
        _preprocess_only(_read_input(path), preprocess, output)
        return
    options = LiftOptions(target=target_for(output, target), preprocess=preprocess, opt_level=opt_level,
                          **locality)
    if deps is not None:
        deps.file = deps.file or depfile.default_depfile(output if output not in (None, "-") else
                                                       os.path.basename(path))
        if not deps.targets:
            if output in (None, "-"):
                raise click.UsageError("-MD/-MMD with output on standard output need -MT TARGET")
            deps.targets = [depfile.make_quote(output)]
    for written in filter(None, (output if output != "-" else None, deps.file if deps else None,
                                 report_path, html_path, graph_path)):
        if path != "-" and os.path.exists(written) and _same_file(path, written):
            _fail(Diagnostic(written, 0, 0, "error", "output would overwrite the input"))
    source = _read_input(path) if path == "-" or html_path else None
    try:
        if path == "-":
            result = lift_source(source.text, source.path, options)
        elif cache_dir and not graph_path:
            from lifter import batch  # with its cache and process pool: only where a run needs them
            result, _ = batch.lift_file_cached(path, options, batch.Cache(cache_dir, options))
        else:
            result = lift_file(path, options)
    except LiftError as exc:
        _fail(exc.diagnostic)
    try:
        if graph_path:
            from lifter.graph.export import write_graphs

            message = write_graphs(result.graphs, graph_path, graph_function)
            for line in (message or "").splitlines():
                _echo_err(f"lift: {line}")
        if report_path:
            from lifter.report import report_document  # lift_file imported it (the pipeline: driver.py)
            _write_json(report_path, report_document(result.loops))
        if html_path:
            from lifter.report_html import report_html
            write_atomically(html_path, report_html(source.path, source.text, result.loops))
        if output in (None, "-"):
            # Bytes, as they were read: non-UTF-8 text survives whatever stdout's encoding is.
            _write_out(result.output.encode("utf-8", errors=ENCODING_ERRORS))
        else:
            write_atomically(output, result.output)
        if deps is not None:
            headers = depfile.dependencies(result.included_files, deps.system)
            write_atomically(deps.file, depfile.dependency_rule(deps.targets, path, headers, deps.phony))
    except LiftError as exc:
        _fail(exc.diagnostic)
    except OSError as exc:
        _fail(Diagnostic(exc.filename or output or "lift", 0, 0, "error",
                         f"cannot write: {exc.strerror or exc}"))
    # Remarks come last: the files are complete even if stderr goes away mid-way.
    _print_remarks(result.loops, selection, result.warnings)


def _write_json(path: str, document: dict) -> None:
    """Write a `--report` document. json is imported here, where a run asks for a report: nothing
    else a lift does needs it, and importing it cost every lift 0.5% of gemm's instructions."""
    import json

    write_atomically(path, json.dumps(document, indent=2) + "\n")


def _read_input(path: str) -> SourceFile:
    """The input file, or standard input for '-' (named '<stdin>' in messages, as cc names it)."""
    try:
        if path != "-":
            return read_source(path)
        stream = getattr(sys.stdin, "buffer", sys.stdin)
        data = stream.read(MAX_SOURCE_BYTES + 1)
        data = data.encode("utf-8", errors=ENCODING_ERRORS) if isinstance(data, str) else data
        if len(data) > MAX_SOURCE_BYTES:
            raise LiftError("<stdin>", 0, 0, "standard input is larger than lift's limit for a C source file")
        return SourceFile("<stdin>", check_text("<stdin>", data))
    except LiftError as exc:
        _fail(exc.diagnostic)


def _preprocess_only(source: SourceFile, preprocess: PreprocessOptions, output: str | None) -> None:
    """`lift -E`: the preprocessed input, as cc -E prints it, on stdout or into -o FILE."""
    try:
        data = preprocess_only(source.path, source.text, preprocess)
        if output in (None, "-"):
            _write_out(data)
        else:
            write_atomically(output, data.decode("utf-8", errors=ENCODING_ERRORS))
    except LiftError as exc:
        _fail(exc.diagnostic)
    except OSError as exc:
        _fail(Diagnostic(exc.filename or output or "lift", 0, 0, "error", f"cannot write: {exc.strerror or exc}"))


def _write_out(data: bytes) -> None:
    stream = getattr(sys.stdout, "buffer", None)
    if stream is None:
        sys.stdout.write(data.decode("utf-8", errors="replace"))
        sys.stdout.flush()
    else:
        sys.stdout.flush()
        stream.write(data)
        stream.flush()


def _print_remarks(loops: list[dict], selection: RemarkSelection, warnings: list[Diagnostic]) -> None:
    """The remarks the flags select: -v one line each, -Rpass* as clang shows them (with the source
    line), -fopt-info as gcc does (on stderr, or appended to its file). Under -v, first the
    `warnings` of passes that failed and were undone (an optimization missing for a reason the
    remarks do not give)."""
    if not selection:
        return
    if selection.everything:
        for warning in warnings:
            _echo_err(str(warning))
    to_files: dict[str, list[str]] = {}
    for entry in loops:
        if selection.everything:
            _echo_err(str(remark(entry)))
        elif selection.clang(entry):
            _write_err(render(remark(entry), _display.sources, _display.color))
        for file in selection.gcc(entry):
            if file:
                to_files.setdefault(file, []).append(gcc_line(entry))
            elif not selection.everything:
                _echo_err(gcc_line(entry))
    for file, lines in to_files.items():
        try:
            with open(file, "a", encoding="utf-8", errors=ENCODING_ERRORS) as handle:
                handle.write("".join(line + "\n" for line in lines))
        except OSError as exc:
            _fail(Diagnostic(file, 0, 0, "error", f"cannot write: {exc.strerror or exc}"))


def _lift_batch(inputs, outdir, output, target, preprocess, opt_level, locality, report_path, selection,
                graph_path, jobs, fail_fast, quiet, cache_dir, no_cache, deps) -> None:
    """`lift INPUTS... -d OUTDIR`: printing around lifter.batch.lift_batch."""
    from lifter import batch  # imported here: a single-file run needs no process pool
    if output is not None:
        raise click.UsageError("-o names one output; with -d OUTDIR the outputs are named after the inputs")
    if graph_path:
        raise click.UsageError("--emit-graph takes a single input, not -d OUTDIR")
    if deps is not None and (deps.file or deps.targets):
        raise click.UsageError("-MF, -MT and -MQ name one file; with -d OUTDIR each output gets OUTPUT.d")
    if cache_dir and no_cache:
        raise click.UsageError("--cache and --no-cache contradict each other")
    options = LiftOptions(target=target or "openmp", preprocess=preprocess, opt_level=opt_level, **locality)
    cache = None if no_cache else cache_dir or os.path.join(outdir, batch.DEFAULT_CACHE)
    settings = batch.BatchOptions(jobs=jobs, fail_fast=fail_fast, deps=deps, cache_dir=cache)
    progress = batch.ProgressBar(_write_err, enabled=not quiet and _is_terminal(sys.stderr))

    def on_file(outcome: batch.FileOutcome) -> None:
        if outcome.error or selection:
            progress.clear()
            if outcome.error:
                _write_err(render(outcome.error, _display.sources, _display.color))
            _print_remarks(outcome.loops or [], selection, outcome.warnings)
            progress.redraw()

    try:
        result = batch.lift_batch(list(inputs), outdir, options, settings, on_file=on_file,
                                  on_progress=progress.update, on_warning=lambda w: _echo_err(str(w)))
    except LiftError as exc:
        _fail(exc.diagnostic)
    finally:
        progress.clear()
    if report_path:
        from lifter.report import REPORT_VERSION
        try:
            _write_json(report_path, {"version": REPORT_VERSION, **result.report()})
        except OSError as exc:
            _fail(Diagnostic(exc.filename or report_path, 0, 0, "error", f"cannot write: {exc.strerror or exc}"))
    if not quiet:
        _write_err(batch.format_summary(result))
    if not result.ok:
        sys.exit(1)


def _sizes(value: str | None) -> tuple[int, ...]:
    """`--tile-sizes 32,32,64` as a tuple of positive integers."""
    if not value:
        return ()
    from lifter.transform.tiling import MAX_TILE_SIZE  # the pipeline: imported where a lift starts (driver.py)
    try:
        sizes = tuple(int(x) for x in value.split(","))
    except ValueError:
        sizes = ()
    if not sizes or min(sizes) < 2 or max(sizes) > MAX_TILE_SIZE:
        raise click.BadParameter(f"expected integers from 2 to {MAX_TILE_SIZE} separated by commas, got '{value}'")
    return sizes


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _write_err(text: str) -> None:
    """Text on stderr as it is (no newline added)."""
    stream = getattr(sys.stderr, "buffer", None)
    if stream is None:
        sys.stderr.write(text)
        sys.stderr.flush()
        return
    sys.stderr.flush()
    stream.write(text.encode("utf-8", errors=ENCODING_ERRORS))
    stream.flush()


def _echo_err(text: str) -> None:
    """One line on stderr; a file name that is not UTF-8 is written as its bytes, as cc does."""
    stream = getattr(sys.stderr, "buffer", None)
    if stream is None:
        click.echo(text, err=True)
        return
    sys.stderr.flush()
    stream.write(text.encode("utf-8", errors=ENCODING_ERRORS) + b"\n")
    stream.flush()


class _Display:
    """How this run shows diagnostics: colour or not, and the source lines they point into."""

    def __init__(self) -> None:
        self.color = False
        self.sources = SourceLines()


_display = _Display()


def _no_collection_at_exit() -> None:
    """Skip the cycle collections Python runs while it shuts down: they traverse every object
    still alive (networkx's and islpy's modules, the AST, the graphs) only to free memory the
    process is about to hand back, about 15% of a lift run's CPU time (80 ms of gemm's 0.48 s).
    gc.freeze() at exit moves them out of the collector's sight; nothing else changes (the
    outputs are written and closed by then, the other exit handlers and the flushing of stdout
    and stderr still run). Registered once however often main() runs in one process (tests call
    it in theirs)."""
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)


def _fail(diagnostic: Diagnostic):
    _write_err(render(diagnostic, _display.sources, _display.color))
    sys.exit(1)


def main(argv: list[str] | None = None) -> None:
    _no_collection_at_exit()
    args = normalize_argv(list(sys.argv[1:] if argv is None else argv))
    _display.__init__()
    try:
        code = lift.main(args=args, prog_name="lift", standalone_mode=False)
        sys.exit(code or 0)
    except click.ClickException as exc:
        _echo_err(usage_error(exc, lift))
        sys.exit(1)
    except click.Abort:
        click.echo("lift: interrupted", err=True)
        sys.exit(130)
    except KeyboardInterrupt:
        click.echo("lift: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        # The reader of stdout or stderr went away (`lift ... | head`): stop quietly, as cc would.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stderr.fileno())
        sys.exit(1)
