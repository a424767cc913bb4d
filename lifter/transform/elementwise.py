"""Element-wise aliasing: two pointers a loop may see as one array are safe if they are equal.

The run-time alias check of a parallel loop (`alias_test.alias_condition`) asks every
written pointer's range to be disjoint from every other range the loop touches, because the
dependence analysis treats two names as two arrays. `axpby(n, a, x, b, y, x)` passes the
output as an input too: the ranges overlap and the loop would run sequentially, although
each iteration reads exactly the element it writes, so the loop stays parallel when the
two pointers are the same.

`identical_is_safe` proves that with isl: with p and q read as one array (same element
type, same shape), any two instances of statements in the loop that touch one element
through p and through q (one of them writing) are in the same iteration of the loop (and
of the loops around it, which run in order anyway). The test then becomes "disjoint, or
the same pointer". It says nothing about a shift (`x[i]` written, `x[i + 1]` read through
`y == x + 1`): equal pointers are the only overlap it accepts.
"""
from __future__ import annotations

import re

import islpy as isl

from lifter.analysis.model import Kind
from lifter.graph.attributes import DataflowGraph
from lifter.graph.nodes import AccessNode, MapScope, scope_descendants


def identical_is_safe(g: DataflowGraph, m: MapScope, p: AccessNode, q: AccessNode) -> bool:
    """Whether `m` stays parallel when pointers `p` and `q` hold the same address."""
    if not _same_shape(p, q):
        return False
    region = g.nest.scop
    loop = region.loops.get(m.origin or m.id)
    if loop is None:
        return False
    depth = loop.depth
    inside = [t for t in scope_descendants(g, m.id) if t in region.statements]
    touched = {p.container: [], q.container: []}
    for sid in inside:
        for a in region.statements[sid].accesses:
            if a.container in touched:
                touched[a.container].append(a)
    try:
        maps = {c: [_to_loop(a, depth) for a in accesses] for c, accesses in touched.items()}
        for first, second in ((p.container, q.container), (q.container, p.container)):
            for a, ra in zip(touched[first], maps[first]):
                if not a.is_write:
                    continue
                for rb in maps[second]:
                    if _other_iteration_meets(ra, rb, depth):
                        return False
    except isl.Error:
        return False
    return True


def equal_pointers(p: AccessNode, q: AccessNode) -> str:
    return f"(const void *){p.name} == (const void *){q.name}"


def _same_shape(p: AccessNode, q: AccessNode) -> bool:
    plain = re.compile(r"[A-Za-z_]\w*")
    return (p.kind == q.kind == Kind.POINTER and p.element == q.element and p.element not in ("", "?")
            and p.ndim == q.ndim and p.strides == q.strides and not p.indirect and not q.indirect
            and not p.field and not q.field and plain.fullmatch(p.name) is not None
            and plain.fullmatch(q.name) is not None)


def _to_loop(a, depth: int) -> isl.Map:
    """{ [iterations of the loops 0..depth] -> [element] } the access touches."""
    n = a.relation.dim(isl.dim_type.in_)
    names = [f"i{j}" for j in range(n)]
    proj = isl.Map(f"{{ {a.id}[{', '.join(names)}] -> [{', '.join(names[:depth + 1])}] }}")
    return a.relation.apply_domain(proj).reset_tuple_id(isl.dim_type.out)


def _other_iteration_meets(write: isl.Map, other: isl.Map, depth: int) -> bool:
    """Some element is written at one iteration of the loop and touched at another (same outer iterations)."""
    write, other = write.align_params(other.get_space()), other.align_params(write.get_space())
    pairs = write.apply_range(other.reverse())
    for d in range(depth):
        pairs = pairs.equate(isl.dim_type.in_, d, isl.dim_type.out, d)
    ins, outs = isl.dim_type.in_, isl.dim_type.out
    return not pairs.order_lt(ins, depth, outs, depth).union(pairs.order_gt(ins, depth, outs, depth)).is_empty()

__all__ = ["equal_pointers", "identical_is_safe"]
