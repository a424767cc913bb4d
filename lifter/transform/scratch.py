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
  from index 0 on; the alias test keeps the buffer apart from the loop's other data.
"""
from __future__ import annotations


from lifter.analysis.model import Kind
from lifter.frontend.spans import Spans, Unparsable
from lifter.graph.attributes import DataflowGraph
from lifter.graph.build import data_id
from lifter.graph.nodes import MapScope, ScratchBuffer
from lifter.transform.contraction import dead_outside


def scratch_containers(g: DataflowGraph, m: MapScope):
    """(key, container) of the region for `m`'s private names that are arrays or pointer targets."""
    region = g.nest.scop
    return [(key, c) for name in m.private for key, c in region.containers.items()
            if c.name == name and c.kind != Kind.SCALAR]


def scratch_refusal(g: DataflowGraph, m: MapScope, spans: Spans | None) -> str:
    """'' if every scratch array of `m` may be private to each thread, else why not."""
    region = g.nest.scop
    for _, c in scratch_containers(g, m):
        name = c.name
        if sum(x.name == name for x in region.containers.values()) > 1:
            return f"scratch array '{name}' names two containers in the loop nest"
        if c.kind == Kind.ARRAY and c.declared_in is not None:
            continue  # declared in a loop around this one, inside the region: nothing outside sees it
        if name in m.shared_scratch:
            continue  # its last iteration leaves it as the loop as written does: others may read it
        if spans is None or not dead_outside(g, name, c.kind, c.element):
            return (f"scratch array '{name}' is private to each iteration, but the function names it "
                    f"outside the loop nest (its values may be read after the loop)")
    return ""


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
                    f"loop's body is not a block in the user's file")
        if m.step != 1:
            return (f"scratch buffer '{name}' outlives the loop, and its last iteration must use it, but "
                    f"the loop steps by {m.step}")
        if c.declared_in is not None or c.const:
            return (f"scratch buffer '{name}' outlives the loop, and each thread must point '{name}' at its "
                    f"copy, but it is not declared as a plain pointer before the loop (`double *const` cannot change)")
        final = f"({m.var} == ({m.begin if m.decreasing else m.end}))"
        out.append(ScratchBuffer(name, f"({flat}) + 1", final, body))
    return out


def _body_start(m: MapScope, spans: Spans | None) -> int | None:
    """The offset just after the `{` that opens the loop's body in the user's file, or None."""
    if spans is None or m.offset is None or m.span is None:
        return None
    try:
        body = spans.for_span(m.offset).body_start
    except Unparsable:
        return None
    return body + 1 if spans.text[body] == "{" else None


__all__ = ["scratch_buffers", "scratch_containers", "scratch_refusal"]
