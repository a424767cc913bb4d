"""Transformations: rewrite the dataflow graphs; backends read only their result.

-O1 parallelizes; -O2 (the default) first reshapes loop nests for locality
(distribution and interchange), then parallelizes the reshaped nests.
"""
from __future__ import annotations

from lifter.frontend.source import SourceFile
from lifter.frontend.spans import Spans
from lifter.transform.locality import improve_locality
from lifter.transform.parallelize import plan_openmp


def transform(graphs, options, source: SourceFile):
    """Apply the passes the options ask for, in order, to every graph."""
    if options.opt_level >= 2 and graphs:
        spans = Spans(source.text)
        for g in graphs:
            improve_locality(g, g.graph["region"], source, spans)
    if options.opt_level >= 1:
        for g in graphs:
            plan_openmp(g, options.min_parallel_work)
    return graphs
