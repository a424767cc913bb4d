"""Scratch arrays a parallel loop privatizes: may each thread have its own copy, and which copy.

The analysis (`analysis/verdicts.py`) lists among a loop's private names the local arrays
and pointer targets whose every read in an iteration gets its value from a write of the
same iteration, and that nothing later in the region reads (a row buffer filled and used
once per outer iteration). What it cannot see is the rest of the function: a private copy
leaves the shared buffer as it was before the loop, so the function must not name it after
the loop, nor hold its address elsewhere. That is decided here, on the function's syntax tree,
by the same rule contraction uses (`contraction.dead_outside`): outside the region the
function names the buffer only to declare it, or, for a pointer, to `malloc` it and `free`
it (so it also points to memory nothing else can reach).

How each thread gets its copy:
- an array (fixed size or a VLA): OpenMP's `private(tmp)` (GCC allocates the VLA per thread);
- a pointer target: `private(tmp)` on an enclosing `omp parallel`, in which each thread
  points its own `tmp` at a fresh `malloc` of the elements the loop touches (the index range
  from the map's memlets; indices below 0 would already be outside the user's allocation),
  and frees it after its share of the loop (`ScratchBuffer`, emitted by `backend/openmp.py`).
- a buffer that outlives the loop (`MapScope.shared_scratch`, `analysis/shared_scratch.py`:
  the function may name it anywhere, the caller may read it): as a pointer target, but each
  thread keeps the shared address too (`firstprivate`), and the body's first statement points
  `tmp` at the shared buffer in the loop's last iteration (a unit step: `i == last`) and at the
  thread's own copy in every other, so the buffer ends as the sequential loop leaves it. The
  analysis proved that every iteration writes the same elements and reads only what it wrote,
  from index 0 on; the alias test keeps the buffer apart from the loop's other data. A loop body
  of one statement without braces gets a block for the switch.
- an array the function names after the loop, or a global one: OpenMP's `lastprivate(tmp)`, where
  the loop's last iteration writes all of it (`shared_scratch.last_copy_condition`), the array's
  extent still means what it meant where it was declared, and the function only indexes it (its
  address goes nowhere a pointer could reach it from).
"""
from __future__ import annotations

from pycparser import c_ast

from lifter.analysis.model import Kind
from lifter.analysis.scop import written_names
from lifter.analysis.shared_scratch import last_copy_condition
from lifter.analysis.verdicts import DependenceIndex, original_nest, uncovered_params
from lifter.frontend.spans import Spans, Unparsable, word_tokens
from lifter.frontend.walk import walk
from lifter.graph.attributes import DataflowGraph
from lifter.graph.build import data_id
from lifter.graph.nodes import MapScope, ScratchBuffer, Tasklet, scope_descendants
from lifter.transform.contraction import dead_outside
from lifter.transform.rewrite import placed_as_written


def scratch_containers(g: DataflowGraph, m: MapScope):
    """(key, container) of the region for `m`'s private names that are arrays or pointer targets."""
    region = g.nest.scop
    return [(key, c) for name in m.private for key, c in region.containers.items()
            if c.name == name and c.kind != Kind.SCALAR]


def scratch_refusal(g: DataflowGraph, m: MapScope, spans: Spans | None) -> dict[str, str] | str:
    """Why some scratch array of `m` may not be private to each thread, or else those OpenMP keeps
    with `lastprivate` (name -> C condition on parameters, '' always): arrays the function names
    after the loop, and global ones, where its last iteration writes them whole."""
    region = g.nest.scop
    kept = {}
    for key, c in scratch_containers(g, m):
        name = c.name
        if sum(x.name == name for x in region.containers.values()) > 1:
            return f"scratch array '{name}' names two containers in the loop nest"
        if c.kind == Kind.ARRAY and c.declared_in is not None:
            continue  # declared in a loop around this one, inside the region: nothing outside sees it
        if name in m.shared_scratch:
            continue  # its last iteration leaves it as the loop as written does: others may read it
        if spans is not None and c.storage == "local" and dead_outside(g, name, c.kind, c.element):
            continue
        condition = _last_copy(g, m, key, c)
        if condition is None:
            where = "it is global" if c.storage == "global" else "the function names it outside the loop nest"
            return (f"scratch array '{name}' is private to each iteration, but {where} (its values may be read "
                    f"after the loop), and the last iteration does not provably write all of it")
        kept[name] = condition
    return kept


def _last_copy(g: DataflowGraph, m: MapScope, key: str, c) -> str | None:
    """The condition under which `lastprivate` keeps array `c` as the loop leaves it
    (`shared_scratch.last_copy_condition`), or None. Asked of the loop as written, where `m` still is
    (inner loops reshaped or not), and of an extent that still means what it meant where the array
    was declared: numbers, and parameters the function never assigns."""
    region = g.nest.scop
    inside = {t for t in scope_descendants(g, m.id) if isinstance(g.nodes[t]["node"], Tasklet)}
    extent = c.dims[0] if c.kind == Kind.ARRAY and c.dims else ""
    func = region.file.functions.get(region.function) if region.file is not None else None
    if not extent or func is None or not placed_as_written(g, m.id, region, inside) or not _fixed(func, extent) \
            or not _only_indexed(func, c.name):
        return None
    written = original_nest(region, m.origin)
    return last_copy_condition(region, written, key, uncovered_params(region, written, key, DependenceIndex(region)),
                               extent)


def _fixed(func: c_ast.FuncDef, extent: str) -> bool:
    """Whether the names in an array's extent are parameters of the function it never assigns."""
    names = {w for w in word_tokens(extent) if not w[0].isdigit()}
    if not names:
        return True
    if func.decl.type.args is None:
        return False
    params = {getattr(p, "name", None) for p in func.decl.type.args.params}
    return names <= params and not names & written_names(func.body)


def _only_indexed(func: c_ast.FuncDef, name: str) -> bool:
    """Whether the function names the array only to index it (`row[j]`; and to declare it): its
    address goes nowhere in it (`keep(row)`, `double *p = row`). The alias tests take a local array
    for storage of its own, apart from every pointer: in the loop, only its own name may reach it,
    and that is the thread's copy."""
    for parent in walk(func.body):
        for _, child in parent.children():
            if isinstance(child, c_ast.ID) and child.name == name \
                    and not (isinstance(parent, c_ast.ArrayRef) and parent.name is child):
                return False
    return True


def scratch_buffers(g: DataflowGraph, m: MapScope, bounds, spans: Spans | None = None) -> list[ScratchBuffer] | str:
    """The per-thread buffers for the pointer targets `m` privatizes, or why none can be sized.

    `bounds(node, ranges)` gives the first and last index per dimension the map touches;
    `spans` (the file's tokens) finds the body a shared buffer's switch goes into."""
    out = []
    for key, c in scratch_containers(g, m):
        if c.kind != Kind.POINTER:
            continue
        name, data = c.name, data_id(key)
        node = g.nodes[data]["node"]
        # What an iteration of a shared buffer's loop reads it wrote before (in the copy), where
        # the loop runs in parallel (the analysis's condition): its writes bound the copy.
        ranges = [] if name in m.shared_scratch else \
            [d["edge"].range for u, _, d in g.in_edges(m.id, data=True) if u == data]
        ranges += [d["edge"].range for _, v, d in g.out_edges(m.id, data=True) if v == data]
        found = bounds(node, ranges) if ranges else None
        if found is None:
            return f"scratch buffer '{name}' needs a copy per thread, but the range the loop touches has no bounds in C"
        last = found[1]
        strides = node.strides or ["1"]
        flat = " + ".join(f"({x})*({s})" for x, s in zip(last, strides))
        if name not in m.shared_scratch:
            out.append(ScratchBuffer(name, f"({flat}) + 1"))
            continue
        body = _body_start(m, spans)
        if body is None:
            return (f"scratch buffer '{name}' outlives the loop, and its last iteration must use it, but the "
                    f"loop's body cannot be found in the user's file")
        if m.step != 1:
            return (f"scratch buffer '{name}' outlives the loop, and its last iteration must use it, but "
                    f"the loop steps by {m.step}")
        if c.declared_in is not None or c.const:
            return (f"scratch buffer '{name}' outlives the loop, and each thread must point '{name}' at its "
                    f"copy, but it is not declared as a plain pointer before the loop (`double *const` cannot change)")
        final = f"({m.var} == ({m.begin if m.decreasing else m.end}))"
        out.append(ScratchBuffer(name, f"({flat}) + 1", final, *body))
    return out


def _body_start(m: MapScope, spans: Spans | None) -> tuple[int, bool] | None:
    """Where the switch goes in the user's file: just after the `{` that opens the loop's body
    (True), or where a body of one statement without braces starts (False: the backend adds them).
    None if the loop's text cannot be found."""
    if spans is None or m.offset is None or m.span is None:
        return None
    try:
        body = spans.for_span(m.offset).body_start
    except Unparsable:
        return None
    return (body + 1, True) if spans.text[body] == "{" else (body, False)


__all__ = ["scratch_buffers", "scratch_containers", "scratch_refusal"]
