"""The extents of an SDFG's descriptors where no declaration gives them, read off the regions' accesses (graph/sdfg.py
builds the descriptors): a pointer's from the largest indices the regions touch, and those of the statements between
them (graph/sdfg_host.py); a buffer indexed flat but seen in several shapes, one flat descriptor; and a local one
region computes and another reads, one descriptor."""
from __future__ import annotations

import re


from lifter.graph.nodes import STATE, AccessNode, MapScope, Memlet
from lifter.graph.symbolic import c_to_symbolic, identifier
from lifter.graph.attributes import DataflowGraph

_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")


def symbolic(text: str) -> str | None:
    """A C bound as DaCe symbolic text (graph/symbolic.py), a struct member read in it (`g->nx`, `p.n`) a
    symbol of the name its container would have (`g__nx`, `p_n`): the caller passes the member's value."""
    return c_to_symbolic(text, members=True) if text else None


def _region_highs(g: DataflowGraph):
    """The memlets of the Root's own children (ranges over the whole region), each with the DaCe texts
    of its last indices, None where one is not over the parameters only (unreadable, or naming a map's
    variable)."""
    inner = {v for _, d in g.nodes(data=True) if isinstance(m := d["node"], MapScope) for v in (m.var,)}
    for u, v, d in g.edges(data=True):
        e = d["edge"]
        if not isinstance(e, Memlet) or STATE in (u, v) or not e.subset:
            continue
        if not any(g.has_edge(STATE, n) for n in (u, v)):
            continue
        texts = [symbolic(hi) for _, hi in e.subset]
        yield e, [t if t is not None and not set(_IDENT.findall(t)) & inner else None for t in texts]


def _one_past(ends: set[str | None]) -> str | None:
    """One past the largest of the last indices, None where one is unknown."""
    if None in ends or not ends:
        return None
    ends = [f"{t} + 1" for t in sorted(ends)]
    return ends[0] if len(ends) == 1 else f"Max({', '.join(ends)})"


def inferred_extents(graphs: list[DataflowGraph], between: dict[tuple[str, int], set[str]] | None = None) \
        -> dict[tuple[str, int], str]:
    """Extents of dimensions the declarations leave open (a pointer parameter), from the accesses:
    one past the largest index the outermost maps and tasklets touch, over the parameters only, and the
    elements the statements between the regions touch (`between`, graph/sdfg_host.py's `HostFacts.highs`);
    where some region's index is not of that form, none (the exporter falls back to a size symbol)."""
    highs: dict[tuple[str, int], set[str | None]] = {}
    for g in graphs:
        for e, texts in _region_highs(g):
            for k, text in enumerate(texts):
                highs.setdefault((e.container, k), set()).add(text)
    for key, texts in (between or {}).items():
        if key in highs:
            highs[key] |= texts
    return {key: end for key, texts in highs.items() if (end := _one_past(texts)) is not None}


def flat_views(graphs: list[DataflowGraph]) -> dict[tuple[str, str], list[str]]:
    """The pointers a function indexes flat everywhere but sees in several shapes (`km->sums[t]` in one
    region, `km->sums[c * dim + d]` delinearized to two dimensions in another): (region, container) ->
    the strides of its view there (C text). One buffer, so one descriptor, flat, which each region's
    subsets reach through those strides; apart, DaCe would hold them as several arrays."""
    seen: dict[str, list[tuple[str, AccessNode]]] = {}
    for g in graphs:
        for _, d in g.nodes(data=True):
            n = d["node"]
            if isinstance(n, AccessNode) and n.kind == "pointer" and not n.transient and not n.field:
                seen.setdefault(n.container, []).append((g.name, n))
    out = {}
    for container, views in seen.items():
        if len({tuple(n.strides) or n.ndim for _, n in views}) > 1 and all(n.strides or n.ndim == 1 for _, n in views):
            out.update({(region, container): list(n.strides) or ["1"] for region, n in views})
    return out


def flat_extents(graphs: list[DataflowGraph], flat: dict[tuple[str, str], list[str]]) -> dict[str, str]:
    """The extent of each flat view's buffer (`flat_views`) from the regions' last indices through their
    strides, as `inferred_extents` does per dimension; a size symbol where one is unknown."""
    ends: dict[str, set[str | None]] = {}
    for g in graphs:
        for e, texts in _region_highs(g):
            strides = flat.get((g.name, e.container))
            if strides is not None:
                strides = [symbolic(t) for t in strides]
                end = None if None in texts + strides or len(texts) != len(strides) else \
                    " + ".join(f"({t}) * ({s})" for t, s in zip(texts, strides))
                ends.setdefault(e.container, set()).add(end)
    containers = {c for _, c in flat}
    return {c: _one_past(ends.get(c, {None})) or f"{identifier(c)}_size0" for c in containers}


def one_element(seen: dict | None, new: dict) -> dict | None:
    """A local one region computes (a one-element array) that another only reads (a scalar): one descriptor, the
    array, so that the reader reads what the writer computed (as two, the reader's was an argument of its own,
    `s_R1`, which nothing set); None for any other pair."""
    pair = [d for d in (seen, new) if d is not None and not d["attributes"]["transient"]]
    if len(pair) == 2 and {d["type"] for d in pair} == {"Scalar", "Array"} \
            and len({d["attributes"]["dtype"] for d in pair}) == 1:
        array = next(d for d in pair if d["type"] == "Array")
        return array if array["attributes"]["shape"] == ["1"] else None
    return None
