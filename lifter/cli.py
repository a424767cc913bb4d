"""The `lift` command: a thin layer over the Python API that behaves like a compiler driver.

It takes cc's preprocessing flags (-I, -D, -U, -include, -std=) so it drops into
a Makefile next to cc, and accepts and ignores flags that do not change
preprocessing (-Wall, -march=native, -fopenmp, ...). Errors are printed as
`path:line:col: error: message` with exit status 1; output files are written
to a temporary file and renamed only on success, and never over an input.
"""
from __future__ import annotations

import json
import os
import re
import sys

import click

from lifter import __version__
from lifter import batch
from lifter.batch import write_atomically  # noqa: F401  (part of this module's interface)
from lifter.diagnostics import Diagnostic, LiftError
from lifter.driver import LiftOptions, lift_file
from lifter.frontend.preprocess import PreprocessOptions
from lifter.frontend.source import ENCODING_ERRORS
from lifter.transform.tiling import MAX_TILE_SIZE

# cc flags that do not change preprocessing: accepted so `lift $(CFLAGS) ...` works.
_IGNORED_FLAG = re.compile(r"^-(W.*|f.*|m.*|g.*|pedantic.*|pthread|pipe|ansi|c|shared|static|fPIC|l.*|L.*|s)$")
_OPT_FLAG = re.compile(r"^-O([0-9s]|fast|z|g)?$")


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
    return "openmp"


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("inputs", nargs=-1, type=click.Path(dir_okay=True), metavar="INPUT.c...")
@click.option("-o", "output", metavar="FILE", help="Output file ('-' for standard output). Default: standard output.")
@click.option("-d", "--output-dir", "outdir", metavar="OUTDIR",
              help="Batch mode: lift every INPUT (a directory means every .c file below it) into OUTDIR, "
                   "keeping paths relative to the current directory (src/x.c -> OUTDIR/src/x.c; "
                   ".cu with --target cuda). Inputs outside the current directory keep their paths "
                   "relative to the deepest directory they share. Never writes outside OUTDIR or over an input.")
@click.option("--target", type=click.Choice(["openmp", "cuda"]),
              help="Code to emit. Default: from the output's extension (.cu: cuda, otherwise openmp).")
@click.option("-I", "include_dirs", multiple=True, metavar="DIR", help="Add DIR to the include search path.")
@click.option("-D", "defines", multiple=True, metavar="NAME[=VALUE]", help="Define a macro.")
@click.option("-U", "undefines", multiple=True, metavar="NAME", help="Undefine a macro.")
@click.option("--include", "-include", "forced_includes", multiple=True, metavar="FILE",
              help="Include FILE before the input (cc's -include).")
@click.option("--std", "-std", "std", default="c11", show_default=True,
              type=click.Choice(["c89", "c90", "c99", "c11", "c17", "c18", "gnu89", "gnu99", "gnu11", "gnu17"]),
              help="C standard for preprocessing (cc's -std=).")
@click.option("--opt-level", "opt_level", type=click.IntRange(0, 2), default=2, show_default=True,
              help="-O0: re-emit only; -O1 and -O2: parallelize (cc's -O flags map here; -O3 means -O2).")
@click.option("--no-tile", "no_tile", is_flag=True,
              help="-O2: do not tile loop bands (tiling runs where a band is permutable and reuses data "
                   "beyond the cache, and skewed tiles run as parallel wavefronts where a stencil's time "
                   "loop leaves no loop parallel or around 2-D sweeps).")
@click.option("--no-fuse", "no_fuse", is_flag=True,
              help="-O2: do not fuse producer-consumer sibling loops (nor contract the temporaries "
                   "of fused loops into scalars).")
@click.option("--no-unroll", "no_unroll", is_flag=True,
              help="-O2: do not unroll and jam the loops around vectorizable innermost loops (register "
                   "blocking of matrix products).")
@click.option("--assume-no-alias", "assume_no_alias", is_flag=True,
              help="Assume that pointer parameters, and pointer fields reached through them (a->col), "
                   "never point into the same object (cc's "
                   "-fargument-noalias, which is read as this flag): loops whose pointers' ranges cannot "
                   "be tested at run time (indirect reads like x[col[p]]) may then run in parallel. "
                   "Wrong results if a call passes overlapping arrays.")
@click.option("--tile-sizes", "tile_sizes", metavar="A,B,C", callback=lambda ctx, param, value: _sizes(value),
              help="Tile sizes, outermost loop of a band first (the last repeats for deeper bands). "
                   "Default: chosen from the cache sizes of this machine.")
@click.option("--report", "report_path", metavar="FILE",
              help="Write a JSON report with one entry per loop: place, verdict, reductions, private variables, "
                   "reason. In batch mode one report covers every file (plus one entry per file).")
@click.option("-v", "--remarks", "remarks", is_flag=True, help="Print a remark for every loop on standard error.")
@click.option("--emit-graph", "graph_path", metavar="FILE",
              help="Write the dataflow graph of every lifted loop nest: .dot, .json, .svg (needs Graphviz) or "
                   ".sdfg (DaCe's SDFG JSON, for DaCe's viewers). Single input only.")
@click.option("--function", "graph_function", metavar="NAME",
              help="With --emit-graph: only the loop nests of function NAME (a .sdfg file is then that function's "
                   "SDFG; without it, .sdfg writes one file per function, FILE.NAME.sdfg).")
@click.option("-j", "--jobs", "jobs", type=click.IntRange(min=1), metavar="N",
              help="Batch mode: lift N files at a time in worker processes. Default: the number of cores. "
                   "Output, messages and their order do not depend on N.")
@click.option("--fail-fast", "fail_fast", is_flag=True,
              help="Batch mode: stop at the first file that fails (in input order). By default every file is "
                   "lifted, the failures are listed at the end and the exit status is 1.")
@click.option("-q", "--quiet", "quiet", is_flag=True,
              help="Batch mode: no progress bar and no summary table (errors are still printed).")
@click.option("--cache", "cache_dir", metavar="DIR",
              help="Reuse results from DIR for inputs whose text, included headers, flags and lift version are "
                   "unchanged, and store new ones there. Default in batch mode: OUTDIR/.lift-cache.")
@click.option("--no-cache", "no_cache", is_flag=True, help="Batch mode: lift every file again, store nothing.")
@click.option("-MD", "dep_md", is_flag=True,
              help="Also write a Make dependency file: the output depends on the input and on every header it "
                   "included (system headers too). Default name: the output with suffix .d "
                   "(in batch mode: next to each output).")
@click.option("-MMD", "dep_mmd", is_flag=True, help="Like -MD, but list only user headers, not system headers.")
@click.option("-MF", "dep_file", metavar="FILE",
              help="Write the dependency file to FILE (implies -MD unless -MMD). Single input only.")
@click.option("-MT", "dep_targets", multiple=True, metavar="TARGET",
              help="Target of the dependency rule, as written (repeatable). Default: the output file.")
@click.option("-MQ", "dep_quoted", multiple=True, metavar="TARGET",
              help="Like -MT, with characters special to make quoted.")
@click.option("-MP", "dep_phony", is_flag=True,
              help="Add an empty rule for each header, so make does not fail when a header is removed.")
@click.version_option(__version__, "--version", prog_name="lift")
def lift(inputs, output, outdir, target, include_dirs, defines, undefines, forced_includes, std, opt_level,
         no_tile, no_fuse, no_unroll, assume_no_alias, tile_sizes, report_path, remarks, graph_path, graph_function, jobs, fail_fast, quiet, cache_dir, no_cache, dep_md, dep_mmd,
         dep_file, dep_targets, dep_quoted, dep_phony):
    """Lift sequential C loop nests into parallel OpenMP C or CUDA C.

    \b
    Examples:
      lift stencil.c -o stencil_omp.c      OpenMP C for multicore CPUs
      lift stencil.c -o stencil.cu         CUDA C for NVIDIA GPUs
      lift -DN=1000 -I include k.c -o -    preprocess like cc, print the result
      lift src/ main.c -d out -j 4         a whole tree: out/src/..., out/main.c
      lift k.c -o k.lifted.c -MMD -MP      also write k.lifted.d for make

    cc flags that do not affect preprocessing (-Wall, -march=..., -fopenmp, -g)
    are accepted and ignored.
    """
    if not inputs:
        raise click.UsageError("no input file")
    if graph_function and not graph_path:
        raise click.UsageError("--function NAME picks the function of --emit-graph FILE; give --emit-graph too")
    preprocess = PreprocessOptions(list(include_dirs), list(defines), list(undefines), list(forced_includes), std)
    deps = None
    if dep_md or dep_mmd or dep_file:
        deps = batch.DepOptions(system=not dep_mmd, phony=dep_phony, file=dep_file,
                                targets=list(dep_targets) + [batch.make_quote(t) for t in dep_quoted])
    locality = {"tile": not no_tile, "fuse": not no_fuse, "unroll": not no_unroll, "tile_sizes": tile_sizes,
                "assume_no_alias": assume_no_alias}
    if outdir is not None:
        _lift_batch(inputs, outdir, output, target, preprocess, opt_level, locality, report_path, remarks, graph_path,
                    jobs, fail_fast, quiet, cache_dir, no_cache, deps)
        return
    if len(inputs) > 1:
        raise click.UsageError("several inputs need an output directory: give -d OUTDIR (or one input)")
    path = inputs[0]
    options = LiftOptions(target=target_for(output, target), preprocess=preprocess, opt_level=opt_level,
                          **locality)
    if deps is not None:
        deps.file = deps.file or batch.default_depfile(output if output not in (None, "-") else
                                                       os.path.basename(path))
        if not deps.targets:
            if output in (None, "-"):
                raise click.UsageError("-MD/-MMD with output on standard output need -MT TARGET")
            deps.targets = [batch.make_quote(output)]
    for written in filter(None, (output if output != "-" else None, deps.file if deps else None,
                                 report_path, graph_path)):
        if os.path.exists(written) and _same_file(path, written):
            _fail(Diagnostic(written, 0, 0, "error", "output would overwrite the input"))
    try:
        if cache_dir and not graph_path:
            result, _ = batch.lift_file_cached(path, options, batch.Cache(cache_dir, options))
        else:
            result = lift_file(path, options)
    except LiftError as exc:
        _fail(exc.diagnostic)
    try:
        if graph_path:
            from lifter.graph.export import write_graphs

            message = write_graphs(result.graphs, graph_path, graph_function)
            if message:
                _echo_err(f"lift: {message}")
        if report_path:
            write_atomically(report_path, json.dumps({"tool": batch.TOOL, "loops": result.loops}, indent=2) + "\n")
        if output in (None, "-"):
            # Bytes, as they were read: non-UTF-8 text survives whatever stdout's encoding is.
            data = result.output.encode("utf-8", errors=ENCODING_ERRORS)
            stream = getattr(sys.stdout, "buffer", None)
            if stream is None:
                sys.stdout.write(data.decode("utf-8", errors="replace"))
                sys.stdout.flush()
            else:
                sys.stdout.flush()
                stream.write(data)
                stream.flush()
        else:
            write_atomically(output, result.output)
        if deps is not None:
            headers = batch.dependencies(result.included_files, deps.system)
            write_atomically(deps.file, batch.dependency_rule(deps.targets, path, headers, deps.phony))
    except LiftError as exc:
        _fail(exc.diagnostic)
    except OSError as exc:
        _fail(Diagnostic(exc.filename or output or "lift", 0, 0, "error",
                         f"cannot write: {exc.strerror or exc}"))
    # Remarks come last: the files are complete even if stderr goes away mid-way.
    if remarks:
        for d in result.diagnostics:
            _echo_err(str(d))


def _lift_batch(inputs, outdir, output, target, preprocess, opt_level, locality, report_path, remarks, graph_path,
                jobs, fail_fast, quiet, cache_dir, no_cache, deps) -> None:
    """`lift INPUTS... -d OUTDIR`: printing around lifter.batch.lift_batch."""
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
        lines = [str(outcome.error)] if outcome.error else []
        if remarks:
            lines += [str(d) for d in outcome.diagnostics]
        if lines:
            progress.clear()
            for line in lines:
                _echo_err(line)
            progress.redraw()

    try:
        result = batch.lift_batch(list(inputs), outdir, options, settings, on_file=on_file,
                                  on_progress=progress.update, on_warning=lambda w: _echo_err(str(w)))
    except LiftError as exc:
        _fail(exc.diagnostic)
    finally:
        progress.clear()
    if report_path:
        try:
            write_atomically(report_path, json.dumps(result.report(), indent=2) + "\n")
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


def _fail(diagnostic: Diagnostic):
    _echo_err(str(diagnostic))
    sys.exit(1)


def main(argv: list[str] | None = None) -> None:
    args = normalize_argv(list(sys.argv[1:] if argv is None else argv))
    try:
        lift.main(args=args, prog_name="lift", standalone_mode=True)
    except KeyboardInterrupt:
        click.echo("lift: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        # The reader of stdout or stderr went away (`lift ... | head`): stop quietly, as cc would.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stderr.fileno())
        sys.exit(1)
