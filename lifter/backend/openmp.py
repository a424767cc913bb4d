"""OpenMP backend: the user's file with `#pragma omp` directives on the planned maps."""
from __future__ import annotations

import networkx as nx

from lifter.backend.edits import Insertion, apply, before_statement, line_start
from lifter.frontend.source import SourceFile
from lifter.graph.build import STATE
from lifter.graph.nodes import MapScope, scope_children

MARK = "/* lift */"
RESTRUCTURED = "/* lift: loop nest reordered for locality (distribution/interchange) */"


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
    replacements: list[tuple[int, int, str]] = []
    for g in graphs:
        if g.graph.get("restructured"):
            start, end = g.graph["span"]
            indent = source.text[line_start(source.text, start):start]
            indent = indent if indent.strip() == "" else ""
            lines = [indent + RESTRUCTURED] + _nest_lines(g, STATE, indent)
            replacements.append((start, end, "\n".join(lines)[len(indent):]))
            continue
        for _, data in g.nodes(data=True):
            node = data["node"]
            if isinstance(node, MapScope) and node.plan is not None:
                insertions.append(before_statement(source.text, node.offset, pragma(node)))
    return apply(source.text, insertions, replacements)


def _nest_lines(g: nx.MultiDiGraph, scope: str, indent: str) -> list[str]:
    """Re-emit a restructured nest from the graph: headers and statements as the user wrote them."""
    lines = []
    for child in scope_children(g, scope):
        node = g.nodes[child]["node"]
        if isinstance(node, MapScope):
            if node.plan is not None:
                lines.append(indent + pragma(node))
            lines.append(f"{indent}{node.header} {{")
            lines += [indent + "    " + d for d in node.declarations]
            lines += _nest_lines(g, child, indent + "    ")
            lines.append(f"{indent}}}")
        else:
            lines.append(indent + node.text)
    return lines
