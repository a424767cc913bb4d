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
import tempfile

import click

from lifter import __version__
from lifter.diagnostics import Diagnostic, LiftError
from lifter.driver import LiftOptions, lift_file
from lifter.frontend.preprocess import PreprocessOptions
from lifter.frontend.source import ENCODING_ERRORS

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
        elif _OPT_FLAG.match(arg):
            level = arg[2:] or "1"
            out += ["--opt-level", level if level in ("0", "1", "2") else "2"]
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


def write_atomically(path: str, text: str) -> None:
    """Write next to `path` and rename, so a failure never leaves a partial file."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".lift-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors=ENCODING_ERRORS, newline="") as handle:
            handle.write(text)
        # mkstemp makes the file private; give it the mode a new file gets (or the old file had).
        umask = os.umask(0)
        os.umask(umask)
        try:
            mode = os.stat(path).st_mode & 0o777
        except OSError:
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("inputs", nargs=-1, type=click.Path(dir_okay=True), metavar="INPUT.c")
@click.option("-o", "output", metavar="FILE", help="Output file ('-' for standard output). Default: standard output.")
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
@click.option("--report", "report_path", metavar="FILE",
              help="Write a JSON report with one entry per loop: place, verdict, reductions, private variables, reason.")
@click.option("-v", "--remarks", "remarks", is_flag=True, help="Print a remark for every loop on standard error.")
@click.option("--emit-graph", "graph_path", metavar="FILE",
              help="Write the dataflow graph of every lifted loop nest: .dot, .json or .svg (needs Graphviz).")
@click.version_option(__version__, "--version", prog_name="lift")
def lift(inputs, output, target, include_dirs, defines, undefines, forced_includes, std, opt_level,
         report_path, remarks, graph_path):
    """Lift sequential C loop nests into parallel OpenMP C or CUDA C.

    \b
    Examples:
      lift stencil.c -o stencil_omp.c      OpenMP C for multicore CPUs
      lift stencil.c -o stencil.cu         CUDA C for NVIDIA GPUs
      lift -DN=1000 -I include k.c -o -    preprocess like cc, print the result

    cc flags that do not affect preprocessing (-Wall, -march=..., -fopenmp, -g)
    are accepted and ignored.
    """
    if not inputs:
        raise click.UsageError("no input file")
    if len(inputs) > 1:
        raise click.UsageError("several inputs need an output directory (not supported yet); give one input")
    path = inputs[0]
    options = LiftOptions(
        target=target_for(output, target),
        preprocess=PreprocessOptions(list(include_dirs), list(defines), list(undefines), list(forced_includes), std),
        opt_level=opt_level,
    )
    if output not in (None, "-") and os.path.exists(output) and _same_file(path, output):
        _fail(Diagnostic(output, 0, 0, "error", "output would overwrite the input"))
    try:
        result = lift_file(path, options)
    except LiftError as exc:
        _fail(exc.diagnostic)
    try:
        if graph_path:
            from lifter.graph.export import write_graphs

            write_graphs(result.graphs, graph_path)
        if report_path:
            write_atomically(report_path, json.dumps({"tool": f"lift {__version__}", "loops": result.loops},
                                                     indent=2) + "\n")
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
    except LiftError as exc:
        _fail(exc.diagnostic)
    except OSError as exc:
        _fail(Diagnostic(exc.filename or output or "lift", 0, 0, "error",
                         f"cannot write: {exc.strerror or exc}"))
    # Remarks come last: the files are complete even if stderr goes away mid-way.
    if remarks:
        for d in result.diagnostics:
            _echo_err(str(d))


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
