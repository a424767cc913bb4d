"""A counting sort's scatter, run by all threads: `buf[fill[b]++] = v` with `b` the item's bucket.

NPB IS places every key in its bucket (cell lists, CSR assembly and radix sorts do the same):

    for (long i = 0; i < n; i++) {
        int b = keys[i] >> SHIFT;
        buf[fill[b]++] = keys[i];
    }

Each iteration reads the running offset of its bucket, so the loop carries a dependence on
`fill` and the analysis keeps it sequential. It is still parallel as a counting sort is: the
position an iteration writes is `fill[b]` at the loop's start plus the number of earlier
iterations with the same bucket. So each thread takes a contiguous share of the iterations,
counts its share's buckets, the offsets where each thread's items of each bucket start are a
prefix sum over the threads (one thread computes them), and each thread then runs its share as
written on offsets of its own. Every item lands where the loop as written puts it, and `fill`
ends as the loop leaves it; a hand-written OpenMP version keeps this loop sequential.

The final placement of NPB IS counts down, `sorted[--s->key_rank[k]] = k`: the same with each
thread's offsets below those of the threads before it, and the offsets reached through a struct.

Sound when (checked here, at lift time):

- the body is exactly the declaration of an integer `b` declared in the loop and the store
  `T[C[b]++] = V;` or `T[--C[b]] = V;`; or the step a statement of its own, with the stores at
  the S places an item takes (`C[b]--; T[C[b]] = V;`, `T[C[b]] = V; T[C[b] + 1] = W; C[b] += 2;`:
  each thread's counts then step by S); none under an `if`, with no call (nothing else is
  written);
- `C` holds `int`, `long` or their unsigned variants: an array the function declares (its
  length is `sizeof C / sizeof C[0]`), or a pointer or struct member (`s->key_rank`, which the
  analysis modelled as a container: nothing the loop stores changes the pointer), whose length
  is unknown: the buckets' least and greatest are then found at run time, by a first pass;
- `T` is a one-dimensional array or pointer other than `C`;
- everything else the loop reads is a scalar of the function or an element `a[i]` at the loop's
  own variable, so that a share of the iterations reads a share of each array;

and, at run time, before anything is written (else the loop runs as written):

- every bucket lies in `C` (`0 <= b < length`; by construction for a range found first);
- the buckets' ranges of positions, `C[b]` onwards (or downwards) as many as the bucket holds,
  come in the order of the buckets without overlapping: no two items write one element (where
  the loop as written would let the later one win, threads would race) and no position wraps in
  `C`'s type;
- the written part of `T` overlaps neither `C` nor any array the loop reads, and the part of
  `C` in use overlaps no array the loop reads (a pointer, or a global array, may point among the
  keys: the loop as written would read keys it changed).

`lift_bad` may be set by several threads at once: written with `omp atomic write`.
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from lifter.analysis.affine import c_text, int_constant
from lifter.analysis.model import Kind
from lifter.analysis.symbols import INTEGER_WORDS
from lifter.graph.attributes import DataflowGraph
from lifter.graph.build import STATE
from lifter.graph.nodes import BucketScatter, MapScope, Schedule, Tasklet, scope_children

STATEMENTS = 2  # the work of one iteration, in the planner's units (iterations x statements)
BUMPS = ("p++", "--")  # `T[C[b]++]` and `T[--C[b]]`
OWN, LOWEST = "lift_own", "lift_lo"  # in the store each thread runs: its row of offsets, the least bucket
_COUNT_TYPES = {"int", "long", "unsigned", "unsigned int", "long int", "unsigned long", "unsigned long int"}


def plan_scatters(g: DataflowGraph, min_work: int) -> bool:
    """Attach a `BucketScatter` to every top-level sequential loop of that shape; True if any."""
    if g.nest.restructured:
        return False
    found = False
    for m_id in scope_children(g, STATE):
        m = g.nodes[m_id]["node"]
        if isinstance(m, MapScope):
            scatter = _scatter(g, m, min_work)
            if scatter is not None:
                m.scatter = scatter
                found = True
    return found


def _scatter(g: DataflowGraph, m: MapScope, min_work: int) -> BucketScatter | None:
    region = g.nest.scop
    if m.schedule != Schedule.SEQUENTIAL or m.plan is not None or m.condition or m.parallel_region is not None \
            or m.step != 1 or m.decreasing or not m.var_declared_in_header or m.conditions or m.tile \
            or m.fused or m.block or m.origin != m.id or m.trip_count is None or m.span is None or not m.var_type:
        return None
    kids = scope_children(g, m.id)
    if len(kids) < 2 or not all(isinstance(g.nodes[k]["node"], Tasklet) and k in region.statements
                                          for k in kids):
        return None
    tasklets = [g.nodes[k]["node"] for k in kids]
    if any(not t.text or t.conditions for t in tasklets):
        return None
    declared, *steps = (region.statements[k] for k in kids)
    shape = _shape(declared.node, [step.node for step in steps])
    if shape is None:
        return None
    bucket, target, counts, bump = shape.bucket, shape.target, shape.counts, shape.bump
    containers = region.containers
    b, c, t = containers.get(bucket), containers.get(counts), containers.get(target)
    if b is None or b.kind != Kind.SCALAR or b.declared_in != m.origin or not set(b.element.split()) <= INTEGER_WORDS:
        return None
    if c is None or c.ndim != 1 or c.qualifiers or c.indirect or c.field:
        return None
    element = " ".join((c.member_element or c.element).split())
    sized = c.kind == Kind.ARRAY and c.storage != "param" and bool(c.dims) and bool(c.dims[0])
    if not (sized or c.kind == Kind.POINTER) or element not in _COUNT_TYPES:
        return None
    if t is None or t.kind not in (Kind.ARRAY, Kind.POINTER) or t.ndim != 1 or t.indirect or t.qualifiers \
            or t.name == counts:
        return None
    own = [_own_accesses(declared, {bucket, counts, target})] + [_own_accesses(step, {counts, target})
                                                                  for step in steps]
    step, store = [(counts, False), (counts, True)], sorted([(counts, False), (target, True)])
    if own != [[(bucket, True)]] + ([sorted(step + [(target, True)])] if shape.stepped is None
                                    else [step if k == shape.stepped else store for k in range(len(steps))]):
        return None  # E or V reads the offsets or the target, or V names the bucket's offset again
    reads = _reads(region, m, [declared, *steps], {bucket, counts, target})
    if reads is None:
        return None
    return BucketScatter(bucket, tasklets[0].text, shape.store, counts, element, target, reads,
                         f"({m.trip_count}) * {STATEMENTS} > {min_work}L", bump, sized, shape.places)


def _shape(declared: c_ast.Node, steps: list[c_ast.Node]) -> Shape | None:
    """The scatter where the statements are `int b = E;` and `T[C[b]++] = V;` or `T[--C[b]] = V;`
    (C an array, a pointer or a struct member `s->f`); or stores at the item's S places with the
    step a statement of its own, after them (`T[C[b]] = V; C[b]++;`, `T[C[b]] = V; T[C[b] + 1] =
    W; C[b] += 2;`) or before them (`C[b]--; T[C[b]] = V;`, `C[b] -= 2; T[C[b]] = V; T[C[b] + 1] =
    W;`), each place stored once; `++C[b]`, `C[b] += 1` alike; with no call in E or the values,
    else None."""
    if not isinstance(declared, c_ast.Decl) or declared.init is None or _calls(declared.init) or not steps:
        return None
    stores = [step for step in steps if isinstance(step, c_ast.Assignment) and step.op == "="]
    if any(_calls(x.rvalue) or not isinstance(x.lvalue, c_ast.ArrayRef) or not isinstance(x.lvalue.name, c_ast.ID)
           or c_text(x.lvalue.name) != c_text(stores[0].lvalue.name) for x in stores) or not stores:
        return None
    target = stores[0].lvalue.name
    if len(steps) == 1:
        bump = stores[0].lvalue.subscript
        if not isinstance(bump, c_ast.UnaryOp) or bump.op not in BUMPS:
            return None
        slot, op, stepped, places = bump.expr, bump.op, None, 1
    else:  # the step a statement of its own: before the stores it counts down, after them up
        stepped = 0 if steps[0] not in stores else len(steps) - 1
        other, op = steps[stepped], "--" if stepped == 0 else "p++"
        places = _step(other, "--" if op == "--" else "++")
        if places != len(stores) or len(steps) != places + 1 or steps[stepped] in stores:
            return None
        slot = _stepped(other)
        if sorted(_place(x.lvalue.subscript, slot) for x in stores) != list(range(places)):
            return None
    if not isinstance(slot, c_ast.ArrayRef) or not isinstance(slot.name, (c_ast.ID, c_ast.StructRef)) \
            or not isinstance(slot.subscript, c_ast.ID) or slot.subscript.name != declared.name:
        return None
    own = c_ast.ArrayRef(c_ast.ID(OWN), c_ast.BinaryOp("-", c_ast.ID(declared.name), c_ast.ID(LOWEST)))
    if places == 1:
        text = c_text(c_ast.Assignment("=", c_ast.ArrayRef(target, c_ast.UnaryOp(op, own)), stores[0].rvalue)) + ";"
    else:
        owned = [c_text(c_ast.Assignment("=", c_ast.ArrayRef(target, _at(own, _place(x.lvalue.subscript, slot))),
                                         x.rvalue)) + ";" for x in stores]
        step = f"{c_text(own)} {'-' if op == '--' else '+'}= {places};"
        text = " ".join([step] + owned if op == "--" else owned + [step])
    return Shape(declared.name, target.name, c_text(slot.name), op, text, places, stepped)


@dataclass(frozen=True)
class Shape:
    """What `_shape` finds: the bucket, the target, the offsets' text, the bump ('p++' up, '--'
    down), the statements each thread runs on its row `OWN`, the places an item takes, and the
    step statement's place among the statements (None: the step is in the store's subscript)."""

    bucket: str
    target: str
    counts: str
    bump: str
    store: str
    places: int
    stepped: int | None


def _place(subscript: c_ast.Node, slot: c_ast.Node) -> int | None:
    """j where `subscript` is the item's place `slot + j` (`C[b]`, `C[b] + 1`), else None."""
    if c_text(subscript) == c_text(slot):
        return 0
    if isinstance(subscript, c_ast.BinaryOp) and subscript.op == "+" and c_text(subscript.left) == c_text(slot):
        j = int_constant(subscript.right) if isinstance(subscript.right, c_ast.Constant) else None
        return j if j is not None and j > 0 else None
    return None


def _at(own: c_ast.Node, j: int) -> c_ast.Node:
    return own if j == 0 else c_ast.BinaryOp("+", own, c_ast.Constant("int", str(j)))


def _step(node: c_ast.Node, way: str) -> int | None:
    """S where the statement steps an lvalue by S the way `way` ('++' or '--'): `x++`, `++x`,
    `x += S` (and down), S a positive constant; else None."""
    if isinstance(node, c_ast.UnaryOp) and node.op in ("p++", "++", "p--", "--"):
        return 1 if node.op[-2:] == way else None
    if isinstance(node, c_ast.Assignment) and node.op == way[0] + "=" and isinstance(node.rvalue, c_ast.Constant):
        by = int_constant(node.rvalue)
        return by if by is not None and by > 0 else None
    return None


def _stepped(node: c_ast.Node) -> c_ast.Node:
    """The lvalue a `_step` statement steps."""
    return node.expr if isinstance(node, c_ast.UnaryOp) else node.lvalue


def _calls(node: c_ast.Node) -> bool:
    """A call anywhere in the expression (it may write what the model does not see)."""
    return isinstance(node, c_ast.FuncCall) or any(_calls(child) for _, child in node.children())


def _own_accesses(statement, names: set[str]) -> list[tuple[str, bool]]:
    """The statement's accesses of `names`, as (container, is_write), sorted."""
    return sorted((a.container, a.is_write) for a in statement.accesses if a.container in names)


def _reads(region, m: MapScope, statements, own: set[str]) -> list[str] | None:
    """The arrays the loop reads as `a[i]`, if every other access is the scatter's own (`own`)
    or a read of a scalar of the function; else None. Writes are only the scatter's. Nothing
    `volatile` or `_Atomic`: the threads read each item twice (to count it, then to store it)."""
    arrays = []
    for s in statements:
        for a in s.accesses:
            if a.container in own:
                continue
            c = region.containers.get(a.container)
            if a.is_write or c is None:
                return None
            if c.kind == Kind.SCALAR and c.ndim == 0 and c.storage != "global" and not c.qualifiers:
                continue
            if c.kind not in (Kind.ARRAY, Kind.POINTER) or c.ndim != 1 or c.indirect or c.field or c.qualifiers \
                    or a.text != f"{c.name}[{m.var}]":
                return None
            if c.name not in arrays:
                arrays.append(c.name)
    return arrays


__all__ = ["plan_scatters"]
