"""The transformations as passes (`manager.Pass`), in the order `PIPELINE` runs them.

Each pass is a thin adapter: it says when the options ask for it and calls the module that does
the work with what it needs from the context. The order is the design (see `transform/__init__`):
reshaping for locality first (OpenMP at -O2), then parallelization (-O1 and up), then what
runs on the parallelized nests. A pass that only attaches plans, flags or text (`reshapes`
false) leaves the control layer as it is; the manager rebuilds it after the others when they
change the graph.
"""
from __future__ import annotations

from lifter.analysis.host_code import host_code
from lifter.transform.accumulators import accumulate_reductions
from lifter.transform.bucket_scatter import plan_scatters
from lifter.transform.contraction import contract_temporaries
from lifter.transform.expansion import expand_scalars
from lifter.transform.fusion import fuse_maps, fuse_regions
from lifter.transform.legality import reorder_guard
from lifter.transform.locality import improve_locality
from lifter.transform.manager import FilePass, Pass
from lifter.transform.outer_jam import jam_outer_loops
from lifter.transform.parallelize import plan_openmp
from lifter.transform.regions import plan_parallel_regions
from lifter.transform.rotation import rotate_solves
from lifter.transform.source_text import attach_source_text
from lifter.transform.strips import hoist_strips, sink_sweeps
from lifter.transform.tiling import tile_bands
from lifter.transform.unroll import unroll_and_jam
from lifter.transform.vectorize import plan_simd
from lifter.transform.wavefront import wavefront_nests


def _reshaping(options) -> bool:
    """-O2 for OpenMP: the nests may be reshaped. Interchange for CPU caches puts unit stride in
    the innermost loop; on a GPU that loop runs inside one thread, where neighbouring threads
    should touch neighbours instead, so the CUDA target keeps the nests as written."""
    return options.opt_level >= 2 and options.target == "openmp"


class _Reshaping(Pass):
    """A pass of -O2's reshaping (`_reshaping`), off also where its `switch` (the LiftOptions field
    of `--no-fuse`, `--no-tile`, `--no-unroll`) is."""

    switch = ""

    def enabled(self, options) -> bool:
        return _reshaping(options) and (not self.switch or getattr(options, self.switch))


class _Rewrite(_Reshaping):
    """A reshaping pass that is one rewrite of a nest on its polyhedral model: `rewrite(g, scop)`,
    with the tile sizes after them where `sized`, returning whether it changed the graph. A
    subclass names its pass, switch and rewrite in its class statement, one line instead of a
    block of the same assignments each (`class Tile(_Rewrite, name="tile", ...)`)."""

    reshapes = True
    sized = False
    rewrite = None

    def __init_subclass__(cls, *, name: str, rewrite, switch: str = "", sized: bool = False, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.name, cls.switch, cls.sized, cls.rewrite = name, switch, sized, staticmethod(rewrite)

    def run(self, g, context) -> bool:
        sizes = (tuple(context.options.tile_sizes),) if self.sized else ()
        return self.rewrite(g, g.nest.scop, *sizes)


class SourceText(Pass):
    """Record each loop's and statement's text and span, which re-emitting a reshaped nest needs."""

    name = "source-text"

    def run(self, g, context) -> bool:
        attach_source_text(g, context.source, context.spans)
        return False  # text for the backends; the tree and schedules stay


class FuseRegions(FilePass):
    """Consecutive outermost loops that fuse become one region (one graph)."""

    name = "fuse-regions"
    reshapes = True

    def enabled(self, options) -> bool:
        return _reshaping(options) and options.fuse

    def run_file(self, graphs, context) -> bool:
        fused = fuse_regions(graphs, context.source, context.spans)
        changed = len(fused) != len(graphs)
        graphs[:] = fused
        return changed


class ReorderGuard(_Reshaping):
    """The alias condition under which a nest may be reordered, on the graph as built."""

    name = "reorder-guard"

    def run(self, g, context) -> bool:
        reorder_guard(g)
        return False  # an analysis: stored on the graph for the passes after it


class Locality(_Reshaping):
    """Scalar expansion where it unfreezes a nest, else distribution and interchange for unit stride.
    An expanded graph is built from the rewritten model and comes back already interchanged."""

    name = "interchange"
    reshapes = True

    def run(self, g, context) -> bool:
        expanded = expand_scalars(g, context.source, context.spans)
        if expanded is None:
            return improve_locality(g, g.nest.scop)
        context.replace(expanded)
        return True


class Rotate(_Rewrite, name="rotate", rewrite=rotate_solves):
    """Row solves whose inner loop walks a column: the statements after it move ahead of it."""


class Fuse(_Rewrite, name="fuse", rewrite=fuse_maps, switch="fuse"):
    """Fuse producer-consumer sibling maps (`fusion.py`)."""


class Tile(_Rewrite, name="tile", rewrite=tile_bands, switch="tile", sized=True):
    """Tile every profitable, legal band, at the options' sizes where given (`tiling.py`)."""


class Sweeps(_Rewrite, name="sweeps", rewrite=sink_sweeps, switch="tile", sized=True):
    """Strip-mine parallel loops around sweeps, the sweeps inside the strips (`strips.py`); before
    tiling, which would otherwise block the band and keep each row's recurrence in one chain."""


class Strips(_Rewrite, name="strip-mine", rewrite=hoist_strips, switch="tile", sized=True):
    """Strip-mine parallel innermost loops and hoist the strips (tiling's rewrite, `strips.py`)."""


class Contract(_Reshaping):
    """After tiling: a map that declares its scalars never moves."""

    name = "contract"
    switch = "fuse"

    def run(self, g, context) -> bool:
        return contract_temporaries(g, context.source.text)


class Parallelize(Pass):
    """Plan the outermost parallel maps (OmpPlan): the plan says what to privatize and reduce. A
    map parallel only under a test of values (`MapScope.condition`) becomes parallel here, which
    changes the control layer (a sequential map around it becomes a loop over states)."""

    name = "parallelize"
    reshapes = True

    def enabled(self, options) -> bool:
        return options.opt_level >= 1

    def run(self, g, context) -> bool:
        options = context.options
        plan_openmp(g, options.min_parallel_work, value_guards=options.target == "openmp", spans=context.spans,
                    assume_no_alias=options.assume_no_alias, identical_pointers=options.target == "openmp",
                    strict_aliasing=options.strict_aliasing)
        return True  # plans attached


class ParallelRegions(Pass):
    """One `omp parallel` around a sequential loop whose children run in parallel."""

    name = "parallel-regions"

    def enabled(self, options) -> bool:
        return options.opt_level >= 1 and options.target == "openmp"

    def run(self, g, context) -> bool:
        plan_parallel_regions(g)
        return True  # plans attached


class Wavefront(_Reshaping):
    """Nests parallelization left sequential: skewed tiles run as wavefronts."""

    name = "wavefront"
    reshapes = True
    switch = "tile"

    def run(self, g, context) -> bool:
        options = context.options
        return wavefront_nests(g, g.nest.scop, tuple(options.tile_sizes), options.min_parallel_work,
                               context.source.text)


class Vectorize(_Reshaping):
    name = "vectorize"

    def run(self, g, context) -> bool:
        return plan_simd(g)


class Unroll(_Rewrite, name="unroll", rewrite=unroll_and_jam, switch="unroll"):
    """Unroll and jam (register blocking): its copies are nodes the region's model does not know,
    so no pass that reads the model may run after it."""


class Accumulate(_Rewrite, name="accumulate", rewrite=accumulate_reductions, switch="unroll"):
    """Unroll and jam around a reduction loop, its sums in locals (`accumulators.py`); after
    `Unroll`, whose copies it leaves alone, for the same reason it runs last."""


class JamOuter(_Reshaping):
    """A few-iteration loop around one parallel loop jammed into it: one pass over memory
    (`outer_jam.py`). It needs the inner loop's plan, and its copies are nodes the model does
    not know: after the passes that read the model."""

    name = "jam-outer"
    reshapes = True
    switch = "unroll"

    def run(self, g, context) -> bool:
        return jam_outer_loops(g, g.nest.scop)


class Scatters(Pass):
    """Sequential counting-sort scatters (`buf[fill[b]++] = v`) run by all threads (`bucket_scatter.py`):
    a text of its own in the OpenMP backend, on loops the other passes left as written. Last, so
    that it sees whether a pass had the whole nest re-emitted (`restructured`), which would drop it."""

    name = "bucket-scatter"

    def enabled(self, options) -> bool:
        return options.opt_level >= 1 and options.target == "openmp"

    def run(self, g, context) -> bool:
        return plan_scatters(g, context.options.min_parallel_work)


class HostCodeFacts(FilePass):
    """The records of the file's host code (analysis/host_code.py) on every graph, for the CUDA
    backend's data scopes and call regions (what code between and around the nests does), so that
    it reads them instead of the file's tokens. An analysis, not a rewrite; last, after the passes
    that may merge or replace graphs."""

    name = "host-code"

    def enabled(self, options) -> bool:
        return options.target == "cuda"

    def run_file(self, graphs, context) -> bool:
        if graphs:
            code = host_code(context.source)
            for g in graphs:
                g.nest.host_code = code
        return False


PIPELINE: tuple[type[Pass], ...] = (SourceText, FuseRegions, ReorderGuard, Locality, Rotate, Fuse, Sweeps, Tile, Strips,
                                    Contract, Parallelize, ParallelRegions, Wavefront, Vectorize, Unroll, Accumulate,
                                    JamOuter, Scatters, HostCodeFacts)


def passes_for(options) -> list[Pass]:
    """The passes the options ask for, in order."""
    return [p for p in (cls() for cls in PIPELINE) if p.enabled(options)]


__all__ = ["PIPELINE", "passes_for"]
