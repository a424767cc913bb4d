"""The per-loop report (JSON) and the remarks, read from the transformed graphs."""
from __future__ import annotations

import networkx as nx

from lifter.analysis.model import ProgramModel
from lifter.frontend.source import SourceFile
from lifter.graph.nodes import MapScope, scope_parent


def loop_entries(source: SourceFile, graphs: list[nx.MultiDiGraph], model: ProgramModel) -> list[dict]:
    """One entry per loop of the input: the analysis verdict, and what the transformations made of it.

    A loop that distribution split into several maps gets one entry; it counts
    as parallelized when any of its maps runs in parallel. `transformations`
    lists what reshaped it (distribution, interchange, fusion, tiling, simd);
    a tiled loop also gets its `tile_size`.
    """
    entries = []
    for g in graphs:
        region = g.graph["region"]
        maps = {n: d["node"] for n, d in g.nodes(data=True) if isinstance(d["node"], MapScope)}
        by_origin: dict[str, list[MapScope]] = {}
        for m in maps.values():
            for origin in [m.origin] + m.fused:
                by_origin.setdefault(origin, []).append(m)
        for origin, copies in by_origin.items():
            loop, v = region.loops[origin], region.verdicts[origin]
            planned = [m for m in copies if m.plan is not None]
            entry = _entry(source, loop.line, loop.column, loop.offset, loop.function, loop.depth, loop.var)
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
            cuda = g.graph.get("cuda")
            if planned and cuda is not None:
                if cuda["offloaded"]:
                    entry["remark"] = (f"loop over '{loop.var}' offloaded to the GPU{done} "
                                       f"(kernels: {', '.join(cuda['kernels'])})")
                else:
                    entry["parallelized"] = False
                    entry["remark"] = (f"loop over '{loop.var}' is parallel but not offloaded to the GPU: "
                                       f"{cuda['reason']}")
            elif planned:
                plan = planned[0].plan
                extra = ""
                if plan.reductions:
                    extra = " with " + ", ".join(f"reduction({op}: {x})" for x, op in plan.reductions)
                if plan.condition:
                    extra += f" (in parallel when {plan.condition})"
                if plan.worksharing:
                    outer = g.nodes[scope_parent(g, planned[0].id)]["node"]
                    extra += f", as omp for in the parallel region around the loop over '{outer.var}'"
                entry["remark"] = f"loop over '{loop.var}' parallelized{done}{extra}"
                entry["condition"] = plan.condition
            elif any(m.schedule == "parallel" or m.condition for m in copies):
                m = next(m for m in copies if m.schedule == "parallel" or m.condition)
                why = m.not_parallelized or "an enclosing loop is already parallel"
                entry["remark"] = f"loop over '{loop.var}' is parallel but not parallelized{done}: {why}"
                entry["reason"] = entry["reason"] or why
            else:
                entry["remark"] = f"loop over '{loop.var}' not parallelized{done}: {copies[0].reason or v.reason}"
            if any(m.parallel_region is not None for m in copies):
                entry["remark"] += "; one parallel region encloses it, so threads start once, not per iteration"
            mpi = [g.graph["mpi"][m.id] for m in copies if m.id in g.graph.get("mpi", {})]
            if mpi:
                entry["remark"] += f"; {mpi[0]}"
            entries.append(entry)
        entries += _inner_entries(source, region)
    for u in model.unlifted:
        entry = _entry(source, u.line, u.column, None, u.function, u.depth, u.var)
        entry.update(parallel=False, parallelized=False, reduction=[], private=[], reason=u.reason,
                     transformations=[])
        what = f"loop over '{u.var}'" if u.var else "loop"
        entry["remark"] = f"{what} not parallelized: {u.reason}"
        entries.append(entry)
    entries.sort(key=lambda e: (e["line"], e["column"]))
    return entries


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
            entries.append(entry)
    return entries


def _entry(source: SourceFile, line, column, offset, function, depth, var) -> dict:
    if offset is not None:
        line, column = source.position(offset)
    return {"file": source.path, "line": line, "column": column, "function": function, "depth": depth,
            "var": var}
