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

from lifter.analysis.budget import isl_budget
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
    """Flow, anti and output dependences (and the reads with no source in the region).

    Accesses to different containers never depend on each other, so each container is its own
    dataflow problem: isl's work per problem grows faster than linearly in its sources and
    sinks, and a block-tridiagonal solver's nest (a few hundred accesses to ten arrays) took
    over ten times longer as one problem."""
    only = representatives(region)
    isl_budget.grant(len(only))
    by_container: dict[str, list[Access]] = {}
    for s in region.statements.values():
        for a in s.accesses:
            if a.id in only:
                by_container.setdefault(a.container, []).append(a)
    space = isl.Space.params_alloc(isl.DEFAULT_CONTEXT, 0)
    out = {kind: isl.UnionMap.empty(space) for kind in ("flow", "no_source", "anti", "output")}
    for accesses in by_container.values():
        for part in _disjoint_parts(accesses):
            for kind, deps in _dependences(region, part, space).items():
                out[kind] = out[kind].union(deps)
    return out


def _disjoint_parts(accesses: list[Access]) -> list[list[Access]]:
    """The accesses of one container in groups that provably touch no common element: those
    whose bounding boxes (constant bounds of each subscript over every iteration and parameter
    value) are disjoint. An unrolled 5x5 block solver writes `lhs[i][1][m][n]` for 75 constant
    (block, m, n): 75 small problems instead of one with 480 accesses. A write of one group can
    neither supply nor kill a value read in another, so value-based flow is the same."""
    boxes = [_box(a.relation.range()) for a in accesses]
    parent = list(range(len(accesses)))

    def find(k):
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for a in range(len(accesses)):
        for b in range(a):
            if find(a) != find(b) and _overlap(boxes[a], boxes[b]):
                parent[find(a)] = find(b)
    groups: dict[int, list[Access]] = {}
    for k, acc in enumerate(accesses):
        groups.setdefault(find(k), []).append(acc)
    return list(groups.values())


def _box(elements: isl.Set) -> list[tuple]:
    """(lowest, highest) of each dimension of `elements` over all parameter values (None where
    unbounded)."""
    box = []
    for d in range(elements.dim(isl.dim_type.set)):
        box.append((_integer(elements.dim_min_val(d)), _integer(elements.dim_max_val(d))))
    return box


def _integer(value: isl.Val) -> int | None:
    """An integer bound, or None (infinite, or no answer once the isl budget is spent)."""
    text = value.to_str() if value.is_int() else None
    return int(text) if text else None


def _overlap(a: list[tuple], b: list[tuple]) -> bool:
    return all((lo1 is None or hi2 is None or lo1 <= hi2) and (lo2 is None or hi1 is None or lo2 <= hi1)
               for (lo1, hi1), (lo2, hi2) in zip(a, b))


def _dependences(region: Region, accesses: list[Access], space) -> dict[str, isl.UnionMap]:
    empty = isl.UnionMap.empty(space)
    reads = union_of(a.relation for a in accesses if not a.is_write) or empty
    writes = union_of(a.relation for a in accesses if a.is_write)
    if writes is None:
        return {"no_source": reads}  # read-only: no dependence, and no value from the region
    must = union_of(a.relation for a in accesses if a.is_write and a.must) or empty
    may = union_of(a.relation for a in accesses if a.is_write and not a.must) or empty
    sched = schedule(region, {a.id for a in accesses})

    def flow(sink, must_src, may_src):
        info = isl.UnionAccessInfo.from_sink(sink)
        info = info.set_must_source(must_src).set_may_source(may_src).set_schedule_map(sched)
        return info.compute_flow()

    value_flow = flow(reads, must, may)
    # Anti and output dependences in one problem: every earlier access of a written element,
    # split by whether it read (anti) or wrote (output).
    memory = flow(writes, empty, reads.union(writes)).get_may_dependence()
    return {
        "flow": value_flow.get_may_dependence(),
        "no_source": value_flow.get_may_no_source(),
        "anti": memory.intersect_domain(reads.domain()),
        "output": memory.intersect_domain(writes.domain()),
    }
