"""Transformations: rewrite the dataflow graphs; backends read only their result.

-O1 parallelizes (for OpenMP, with one parallel region around a sequential loop whose children
run in parallel); -O2 (the default) first reshapes loop nests for locality (scalar expansion
where it unfreezes a nest, distribution and interchange, fusion of producer-consumer siblings
unless `--no-fuse`, then tiling of permutable bands unless `--no-tile`, then contraction of
temporaries that only carry values inside fused maps, also unless `--no-fuse`), then parallelizes the
reshaped nests, runs skewed tiles of nests left without a parallel loop as wavefronts (unless
`--no-tile`) and marks innermost unit-stride loops for vectorization; last, unless
`--no-unroll`, it unrolls and jams the loops around vectorizable innermost loops (register
blocking; its copies are nodes the region's model does not know, so nothing that reshapes runs
after it). Finally, for OpenMP at -O1 and up, a counting sort's scatter left sequential
(`buf[fill[b]++] = v`) is marked to run as a parallel bucket scatter (it reads the model only for
its own loop's two statements, which no pass copies).

Each transformation is a pass (`passes.py`); the pass manager (`manager.py`) runs the ones the
options ask for, undoes a pass that fails, and rebuilds the graph's control layer (states, loop
regions: a function of the scope tree and the maps' schedules) after each pass that changed them.
"""
from __future__ import annotations

from lifter.frontend.source import SourceFile
from lifter.transform.manager import DroppedPass, PassContext, PassManager
from lifter.transform.passes import passes_for


def transform(graphs, options, source: SourceFile) -> tuple[list, list[DroppedPass]]:
    """Apply the passes the options ask for, in order, to every graph: the graphs, and the passes
    that failed and were rolled back (for `lift -v`)."""
    context = PassContext(options, source, source.spans if graphs else None)
    manager = PassManager(passes_for(options))
    return manager.run(graphs, context), manager.dropped
