"""Scratch rows that outlive the loop: may each thread fill its own copy of a buffer the caller keeps?

A row buffer reached through a pointer the function got from elsewhere (`double *row =
scratch_row(h);`, memory a struct of the caller holds; a parameter, doitgen's `double sum[np]`;
a global pointer) is filled and read again by every iteration of an outer loop. The loop carries anti and output dependences on it only because
every iteration reuses the same memory. Unlike a fresh allocation (`verdicts._scratch_candidate`),
the buffer outlives the loop: whoever reads it afterwards sees what the last iteration wrote.

The loop may still run in parallel, each thread on a buffer of its own, when:

1. every read of the buffer in an iteration reads a value written earlier in the same
   iteration (isl: no read lacks a source, and no flow into a read comes from another
   iteration or from outside the loop). Where that holds only for some values of the
   parameters (a restriction writes `row[0 .. nf-1]` and reads up to `row[2*nc - 3]`: the
   sizes of two levels, read from an array, are related only by the data), the set of
   parameter values where it holds becomes a run-time condition, tested in C before the loop;
2. every iteration writes the same elements, unconditionally (isl: each iteration's must-writes
   are the union over all iterations). The iteration that runs last in the sequential loop then
   works on the shared buffer itself (`transform/scratch.py`), so afterwards it holds exactly
   what the sequential loop leaves there;
3. no element it touches lies below index 0 (a copy is allocated from index 0 on) and the
   pointer itself is not changed in the loop. That the shared buffer overlaps nothing else the
   loop touches is tested at run time with the other pointers (`transform/parallelize.py`):
   then the last iteration, on the shared buffer, races with no other. (Or it is proved: a
   static function's parameters that every call site binds to distinct objects, `points_to.py`.)
   A global pointer also needs a loop that calls no function but pure ones: a callee would
   reach the buffer through the global, not through the thread's copy of the pointer.

An array (a local one the function reads after the loop, or a global one) has no pointer to
point elsewhere: OpenMP's `lastprivate` copies the whole copy of the thread that ran the last
iteration back after the loop (`last_copy_condition`), which is exact where every iteration
writes all of the array, besides 1 to 3.

The verdict is for the loop as written. The inside of the loop may be reshaped afterwards (the
locality pass interchanges doitgen's p and s loops): where the loop keeps its place and its
statements, the verdict still holds (`transform/rewrite.placed_as_written`).
"""
from __future__ import annotations

import re

import islpy as isl
from pycparser import c_ast

from lifter.analysis.affine import isl_name
from lifter.analysis.model import Kind, Region
from lifter.analysis.pure_functions import PURE_FUNCTIONS
from lifter.analysis.scop import written_names
from lifter.frontend.walk import walk
from lifter.analysis.ranges import params_c


def shared_scratch_condition(region: Region, nest, container: str, uncovered: isl.Set) -> str | None:
    """None if the container cannot be a per-thread copy of a shared buffer in the loop `nest`
    (a `verdicts.Nest` as written), else the C condition on parameters under which it can ('' always).

    `uncovered`: the parameter values for which some read of it in the loop does not read a
    value written earlier in the same iteration (`verdicts.uncovered_params`)."""
    if not candidate(region.containers[container]):
        return None
    # With one iteration or none, the loop as written runs (on the shared buffer): any condition will do there.
    several = _iterations(region, nest, 2).params().intersect(region.context)
    return _condition(region, nest, container, uncovered, several)


def last_copy_condition(region: Region, nest, container: str, uncovered: isl.Set, extent: str) -> str | None:
    """None if OpenMP's `lastprivate` cannot keep the array `container` (one dimension of `extent`
    elements, C text over the parameters) as the loop `nest` (as written) leaves it, else the C
    condition on parameters under which it can ('' always).

    An array the function reads after the loop, or a global one, cannot point elsewhere as a shared
    row's pointer does: each thread gets a copy (`lastprivate`), and after the loop OpenMP copies the
    whole copy of the thread that ran the sequentially last iteration back. That is what the loop
    leaves only where that iteration writes every element of the array (a copy starts undefined,
    also where the loop runs once), besides what a shared row needs; and the copy lives on the
    thread's stack, so the array is at most `MAX_COPY_ELEMENTS` long."""
    info = region.containers[container]
    if info.kind != Kind.ARRAY or info.ndim != 1 or info.indirect or info.field or info.element in ("", "?") \
            or not _LINEAR.fullmatch(extent):
        return None
    params = ", ".join(region.context.get_space().get_var_names(isl.dim_type.param))
    size = re.sub(r"[A-Za-z_]\w*", lambda w: isl_name(w.group()), extent)
    try:
        whole = isl.Set(f"[{params}] -> {{ [e] : 0 <= e < {size} and {size} <= {MAX_COPY_ELEMENTS} }}")
    except isl.Error:
        return None  # an extent over names that are not the region's parameters
    # lastprivate needs an iteration (`parallelize.py` tests the trip count): any condition will do without one.
    once = _iterations(region, nest, 1).params().intersect(region.context)
    return _condition(region, nest, container, uncovered, once, whole)


# The longest array a thread copies onto its stack for `lastprivate` (512 KiB of doubles; 2 MiB stacks are usual).
MAX_COPY_ELEMENTS = 65_536
_LINEAR = re.compile(r"[\w\s()+*-]+")  # sums of products of names and numbers: what isl reads as C does


def _condition(region: Region, nest, container: str, uncovered: isl.Set, runs: isl.Set,
               whole: isl.Set | None = None) -> str | None:
    """The parameter values, among `runs`, where the container's every read in an iteration reads
    a write of the same iteration and every iteration writes the same elements (all of `whole`,
    where given), from index 0 on, as C text ('' always), or None where there are none."""
    info = region.containers[container]
    loop = region.loops[nest.loop]
    if info.declared_in is not None and (info.declared_in == nest.loop
                                         or info.declared_in in region.loops_inside(nest.loop)):
        return None
    if info.name in written_names(loop.node):
        return None  # the loop assigns, increments, takes the address of or redeclares the pointer
    if info.storage == "global" and _calls(loop.node):
        return None  # a function it calls could reach the buffer through the global, not the thread's copy
    accesses = [a for s in nest.inside for a in region.statements[s].accesses if a.container == container]
    writes = [a for a in accesses if a.is_write]
    if not writes or any(not a.must for a in writes) or all(a.is_write for a in accesses):
        return None
    depths = [region.loops[o].depth for o in nest.outer] + [loop.depth]
    elements = _touched(accesses, depths).range()
    below_zero = elements.upper_bound_val(isl.dim_type.set, 0, isl.Val.int_from_si(elements.get_ctx(), -1))
    good = region.context.subtract(uncovered.union(below_zero.params())).intersect(runs)
    if whole is not None:
        good = good.intersect(whole.params()).subtract(_missed(region, nest, writes, depths, whole))
    good = good.coalesce()
    # Only where the loop writes none of it, a per-thread copy is no use (`-np >= 0`: a test for an empty row).
    if good.intersect(_touched(writes, depths).params()).is_empty() \
            or not _same_writes_each_iteration(region, nest, writes, depths, good):
        return None
    condition = good.gist(runs).coalesce()
    if condition.plain_is_universe():
        return ""
    return params_c(condition)


def candidate(info) -> bool:
    """A pointer to a row of known elements, not a fresh allocation (those are the verdicts' own
    scratch arrays), named directly: what a shared scratch row can be. A local one, a parameter
    (`double sum[np]`: the caller's buffer) or a global one: each thread's copy of the pointer
    (`firstprivate`) is what the loop's own text names."""
    return info.kind == Kind.POINTER and not info.allocated and not info.indirect \
        and not info.field and info.element not in ("", "?") and info.ndim == 1


def _calls(node) -> bool:
    """Whether the code under `node` calls a function other than a pure one (`pure_functions.py`):
    such a function may name a global pointer itself, where the thread's copy does not reach."""
    return any(isinstance(n, c_ast.FuncCall) and not (isinstance(n.name, c_ast.ID) and n.name.name in PURE_FUNCTIONS)
               for n in walk(node))


def _touched(accesses, depths: list[int]) -> isl.Map:
    """{ [enclosing iterations..., loop iteration] -> element } over the accesses."""
    out = None
    for a in accesses:
        n = a.relation.dim(isl.dim_type.in_)
        proj = isl.Map(f"{{ {a.id}[{', '.join(f'i{j}' for j in range(n))}] -> "
                       f"[{', '.join(f'i{d}' for d in depths)}] }}")
        m = a.relation.apply_domain(proj)
        out = m if out is None else out.union(m)
    return out.coalesce()


def _iterations(region: Region, nest, copies: int) -> isl.Set:
    """{ [enclosing iterations..., i_1, ..., i_copies] : i_1 < ... < i_copies } over the bounds of
    the enclosing loops and of the loop (a superset where `if`s or steps skip some)."""
    loops = [region.loops[o] for o in nest.outer]
    loop = region.loops[nest.loop]
    names = [isl_name(l.var) for l in loops]
    own = [f"{isl_name(loop.var)}_{c}" for c in range(copies)]
    bounds = [f"{l.lower} <= {n} <= {l.upper}" for l, n in zip(loops, names)]
    bounds += [f"{loop.lower} <= {n} <= {loop.upper}" for n in own]
    bounds += [f"{a} < {b}" for a, b in zip(own, own[1:])]
    params = ", ".join(region.context.get_space().get_var_names(isl.dim_type.param))
    return isl.Set(f"[{params}] -> {{ [{', '.join(names + own)}] : {' and '.join(bounds)} }}")


def _missed(region: Region, nest, writes, depths: list[int], whole: isl.Set) -> isl.Set:
    """The parameter values for which some iteration of the loop leaves an element of `whole` unwritten."""
    written = _touched(writes, depths)
    whole = whole.set_tuple_id(written.get_tuple_id(isl.dim_type.out)) if written.has_tuple_id(isl.dim_type.out) \
        else whole
    every = isl.Map.from_domain_and_range(_iterations(region, nest, 1), whole)
    return every.subtract(written).params()


def _same_writes_each_iteration(region: Region, nest, writes, depths: list[int], good: isl.Set) -> bool:
    """Where `good` holds, each iteration of the loop (all of its bounds, an iteration that writes
    nothing included) writes every element that any iteration (for the same enclosing iterations)
    writes: so the sequentially last one leaves the buffer as the whole loop does."""
    written = _touched(writes, depths).intersect_params(good)
    k = len(depths) - 1
    union = written.project_out(isl.dim_type.in_, k, 1)  # { [outer] -> element }
    drop = isl.Map.from_domain(_iterations(region, nest, 1).intersect_params(good))
    drop = drop.add_dims(isl.dim_type.out, k)
    for d in range(k):
        drop = drop.equate(isl.dim_type.in_, d, isl.dim_type.out, d)
    every = drop.apply_range(union)  # { [outer, i] -> each element some iteration writes }
    return every.is_subset(written)


__all__ = ["MAX_COPY_ELEMENTS", "candidate", "last_copy_condition", "shared_scratch_condition"]
