"""Transformations: rewrite the dataflow graphs; backends read only their result."""
from __future__ import annotations

from lifter.transform.parallelize import plan_openmp


def transform(graphs, options):
    """Apply the passes the options ask for, in order, to every graph."""
    if options.opt_level >= 1:
        for g in graphs:
            plan_openmp(g, options.min_parallel_work)
    return graphs
