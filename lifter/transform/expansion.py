"""Scalar expansion of block-local scalars that freeze a loop nest, kept only where it unfreezes one.

`for (j...) { double c = 0; for (k...) c += x[k][i] * x[k][j]; out[j] = c; }`
cannot be distributed or interchanged as written: `c` lives in j's body, so j
must stay where it is (`MapScope.declares`). Expanding `c` over j gives every
iteration its own element and lets locality put k outside j (unit stride).

To keep the buffer small whatever the loop's size, j is strip-mined: a strip
loop (a tile map, `transform/tiling.py`'s rewrite) runs over blocks of STRIP
iterations and declares `double c_x[STRIP];` at the top of its body; `c`
becomes `c_x[j - j_t]`. The region's model is rewritten to match: an array
container indexed `j - lb`, declared in j. Indexing by the whole range is exact
because each strip's buffer is a new object (declared in the strip loop's
body) and the strip loop, which declares it, never moves (`declares`), so
no use can leave its strip. Dependences and verdicts are recomputed with isl,
so every later check sees the expanded program. The expanded graph
replaces the original only if the locality pass then interchanges a loop in it;
otherwise expansion would cost memory traffic for nothing and is dropped.

Only init-declarations of arithmetic scalars (`double c = e;`), directly in the
body of a map with canonical header (see tiling) that has inner maps, are
expanded; a map with any other declaration stays frozen. A map whose inner loops
all have small constant trip counts (conv2d's 3x3 window) is not expanded: the
C compiler unrolls them completely, so the scalar already lives in a register
and the map's loop is the vectorized one; expanding it would turn each window
tap into a pass over the buffer (conv2d ran 1.5x slower so).
"""
from __future__ import annotations

import dataclasses
import re

import islpy as isl
from pycparser import c_ast

from lifter.analysis.dependences import compute_dependences
from lifter.analysis.model import Container, Kind, Region
from lifter.analysis.verdicts import compute_verdicts
from lifter.frontend.spans import word_tokens
from lifter.graph.attributes import DataflowGraph
from lifter.graph.build import build_graph
from lifter.graph.nodes import MapScope, Tasklet, scope_children, scope_descendants
from lifter.transform.locality import improve_locality
from lifter.transform.source_text import attach_source_text, rename_identifiers
from lifter.transform.rewrite import fresh_name
from lifter.transform.tiling import canonical_header, nest_names, tile_rewrite, unrolled_whole

STRIP = 256
_ARITHMETIC_TYPES = {"double", "float", "int", "long", "short", "char", "unsigned", "signed", "long double",
                     "long long", "unsigned int", "unsigned long", "long int"}
_INIT_DECL = re.compile(r"(?P<type>[A-Za-z_][\w\s]*?)\s+(?P<name>[A-Za-z_]\w*)\s*=\s*(?P<init>[^;]+);", re.S)


def expand_scalars(g: DataflowGraph, source, spans) -> DataflowGraph | None:
    """A graph of the region with frozen maps' scalars expanded, or None if that does not pay."""
    region: Region = g.nest.scop
    if not g.nest.reemittable:
        return None
    targets = {}
    for lid in region.loops:
        if lid not in g:
            continue  # fused into another loop's map (`fusion.fuse_regions`)
        scalars = _expandable(g, region, lid)
        if scalars:
            targets[lid] = scalars
    if not targets:
        return None
    taken = nest_names(g) | set(region.containers) | {c.name for c in region.containers.values()}
    fresh = {key: fresh_name(f"{region.containers[key].name}_x", taken)
             for scalars in targets.values() for key in scalars}
    try:
        expanded = _expanded_region(region, targets, fresh)
        g2 = build_graph(expanded, g.path)
        g2.nest.reorder_guard = g.nest.reorder_guard  # the same pointers over the same ranges
        if not attach_source_text(g2, source, spans):
            return None
        for lid, scalars in targets.items():
            _strip_and_rename(g2, expanded, lid, {region.containers[k].name: (fresh[k], d) for k, d in scalars.items()})
        improve_locality(g2, expanded)
    except isl.Error:
        return None
    interchanged = {d["node"].origin for _, d in g2.nodes(data=True)
                    if isinstance(d["node"], MapScope) and "interchange" in d["node"].transformations}
    if not interchanged:
        return None
    if any(region.containers[key].declared_in is None and lid not in interchanged
           for lid, scalars in targets.items() for key in scalars):
        # An assigned scalar (`_assigned_first`) pays only where its own loop then moves inward
        # (symm's j); gramschmidt's k, which carries the nest's dependences, never does: a
        # buffer there only froze the nest under a strip loop (its inner loops lost their threads).
        return None
    g2.nest.restructured = True
    # The maps carry the verdicts of the expanded code; the report states the analysis of the
    # code as written.
    expanded.verdicts = region.verdicts
    return g2


def _expandable(g, region: Region, lid: str) -> dict[str, str]:
    """{container: declaration statement id} for a frozen map whose every declaration can expand."""
    m = g.nodes[lid]["node"]
    kids = scope_children(g, lid)
    if m.declarations or not any(isinstance(g.nodes[k]["node"], MapScope) for k in kids):
        return {}
    if all(unrolled_whole(g.nodes[d]["node"]) for d in scope_descendants(g, lid) if isinstance(g.nodes[d]["node"], MapScope)):
        return {}  # a fully unrolled window: the scalar is a register already (module doc)
    probe = dataclasses.replace(m, declares=False)
    if canonical_header(probe, region) is None:
        return {}
    if any(q in g.nodes[t]["node"].text for t in scope_descendants(g, lid) for q in "\"'"
           if isinstance(g.nodes[t]["node"], Tasklet)):
        return {}  # renaming works on identifiers; keep clear of string and character literals
    if not m.declares:
        return _unless_in_headers(g, region, lid, _assigned_first(g, region, lid, kids))
    declared = {key for key, c in region.containers.items() if c.declared_in == lid}
    out = {}
    for key in declared:
        c = region.containers[key]
        if c.kind != Kind.SCALAR or c.ndim != 0 or c.element not in _ARITHMETIC_TYPES:
            return {}
        decl = next((k for k in kids if k in region.statements and isinstance(region.statements[k].node, c_ast.Decl)
                     and region.statements[k].node.name == c.name), None)
        parts = _INIT_DECL.fullmatch(g.nodes[decl]["node"].text.strip()) if decl is not None else None
        if parts is None or parts["name"] != c.name:
            return {}
        out[key] = decl
    decls = [k for k in kids if k in region.statements and isinstance(region.statements[k].node, c_ast.Decl)]
    if len(decls) != len(out):
        return {}
    return _unless_in_headers(g, region, lid, out)


def _unless_in_headers(g, region: Region, lid: str, targets: dict[str, str]) -> dict[str, str]:
    """`targets`, or nothing where a loop inside bounds itself by one of them (`long m = n - t;
    for (i < m)`): headers keep the user's text, which would then name a scalar that became an
    array element, no longer declared."""
    names = {region.containers[key].name for key in targets}
    for d in scope_descendants(g, lid):
        node = g.nodes[d]["node"]
        if isinstance(node, MapScope) and word_tokens(node.header) & names:
            return {}
    return targets


def _assigned_first(g, region: Region, lid: str, kids: list[str]) -> dict[str, str]:
    """{container: assignment statement id} for the scalar that the map's first statement assigns
    (`acc = 0.0;`, unconditionally), where that scalar is a local of the function used only inside
    the map and not read after the region: then every iteration starts it afresh, as if the body
    declared it (symm's `acc`, declared at the top of the function)."""
    first = region.statements.get(kids[0])
    node = first.node if first is not None else None
    if not isinstance(node, c_ast.Assignment) or node.op != "=" or not isinstance(node.lvalue, c_ast.ID) \
            or first.conditions or first.opaque_reason:
        return {}
    key = next((a.container for a in first.accesses if a.is_write), None)
    c = region.containers.get(key)
    if c is None or c.name != node.lvalue.name or c.kind != Kind.SCALAR or c.ndim != 0 or c.declared_in is not None \
            or c.storage != "local" or c.element not in _ARITHMETIC_TYPES or c.qualifiers \
            or {key, c.name} & set(region.live_after):
        return {}
    if any(a.container == key for a in first.accesses if not a.is_write):
        return {}  # `acc = acc * 2;` carries the value from the iteration before
    if any(a.container == key and lid not in stmt.loops for stmt in region.statements.values() for a in stmt.accesses):
        return {}
    return {key: kids[0]}


def _expanded_region(region: Region, targets: dict[str, dict[str, str]], fresh: dict[str, str]) -> Region:
    """The region with each expanded scalar an array indexed by its loop's position (see module doc)."""
    containers = dict(region.containers)
    renamed = {}
    for lid, scalars in targets.items():
        for key in scalars:
            c = region.containers[key]
            new_key = fresh[key]
            containers.pop(key)
            containers[new_key] = Container(new_key, 1, c.element, Kind.ARRAY, storage="local",
                                            declared_in=lid, dims=[str(STRIP)])
            renamed[key] = (new_key, lid)
    statements = {}
    for sid, stmt in region.statements.items():
        accesses = []
        for a in stmt.accesses:
            if a.container not in renamed:
                accesses.append(a)
                continue
            new_key, lid = renamed[a.container]
            accesses.append(dataclasses.replace(a, container=new_key, relation=_strip_relation(region, a, lid,
                                                                                                  new_key)))
        reduction = stmt.reduction
        if reduction is not None and reduction[0] in renamed:
            reduction = (renamed[reduction[0]][0], reduction[1])
        statements[sid] = dataclasses.replace(stmt, accesses=accesses, reduction=reduction)
    out = dataclasses.replace(region, containers=containers, statements=statements, dependences={}, verdicts={})
    out.dependences = compute_dependences(out)
    out.verdicts = compute_verdicts(out, out.live_after)
    return out


def _strip_relation(region: Region, access, lid: str, new_key: str) -> isl.Map:
    rel = access.relation
    loop = region.loops[lid]
    n = rel.dim(isl.dim_type.in_)
    names = [rel.get_dim_name(isl.dim_type.in_, d) for d in range(n)]
    params = [rel.get_dim_name(isl.dim_type.param, d) for d in range(rel.dim(isl.dim_type.param))]
    index = f"{names[loop.depth]} - ({loop.lower})"
    text = (f"[{', '.join(params)}] -> {{ {rel.get_tuple_name(isl.dim_type.in_)}[{', '.join(names)}] -> "
            f"c_{new_key}[{index}] }}")
    return isl.Map(text).intersect_domain(rel.domain())


def _strip_and_rename(g, region: Region, lid: str, scalars: dict[str, tuple[str, str]]) -> None:
    """Strip-mine the map, declare the buffers in the strip loop, rewrite the statements' text.

    `scalars`: C name -> (buffer name, id of the declaration's tasklet)."""
    m = g.nodes[lid]["node"]
    m.declares = False
    header = canonical_header(m, region)
    tile_rewrite(g, region, [lid], [header], [STRIP])
    strip = g.nodes[f"{lid}.tile"]["node"]
    strip.transformations = ["scalar expansion"]
    m.transformations = [t for t in m.transformations if t != "tiling"] + ["scalar expansion"]
    names, uses = {}, []
    for old, (buffer, decl) in scalars.items():
        names[old] = f"{buffer}[{m.var} - {strip.var}]"
        strip.declarations.append(f"{region.containers[buffer].element} {buffer}[{STRIP}];")
        t = g.nodes[decl]["node"]
        parts = _INIT_DECL.fullmatch(t.text.strip())
        if parts is not None:  # a declaration; an assignment (`_assigned_first`) stays as it is
            t.text = f"{old} = {parts['init'].strip()};"
        else:  # its declaration outside the nest stays: still used, not read (no -Wunused-variable)
            uses.append(f"(void)&{old};")
    strip.declarations += uses  # statements after every declaration (C90)
    strip.declares = True
    for n, d in g.nodes(data=True):
        t = d["node"]
        if isinstance(t, Tasklet) and t.text and word_tokens(t.text) & set(names):
            t.text = rename_identifiers(t.text, names)


__all__ = ["expand_scalars"]
