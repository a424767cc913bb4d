"""OpenMP backend: the user's file with `#pragma omp` directives on the planned maps."""
from __future__ import annotations

import networkx as nx

from lifter.backend.edits import Insertion, apply, before_statement
from lifter.frontend.source import SourceFile
from lifter.graph.nodes import MapScope

MARK = "/* lift */"


def pragma(m: MapScope) -> str:
    plan = m.plan
    clauses = ["parallel for"]
    if plan.collapse > 1:
        clauses.append(f"collapse({plan.collapse})")
    clauses.append("schedule(static)")
    if plan.private:
        clauses.append(f"private({', '.join(plan.private)})")
    if plan.lastprivate:
        clauses.append(f"lastprivate({', '.join(plan.lastprivate)})")
    for name, op in plan.reductions:
        clauses.append(f"reduction({op}: {name})")
    if plan.condition:
        clauses.append(f"if({plan.condition})")
    return f"#pragma omp {' '.join(clauses)} {MARK}"


def emit_openmp(source: SourceFile, graphs: list[nx.MultiDiGraph]) -> str:
    insertions: list[Insertion] = []
    for g in graphs:
        for _, data in g.nodes(data=True):
            node = data["node"]
            if isinstance(node, MapScope) and node.plan is not None:
                insertions.append(before_statement(source.text, node.offset, pragma(node)))
    return apply(source.text, insertions)
