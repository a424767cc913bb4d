"""The per-loop report (JSON) and the remarks, read from the transformed graphs."""
from __future__ import annotations

import networkx as nx

from lifter.analysis.model import ProgramModel
from lifter.frontend.source import SourceFile
from lifter.graph.nodes import MapScope, scope_parent


def loop_entries(source: SourceFile, graphs: list[nx.MultiDiGraph], model: ProgramModel) -> list[dict]:
    entries = []
    for g in graphs:
        maps = {n: d["node"] for n, d in g.nodes(data=True) if isinstance(d["node"], MapScope)}
        for m in maps.values():
            parallelized = m.plan is not None
            inside_parallel = _inside_plan(g, m.id, maps)
            entry = _entry(source, m.line, m.column, m.offset, m.function, m.depth, m.var)
            entry.update(
                parallel=m.schedule == "parallel",
                parallelized=parallelized,
                reduction=[{"variable": v, "operator": op} for v, op in m.reductions],
                private=sorted(set(m.private) | set(m.lastprivate)),
                reason=m.reason if m.schedule == "sequential" else (m.not_parallelized or m.reason),
            )
            if parallelized:
                extra = ""
                if m.plan.reductions:
                    extra = " with " + ", ".join(f"reduction({op}: {v})" for v, op in m.plan.reductions)
                if m.plan.condition:
                    extra += f" (in parallel when {m.plan.condition})"
                entry["remark"] = f"loop over '{m.var}' parallelized{extra}"
                entry["condition"] = m.plan.condition
            elif m.schedule == "parallel":
                why = m.not_parallelized or ("an enclosing loop is already parallel" if inside_parallel
                                             else "an enclosing loop is already parallel or it is nested")
                entry["remark"] = f"loop over '{m.var}' is parallel but not parallelized: {why}"
            else:
                entry["remark"] = f"loop over '{m.var}' not parallelized: {m.reason}"
            entries.append(entry)
    for u in model.unlifted:
        entry = _entry(source, u.line, u.column, None, u.function, u.depth, u.var)
        entry.update(parallel=False, parallelized=False, reduction=[], private=[], reason=u.reason)
        what = f"loop over '{u.var}'" if u.var else "loop"
        entry["remark"] = f"{what} not parallelized: {u.reason}"
        entries.append(entry)
    entries.sort(key=lambda e: (e["line"], e["column"]))
    return entries


def _inside_plan(g, node_id, maps) -> bool:
    parent = scope_parent(g, node_id)
    while parent in maps:
        if maps[parent].plan is not None:
            return True
        parent = scope_parent(g, parent)
    return False


def _entry(source: SourceFile, line, column, offset, function, depth, var) -> dict:
    if offset is not None:
        line, column = source.position(offset)
    return {"file": source.path, "line": line, "column": column, "function": function, "depth": depth,
            "var": var}
