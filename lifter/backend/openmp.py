"""OpenMP backend: the user's file with `#pragma omp` directives on the planned maps."""
from __future__ import annotations

import networkx as nx

from lifter.backend.edits import Insertion, apply, before_statement, line_start
from lifter.frontend.source import SourceFile
from lifter.graph.build import STATE
from lifter.graph.nodes import MapScope, scope_children

MARK = "/* lift */"
RESTRUCTURED = "/* lift: loop nest reordered for locality (distribution/interchange) */"


def simd_pragma(m: MapScope) -> str:
    clauses = ["simd"] + [f"reduction({op}: {name})" for name, op in m.reductions]
    return f"#pragma omp {' '.join(clauses)} {MARK}"


def pragma(m: MapScope) -> str:
    plan = m.plan
    clauses = ["parallel for simd" if m.simd else "parallel for"]
    if plan.collapse > 1:
        clauses.append(f"collapse({plan.collapse})")
    clauses.append("schedule(static)")
    if plan.private:
        clauses.append(f"private({', '.join(plan.private)})")
    if plan.lastprivate:
        clauses.append(f"lastprivate({', '.join(plan.lastprivate)})")
    for name, op in plan.reductions:
        section = f"[{plan.sections[name]}]" if name in plan.sections else ""
        clauses.append(f"reduction({op}: {name}{section})")
    if plan.condition and not plan.versioned:
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
                if node.plan.versioned:
                    start, end = node.span
                    replacements.append((start, end, _versioned(source, node, source.text[start:end])))
                else:
                    insertions.append(before_statement(source.text, node.offset, pragma(node)))
            elif isinstance(node, MapScope) and node.simd:
                insertions.append(before_statement(source.text, node.offset, simd_pragma(node)))
    return apply(source.text, insertions, replacements)


def _versioned(source: SourceFile, m: MapScope, loop_text: str) -> str:
    """`if (condition) { parallel loop } else { loop as written }`, indented like the loop."""
    start = m.span[0]
    indent = source.text[line_start(source.text, start):start]
    indent = indent if indent.strip() == "" else ""
    body = _reindent(loop_text, indent)
    return (f"if ({m.plan.condition}) {{ {MARK}\n{indent}    {pragma(m)}\n{indent}    {body}\n"
            f"{indent}}} else {{\n{indent}    {body}\n{indent}}}")


def _reindent(text: str, indent: str) -> str:
    """Shift the continuation lines of a statement one level deeper."""
    return text.replace("\n", "\n    ")


def _nest_lines(g: nx.MultiDiGraph, scope: str, indent: str) -> list[str]:
    """Re-emit a restructured nest from the graph: headers and statements as the user wrote them."""
    lines = []
    for child in scope_children(g, scope):
        node = g.nodes[child]["node"]
        if isinstance(node, MapScope):
            if node.plan is not None and node.plan.versioned:
                lines.append(f"{indent}if ({node.plan.condition}) {{ {MARK}")
                lines.append(f"{indent}    {pragma(node)}")
                lines += _map_lines(g, child, node, indent + "    ")
                lines.append(f"{indent}}} else {{")
                lines += _map_lines(g, child, node, indent + "    ")
                lines.append(f"{indent}}}")
                continue
            if node.plan is not None:
                lines.append(indent + pragma(node))
            elif node.simd:
                lines.append(indent + simd_pragma(node))
            lines += _map_lines(g, child, node, indent)
        else:
            lines.append(indent + node.text)
    return lines


def _map_lines(g: nx.MultiDiGraph, map_id: str, node: MapScope, indent: str) -> list[str]:
    lines = [f"{indent}{node.header} {{"]
    lines += [indent + "    " + d for d in node.declarations]
    lines += _nest_lines(g, map_id, indent + "    ")
    lines.append(f"{indent}}}")
    return lines
