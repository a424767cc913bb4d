"""Exact dependences of a region with isl's dataflow analysis.

Every access is its own isl tuple (`S3_a1[i, j]`), so each dependence names
the two accesses it links. The schedule is the original execution order: the
classic 2d+1 form (textual position, loop variable, position, ...) followed by
the access's place in its statement (reads before the write).

- flow: value-based (`compute_flow` with must-writes killing older values);
- anti and output: memory-based (all earlier reads or writes of the element),
  because the transformations do not rename storage.

Accesses of one statement that touch the same elements in the same way (the
`a[i]` read by each test of an else-if chain) share the tuple of the first of
them: one tuple stands for all, so dependences name that one. Without this the
number of tuples, and isl's work, grows with the square of such chains.
"""
from __future__ import annotations

import islpy as isl

from lifter.analysis.model import Access, Region


def representatives(region: Region) -> set[str]:
    """The ids of the accesses that stand for all the same-kind accesses of their statement
    with the same relation (the first of each group)."""
    ids = set()
    for stmt in region.statements.values():
        seen = set()
        for acc in stmt.accesses:
            key = (acc.is_write, acc.must, str(acc.relation.set_tuple_name(isl.dim_type.in_, stmt.id)))
            if key not in seen:
                seen.add(key)
                ids.add(acc.id)
    return ids


def schedule(region: Region, only: set[str] | None = None) -> isl.UnionMap | None:
    """The original execution order of the accesses (of those in `only`, if given).

    Dimensions that hold the same constant for every access order nothing; they are
    dropped, because isl's dataflow analysis works level by level through the schedule
    (a perfect nest keeps its loop dimensions and the read/write phase only).
    """
    depth = max((len(s.loops) for s in region.statements.values()), default=0)
    width = 2 * depth + 2
    rows = []
    for stmt in region.statements.values():
        loops = [region.loops[l] for l in stmt.loops]
        for phase, acc in enumerate(sorted(stmt.accesses, key=lambda a: a.is_write)):
            if only is not None and acc.id not in only:
                continue
            dims = []
            for k, loop in enumerate(loops):
                dims += [str(stmt.beta[k]), f"-i{k}" if loop.decreasing else f"i{k}"]
            dims += [str(stmt.beta[len(loops)]), str(phase)]
            dims += ["0"] * (width - len(dims))
            rows.append((acc.id, len(loops), dims))
    if not rows:
        return None
    keep = [c for c in range(width) if len({dims[c] for _, _, dims in rows}) > 1 or not rows[0][2][c].isdigit()]
    pieces = [f"{acc_id}[{', '.join(f'i{k}' for k in range(n))}] -> [{', '.join(dims[c] for c in keep) or '0'}]"
              for acc_id, n, dims in rows]
    return isl.UnionMap("{ " + "; ".join(pieces) + " }")


def union_of(maps) -> isl.UnionMap | None:
    """The union of isl maps (None for none)."""
    out = None
    for m in maps:
        um = isl.UnionMap.from_map(m)
        out = um if out is None else out.union(um)
    return out


def compute_dependences(region: Region) -> dict[str, isl.UnionMap]:
    only = representatives(region)
    accesses: list[Access] = [a for s in region.statements.values() for a in s.accesses if a.id in only]
    space = isl.Space.params_alloc(isl.DEFAULT_CONTEXT, 0)
    empty = isl.UnionMap.empty(space)
    reads = union_of(a.relation for a in accesses if not a.is_write) or empty
    writes = union_of(a.relation for a in accesses if a.is_write) or empty
    must = union_of(a.relation for a in accesses if a.is_write and a.must) or empty
    may = union_of(a.relation for a in accesses if a.is_write and not a.must) or empty
    sched = schedule(region, only)
    if sched is None:
        return {"flow": empty, "anti": empty, "output": empty, "no_source": empty}

    def flow(sink, must_src, may_src):
        info = isl.UnionAccessInfo.from_sink(sink)
        info = info.set_must_source(must_src).set_may_source(may_src).set_schedule_map(sched)
        return info.compute_flow()

    value_flow = flow(reads, must, may)
    return {
        "flow": value_flow.get_may_dependence(),
        "no_source": value_flow.get_may_no_source(),
        "anti": flow(writes, empty, reads).get_may_dependence(),
        "output": flow(writes, empty, writes).get_may_dependence(),
    }
