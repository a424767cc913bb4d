"""The per-loop report (JSON) and the remarks, read from the transformed graphs.

Every `for` loop of the user's file gets exactly one entry, and only loops the user wrote get
one (the tile, wavefront and strip loops lift makes are named by the loop they come from).
Each entry says, besides the free text of its remark, what kind of remark it is (`kind`:
passed, missed or analysis, clang's -Rpass, -Rpass-missed, -Rpass-analysis), which passes it
concerns (`passes`, the names -Rpass=REGEX matches) and, when the loop is not parallelized, a
stable `reason_code` taken from the verdict that decided it (docs/report.md lists them).
"""
from __future__ import annotations

from pycparser import c_ast

from lifter.version import TOOL
from lifter.analysis.model import ProgramModel
from lifter.analysis.scop import header_var
from lifter.backend.outcome import RegionOutcome
from lifter.conditions import readable
from lifter.frontend.source import SourceFile
from lifter.graph.attributes import DataflowGraph
from lifter.backend.openmp_scatter import ITEMS_PER_OFFSET
from lifter.graph.nodes import MapScope, Schedule, scope_parent

# The report's format: bumped when a field changes meaning or goes away (docs/report.schema.json).
REPORT_VERSION = 1
# The transformations' names in the graph, as pass names (what -Rpass=REGEX matches).
PASS_OF = {"distribution": "distribute", "interchange": "interchange", "fusion": "fuse", "tiling": "tile",
           "wavefront": "wavefront", "shift": "wavefront", "skew": "wavefront", "unroll-and-jam": "unroll",
           "simd": "vectorize", "contraction": "contract", "scalar expansion": "privatize",
           "register accumulators": "unroll", "rotation": "rotate"}


def report_document(loops: list[dict], **extra) -> dict:
    """The JSON report: its version, the tool, the loops (and, in batch mode, the files)."""

    return {"version": REPORT_VERSION, "tool": TOOL, "loops": loops, **extra}


def loop_entries(source: SourceFile, graphs: list[DataflowGraph], outcomes: list[RegionOutcome],
                 model: ProgramModel, ast: c_ast.FileAST | None = None) -> list[dict]:
    """One entry per loop of the input: the analysis verdict, and what the transformations made of it.

    A loop that distribution split into several maps gets one entry; it counts
    as parallelized when any of its maps runs in parallel. `transformations`
    lists what reshaped it (distribution, interchange, fusion, tiling, simd);
    a tiled loop also gets its `tile_size`. `outcomes` (one per graph) say what the backend made
    of each region: offloaded to the GPU or not, distributed over MPI ranks or not.
    """
    entries = []
    for g, outcome in zip(graphs, outcomes, strict=True):
        region = g.nest.scop
        maps = {n: d["node"] for n, d in g.nodes(data=True) if isinstance(d["node"], MapScope)}
        by_origin: dict[str, list[MapScope]] = {}
        for m in maps.values():
            for origin in [m.origin] + m.fused:
                by_origin.setdefault(origin, []).append(m)
        for origin, copies in by_origin.items():
            loop, v = region.loops[origin], region.verdicts[origin]
            planned = [m for m in copies if m.plan is not None]
            entry = _entry(source, loop.line, loop.column, loop.offset, loop.function, loop.depth, loop.var)
            code = ""
            entry.update(
                parallel=v.parallel,
                parallelized=bool(planned),
                reduction=[{"variable": x, "operator": op} for x, op in v.reductions],
                private=sorted(set(v.private) | set(v.lastprivate)),
                reason=v.reason,
                transformations=sorted({t for m in copies for t in m.transformations}
                                       | ({"simd"} if any(m.simd for m in copies) else set())),
            )
            tiles = sorted({m.tile for m in copies if m.tile})
            if tiles:
                entry["tile_size"] = tiles[0]
            reshaped = [f"tiling by {tiles[0]}" if t == "tiling" else t
                        for t in entry["transformations"] if t != "simd"]
            done = f" after {' and '.join(reshaped)}" if reshaped else ""
            if "simd" in entry["transformations"]:
                done += ", vectorized with omp simd"
            cuda = outcome.offload
            main = "offload" if cuda is not None else "parallelize"
            if planned and cuda is not None:
                if cuda.offloaded:
                    entry["remark"] = (f"loop over '{loop.var}' offloaded to the GPU{done} "
                                       f"(kernels: {', '.join(cuda.kernels)})")
                    if cuda.launch_test:
                        entry["remark"] += (f", when its launches inside a sequential loop do enough work each: "
                                            f"{readable(cuda.launch_test, False)}")
                else:
                    entry["parallelized"], code = False, cuda.code
                    entry["remark"] = (f"loop over '{loop.var}' is parallel but not offloaded to the GPU: "
                                       f"{cuda.reason}")
            elif planned and _plan_never_runs(planned[0].plan):
                entry["parallelized"], code = False, "not-profitable"
                entry["remark"] = (f"loop over '{loop.var}' not parallelized{done}: not profitable: the test that "
                                   f"picks the parallel version, {readable(planned[0].plan.condition, False)}, "
                                   f"is never true")
            elif planned:
                plan = planned[0].plan
                extra = ""
                if plan.reductions:
                    extra = " with " + ", ".join(f"reduction({op}: {x})" for x, op in plan.reductions)
                if plan.guarded:
                    names = ", ".join(f"'{x}'" for x in dict.fromkeys(u.name for u in plan.guarded))
                    extra += (f" ({len(plan.guarded)} unbounded update(s) of {names} tested: if one falls outside the "
                              f"section, the loop runs again as written)")
                if plan.condition:
                    extra += f" (in parallel when {readable(plan.condition)})"
                if plan.assumed_apart:
                    extra += " (pointers kept apart by --assume-no-alias, not by a test)"
                if plan.worksharing:
                    outer = g.nodes[scope_parent(g, planned[0].id)]["node"]
                    extra += f", as omp for in the parallel region around {_user_loop(region, outer)}"
                entry["remark"] = f"loop over '{loop.var}' parallelized{done}{extra}"
                entry["condition"] = plan.condition
            elif any(m.scatter is not None for m in copies):
                scatter = next(m.scatter for m in copies if m.scatter is not None)
                entry["parallelized"] = True
                entry["remark"] = (f"loop over '{loop.var}' parallelized{done} as a bucket scatter: each thread "
                                   f"counts the buckets '{scatter.bucket}' of its share of the iterations, then "
                                   f"stores its items at its own offsets into '{scatter.target}' (in parallel when "
                                   f"{readable(scatter.work)}, with {ITEMS_PER_OFFSET} items or more per offset in "
                                   f"'{scatter.counts}', {_scatter_buckets(scatter)}, the "
                                   f"buckets' ranges of '{scatter.target}' come in order without overlapping, and "
                                   f"the part written overlaps nothing the loop reads)")
                entry["condition"] = scatter.work
            elif any(m.schedule == Schedule.PARALLEL or m.condition or m.shared_scratch for m in copies):
                m = next(m for m in copies if m.schedule == Schedule.PARALLEL or m.condition or m.shared_scratch)
                why = m.not_parallelized or "an enclosing loop is already parallel"
                code = m.not_parallelized_code if m.not_parallelized else "enclosing-parallel"
                outer = _enclosing_plan(g, m.id)
                if not m.not_parallelized and outer is not None and _plan_never_runs(outer[1]):
                    code = "not-profitable"
                    why = (f"not profitable: {_user_loop(region, outer[0])} around it runs in parallel only when "
                           f"{readable(outer[1].condition, False)}, never true")
                entry["remark"] = f"loop over '{loop.var}' is parallel but not parallelized{done}: {why}"
                entry["reason"] = entry["reason"] or why
            else:
                if v.parallel:  # parallel as written, sequential in the nest the transformations made
                    code = "wavefront" if "wavefront" in entry["transformations"] else "transformed"
                else:
                    code = v.code or "not-modelable"
                entry["remark"] = f"loop over '{loop.var}' not parallelized{done}: {copies[0].reason or v.reason}"
            if any(m.parallel_region is not None for m in copies):
                entry["remark"] += "; one parallel region encloses it, so threads start once, not per iteration"
            mpi = [outcome.ranks[m.id] for m in copies if m.id in outcome.ranks]
            if mpi:
                entry["remark"] += f"; {mpi[0]}"
            _classify(entry, main, code)
            entries.append(entry)
        entries += _inner_entries(source, region)
    for u in model.unlifted:
        entry = _entry(source, u.line, u.column, None, u.function, u.depth, u.var)
        entry.update(parallel=False, parallelized=False, reduction=[], private=[], reason=u.reason,
                     transformations=[])
        what = f"loop over '{u.var}'" if u.var else "loop"
        entry["remark"] = f"{what} not parallelized: {u.reason}"
        _classify(entry, "parallelize", u.code or "not-modelable")
        entries.append(entry)
    if ast is not None:
        entries += _unreported(source, ast, entries)
    entries.sort(key=lambda e: (e["line"], e["column"]))
    return entries


def _enclosing_plan(g: DataflowGraph, node_id: str):
    """The nearest map around `node_id` that has a parallel plan, and its plan (or None)."""
    parent = scope_parent(g, node_id)
    while parent is not None:
        node = g.nodes[parent]["node"]
        if isinstance(node, MapScope) and node.plan is not None:
            return node, node.plan
        parent = scope_parent(g, parent)
    return None


def _plan_never_runs(plan) -> bool:
    """Whether the run-time test of a parallel plan is false whatever the input (a test of
    constants: the work is known at compile time and is too little)."""
    return bool(plan.condition) and readable(plan.condition) == "0"


def _classify(entry: dict, main: str, code: str) -> None:
    """Set the entry's kind, passes and (unless parallelized) reason_code.

    Passed: the loop was parallelized or offloaded, or reshaped by a transformation; missed: it
    was not, for a reason that blocks it; analysis: it was not, and nothing was missed (its
    iterations already run in parallel as part of an enclosing parallel loop)."""
    passes = list(dict.fromkeys(PASS_OF.get(t, t) for t in entry["transformations"]))
    if entry["parallelized"]:
        entry["kind"], entry["passes"] = "passed", [main] + passes
        return
    entry["reason_code"] = code
    if passes:  # reshaped, not parallelized: a remark of the passes that ran
        entry["kind"], entry["passes"] = "passed", passes
    else:
        entry["kind"], entry["passes"] = "analysis" if code == "enclosing-parallel" else "missed", [main]


def _user_loop(region, m: MapScope) -> str:
    """The loop `m` named as the user wrote it: a tile or wavefront loop lift made is named by
    the loop it comes from, and said to be tiled."""
    loop = region.loops.get(m.origin)
    if loop is None or loop.var == m.var:
        return f"the loop over '{m.var}'"
    how = "run as wavefronts of tiles" if "wavefront" in m.transformations else \
        "run diagonal by diagonal" if "diagonal wavefront" in m.transformations else "tiled"
    return f"the loop over '{loop.var}' ({how})"


def _unreported(source: SourceFile, ast: c_ast.FileAST, entries: list[dict]) -> list[dict]:
    """An entry for each `for` of the file that has none: a loop inside a statement that the loop
    around it keeps whole (a nest past the analysis budget, under a pragma of the user's, or a leaf
    the analysis does not model exactly). It stays as written, for the reason of that loop."""
    reported: dict[int, list[dict]] = {}
    for e in entries:
        reported.setdefault(e["line"], []).append(e)
    out: list[dict] = []

    def visit(node, function: str, outer: list[dict], depth: int) -> None:
        if isinstance(node, c_ast.FuncDef):
            function, outer, depth = node.decl.name, [], 0
        mine = None
        if isinstance(node, c_ast.For) and node.coord is not None and node.coord.file == source.path:
            mine = _match(node, reported)
            if mine is None:
                mine = _missing(source, node, function, depth, outer[-1] if outer else None)
                out.append(mine)
                reported.setdefault(mine["line"], []).append(mine)
        for _, child in node.children():
            visit(child, function, outer + [mine] if mine else outer, depth + (mine is not None))

    for ext in ast.ext:  # loops are only in function bodies: the headers' declarations are not walked
        if isinstance(ext, c_ast.FuncDef):
            visit(ext, "", [], 0)
    for e in entries + out:
        e.pop("_matched", None)
    return out


def _match(node: c_ast.For, reported: dict[int, list[dict]]) -> dict | None:
    """The entry of the loop `node`: on its line, with its loop variable, not yet taken by another."""
    var = header_var(node) or ""
    for e in reported.get(node.coord.line, []):
        if e["var"] == var and not e.get("_matched"):
            e["_matched"] = True
            return e
    return None


def _missing(source: SourceFile, node: c_ast.For, function: str, depth: int, outer: dict | None) -> dict:
    entry = {"file": source.path, "line": node.coord.line, "column": node.coord.column, "function": function,
             "depth": depth, "var": header_var(node) or ""}
    entry.update(parallel=False, parallelized=False, reduction=[], private=[], transformations=[])
    if outer is None:
        why, code = "the loop is part of a statement lift does not model", "not-modelable"
    elif outer.get("reason_code") in ("budget", "user-pragma"):
        why, code = f"the nest around it stays as written: {outer['reason']}", outer["reason_code"]
    else:
        why = (f"the loop over '{outer['var']}' (line {outer['line']}) keeps it inside a statement it "
               f"does not model exactly")
        code = "enclosing-statement"
    entry["reason"] = why
    what = f"loop over '{entry['var']}'" if entry["var"] else "loop"
    entry["remark"] = f"{what} not parallelized: {why}"
    _classify(entry, "parallelize", code)
    return entry


def _inner_entries(source: SourceFile, region) -> list[dict]:
    """Loops inside opaque leaves with a verdict of their own (analysis/inner_loops.py): reported,
    never transformed (their code is part of a statement of the region around them)."""
    entries = []
    for depth, sub in region.inner:
        for lid, loop in sub.loops.items():
            v = sub.verdicts[lid]
            entry = _entry(source, loop.line, loop.column, loop.offset, loop.function, depth + loop.depth, loop.var)
            entry.update(parallel=v.parallel, parallelized=False,
                         reduction=[{"variable": x, "operator": op} for x, op in v.reductions],
                         private=sorted(set(v.private) | set(v.lastprivate)), reason=v.reason, transformations=[])
            why = ("its bounds are read from memory, so the loop around it keeps it as one statement"
                   if v.parallel else v.reason)
            entry["remark"] = f"loop over '{loop.var}' {'is parallel but ' if v.parallel else ''}not parallelized: {why}"
            _classify(entry, "parallelize", "enclosing-statement" if v.parallel else v.code or "not-modelable")
            entries.append(entry)
    return entries


def _entry(source: SourceFile, line, column, offset, function, depth, var) -> dict:
    if offset is not None:
        line, column = source.position(offset)
    return {"file": source.path, "line": line, "column": column, "function": function, "depth": depth,
            "var": var}


def _scatter_buckets(scatter) -> str:
    """What a bucket scatter's remark says of its buckets: within the array of offsets, or, where
    their number is not known (a pointer), their range found first and the cost model's verdict."""
    if scatter.sized:
        return f"every bucket lies in '{scatter.counts}'"
    return ("the buckets' least and greatest found by a first pass, and when the cost model finds that the "
            "threads' rows of counts over that range (a pass to find it, one to count, one to store; one thread "
            "sums the rows) cost less than the loop as written")

