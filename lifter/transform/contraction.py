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
  and outside the region the function names it only in its declaration (an array), or for a
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
import networkx as nx

from lifter.analysis.model import Kind, Region
from lifter.frontend.spans import Spans, TokenKind, word_tokens
from lifter.graph.attributes import nest
from lifter.graph.build import STATE
from lifter.graph.nodes import MapScope, Tasklet, scope_children, scope_parent
from lifter.transform.rewrite import fresh_name
from lifter.transform.source_text import identifier_count, replace_subscripted

ALLOCATORS = {"malloc", "calloc", "realloc", "aligned_alloc"}


def contract_temporaries(g: nx.MultiDiGraph, source_text: str, spans: Spans) -> bool:
    """Contract every temporary that qualifies (see the module doc); True if any."""
    if not nest(g).reemittable:
        return False
    region: Region = nest(g).scop
    names = Counter(c.name for c in region.containers.values())
    taken: set[str] | None = None  # the file's identifiers, read only once a contraction is proved
    changed = False
    for key, container in region.containers.items():
        if container.kind == Kind.SCALAR or container.storage != "local" or container.indirect \
                or container.field or container.element in ("", "?") or names[container.name] > 1:
            continue
        target = _target(g, region, key)
        if target is None or not dead_outside(g, spans, container.name, container.kind,
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


def dead_outside(g, spans: Spans, name: str, kind: Kind, element: str) -> bool:
    """The function around the region names `name` outside it only to declare, allocate or
    free it (see the module doc). A declaration is recognized by the element type's last word
    right before the name (`double t[n]`, `double *t`): `return t[0]` is no declaration."""
    element = element.split()[-1]
    start, end = nest(g).text_span
    body = _function_body(spans, start)
    if body is None:
        return False
    toks = spans.tokens
    if toks[body[0] - 1].text != ")" or name in _parameter_words(spans, body[0] - 1):
        return False  # a parameter (or a function of unusual shape)
    declarations = 0
    for k in range(body[0], body[1]):
        t = toks[k]
        if t.kind != TokenKind.WORD or t.text != name or start <= t.start < end:
            continue
        before = toks[k - 1].text
        if before == "." or (before == ">" and toks[k - 2].text == "-"):
            continue  # a member of some struct, not this variable
        after = toks[k + 1].text if k + 1 < len(toks) else ""
        if kind == Kind.ARRAY:
            if declarations or after != "[" or before != element:
                return False
            declarations += 1  # `double t[n]`: the only reference an array may have
            continue
        if before == "(" and toks[k - 2].text == "free" and after == ")":
            continue
        if _null_test(toks, k):
            continue
        declaring = before == "*" and toks[k - 2].text == element
        if declaring and after in (";", ","):
            declarations += 1  # `double *t;`
            continue
        if after == "=" and toks[k + 2].text != "=" and _allocation(toks, k + 2):
            declarations += declaring  # `double *t = (double *)malloc(...)`, `t = malloc(...)`
            continue
        return False
    return declarations == 1  # declared in the function, once


def _null_test(toks, k: int) -> bool:
    """The pointer at token k is only tested for NULL (`!t`, `t == NULL`, `t != 0`): that
    reads the pointer, not what it points to (`!t[0]`, `!t->x` read the target).
    Punctuation comes one character a token (`==` is `=`, `=`)."""
    def text(j: int) -> str:
        return toks[j].text if j < len(toks) else ""

    def ends(j: int) -> bool:  # the test ends at token j: `)`, `;`, `||`, `&&`
        return text(j) in (")", ";") or text(j) in ("|", "&") and text(j + 1) == text(j)

    if text(k - 1) == "!" and ends(k + 1):
        return True
    return text(k + 1) in ("=", "!") and text(k + 2) == "=" and text(k + 3) in ("NULL", "0") and ends(k + 4)


def _parameter_words(spans: Spans, close: int) -> set[str]:
    """The words between the `)` at token `close` and its `(`."""
    return {t.text for t in spans.tokens[spans.opening.get(close, 0):close] if t.kind == TokenKind.WORD}


def _allocation(toks, k: int) -> bool:
    """Tokens from k up to the end of the initializer are an allocation call that names
    nothing but sizes (an optional cast first)."""
    if toks[k].text == "(":  # a cast `(double *)`
        while k < len(toks) and toks[k].text != ")":
            k += 1
        k += 1
    return k < len(toks) and toks[k].text in ALLOCATORS and toks[k + 1].text == "("


def _function_body(spans: Spans, offset: int) -> tuple[int, int] | None:
    """Token indices (start, end) of the outermost `{ ... }` block holding `offset` (a token's start)."""
    outer, o = None, spans.enclosing(spans.index[offset])
    while o is not None:
        outer, o = o, spans.enclosing(o)
    return (outer, spans.brackets[outer]) if outer in spans.brackets else None


__all__ = ["contract_temporaries", "dead_outside"]
