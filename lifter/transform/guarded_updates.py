"""Array reductions with updates whose index has no bounds in C (issue 16, cellmd's force loop).

A pair scatter `f[i] += d; f[j] -= d;` with `j` read from memory cannot be covered by an OpenMP
reduction section: `f[j]` may be any element. When other updates of the array are bounded over the
loop (`f[i]`: [0, n)), the loop reduces into that section, and each unbounded update tests its
index: inside the section it updates the thread's copy as written; outside it, it updates nothing
and sets a flag (`lift_escape`, OR-reduced). The backend copies every reduction target before the
parallel loop; if the flag is set, it puts the copies back and runs the loop again as written. So
the parallel result is kept only when every update fell inside its section, and then it is the
reduction's, up to the reassociation any reduction makes.

Why not an atomic update of the array outside the section (the first form): its mere presence on
the path back into the loop is a memory clobber, after which GCC reloads every loop-invariant
field (cellmd: `cl->start`, `s->box`) on every pair, 5-6% of the force loop's time. A flag in a
register clobbers nothing. The second run needs a loop that reads nothing it writes but its
reductions and its own scalars (`saved_reductions`): then the copies restore all it depends on.

The plan records each guarded update (`GuardedUpdate`): the statement's place in the user's file
and the test the backend puts there. Only an update that is a whole statement as written
(`f[j] -= d;`, `f[j]++;`), whose index has no side effects, is guarded; otherwise the loop stays
sequential with the reason.
"""
from __future__ import annotations

import re

from pycparser import c_ast

from lifter.analysis.affine import c_text
from lifter.analysis.updates import REDUCTION_OPS
from lifter.frontend.spans import Spans, Unparsable
from lifter.frontend.walk import walk
from lifter.graph.attributes import DataflowGraph
from lifter.graph.nodes import AccessNode, GuardedUpdate, MapScope, SavedReduction
from lifter.analysis.ranges import access_range, bound_c

# The arithmetic element types guarded here (saved and restored by plain assignment).
_ARITHMETIC_TYPES = {"double", "float", "char", "short", "int", "long", "long long", "unsigned", "unsigned char",
                 "unsigned short", "unsigned int", "unsigned long", "unsigned long long", "signed char"}
# Tokens after which an update at the start of a statement starts that statement.
_STATEMENT_BEFORE = {";", "{", "}", ")", "else", "do"}


def guarded_section(g: DataflowGraph, m: MapScope, node: AccessNode,
                    spans: Spans | None) -> tuple[str, str, list[GuardedUpdate]] | str:
    """(first, length) in C of the section the bounded updates of `node` cover over the loop, and
    the unbounded updates to guard; or why there is no such section."""
    region = g.nest.scop
    loop = region.loops.get(m.origin)
    if spans is None or loop is None or m.transformations or loop.var != m.var or g.nest.restructured:
        return "its unbounded updates are guarded only in a loop as written"
    if node.element not in _ARITHMETIC_TYPES:
        return f"its unbounded updates are guarded only for arithmetic elements, not '{node.element}'"
    bounded, loose = None, {}
    for sid in region.statements_inside(m.origin):
        for acc in region.statements[sid].accesses:
            if acc.container != node.container:
                continue
            rng = access_range(acc.relation, loop.depth)
            if bound_c(rng, 0, False) is None or bound_c(rng, 0, True) is None:
                loose.setdefault(sid, set()).add(acc.text)
            else:
                bounded = rng if bounded is None else bounded.union(rng)
    if bounded is None:
        return "none of its updates has bounds in C"
    bounded = bounded.coalesce()
    first, last = bound_c(bounded, 0, False), bound_c(bounded, 0, True)
    if first is None or last is None:
        return "the range of its bounded updates has no bounds in C"
    updates = []
    for sid, texts in loose.items():
        stmt = region.statements[sid]
        found = [n for n in walk(stmt.node) if _target_text(n) in texts]
        if not found:
            return f"an update of '{node.name}' at line {stmt.line} is not one lift can guard"
        for update in found:
            guarded = _guarded(update, node, first, last, spans, g.path)
            if isinstance(guarded, str):
                return guarded
            updates.append(guarded)
    return first, f"({last}) - ({first}) + 1", updates


def saved_reductions(written: list[AccessNode], read: set[str], reductions: list[tuple[str, str]],
                     sections: dict[str, tuple[str, str]], own: set[str]) -> list[SavedReduction] | str:
    """What the backend copies before a loop with guarded updates (every reduction target the loop
    writes, an array as its reduced section), or why the loop cannot run again as written after an
    update outside a section. Besides those targets and its own scalars (`own`: private,
    lastprivate, loop variables), it may write only containers it never reads (`read`: the keys
    the loop's memlets read): their values depend on nothing the first run changed, so the second
    run writes the same ones again. `written`: the containers the loop's memlets write."""
    reduced = {name for name, _ in reductions}
    saved: dict[str, SavedReduction] = {}
    for node in written:
        if node.name in reduced:
            first, length = sections.get(node.name, ("", ""))
            saved[node.name] = SavedReduction(node.name, node.element, first, length)
        elif node.container in read and not (node.transient or node.ndim == 0 and node.name in own):
            return (f"the loop also reads and writes '{node.name}', so it cannot run again as written after an "
                    f"update outside the section")
    return list(saved.values())


def _target_text(n: c_ast.Node) -> str | None:
    """The text of the element an update statement's node writes (`f[j]` in `f[j] -= d`), else None."""
    if isinstance(n, c_ast.Assignment):
        return c_text(n.lvalue)
    if isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--"):
        return c_text(n.expr)
    return None


def _guarded(update: c_ast.Node, node: AccessNode, first: str, last: str, spans: Spans,
             path: str | None) -> GuardedUpdate | str:
    line = update.coord.line if update.coord else 0
    why = f"the update of '{node.name}' at line {line} cannot be guarded"
    target = update.lvalue if isinstance(update, c_ast.Assignment) else update.expr
    if not isinstance(target, c_ast.ArrayRef) or not isinstance(target.name, c_ast.ID) \
            or target.name.name != node.name:
        return why
    if isinstance(update, c_ast.Assignment) and update.op not in REDUCTION_OPS:
        return f"{why} (only `{node.name}[e] op= v` and `++`/`--` are guarded)"
    if any(isinstance(n, (c_ast.FuncCall, c_ast.Assignment))
           or isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--") for n in walk(target.subscript)):
        return f"{why}: its index has side effects"
    span = _statement(update, spans, path)
    if span is None:
        return f"{why}: it is not a statement of its own in the file as written"
    index = c_text(target.subscript)
    # From 0, one unsigned comparison tests both ends (a negative index wraps to a large value;
    # `last` >= 0, since the section is not empty where the loop runs in parallel): one branch
    # less on every update of the hot loop (cellmd: 2.3 M of 281 M instructions).
    inside = f"(unsigned long)({index}) <= (unsigned long)({last})" if re.fullmatch(r"\(*0L?\)*", first) \
        else f"({index}) >= ({first}) && ({index}) <= ({last})"
    return GuardedUpdate(node.name, node.element, span[0], span[1], inside)


def _statement(update: c_ast.Node, spans: Spans, path: str | None) -> tuple[int, int] | None:
    """(start, end) of `update` and its `;` in the user's file, if the update is a whole statement there."""
    coord = update.coord
    if coord is None or path is None or coord.file != path:
        return None
    start = _line_offset(spans.text, coord.line)
    if start is None:
        return None
    start += coord.column - 1
    i = spans.index.get(start)
    if i is None or i == 0 or spans.tokens[i - 1].text not in _STATEMENT_BEFORE:
        return None
    try:
        end = spans.tokens[spans.statement_end(i) - 1].end
    except Unparsable:
        return None
    # The same tokens but for blanks and parentheses (c_text adds some: `f[(3 * j) + 0]`).
    if re.sub(r"[\s()]", "", spans.text[start:end]) != re.sub(r"[\s()]", "", c_text(update) + ";"):
        return None
    return start, end


def _line_offset(text: str, line: int) -> int | None:
    offset = 0
    for _ in range(line - 1):
        offset = text.find("\n", offset) + 1
        if offset == 0:
            return None
    return offset
