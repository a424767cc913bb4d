"""Gathers through an index array read at an affine subscript: `xl[k] = x[nodes[4*i + k]];`.

Element loops of unstructured-mesh codes read node data through the element's connectivity,
`x[nodelist[4*i + k]]`: any element of `x` for the model, so no test of addresses before the
loop over elements can be formed from it, and the loop stays sequential wherever `x` may overlap
what it writes (`vnew[i]`). Over a range of elements, though, the index array is read at an
affine subscript, so the part of it the loop reads is bounded by the loop's own bounds, and the
elements of `x` it reads lie between the least and the greatest index found there: one pass over
that part before the loop (transform/row_spans.py's `Gathered`, as for a CSR row's `x[col[k]]`,
analysis/row_ranges.py) bounds them, and the alias test compares those with the written range.

The same holds for a call of a helper whose summary says that it reads a field array only
through an index parameter (call_summaries.py `Gather`: `collect(d, &d->nodelist[4*i], xl)`
reading `d->x[nodes[k]]`, k = 0..3): what the call reads of its index argument is an access
over the helper's span, affine in the caller.

This module finds, per statement, the reads `Q[C[e] + d]` (d an integer literal), and those of
such calls, where:
- the statement is modelled exactly (not opaque) and no `if` stands around it or its loops, and
  `C[e]` is read wherever the statement runs (not under `?:`, `&&`, `||`): the pass then reads
  only elements between the least and the greatest the loop reads itself;
- `C[e]` (the call's index argument) is an access of its own; that its range has bounds over
  the loop is checked where the loop is known;
- C holds integers that fit a `long` (the test computes addresses with it).
That nothing in the loop writes C is checked where the loop is known (row_spans.py).
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from lifter.analysis.affine import c_text, int_constant
from lifter.analysis.model import Kind, Region
from lifter.analysis.pointer_aliases import pointer_aliases, through_aliases
from lifter.analysis.row_ranges import WIDE, unconditional_texts
from lifter.analysis.type_apart import integer_pointee
from lifter.frontend.walk import walk


@dataclass(frozen=True)
class AffineGather:
    """The read `Q[C[e] + shift]` (access `access`) through the index access `C[e]` (`index`)."""

    access: str  # id of the access of Q
    index: str  # id of the access C[e]
    index_container: str  # key of C
    index_type: str  # C's integer type, spelled for a cast
    shift: int


def affine_gathers(region: Region, symbols) -> dict[str, list[AffineGather]]:
    """The `AffineGather`s of each statement of `region` that has some, by statement id."""
    out = {}
    for sid, stmt in region.statements.items():
        if stmt.opaque_reason or stmt.conditions or any(region.loops[lid].conditions for lid in stmt.loops):
            continue
        found = _gathers(region, stmt, symbols)
        if found:
            out[sid] = found
    return out


def _gathers(region: Region, stmt, symbols) -> list[AffineGather]:
    node = through_aliases(stmt.node, pointer_aliases(symbols))  # (as effects.py read it)
    reads = {}
    for acc in stmt.accesses:
        if not acc.is_write:
            reads.setdefault(acc.text, acc)
    always = unconditional_texts(node)
    found = []
    for n in walk(node):
        if not isinstance(n, c_ast.ArrayRef) or isinstance(n.name, c_ast.ArrayRef):
            continue
        index, shift = n.subscript, 0
        if isinstance(index, c_ast.BinaryOp) and index.op in "+-" and int_constant(index.right) is not None:
            index, shift = index.left, int_constant(index.right) * (1 if index.op == "+" else -1)
        if not isinstance(index, c_ast.ArrayRef) or isinstance(index.name, c_ast.ArrayRef) \
                or c_text(index) not in always:
            continue
        gathered, by = reads.get(c_text(n)), reads.get(c_text(index))
        if gathered is None or by is None or gathered.container == by.container:
            continue
        index_type = integer_pointee(symbols, region.containers[by.container].name)
        if index_type is None or index_type in WIDE:
            continue
        found.append(AffineGather(gathered.id, by.id, by.container, index_type, shift))
    for call in walk(node):
        if isinstance(call, c_ast.FuncCall) and isinstance(call.name, c_ast.ID) and c_text(call) in always:
            found += _call_gathers(region, stmt, call, symbols)
    return found


def _call_gathers(region: Region, stmt, call: c_ast.FuncCall, symbols) -> list[AffineGather]:
    """The gathers of a summarized call (`Gather`), matched with the accesses effects.py made of
    it: the field array's read (its text the argument's, its key the argument's and the path) and
    the one read of the index argument."""
    summary = symbols.table.call_effects.get(call.name.name)
    args = call.args.exprs if call.args else []
    found = []
    for gather in summary.gathers if summary is not None else ():
        if max(gather.position, gather.index) >= len(args):
            continue
        base, index = c_text(args[gather.position]), c_text(args[gather.index])
        gathered = [a for a in stmt.accesses if not a.is_write and a.text == base and a.container.endswith(gather.path)
                    and region.containers[a.container].name == a.container]
        by = [a for a in stmt.accesses if not a.is_write and a.text == index]
        if len(gathered) != 1 or len(by) != 1 or region.containers[by[0].container].kind == Kind.SCALAR:
            continue
        index_type = integer_pointee(symbols, region.containers[by[0].container].name)
        if index_type is None or index_type in WIDE:
            continue
        found += [AffineGather(gathered[0].id, by[0].id, by[0].container, index_type, shift) for shift in gather.shifts]
    return found
