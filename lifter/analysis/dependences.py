"""Exact dependences of a region with isl's dataflow analysis.

Every access is its own isl tuple (`S3_a1[i, j]`), so each dependence names
the two accesses it links. The schedule is the original execution order: the
classic 2d+1 form (textual position, loop variable, position, ...) followed by
the access's place in its statement (reads before the write).

- flow: value-based (`compute_flow` with must-writes killing older values);
- anti and output: memory-based (all earlier reads or writes of the element),
  because the transformations do not rename storage.
"""
from __future__ import annotations

import islpy as isl

from lifter.analysis.model import Region


def schedule(region: Region) -> isl.UnionMap:
    depth = max((len(s.loops) for s in region.statements.values()), default=0)
    width = 2 * depth + 2
    sched = None
    for stmt in region.statements.values():
        loops = [region.loops[l] for l in stmt.loops]
        for phase, acc in enumerate(sorted(stmt.accesses, key=lambda a: a.is_write)):
            iters = [f"i{k}" for k in range(len(loops))]
            dims = []
            for k, loop in enumerate(loops):
                dims += [str(stmt.beta[k]), f"-i{k}" if loop.decreasing else f"i{k}"]
            dims += [str(stmt.beta[len(loops)]), str(phase)]
            dims += ["0"] * (width - len(dims))
            m = isl.UnionMap(f"{{ {acc.id}[{', '.join(iters)}] -> [{', '.join(dims)}] }}")
            sched = m if sched is None else sched.union(m)
    return sched


def _union(maps) -> isl.UnionMap | None:
    out = None
    for m in maps:
        um = isl.UnionMap.from_map(m)
        out = um if out is None else out.union(um)
    return out


def compute_dependences(region: Region) -> dict[str, isl.UnionMap]:
    accesses = [a for s in region.statements.values() for a in s.accesses]
    space = isl.Space.params_alloc(isl.DEFAULT_CONTEXT, 0)
    empty = isl.UnionMap.empty(space)
    reads = _union(a.relation for a in accesses if not a.is_write) or empty
    writes = _union(a.relation for a in accesses if a.is_write) or empty
    must = _union(a.relation for a in accesses if a.is_write and a.must) or empty
    may = _union(a.relation for a in accesses if a.is_write and not a.must) or empty
    sched = schedule(region)
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
