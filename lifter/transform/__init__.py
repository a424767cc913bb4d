"""Transformations: rewrite the dataflow graphs; backends read only their result.

-O1 parallelizes (for OpenMP, with one parallel region around a sequential loop whose children
run in parallel); -O2 (the default) first reshapes loop nests for locality (scalar expansion
where it unfreezes a nest, distribution and interchange, fusion of producer-consumer siblings
unless `--no-fuse`, then tiling of permutable bands unless `--no-tile`, then contraction of
temporaries that only carry values inside fused maps, also unless `--no-fuse`), then parallelizes the
reshaped nests, runs skewed tiles of nests left without a parallel loop as wavefronts (unless
`--no-tile`) and marks innermost unit-stride loops for vectorization; last, unless
`--no-unroll`, it unrolls and jams the loops around vectorizable innermost loops (register
blocking; its copies are nodes the region's model does not know, so nothing runs after it).

Passes rewrite the scope tree; the graph's control layer (states, loop regions) is a function of
that tree and the maps' schedules, so it is rebuilt after each pass that can change them.
"""
from __future__ import annotations

from lifter.frontend.source import SourceFile
from lifter.frontend.spans import Spans
from lifter.graph.control import build_control
from lifter.transform.contraction import contract_temporaries
from lifter.transform.expansion import expand_scalars
from lifter.transform.fusion import fuse_maps, fuse_regions
from lifter.transform.locality import improve_locality, reorder_guard
from lifter.transform.parallelize import plan_openmp
from lifter.transform.regions import plan_parallel_regions
from lifter.transform.source_text import attach_source_text
from lifter.transform.strips import hoist_strips
from lifter.transform.tiling import tile_bands
from lifter.transform.unroll import unroll_and_jam
from lifter.transform.vectorize import plan_simd
from lifter.transform.wavefront import wavefront_nests


def transform(graphs, options, source: SourceFile):
    """Apply the passes the options ask for, in order, to every graph."""
    spans = Spans(source.text) if graphs else None
    for g in graphs:
        attach_source_text(g, source, spans)
    if options.opt_level >= 2 and options.target == "openmp":
        if options.fuse:  # consecutive outermost loops that fuse become one region
            graphs[:] = fuse_regions(graphs, source, spans)
        # Interchange for CPU caches puts unit stride in the innermost loop; on a GPU that
        # loop runs inside one thread, and neighbouring threads should touch neighbours instead.
        for index, g in enumerate(graphs):
            reorder_guard(g)  # on the graph as built, before any pass reshapes it
            expanded = expand_scalars(g, source, spans)
            if expanded is not None:
                graphs[index] = g = expanded  # already reshaped by the locality pass
            else:
                improve_locality(g, g.graph["region"])
            build_control(g)
            if options.fuse:
                fuse_maps(g, g.graph["region"])
                build_control(g)
            if options.tile:
                tile_bands(g, g.graph["region"], tuple(options.tile_sizes))
                hoist_strips(g, g.graph["region"], tuple(options.tile_sizes))
                build_control(g)
            if options.fuse:  # after tiling: a map that declares its scalars never moves
                contract_temporaries(g, source.text, spans)
    if options.opt_level >= 1:
        for g in graphs:
            plan_openmp(g, options.min_parallel_work, value_guards=options.target == "openmp", spans=spans,
                        assume_no_alias=options.assume_no_alias, identical_pointers=options.target == "openmp")
            if options.target == "openmp":
                plan_parallel_regions(g)
    if options.opt_level >= 2 and options.target == "openmp":
        for g in graphs:
            if options.tile:  # nests parallelization left sequential: skewed tiles run as wavefronts
                wavefront_nests(g, g.graph["region"], tuple(options.tile_sizes), options.min_parallel_work)
                build_control(g)
            plan_simd(g)
            if options.unroll:
                unroll_and_jam(g, g.graph["region"])
                build_control(g)
    return graphs
