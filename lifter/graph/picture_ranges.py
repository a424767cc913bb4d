"""The ranges a picture draws on the memlets into and out of a map, as DaCe draws them.

DaCe labels the edge into a map entry (and out of a map exit) with what all the map's iterations
move, the enclosing maps' variables fixed: the tasklets' elements propagated out through the
maps in between. lift's own map memlets are computed before tiling, interchange and unrolling and
are not updated by them, so after -O2 an inner map can carry its container's whole range inside a
parent that reads one row. Here the ranges are recomputed from the tasklets' element subsets and
the maps' bounds as they are now: an isl set per access (the maps' variables existentially
quantified over their bounds, outer variables and parameters free), unioned and boxed. A map that
unroll-and-jam made step by u runs its strips up to `end - (u - 1)` (sdfg.py's `_map_range` does
the same), so its copies' `i + d` stay inside. Where a bound or an index is not affine text isl
reads, the container gets no range (None) and the picture names the container only.
"""
from __future__ import annotations

import re

import islpy as isl

from lifter.analysis.affine import isl_name
from lifter.analysis.budget import BudgetExceeded, isl_budget
from lifter.graph.nodes import MapScope, Memlet, Tasklet, scope_children
from lifter.analysis.ranges import readable
from lifter.graph.symbolic import c_to_symbolic
from lifter.graph.attributes import DataflowGraph

# A skewed nest's bounds nest integer divisions, whose existential projection isl can take minutes
# over; a picture's label is not worth that (about 20 ms of isl work per access, container and map).
PICTURE_OPERATIONS = 200_000
MAX_BOUND = 40
_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
_ISL_WORDS = {"min": "min", "max": "max", "Min": "min", "Max": "max", "floor": "floor"}


def _isl_text(c_text: str) -> str | None:
    """A C bound or index as isl affine text (`Min` -> `min`, `int_floor(a, 32)` -> `floor((a)/32)`)."""
    text = c_to_symbolic(c_text)
    if text is None or "%" in text:
        return None
    while "int_floor(" in text:
        start = text.index("int_floor(")
        depth, k, comma = 0, start + len("int_floor("), None
        for k in range(start + len("int_floor("), len(text)):
            if text[k] == "(":
                depth += 1
            elif text[k] == ")":
                if depth == 0:
                    break
                depth -= 1
            elif text[k] == "," and depth == 0:
                comma = k
        if comma is None:
            return None
        inner = start + len("int_floor(")
        divisor = text[comma + 1:k].strip()
        if not divisor.isdigit():  # isl divides by constants only
            return None
        text = f"{text[:start]}floor(({text[inner:comma]})/{divisor}){text[k + 1:]}"
    return _IDENT.sub(lambda m: _ISL_WORDS.get(m.group(0)) or isl_name(m.group(0)), text)


def _last(node: MapScope) -> str:
    """The last index a map starts an iteration at (an unrolled map's last strip start)."""
    return f"({node.end}) - {node.step - 1}" if node.step > 1 and not node.tile and not node.decreasing \
        else node.end


def _maps_to(g: DataflowGraph, top: str) -> dict[str, list[str]]:
    """Every tasklet below the map `top`, with the maps from `top` down to it."""
    out, stack = {}, [(top, [top])]
    while stack:
        scope, chain = stack.pop()
        for child in scope_children(g, scope):
            node = g.nodes[child]["node"]
            if isinstance(node, Tasklet):
                out[child] = chain
            elif isinstance(node, MapScope):
                stack.append((child, chain + [child]))
    return out


def map_ranges(g: DataflowGraph, map_id: str, writes: bool) -> dict[str, list[tuple[str, str]] | None]:
    """Per container, what the iterations of `map_id` read (or write), as (first, last) per dimension."""
    accesses: dict[str, list[tuple[list[str], list[tuple[str, str]]]]] = {}
    for tasklet, chain in _maps_to(g, map_id).items():
        edges = g.out_edges(tasklet, data=True) if writes else g.in_edges(tasklet, data=True)
        for _, _, d in edges:
            if isinstance(e := d["edge"], Memlet):
                accesses.setdefault(e.container, []).append((chain, e.subset))
    out = {}
    for container, subsets in accesses.items():
        try:
            out[container] = _union_box(g, subsets)
        except BudgetExceeded:
            out[container] = None
    return out


def _union_box(g: DataflowGraph, subsets) -> list[tuple[str, str]] | None:
    """The box of all the accesses' sets; the isl budget is per access, so that a body jammed by
    unroll-and-jam (gemm's 16 copies of C[i + d][j]) gets its label as the nest as written does."""
    union = None
    for chain, subset in subsets:
        with isl_budget(PICTURE_OPERATIONS):
            s = _access_set(g, chain, subset)
            if s is None:
                return None
            union = s if union is None else union.union(s).coalesce()
    with isl_budget(PICTURE_OPERATIONS):
        return _box(union)


def _box(s: isl.Set) -> list[tuple[str, str]] | None:
    """Per dimension (first, last), a two-piece bound printed as the `min`/`max` it is where isl
    prints a conditional (`ni >= i_t + 65 ? i_t + 63 : ni - 1` is `min(i_t + 63, ni - 1)`); None
    where a bound stays a conditional or longer than `MAX_BOUND` characters (no label to read)."""
    out = []
    try:
        for d in range(s.dim(isl.dim_type.set)):
            out.append(tuple(_readable(s.dim_max(d) if upper else s.dim_min(d)) for upper in (False, True)))
    except isl.Error:  # unbounded or empty
        return None
    if any("?" in b or len(b) > MAX_BOUND for bounds in out for b in bounds):
        return None
    return out


def _readable(pw: isl.PwAff) -> str:
    text = readable(pw)
    arms = re.fullmatch(r"[^?]* \? ([^?:]*) : ([^?:]*)", text)
    if arms is None:
        return text
    x, y = (_isl_text(a) for a in arms.groups())
    if x is None or y is None:
        return text
    params = ", ".join(pw.get_dim_name(isl.dim_type.param, k) for k in range(pw.dim(isl.dim_type.param)))
    for f in ("min", "max"):
        try:
            candidate = isl.PwAff(f"[{params}] -> {{ [{f}({x}, {y})] }}").intersect_domain(pw.domain())
        except isl.Error:
            continue
        if candidate.is_equal(pw):
            return f"{f}({arms.group(1)}, {arms.group(2)})"
    return text


def _access_set(g: DataflowGraph, chain: list[str], subset: list[tuple[str, str]]) -> isl.Set | None:
    """{ [d...] : exists the chain's variables within their bounds with lo_k <= d_k <= hi_k }."""
    constraints, variables = [], []
    for map_id in chain:
        node = g.nodes[map_id]["node"]
        first, last = _isl_text(node.begin), _isl_text(_last(node))
        if first is None or last is None:
            return None
        v = isl_name(node.var)
        first, last = (last, first) if node.decreasing else (first, last)
        constraints.append(f"{first} <= {v} <= {last}")
        variables.append(v)
    dims = []
    for k, (lo, hi) in enumerate(subset):
        lo, hi = _isl_text(lo), _isl_text(hi)
        if lo is None or hi is None:
            return None
        dims.append(f"d{k}")
        constraints.append(f"{lo} <= d{k} <= {hi}")
    body = " and ".join(constraints)
    names = set(_IDENT.findall(body)) - set(variables) - set(dims) - set(_ISL_WORDS.values()) - {"and"}
    text = f"[{', '.join(sorted(names))}] -> {{ [{', '.join(dims)}] : exists ({', '.join(variables)} : {body}) }}"
    try:
        return isl.Set(text)
    except isl.Error:
        return None


def simplified(c_text: str) -> str | None:
    """A bound as isl prints it once parsed (`2 * (t_t / 32) + t_t / 32` is `3 * floord(t_t, 32)`), or None."""
    text = _isl_text(c_text)
    if text is None:
        return None
    names = sorted(set(_IDENT.findall(text)) - set(_ISL_WORDS.values()))
    try:
        with isl_budget(PICTURE_OPERATIONS):
            return _readable(isl.PwAff(f"[{', '.join(names)}] -> {{ [{text}] }}"))
    except (BudgetExceeded, isl.Error):
        return None
