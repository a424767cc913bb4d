"""Register accumulators for reduction loops: unroll-and-jam around an innermost loop that sums
into array elements it does not move along, the sums kept in scalars.

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
vectorizing path left it) whose every write is to an array element invariant along K, whose
written containers are accessed in the body only through those elements' own text, and whose
parent J (K its only child) unroll-and-jam can unroll (`unroll.unrollable`). The written elements
must be unit-stride or invariant along J, so the copies' elements are distinct or the same text
(one local each). Legality: unroll-and-jam of J by the factor is checked exactly as unroll.py
does (`unroll.strip_legal`). The locals are exact because nothing else in K's body names the
element (the text check, and the re-emitted nest runs only where its pointers are disjoint, as
for unroll.py's hoisted reads). The element is read and written back only when K runs at least
once, as in the original.

Runs after unroll-and-jam: its copies are new nodes the region's model does not know, and a map
whose body holds such copies is skipped here.
"""
from __future__ import annotations

import re

import islpy as isl
import networkx as nx

from lifter.analysis.model import Region
from lifter.graph.attributes import nest
from lifter.graph.build import STATE
from lifter.graph.nodes import scope_children, scope_parent
from lifter.transform.checkpoint import checkpoint, rollback
from lifter.transform.locality import stride_kind
from lifter.transform.loop_vars import escaping
from lifter.transform.tiling import fresh_name, nest_names, unrolled_whole
from lifter.transform.unroll import (FACTORS, element_pattern, fitting, header_parts, in_register, innermost_maps,
                                     jam_rewrite, local_type, shifted_text, strip_legal, unrollable)


def accumulate_reductions(g: nx.MultiDiGraph, region: Region) -> bool:
    """Unroll and jam around every qualifying reduction loop, sums in locals; True if any."""
    if not nest(g).reemittable or escaping(g):
        return False  # as unroll.py: a loop variable read after the nest would end elsewhere
    taken = nest_names(g)
    changed = False
    for k in innermost_maps(g):
        found = _candidate(g, region, k)
        if found is None:
            continue
        loop, factor, keys = found
        try:
            if not strip_legal(g, region, k, [(loop, factor)]):
                continue
        except isl.Error:
            continue
        saved = checkpoint(g)
        if _rewrite(g, region, k, loop, factor, keys, taken):
            nest(g).restructured = True
            changed = True
        else:
            rollback(g, saved)
    return changed


def _candidate(g, region: Region, k: str) -> tuple[str, int, dict[str, str]] | None:
    """(J, factor, {written element's text: its container}) for reduction map `k`, or None."""
    inner = g.nodes[k]["node"]
    tasklets = scope_children(g, k)
    if inner.declares or inner.declarations or inner.tile or inner.simd or inner.plan is not None \
            or not tasklets or unrolled_whole(inner) or header_parts(inner) is None:
        return None
    stmts = [region.statements.get(t) for t in tasklets]
    if any(s is None or s.opaque_reason or re.search(r"[\"'#]", g.nodes[t]["node"].text)
           for s, t in zip(stmts, tasklets)):
        return None  # a copy unroll-and-jam made (unknown to the model), or text not to edit
    loop = scope_parent(g, k)
    if loop == STATE or scope_children(g, loop) != [k] or not unrollable(g, region, loop, stmts):
        return None
    factor = fitting(g, loop, FACTORS[0])
    if not factor:
        return None
    depth = region.loops[inner.origin].depth
    outer = region.loops[g.nodes[loop]["node"].origin].depth
    keys: dict[str, str] = {}
    for s in stmts:
        for a in s.accesses:
            if not a.is_write:
                continue
            if (not in_register(region, a) or stride_kind(a.relation, depth, len(s.loops)) != 1
                    or stride_kind(a.relation, outer, len(s.loops)) not in (1, 3)):
                return None
            keys[a.text] = a.container
    if not keys:
        return None
    for s, t in zip(stmts, tasklets):  # a written container is named only through its written elements
        if any(a.container in keys.values() and a.text not in keys for a in s.accesses):
            return None
        if any(a.is_write and not element_pattern(a.text).search(g.nodes[t]["node"].text) for a in s.accesses):
            return None  # the statement spells the element otherwise (a rewritten buffer)
    return loop, factor, keys


def _rewrite(g, region: Region, k: str, loop: str, factor: int, keys: dict[str, str], taken: set[str]) -> bool:
    """Unroll `loop` by `factor`, jam, and move the written elements into locals; False where a
    statement's text still names a written container afterwards (a spelling the keys miss)."""
    shifts = {t: (t, {}) for t in scope_children(g, k)}
    jam_rewrite(g, region, loop, factor, shifts)
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
        return False
    m = g.nodes[loop]["node"]
    m.declarations += [f"{element} {name} = {runs} ? {key} : 0;" for key, (name, element) in locals_.items()]
    m.declares = True
    stores = " ".join(f"{key} = {name};" for key, (name, _) in locals_.items())
    m.closing.append(f"if ({runs}) {{ {stores} }}")
    inner.transformations.append("register accumulators")
    return True
