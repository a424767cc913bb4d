"""When kernels launched inside a sequential host loop pay for their launches.

A nest whose parallel loops sit inside a sequential loop (`for i { s = b[i]; for j < i: s -= ...;
x[i] = s / ...; }`) runs that loop on the host and launches its kernels once per iteration. Each
launch costs the same whatever it does: on an NVIDIA H200, linalg-trisolv (N = 4000, 100
solves) launched 799,901 kernels in 5,571 ms of kernel time, about 7 us each (with the copies
of the reduced `s` each way, about 34 us per iteration of `i`: 13.5 s in all, against 1.3 s for
the whole program on one core, 1.6 ns per unit of work below). A launch pays only when its work
is well above what the host does in those 7 us (about 4,400 units of work, iterations x
statements, at trisolv's 1.6 ns a unit): LAUNCH_MIN_WORK is about 5 times that.

The work of one launch is the planner's estimate (`parallelize.launch_work`, the measure of its
MIN_PARALLEL_WORK), bounded over the host loops' ranges: a triangular inner loop counts as its
longest run. A one-thread kernel (host code between kernels run on the GPU) is a launch that
does no parallel work. The nest is offloaded when the launches in the host loops do at least
LAUNCH_MIN_WORK each on average: decided here where the works are constants, else by a test
before the nest (the data scope's run-time condition, which runs the nest as written when it is
false), and never judged where a launch's work is unknown.
"""
from __future__ import annotations

from typing import Callable


from lifter.backend.cuda_kernels import NotOffloaded
from lifter.frontend.spans import CExpr
from lifter.transform.parallelize import launch_work
from lifter.transform.rewrite import ancestors
from lifter.graph.attributes import DataflowGraph

# Units of work (iterations x statements) one kernel launch inside a host loop must do on average.
LAUNCH_MIN_WORK = 20_000


def launch_condition(g: DataflowGraph, launches: dict[str, bool], usable: Callable[[CExpr], bool]) -> CExpr:
    """'' where the nest's launches pay for themselves (or none runs inside a host loop, or the work
    is not known), else the C test that they do, of names `usable` before the nest; raises
    NotOffloaded where they never do. `launches`: node id -> whether it is a parallel kernel (else
    a one-thread one)."""
    looped = {nid: kernel for nid, kernel in launches.items() if ancestors(g, nid)}
    if not looped:
        return CExpr()
    total, terms = 0, []
    for nid, kernel in looped.items():
        if not kernel:
            continue
        outer = {g.nodes[a]["node"].var for a in ancestors(g, nid)}
        work = launch_work(g, g.nodes[nid]["node"], outer, LAUNCH_MIN_WORK)
        if isinstance(work, int):
            total += work
        elif work is None or not usable(work):
            return CExpr()  # (an unknown work is not judged: the nest is offloaded as before)
        else:
            terms.append(work)
    need = LAUNCH_MIN_WORK * len(looped)
    if not terms:
        if total >= need:
            return CExpr()
        loops = sorted({g.nodes[a]["node"].var for nid in looped for a in ancestors(g, nid)})
        count = f"{len(looped)} kernel launches" if len(looped) > 1 else "kernel launch"
        raise NotOffloaded(f"not profitable: its {count} in each iteration of the host loop over "
                           f"{' and '.join(repr(v) for v in loops)} do about {total} units of work in all, "
                           f"less than {LAUNCH_MIN_WORK} a launch (a launch costs about 7 us)", "not-profitable")
    work = " + ".join([f"({t})" for t in terms] + ([f"{total}L"] if total else []))
    return CExpr.of(f"{work} >= {need}L", *terms)
