"""Register accumulators for reduction loops: an innermost loop that sums into array elements it
does not move along keeps the sums in scalars, with unroll-and-jam around it where it can.

syrk's interchanged nest `for j for k C[i][j] += alpha * A[i][k] * A[j][k]` reads its operands
with unit stride, but every iteration of k adds to the same C[i][j]: one chain of dependent
additions through memory (the compiler cannot keep C[i][j] in a register, it does not know C
and A apart), a multiply-add latency plus a store-to-load round trip per iteration. Unrolling j
by 4 and jamming the copies into k's body gives four independent chains; reading each C[i][j +
d] once into a local before k and writing it back after makes them register chains:

    for (j = 0; j + 3 <= i; j += 4) {
        double C_acc0 = 0 < m ? C[i][j] : 0;  ...
        for (k = 0; k < m; k++) { C_acc0 += alpha * A[i][k] * A[j][k]; C_acc1 += ... A[(j + 1)][k]; ... }
        if (0 < m) { C[i][j] = C_acc0; ... }
    }
    for (; j <= i; j++) ... (the remainder, as written)

Each element still receives the same additions in the same order, so the results are the same to
the last bit. Measured on syrk (n = 1200, m = 1000, one thread): 0.65 s of CPU as interchanged,
0.19 s so; unrolling without the locals, 0.74 s.

Where: an innermost map K (statements only, sequential, not vectorizable, so unroll-and-jam's
vectorizing path left it) that writes at least one array element invariant along K, whose
containers are accessed in the body only through those elements' own text, and whose elements'
subscripts name neither K's variable nor a container K writes (`_reduction`). K's other writes,
to elements of other containers that move along K (bicg's `s[j]` beside the sum `q[i]`), stay
in memory: only the invariant elements get locals. Under bicg's parallel i (an array reduction
into s) gcc vectorized j in the serial build but not in OpenMP's outlined copy, where it stored
and reloaded q[i] every iteration: 2.4 times the serial build's instructions (valgrind, one
thread, M = 1900, N = 2100), the serial count with the local. Where K
is its parent J's only child and unroll-and-jam can unroll J (`unroll.unrollable`, with the
written elements unit-stride or invariant along J, so the copies' elements are distinct or the
same text: one local each), J is unrolled by 4 and jammed, the locals declared in J's body.
Legality: unroll-and-jam of J by the factor is checked exactly as unroll.py does
(`unroll.strip_legal`).

Elsewhere (K has siblings, J cannot be unrolled or is parallel, or the jam is illegal) the factor
is 1: the elements are read into locals just before K and written back just after it, in a block
of their own around K (`MapScope.prologue` and `epilogue`, which the backends emit around K's
loop). gesummv's parallel i loop initializes `tmp[i]` and `y[i]`, sums into them over j and
combines them after; in OpenMP's outlined copy of the loop gcc no longer knows `tmp` from `A`
and stores and reloads both elements every iteration of j (N = 2800, one thread: 24 ms, where
the serial build, inlined, takes 5.5 ms; 5.2 ms with the locals). With the locals:

    for (i = 0; i < n; i++) {
        tmp[i] = 0.0; y[i] = 0.0;
        {
            double tmp_acc0 = 0 < n ? tmp[i] : 0; double y_acc1 = 0 < n ? y[i] : 0;
            for (j = 0; j < n; j++) { tmp_acc0 = A[i][j] * x[j] + tmp_acc0; y_acc1 = ...; }
            if (0 < n) { tmp[i] = tmp_acc0; y[i] = y_acc1; }
        }
        y[i] = alpha * tmp[i] + beta * y[i];
    }

No dependence changes, so no isl check beyond K's own (invariance of the elements) is needed:
between the read and the write-back only K runs, K touches the element only through its own
text, and the subscripts name nothing K changes, so the element is the same one at both ends.

Both: the locals are exact because nothing else in K's body names the element (the text check,
and the re-emitted nest runs only where its pointers are disjoint, its reorder guard, as for
unroll.py's hoisted reads; a nest with a volatile access is never re-emitted). The element is
read and written back only when K runs at least once, as in the original (`lb < ub ? A[i] :
0`); K's header names no written container, so the test after K sees what it saw before. A
nest whose parallel plan guards updates (`OmpPlan.guarded`, placed at the user's text offsets)
is left alone: a re-emitted nest loses them.

Runs after unroll-and-jam: its copies are new nodes the region's model does not know, and a map
whose body holds such copies is skipped here.
"""
from __future__ import annotations

import re

import islpy as isl

from lifter.analysis.model import Region
from lifter.frontend.spans import word_tokens
from lifter.graph.attributes import DataflowGraph
from lifter.graph.build import STATE
from lifter.graph.nodes import guards_updates, scope_children, scope_parent
from lifter.transform.checkpoint import checkpoint, rollback
from lifter.transform.legality import reorder_guard
from lifter.transform.locality import stride_kind
from lifter.transform.loop_vars import escaping
from lifter.transform.rewrite import fresh_name
from lifter.transform.tiling import nest_names, unrolled_whole
from lifter.transform.unroll import (NEAREST, collapsed_above, element_pattern, fitting, header_parts, in_register,
                                     innermost_maps, jam_rewrite, local_type, shifted_text, strip_legal, unrollable)


def accumulate_reductions(g: DataflowGraph, region: Region) -> bool:
    """Keep the sums of every qualifying reduction loop in locals, its parent unrolled and jammed
    where that is legal; True if any loop changed."""
    if not g.nest.reemittable or guards_updates(g):
        return False  # guarded updates are placed at the user's text offsets, gone from a re-emitted nest
    unrolling = not escaping(g)  # as unroll.py: a loop variable read after the nest would end elsewhere
    taken = nest_names(g)
    changed = False
    for k in innermost_maps(g):
        keys = _reduction(g, region, k)
        if keys is None:
            continue
        jam = _jam_plan(g, region, k, keys) if unrolling else None
        if jam is None and (reorder_guard(g).startswith("!") or collapsed_above(g, k)):
            continue  # a volatile access (the nest is never re-emitted), or loops that must stay perfectly nested
        saved = checkpoint(g)
        if jam is not None and _unrolled(g, region, k, *jam, keys, taken) \
                or jam is None and _in_place(g, region, k, keys, taken):
            g.nest.restructured = True
            changed = True
        else:
            rollback(g, saved)
    return changed


def _reduction(g, region: Region, k: str) -> dict[str, str] | None:
    """{written element's text: its container} for reduction map `k`, or None: the writes of its
    statements to array elements invariant along `k`, whose subscripts name neither `k`'s
    variable nor a container `k` writes, and whose containers are named in the statements only
    through those elements' own text; its other writes are to elements of other containers."""
    inner = g.nodes[k]["node"]
    tasklets = scope_children(g, k)
    if inner.declares or inner.declarations or inner.tile or inner.simd or inner.plan is not None \
            or not tasklets or unrolled_whole(inner) or header_parts(inner) is None:
        return None
    stmts = [region.statements.get(t) for t in tasklets]
    if any(s is None or s.opaque_reason or re.search(r"[\"'#]", g.nodes[t]["node"].text)
           for s, t in zip(stmts, tasklets)):
        return None  # a copy unroll-and-jam made (unknown to the model), or text not to edit
    depth = region.loops[inner.origin].depth
    keys: dict[str, str] = {}
    moving: set[str] = set()  # containers written at elements that move along `k`: left in memory
    for s in stmts:
        for a in s.accesses:
            if not a.is_write:
                continue
            if in_register(region, a) and stride_kind(a.relation, depth, len(s.loops)) == 1:
                keys[a.text] = a.container
            elif a.container in region.containers and a.text:
                moving.add(a.container)
            else:
                return None
    if not keys or moving & set(keys.values()):
        return None
    written = {region.containers[c].name for c in set(keys.values()) | moving} | {inner.var}
    for key in keys:  # the element read before `k` and written back after it must be the same one
        if word_tokens(key[key.index("["):] if "[" in key else key) & written:
            return None
    if word_tokens(inner.header) & (written - {inner.var}):
        return None  # the run test, evaluated again after `k`, must see what it saw before
    for s, t in zip(stmts, tasklets):  # a written container is named only through its written elements
        if any(a.container in keys.values() and a.text not in keys for a in s.accesses):
            return None
        if any(a.is_write and not element_pattern(a.text).search(g.nodes[t]["node"].text) for a in s.accesses):
            return None  # the statement spells the element otherwise (a rewritten buffer)
    return keys


def _jam_plan(g, region: Region, k: str, keys: dict[str, str]) -> tuple[str, int] | None:
    """(J, factor): the parent J of `k` (`k` its only child) that unroll-and-jam may unroll, with
    every written element unit-stride or invariant along J (so the copies' elements are distinct
    or the same text, one local each); or None."""
    loop = scope_parent(g, k)
    stmts = [region.statements[t] for t in scope_children(g, k)]
    if loop == STATE or scope_children(g, loop) != [k] or not unrollable(g, region, loop, stmts):
        return None
    factor = fitting(g, loop, NEAREST)
    if not factor:
        return None
    outer = region.loops[g.nodes[loop]["node"].origin].depth
    if any(a.is_write and stride_kind(a.relation, outer, len(s.loops)) not in (1, 3)
           for s in stmts for a in s.accesses):
        return None
    try:
        return (loop, factor) if strip_legal(g, region, k, [(loop, factor)]) else None
    except isl.Error:
        return None


def _unrolled(g, region: Region, k: str, loop: str, factor: int, keys: dict[str, str], taken: set[str]) -> bool:
    """Unroll `loop` by `factor`, jam, and keep the written elements in locals declared in
    `loop`'s body; False where a statement still names a written container (see `_locals`)."""
    shifts = {t: (t, {}) for t in scope_children(g, k)}
    jam_rewrite(g, region, loop, factor, shifts)
    found = _locals(g, region, k, keys, shifts, taken)
    if found is None:
        return False
    reads, store = found
    m = g.nodes[loop]["node"]
    m.declarations += reads
    m.declares = True
    m.closing.append(store)
    return True


def _in_place(g, region: Region, k: str, keys: dict[str, str], taken: set[str]) -> bool:
    """Factor 1: the written elements read into locals just before `k` and written back just
    after it (`k`'s `prologue` and `epilogue`, in a block of their own), where `k` has siblings or
    its parent cannot be unrolled (gesummv's `tmp[i]` and `y[i]` under the parallel `i`).

    The same additions in the same order, so no dependence changes and no isl check is needed:
    between the read and the write-back only `k` runs, in which the element is touched only
    through its own text (`_reduction`; pointers that may overlap are ruled out by the nest's
    reorder guard, under which alone the re-emitted nest runs), and the element is the same one
    at both ends (its subscripts name neither `k`'s variable nor anything `k` writes)."""
    found = _locals(g, region, k, keys, {t: (t, {}) for t in scope_children(g, k)}, taken)
    if found is None:
        return False
    reads, store = found
    inner = g.nodes[k]["node"]
    inner.prologue += reads
    inner.epilogue.append(store)
    return True


def _locals(g, region: Region, k: str, keys: dict[str, str], shifts: dict,
            taken: set[str]) -> tuple[list[str], str] | None:
    """Replace each written element (in every jammed copy, `shifts`) by a local in `k`'s
    statements: (the locals' declarations, read only when `k` runs at least once, as in the
    original; the write-back, under the same test), or None where a statement's text still names
    a written container afterwards (a spelling the keys miss)."""
    inner = g.nodes[k]["node"]
    parts = header_parts(inner)
    lb, ub = (f"({b})" if re.search(r"[<>=!?:]", b) else b for b in (parts["lb"], parts["ub"]))
    runs = f"{lb} {parts['op']} {ub}"  # parenthesized where a bound would change how the test parses
    locals_: dict[str, tuple[str, str]] = {}  # element's text -> (local, element type)
    for t in scope_children(g, k):
        _, offsets = shifts[t]
        node = g.nodes[t]["node"]
        for key, container in keys.items():
            shifted = shifted_text(key, offsets)
            if shifted not in locals_:
                c = region.containers[container]
                locals_[shifted] = (fresh_name(f"{c.name}_acc{len(locals_)}", taken), local_type(c))
            node.text = element_pattern(shifted).sub(locals_[shifted][0], node.text)
    names = {region.containers[c].name for c in keys.values()}
    if any(re.search(rf"\b{re.escape(n)}\b", g.nodes[t]["node"].text) for t in scope_children(g, k) for n in names):
        return None
    inner.transformations.append("register accumulators")
    reads = [f"{element} {name} = {runs} ? {key} : 0;" for key, (name, element) in locals_.items()]
    stores = " ".join(f"{key} = {name};" for key, (name, _) in locals_.items())
    return reads, f"if ({runs}) {{ {stores} }}"
