"""Rectangular tiling of permutable loop bands, proved legal by isl, where reuse misses the cache.

A band is a perfect nest of maps (each the only child of the one above it,
statements only in the innermost). Tiling it runs the iteration space block by
block: tile loops step over blocks, point loops walk one block. That is legal
when the band is permutable: every dependence between two instances that share
the iterations of the loops around the band has a non-negative distance in
every band dimension (checked with isl on the region's dependences). The tiled
tree is then checked once more, exactly, against every dependence under the
schedule it implies (`legality.legal_tree`).

Tiling pays only where data is reused at a distance larger than a cache
(`_reuse`): an access invariant along a band loop, with two or more band loops
inside it (gemm's B[k][j] along i: the whole matrix between two uses), or an
access that is strided along the innermost loop but unit-stride along an outer
one (a transpose: each cache line is used once per outer iteration). Streaming
stencils and matrix-vector products reuse only a row or a vector, which fits
in the cache, and are left alone. A map whose body mixes statements and a band
is distributed first when that exposes a profitable band (gemm's `C *= beta`).

Only headers that can be rewritten exactly are tiled: `for ([type] v = lb;
v < ub (or <=); v++)` with unit step, and loop variables not read after the nest. A loop whose
bounds use an outer loop of the band (syrk's `j <= i`: a triangular band) steps over the grid of
all its runs (`_grid`) and its point loop clips each block to the run; where that grid has no
plain bounds, the band ends before the loop, which stays whole inside the innermost point loop.
The tile loop declares its own variable: `for (long i_t = 0; i_t < n; i_t += 32)` and the point
loop becomes
`for (i = i_t; i < (i_t + 32 < n ? i_t + 32 : n); i++)`. The tile variable is at
least a `long` (`_tile_type`), so neither `i_t + 32` nor the last `i_t += 32`
overflows where `i` itself stops just below its type's maximum; a size larger
than a constant trip count is cut to it (one tile), and the command line
refuses sizes above `MAX_TILE_SIZE`.

Tile sizes: from `--tile-sizes` (outermost first; the last repeats), else from
the caches in /sys/devices/system/cpu/cpu0/cache, or in the folder of the same layout that
`LIFT_CACHE_DIR` names (to lift for another machine, and so that tests give the same output on
every machine) (fallback 32 KiB L1, 256 KiB L2): the blocks of every array the band touches fit in half of L2 together,
and the innermost block spans whole cache lines.
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

import islpy as isl

from lifter.analysis.affine import isl_name
from lifter.analysis.model import Region
from lifter.analysis.verdicts import Nest, verdict
from lifter.analysis.ranges import isl_text, pw_to_c, readable
from lifter.frontend.spans import Spans, TokenKind, word_tokens
from lifter.graph.attributes import DataflowGraph
from lifter.graph.nodes import MapScope, Schedule, Scope, Tasklet, scope_children, scope_descendants, scope_parent
from lifter.transform.checkpoint import checkpoint, rollback
from lifter.transform.legality import legal_tree, permutable
from lifter.transform.locality import distribute, perfect_band, stride_kind
from lifter.transform.rewrite import ancestors, fresh_name, move_child, origins_above, rewrite_nest
from lifter.transform.loop_vars import escaping

CACHE_DIR = Path("/sys/devices/system/cpu/cpu0/cache")
CACHE_DIR_ENV = "LIFT_CACHE_DIR"  # a folder laid out as CACHE_DIR, read instead of it
FALLBACK_CACHE = {1: 32 * 1024, 2: 256 * 1024}
LINE_BYTES = 64
ELEMENT_BYTES = 8  # the model assumes doubles; smaller elements only make the blocks fit better
UNROLLED_TRIPS = 16  # gcc -O3 unrolls constant loops this short completely
MAX_TILE_SIZE = 1 << 20  # far beyond any cache; keeps `i_t + size` far from a 64-bit maximum
_NARROW_WORDS = {"unsigned", "signed", "int", "short"}  # integer types no wider than an int

_HEADER_TYPES = {"unsigned", "signed", "long", "int", "short", "size_t", "ptrdiff_t"}


def header_clauses(header: str) -> dict | None:
    """A header `for ([type] var = lb; var < ub; var++)` (or `<=`, `++var`, `var += 1`; the type
    words integer ones) read with the frontend's lexical layer: {'type', 'var', 'lb', 'op', 'ub'},
    the type and bounds as written; None for any other header."""
    spans = Spans(header)
    toks = spans.tokens
    if len(toks) < 2 or toks[0].text != "for" or toks[1].text != "(" or spans.brackets.get(1) != len(toks) - 1:
        return None
    clauses = spans.split(2, len(toks) - 1, ";")
    if len(clauses) != 3:
        return None
    (a, b), (c, d), (e, f) = clauses
    eq = next((k for k in range(a, b) if toks[k].text == "="), b)
    if not a < eq < b - 1 or toks[eq - 1].kind != TokenKind.WORD or \
            any(toks[k].kind != TokenKind.WORD or toks[k].text not in _HEADER_TYPES for k in range(a, eq - 1)):
        return None
    var = toks[eq - 1].text
    if d - c < 3 or toks[c].text != var or toks[c + 1].text != "<":
        return None
    less_equal = toks[c + 2].text == "=" and toks[c + 1].end == toks[c + 2].start
    ub = c + 3 if less_equal else c + 2
    if ub >= d:
        return None
    step = [t.text for t in toks[e:f]]
    joined = all(toks[k].end == toks[k + 1].start for k in range(e, f - 1) if toks[k].text == "+")
    if not joined or step not in ([var, "+", "+"], ["+", "+", var], [var, "+", "=", "1"]):
        return None
    return {"type": header[toks[a].start:toks[eq - 2].end] if eq - 1 > a else "", "var": var,
            "lb": header[toks[eq + 1].start:toks[b - 1].end], "op": "<=" if less_equal else "<",
            "ub": header[toks[ub].start:toks[d - 1].end]}


# Bounds made of names, numbers, arithmetic, subscripts and parentheses only.
_ARITHMETIC = re.compile(r"[\w\s+\-*/%()\[\].]+")


def tile_bands(g: DataflowGraph, region: Region, sizes: tuple[int, ...] = ()) -> bool:
    """Tile every profitable, legal band of the graph; `sizes` overrides the cache model. True if
    any band was tiled."""
    if not g.nest.reemittable:
        return False
    return rewrite_nest(g, region, lambda child: _visit(g, region, child, sizes))


def _visit(g, region: Region, node_id: str, sizes) -> bool:
    """Tile the bands in a map's subtree; True if the tree changed."""
    if not isinstance(g.nodes[node_id]["node"], MapScope):
        return False
    band = perfect_band(g, node_id)
    if len(band) >= 2 and _tile(g, region, band, sizes):
        return True
    chain = _chain(g, node_id)
    kids = scope_children(g, chain[-1])
    if len(kids) > 1 and any(isinstance(g.nodes[k]["node"], MapScope) for k in kids):
        # Distribute the innermost mixed map and every map of the chain above it, so that
        # the band inside becomes perfect (gemm's `C *= beta` goes to a nest of its own).
        saved = checkpoint(g)
        copies = _distribute_chain(g, region, chain)
        if copies and any([_visit(g, region, copy, sizes) for copy in copies]):
            return True
        rollback(g, saved)
    changed = False
    for child in kids:
        changed |= _visit(g, region, child, sizes)
    return changed


def _chain(g, node_id: str) -> list[str]:
    """Maps nested one directly in another from `node_id` down, none declaring variables."""
    chain = [node_id]
    while not g.nodes[chain[-1]]["node"].declares:
        kids = scope_children(g, chain[-1])
        if len(kids) != 1 or not isinstance(g.nodes[kids[0]]["node"], MapScope):
            break
        chain.append(kids[0])
    return chain


def _distribute_chain(g, region: Region, chain: list[str]) -> list[str]:
    """Distribute the chain's maps from the innermost up: the copies of its first map, or []."""
    copies = []
    for m in reversed(chain):
        if g.nodes[m]["node"].declares:
            return []
        copies = distribute(g, region, m)
        if not copies:
            return []
    return copies


# -- the decision ------------------------------------------------------------------------
def _tile(g, region: Region, band: list[str], sizes) -> bool:
    grids: list[Grid | None] = []
    for index, b in enumerate(band):
        # A loop whose bounds use an outer loop of the band (syrk's `j <= i`) is tiled on a grid
        # that covers all its runs (`_grid`); where that grid has no plain bounds, the band ends
        # before it and the loop stays whole inside the innermost point loop.
        grid = None
        if word_tokens(g.nodes[b]["node"].header) & {g.nodes[o]["node"].var for o in band[:index]}:
            grid = _grid(g, region, band[:index + 1])
            if grid is None:
                band = band[:index]
                break
        grids.append(grid)
    if len(band) < 2:
        return False
    grids = grids[:len(band)]
    maps = [g.nodes[b]["node"] for b in band]
    headers = [canonical_header(m, region) for m in maps]
    if any(h is None for h in headers):
        return False
    below = [d for d in scope_descendants(g, band[-1]) if isinstance(g.nodes[d]["node"], MapScope)]
    if escaping(g, band + below):
        return False  # the loop variables end with other values after a tiled nest
    tasklets = [t for t in scope_descendants(g, band[-1]) if isinstance(g.nodes[t]["node"], Tasklet)]
    if any(region.statements[t].opaque_reason for t in tasklets):
        return False
    inner = [_constant(g.nodes[d]["node"].max_trip_count) for d in below]
    if not _reuse(g, region, band, tasklets, inner):
        return False
    if not permutable(region, [m.origin for m in maps], origins_above(g, band[0]), tasklets):
        return False
    chosen = list(sizes) if sizes else model_sizes(len(band), _arrays(region, tasklets))
    chosen = [chosen[min(d, len(chosen) - 1)] for d in range(len(band))]
    trips = [_constant(m.trip_count) for m in maps]  # rectangular: the same for every outer iteration
    chosen = [min(size, MAX_TILE_SIZE, max(n, 2) if n is not None else size) for size, n in zip(chosen, trips)]
    saved = checkpoint(g)
    tiles = tile_rewrite(g, region, band, headers, chosen, grids)
    if not legal_tree(g, region):
        rollback(g, saved)
        return False
    first = _parallel_tile(g, region, band, tiles, tasklets)
    if first:
        placed = checkpoint(g)
        _move_first(g, tiles, first)
        if not legal_tree(g, region):
            rollback(g, placed)
    return True


def _parallel_tile(g, region: Region, band: list[str], tiles: list[str], tasklets: list[str]) -> str:
    """The tile loop to run outermost in the band, or '' to keep the band's order.

    A band whose outermost loop carries a dependence (trmm's `i`, `k` around a parallel `j`) runs
    all its tiles in order on one thread: its parallel loop is too deep inside sequential loops
    for a parallel region to pay. The tile loops of a permutable band may run in any order (every
    dependence between tiles goes forward along each tile dimension), so the first tile loop whose
    point loop the analysis proves parallel at the band's start, with nothing to reduce, moves
    outermost: its tiles are independent and one parallel region runs them. Not where a loop
    around the band is parallel already (the band then runs on one thread per iteration anyway,
    and its order was chosen for the caches), nor where the outermost loop itself is parallel."""
    if any(g.nodes[a]["node"].schedule == Schedule.PARALLEL for a in ancestors(g, tiles[0])):
        return ""
    outer = origins_above(g, tiles[0])
    for b, tile in zip(band, tiles):
        placed = verdict(region, Nest(g.nodes[b]["node"].origin, outer, set(tasklets)), region.live_after)
        if placed.parallel and not (placed.reductions or placed.shared_scratch or placed.condition):
            return "" if tile == tiles[0] else tile
    return ""


def _move_first(g, tiles: list[str], first: str) -> None:
    """Put tile loop `first` above the band's other tile loops, which keep their order."""
    parent = scope_parent(g, tiles[0])
    order = next(d["edge"].order for d in g.get_edge_data(parent, tiles[0]).values() if isinstance(d["edge"], Scope))
    below = scope_children(g, tiles[-1])[0]  # the band's first point loop
    chain = [first] + [t for t in tiles if t != first]
    move_child(g, chain[0], parent, order)
    for above, tile in zip(chain, chain[1:]):
        move_child(g, tile, above, 0)
    move_child(g, below, chain[-1], 0)


@dataclass
class Grid:
    """The range a tile loop steps over where its loop's bounds use outer loops of the band: the
    least first and the greatest last index of all its runs (isl text, and strict C)."""

    first_isl: str  # over isl's names (the schedule's text, legality.py)
    first: str  # as a map's bounds are written (C names)
    last: str
    first_c: str
    last_c: str


def _grid(g, region: Region, band: list[str]) -> Grid | None:
    """The grid of the last loop of `band`: the least and greatest values its variable takes in
    the band's iteration domain (the loops' own bounds; `if`s and empty inner loops only make the
    statements' domains smaller), over the parameters and the loops above the band, which are
    fixed while the tile loops run. Every run of the loop is then cut by the same block borders,
    so the tiles are rectangular and tiling the permutable band is legal; the point loop clips
    each block to the run's bounds. None where a bound is not one affine expression."""
    loops = [region.loops[g.nodes[b]["node"].origin] for b in band]
    above = [region.loops[o].var for o in origins_above(g, band[0]) if o in region.loops]
    names = [isl_name(loop.var) for loop in loops]
    params = list(dict.fromkeys(isl_name(v) for v in [*region.params, *above]))
    bounds = " and ".join(f"{loop.lower} <= {n} <= {loop.upper}" for loop, n in zip(loops, names))
    try:
        space = isl.Set(f"[{', '.join(params)}] -> {{ [{', '.join(names)}] : {bounds} }}")
        last = space.project_out(isl.dim_type.set, 0, len(loops) - 1)
        lo, hi = last.dim_min(0), last.dim_max(0)
        first_c, last_c = pw_to_c(lo), pw_to_c(hi)
        if first_c is None or last_c is None:
            return None
        return Grid(isl_text(lo), readable(lo), readable(hi), first_c, last_c)
    except isl.Error:
        return None


def _reuse(g, region: Region, band: list[str], tasklets: list[str], below: list[int | None]) -> bool:
    """Some access reuses data at a distance that does not fit in the cache (see module doc).

    `below`: the trip counts (None if not constant) of the loops inside the band."""
    loops = [region.loops[g.nodes[b]["node"].origin] for b in band]
    trips = [_constant(g.nodes[b]["node"].trip_count) for b in band]
    caches = cache_sizes()
    for stmt in (region.statements[t] for t in tasklets):
        n = len(stmt.loops)
        for acc in stmt.accesses:
            if acc.relation.range().dim(isl.dim_type.set) == 0:
                continue  # a scalar stays in a register
            kinds = [stride_kind(acc.relation, loop.depth, n) for loop in loops]
            for p in range(len(band) - 1):
                inner = trips[p + 1:] + below
                elements = math.prod(inner) if None not in inner else None
                if kinds[p] == 1 and any(k != 1 for k in kinds[p + 1:]):
                    # Temporal reuse along loop p, after everything the inner loops touch.
                    if elements is None and len(inner) >= 2 or \
                            elements is not None and elements * ELEMENT_BYTES > caches[2]:
                        return True
                if kinds[-1] == -3 and kinds[p] == 3:
                    # Each line the inner loop touches is used again by the next iteration of loop p.
                    if elements is None or elements * LINE_BYTES > caches[1]:
                        return True
    return False


def _arrays(region: Region, tasklets: list[str]) -> int:
    return len({a.container for t in tasklets for a in region.statements[t].accesses
                if a.relation.range().dim(isl.dim_type.set) > 0}) or 1


def model_sizes(depth: int, arrays: int) -> list[int]:
    """Tile sizes for a band of `depth` loops over `arrays` arrays, outermost first.

    The square blocks of every array fit in half of L2 together (a power of two,
    at least 8); the innermost block is twice as long, so each row of a block is
    several whole cache lines and the inner loop long enough to vectorize.
    """
    budget = cache_sizes()[2] // 2 // (arrays * ELEMENT_BYTES)
    side = 8
    while (2 * side) ** 2 <= budget:
        side *= 2
    return [side] * (depth - 1) + [2 * side]


def cache_sizes() -> dict[int, int]:
    """Data cache sizes in bytes by level, from sysfs; the fallback model where it says nothing."""
    sizes = dict(FALLBACK_CACHE)
    folder = Path(os.environ[CACHE_DIR_ENV]) if os.environ.get(CACHE_DIR_ENV) else CACHE_DIR
    try:
        for index in sorted(folder.glob("index*")):
            kind = (index / "type").read_text().strip()
            level = int((index / "level").read_text())
            if kind in ("Data", "Unified") and level in sizes:
                sizes[level] = _bytes((index / "size").read_text().strip()) or sizes[level]
    except (OSError, ValueError):
        return dict(FALLBACK_CACHE)
    return sizes


def _bytes(text: str) -> int:
    scale = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}
    if text and text[-1] in scale:
        return int(text[:-1]) * scale[text[-1]]
    return int(text)


def unrolled_whole(m: MapScope) -> bool:
    """A loop with a constant trip count small enough that the C compiler unrolls it whole
    (so it is no loop to block or expand for)."""
    trips = _constant(m.trip_count)
    return trips is not None and trips <= UNROLLED_TRIPS


def _constant(text: str | None) -> int | None:
    try:
        return int(text.rstrip("L")) if text else None
    except ValueError:
        return None


# -- the rewrite -------------------------------------------------------------------------
def canonical_header(m: MapScope, region: Region) -> dict | None:
    """The parts of a header that tiling can rewrite exactly, or None."""
    if m.step != 1 or m.decreasing or m.declares or m.tile:
        return None
    parts = header_clauses(m.header)
    if parts is None or parts["var"] != m.var:
        return None
    if m.var in word_tokens(parts["lb"]) | word_tokens(parts["ub"]) or not _ARITHMETIC.fullmatch(parts["lb"] + parts["ub"]):
        return None  # operators that bind looser than `<` would change meaning in the new tests
    return parts


def tile_rewrite(g, region: Region, band: list[str], headers: list[dict], sizes: list[int],
                 grids: list[Grid | None] | None = None) -> list[str]:
    """Put tile maps above the band and rewrite the band's headers into point loops (a loop with
    a `Grid` steps over the grid, and its point loop starts at its run's first index where that
    comes later than the block's); the tile maps' ids, outermost first."""
    taken = nest_names(g)
    parent = scope_parent(g, band[0])
    order = next(d["edge"].order for d in g.get_edge_data(parent, band[0]).values()
                 if isinstance(d["edge"], Scope))
    above, tiles = parent, []
    for m_id, h, size, grid in zip(band, headers, sizes, grids or [None] * len(band)):
        m = g.nodes[m_id]["node"]
        name = fresh_name(f"{h['var']}_t", taken)
        kind = _tile_type(h)
        tile_id = f"{m_id}.tile"
        if grid is None:
            begin, end, trips, most = m.begin, m.end, _ceil_div(m.trip_count, size), _ceil_div(m.max_trip_count, size)
            header = f"for ({kind} {name} = {h['lb']}; {name} {h['op']} {h['ub']}; {name} += {size})"
        else:
            begin, end = grid.first, grid.last
            trips = most = f"(({grid.last_c}) - ({grid.first_c}) + {size}L) / {size}L"
            header = f"for ({kind} {name} = {grid.first_c}; {name} <= {grid.last_c}; {name} += {size})"
        tile = MapScope(tile_id, name, begin, end, size, False, m.schedule, m.line, m.column, m.depth,
                        m.function, m.offset, True, trips, most, origin=m.origin, tile=size,
                        header=header, var_type=kind, transformations=["tiling"], span=m.span,
                        fused=list(m.fused), tile_lower=grid.first_isl if grid else "")
        g.add_node(tile_id, node=tile)
        tiles.append(tile_id)
        g.add_edge(above, tile_id, edge=Scope(order if above == parent else 0))
        above, order = tile_id, 0
        last = f"{name} + {size}" if h["op"] == "<" else f"{name} + {size - 1}"
        first = name if grid is None else f"({name} > ({h['lb']}) ? {name} : ({h['lb']}))"
        m.header = (f"for ({h['type'] + ' ' if h['type'] else ''}{h['var']} = {first}; "
                    f"{h['var']} {h['op']} ({last} {h['op']} {h['ub']} ? {last} : {h['ub']}); {h['var']}++)")
        m.begin = name if grid is None else f"max({name}, {m.begin})"
        m.end = f"min({name} + {size - 1}, {m.end})"
        # A point loop runs a tile's iterations at most (the bound the unrolling and the cache
        # model go by), and its longest run is no longer than its loop's whole range: a small
        # loop tiled by 128 runs far fewer than 128 (what the work estimate goes by).
        m.trip_count, m.max_trip_count = f"{size}L", _at_most(m.max_trip_count, size)
        m.transformations.append("tiling")
    move_child(g, band[0], above, 0)
    return tiles


def _tile_type(h: dict) -> str:
    """The tile variable's type: `long` for counters no wider than an int, else the counter's own
    type (at least as wide as `long`), so that the tile loop's `+ size` cannot overflow."""
    if not h["type"]:
        return f"__typeof__({h['var']} + 0L)"  # declared before the loop: its type, widened
    return "long" if set(h["type"].split()) <= _NARROW_WORDS else h["type"]


def nest_names(g) -> set[str]:
    """Every identifier the nest's text uses: a new loop variable must shadow none of them."""
    words = set()
    for _, d in g.nodes(data=True):
        node = d["node"]
        if isinstance(node, MapScope):
            words |= word_tokens(node.header) | {w for decl in node.declarations for w in word_tokens(decl)}
            words.add(node.var)
        elif isinstance(node, Tasklet):
            words |= word_tokens(node.text)
    return words


def _at_most(trips: str | None, size: int) -> str:
    """min(trips, size) in C: a constant where `trips` is one (or unknown), else a test."""
    count = _constant(trips)
    if trips is None or count is not None and count >= size:
        return f"{size}L"
    if count is not None:
        return f"{max(count, 0)}L"
    return f"(({trips}) < {size}L ? ({trips}) : {size}L)"


def _ceil_div(trips: str | None, size: int) -> str | None:
    if trips is None:
        return None
    count = _constant(trips)
    if count is not None:
        return f"{-(-count // size)}L"
    return f"(({trips}) + {size - 1}L) / {size}L"


__all__ = ["cache_sizes", "canonical_header", "model_sizes", "nest_names", "tile_bands",
           "tile_rewrite", "unrolled_whole"]
