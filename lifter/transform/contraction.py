"""Contraction of temporaries that only carry values inside one iteration of a fused map.

After fusion, `for i { t[i] = f(a[i]); b[i] = g(t[i]); }` still writes `t` to memory and
reads it back, although each element lives only from one statement to the next. Such an
array (or `malloc`'d pointer) becomes a scalar declared at the top of the map's body
(`double t_c;`, `MapScope.declarations`), and every `t[...]` of the body becomes `t_c`.

Legality, all of it required:
- every statement of the region that touches `t` is a statement directly in one fused map M
  (no inner maps: M is innermost, so no `collapse` spans its declarations), its text names `t`
  as often as the model has accesses of `t` (the rewrite is textual), and all those accesses
  are must-accesses of one element per iteration (the same relation, up to the statement);
- isl's flow dependences of the region that end at a read of `t` all have distance 0 along
  every loop around the statements (the value comes from the same body run), and no read of
  `t` lacks a source in the region (`no_source`): no value flows in;
- `t` is dead after the region and no address of it escapes: it is a local of the function,
  and outside the region the function's syntax tree (`Region.file`, macros expanded) names it
  only in its declaration (an array), or for a
  pointer in `T *t;`, `t = malloc(...)`/`calloc`/`realloc` assignments or initializers,
  tests for NULL (`!t`, `t == NULL`) and `free(t)`. Any other reference (a read after the region, a call, an assignment to another
  pointer, `sizeof *t`) refuses the contraction.

A local array no longer named anywhere would trip `-Wall -Werror` (unused variable), so the
body also gets `(void)t;` (no memory access). The map's verdict does not change: a scalar
declared in the body is private to each iteration, and the array accesses it replaces were
already proved independent. The pass runs after tiling (a map that declares variables never
moves) and before parallelization, so the contracted map is planned as usual.
"""
from __future__ import annotations

from collections import Counter

import islpy as isl
from pycparser import c_ast

from lifter.analysis.model import Kind, Region
from lifter.frontend.spans import word_tokens
from lifter.graph.attributes import DataflowGraph
from lifter.graph.build import STATE
from lifter.graph.nodes import MapScope, Tasklet, scope_children, scope_parent
from lifter.transform.rewrite import fresh_name
from lifter.transform.source_text import identifier_count, replace_subscripted

ALLOCATORS = {"malloc", "calloc", "realloc", "aligned_alloc"}


def contract_temporaries(g: DataflowGraph, source_text: str) -> bool:
    """Contract every temporary that qualifies (see the module doc); True if any."""
    if not g.nest.reemittable:
        return False
    region: Region = g.nest.scop
    names = Counter(c.name for c in region.containers.values())
    taken: set[str] | None = None  # the file's identifiers, read only once a contraction is proved
    changed = False
    for key, container in region.containers.items():
        if container.kind == Kind.SCALAR or container.storage != "local" or container.indirect \
                or container.field or container.element in ("", "?") or names[container.name] > 1:
            continue
        target = _target(g, region, key)
        if target is None or not dead_outside(g, container.name, container.kind,
                                                          container.element):
            continue
        m, tasklets = target
        taken = word_tokens(source_text) if taken is None else taken
        scalar = fresh_name(f"{container.name}_c", taken)
        for t in tasklets:
            node = g.nodes[t]["node"]
            node.text = replace_subscripted(node.text, container.name, scalar)
        node = g.nodes[m]["node"]
        node.declarations = node.declarations + [f"{container.element} {scalar};"]
        if container.kind == Kind.ARRAY:
            node.declarations.append(f"(void){container.name};")
        node.declares = True
        node.transformations = node.transformations + ["contraction"]
        changed = True
    return changed


def _target(g, region: Region, key: str):
    """The fused innermost map whose body alone touches container `key` element-wise, and its
    tasklets that do; None if contraction is not proved legal."""
    name = region.containers[key].name
    touching = [s for s in region.statements.values() if any(a.container == key for a in s.accesses)]
    if not touching:
        return None
    parents = {scope_parent(g, s.id) for s in touching}
    if len(parents) != 1:
        return None
    m = parents.pop()
    node = g.nodes[m]["node"] if m in g.nodes else None
    if not isinstance(node, MapScope) or not node.fused or node.tile:
        return None
    if any(isinstance(g.nodes[c]["node"], MapScope) for c in scope_children(g, m)):
        return None
    chain = _chain(g, m)
    accesses, relation = [], None
    for s in touching:
        mine = [a for a in s.accesses if a.container == key]
        text = g.nodes[s.id]["node"].text
        if s.opaque_reason or '"' in text or "'" in text or identifier_count(text, name) != len(mine):
            return None
        if len(chain) != len(s.loops) or any(l not in [c.origin] + c.fused for l, c in zip(s.loops, chain)):
            return None
        for a in mine:
            if a.is_write and not a.must:
                return None
            r = a.relation.set_tuple_name(isl.dim_type.in_, "S")
            if relation is None:
                relation = r
            elif not r.is_equal(relation):
                return None
        accesses += mine
    for n in g.nodes:  # headers and declarations of every map, and statements elsewhere
        other = g.nodes[n]["node"]
        if isinstance(other, MapScope) and name in word_tokens(other.header + " ".join(other.declarations)):
            return None
        if isinstance(other, Tasklet) and n not in {s.id for s in touching} and identifier_count(other.text or "", name):
            return None
    if not _same_iteration(region, {a.id for a in accesses if not a.is_write}):
        return None
    return m, [s.id for s in touching]


def _chain(g, m: str) -> list[MapScope]:
    """The maps from the outermost down to `m`, tile loops left out."""
    out, node = [], m
    while node != STATE:
        if not g.nodes[node]["node"].tile:
            out.insert(0, g.nodes[node]["node"])
        node = scope_parent(g, node)
    return out


def _same_iteration(region: Region, reads: set[str]) -> bool:
    """Every read among `reads` gets its value from the same iteration of all loops around it."""
    deps = region.dependences
    if "flow" not in deps or "no_source" not in deps:
        return False
    for dep in _maps(deps["no_source"]):
        if dep.get_tuple_name(isl.dim_type.in_) in reads:
            return False
    for dep in _maps(deps["flow"]):
        if dep.get_tuple_name(isl.dim_type.out) not in reads:
            continue
        if dep.dim(isl.dim_type.in_) != dep.dim(isl.dim_type.out):
            return False
        delta = dep.set_tuple_name(isl.dim_type.in_, "X").set_tuple_name(isl.dim_type.out, "X").deltas()
        zero = isl.Set.universe(delta.get_space())
        for k in range(delta.dim(isl.dim_type.set)):
            zero = zero.fix_dim_si(k, 0)
        if not delta.is_subset(zero):
            return False
    return True


def _maps(union: isl.UnionMap) -> list[isl.Map]:
    out = []
    union.foreach_map(out.append)
    return out


def dead_outside(g, name: str, kind: Kind, element: str) -> bool:
    """The function around the region names `name` outside it only to declare, allocate or
    free it (see the module doc), read on the syntax tree lift analysed (`Region.file`): macros
    expanded, so a macro that reads `t[0]` after the region counts as the read it is. A
    declaration is one whose element type ends with the container's (`double t[n]`, `double *t`)."""
    region = g.nest.scop
    func = region.file.functions.get(region.function) if region.file is not None else None
    if func is None:
        return False
    params = func.decl.type.args.params if func.decl.type.args else []
    if any(getattr(p, "name", None) == name for p in params):
        return False  # a parameter
    element = element.split()[-1]
    declarations = 0
    for node, parent, above in _references(func.body, name, {id(l.node) for l in region.loops.values()}):
        if isinstance(node, c_ast.Decl):
            if _element_word(node.type, kind) != element \
                    or kind != Kind.ARRAY and node.init is not None and not _allocation(node.init):
                return False
            declarations += 1  # `double t[n];`, `double *t;`, `double *t = malloc(...);`
        elif kind == Kind.ARRAY:
            return False  # the declaration is the only reference an array may have
        elif isinstance(parent, c_ast.UnaryOp) and parent.op == "!" or _null_test(parent, node):
            continue  # a test for NULL reads the pointer, not what it points to
        elif isinstance(parent, c_ast.Assignment) and parent.op == "=" and parent.lvalue is node \
                and _allocation(parent.rvalue):
            continue  # `t = malloc(...)`
        elif isinstance(parent, c_ast.ExprList) and len(parent.exprs) == 1 and isinstance(above, c_ast.FuncCall) \
                and isinstance(above.name, c_ast.ID) and above.name.name == "free":
            continue  # `free(t)`
        else:
            return False
    return declarations == 1  # declared in the function, once


def _references(body: c_ast.Node, name: str, region: set[int]):
    """(node, parent, grandparent) for every declaration of `name` and every use of it as a name
    (not a member: `s.name` is a StructRef's field) under `body`, outside the loops `region` (ids)."""
    stack = [(body, None, None)]
    while stack:
        node, parent, above = stack.pop()
        if id(node) in region:
            continue
        if isinstance(node, c_ast.Decl) and node.name == name or isinstance(node, c_ast.ID) and node.name == name \
                and not (isinstance(parent, c_ast.StructRef) and parent.field is node):
            yield node, parent, above
        stack.extend((child, node, parent) for _, child in reversed(node.children()))


def _element_word(decl_type: c_ast.Node, kind: Kind) -> str:
    """The last word of the element type of a declared array (`double t[n][m]`) or pointer
    (`double *t`), '' for any other declaration."""
    t = decl_type
    if kind == Kind.ARRAY:
        while isinstance(t, c_ast.ArrayDecl):
            t = t.type
    elif isinstance(t, c_ast.PtrDecl):
        t = t.type
    else:
        return ""
    ok = isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) and t is not decl_type
    return t.type.names[-1] if ok else ""


def _null_test(parent: c_ast.Node, node: c_ast.Node) -> bool:
    """`t == NULL`, `t != 0` (either side): reads the pointer, not what it points to."""
    if not isinstance(parent, c_ast.BinaryOp) or parent.op not in ("==", "!="):
        return False
    other = parent.right if parent.left is node else parent.left
    while isinstance(other, c_ast.Cast):  # NULL is `((void *)0)`
        other = other.expr
    return isinstance(other, c_ast.Constant) and other.value == "0"


def _allocation(expr: c_ast.Node) -> bool:
    """An allocation call (an optional cast first)."""
    while isinstance(expr, c_ast.Cast):
        expr = expr.expr
    return isinstance(expr, c_ast.FuncCall) and isinstance(expr.name, c_ast.ID) and expr.name.name in ALLOCATORS


__all__ = ["contract_temporaries", "dead_outside"]
