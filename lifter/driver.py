"""The pipeline, one stage after another: source -> AST -> polyhedral model ->
dataflow graph -> transformed graph -> C text.

`lift_source` and `lift_file` are the Python API; the command line is a thin
layer over them.
"""
from __future__ import annotations

import sys
import threading
from dataclasses import dataclass, field

from lifter.diagnostics import Diagnostic, LiftError
from lifter.frontend import PreprocessOptions, SourceFile, load
from lifter.frontend.pointer_steps import rewritten
from lifter.frontend.source import check_text, read_source
from lifter.started import Started

TARGETS = ("openmp", "cuda", "mpi")

# pycparser and the AST walkers recurse once per nesting level; deep but valid
# programs must not crash Python, so the pipeline runs on a thread with a big stack.
_STACK_BYTES = 512 * 1024 * 1024
_RECURSION_LIMIT = 60_000


@dataclass
class LiftOptions:
    """Everything that changes what `lift` produces for one file."""

    target: str = "openmp"
    preprocess: PreprocessOptions = field(default_factory=PreprocessOptions)
    opt_level: int = 2
    min_parallel_work: int = 40_000  # iterations x statements; smaller loops stay sequential
    tile: bool = True  # -O2: tile permutable loop bands where reuse misses the cache
    fuse: bool = True  # -O2: fuse producer-consumer sibling loops that share data
    unroll: bool = True  # -O2: unroll and jam the loops around vectorizable innermost loops
    assume_no_alias: bool = False  # pointer parameters never overlap each other (cc's -fargument-noalias)
    strict_aliasing: bool = True  # C's type rules keep pointers apart (cc's -fno-strict-aliasing: off)
    tile_sizes: tuple[int, ...] = ()  # outermost first (the last repeats); empty: from the cache sizes


@dataclass(eq=False)
class LiftResult:
    """The output text, one report entry per loop, the remarks, the lifted graphs, the headers read,
    what the backend made of each graph's region (`backend.outcome.RegionOutcome`, in the graphs' order)
    and a warning for each pass the pass manager undid."""

    output: str
    loops: list[dict]
    diagnostics: list[Diagnostic]
    graphs: list = field(default_factory=list)
    included_files: list[str] = field(default_factory=list)
    outcomes: list = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)  # passes rolled back (`lift -v` prints them)


def lift_file(path: str, options: LiftOptions | None = None) -> LiftResult:
    """Lift the C file at `path`; raises LiftError for input that is not valid C."""
    return _on_deep_stack(_lift, read_source(path), options or LiftOptions())


def lift_source(text: str, path: str = "<stdin>", options: LiftOptions | None = None) -> LiftResult:
    """Lift C source given as text; `path` names it in diagnostics and resolves quoted includes."""
    source = SourceFile(path, check_text(path, text.encode("utf-8", errors="surrogateescape")))
    return _on_deep_stack(_lift, source, options or LiftOptions())


def _lift(source: SourceFile, options: LiftOptions) -> LiftResult:
    if options.target not in TARGETS:
        raise LiftError(source.path, 0, 0, f"unknown target '{options.target}' (choose {', '.join(TARGETS)})")
    # The frontend waits on the C compiler's processes (preprocessor, check) for a good part of its
    # time: a `lift` process imports the rest of the pipeline meanwhile (the command line leaves
    # it to this function), instead of before it starts them.
    loading = Started(load, source, options.preprocess, name="lift-frontend")
    from lifter.analysis import analyze
    from lifter.backend import emit
    from lifter.remarks import remark
    from lifter.graph.build import build_graphs
    from lifter.report import loop_entries
    from lifter.transform import transform

    unit = loading.result()
    stepped = rewritten(source, unit.ast)  # `*p++` in counted loops written as `p[i]` (pointer_steps.py)
    if stepped is not None:
        source = SourceFile(source.path, stepped.text)
        unit = load(source, options.preprocess)
    if options.target == "cuda":  # what C++ needs explicit, in C lifted as the file (frontend/cxx_text.py)
        from lifter.frontend.cxx_text import cxx_text
        text = cxx_text(source, unit.notes)
        if text is not None:
            source = SourceFile(source.path, text)
            unit = load(source, options.preprocess)
    model = analyze(unit, options.strict_aliasing, options.assume_no_alias)
    graphs = build_graphs(model)
    graphs, dropped = transform(graphs, options, source)
    emitted = emit(source, graphs, options.target, unit.notes)
    loops = loop_entries(source, graphs, emitted.regions, model, unit.ast)
    if stepped is not None:
        loops = stepped.named(loops)
    remarks = [remark(e) for e in loops]
    text = emitted.text if stepped is None else stepped.restored(emitted.text)
    if emitted.cxx_names is not None:  # C names that are C++ keywords, and C's null pointer, made C++
        from lifter.frontend.cxx_names import cxx_names
        text = cxx_names(text, emitted.cxx_names)
    text = emitted.prelude + text
    return LiftResult(text, loops, remarks, graphs, unit.included_files, emitted.regions,
                      _dropped_warnings(source.path, graphs, dropped))


def _dropped_warnings(path: str, graphs: list, dropped: list) -> list[Diagnostic]:
    """One warning per pass the pass manager rolled back, at the first line of its graph's nest (`lift -v`
    prints them: the user sees why a transformation is missing, instead of its silent absence)."""
    lines = {g.name: g.nest.scop.loops[g.nest.scop.root].line for g in graphs}
    return [Diagnostic(path, lines.get(d.graph, 0), 0, "warning",
                       f"pass '{d.name}' failed and was undone: {d.error}") for d in dropped]


def _on_deep_stack(func, *args):
    result: list = []
    error: list[BaseException] = []

    def run() -> None:
        try:
            result.append(func(*args))
        except BaseException as exc:  # re-raised in the caller's thread
            error.append(exc)

    old_limit = sys.getrecursionlimit()
    old_size = threading.stack_size()
    try:
        threading.stack_size(_STACK_BYTES)
        sys.setrecursionlimit(max(old_limit, _RECURSION_LIMIT))
        worker = threading.Thread(target=run, name="lift")
        worker.start()
        worker.join()
    finally:
        threading.stack_size(old_size)
        sys.setrecursionlimit(old_limit)
    if error:
        exc = error[0]
        if isinstance(exc, RecursionError):
            path = getattr(args[0], "path", "<input>")
            raise LiftError(path, 0, 0, "program nested too deeply to analyze") from None
        raise exc
    return result[0]
