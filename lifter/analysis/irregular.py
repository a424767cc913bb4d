"""Statements whose amount of work depends on the data: the cue for a dynamic schedule.

A parallel loop's iterations are spread over the threads in equal static chunks
(parallelize.py), which balances only when every iteration costs about the same. An
iteration that runs a `while` (a search, a rejection loop) or a `for` whose bound is an
array element (`j < num_nucs[mat]`, with `mat` drawn from the data) may cost ten times
another, and the thread that draws the long ones finishes last while the other waits.
Such loops get OpenMP's `dynamic` schedule, whose cost (a shared counter taken once per
chunk) is small next to iterations that run loops of their own.

A `for` bounded by a field (`k < s->n`) is not a cue: the field is the same for every
iteration. Neither is a row loop of the parallel loop itself (`k = rows[i]; k < rows[i + 1]`,
analysis/row_ranges.py): its work is a slice of one array walked in order, and static
chunks keep each thread's slice contiguous (the CSR product depends on that); the caller
leaves those out.
"""
from __future__ import annotations

from pycparser import c_ast

from lifter.analysis.walk import called_names, functions_where
from lifter.frontend.walk import walk


def irregular_functions(ast: c_ast.FileAST) -> set[str]:
    """Names of the file's functions that run such a loop, themselves or through a call of
    another such function."""
    return functions_where(ast, _data_dependent_loop)


def irregular_work(node: c_ast.Node, functions: set[str]) -> bool:
    """`node` (a statement) runs a loop whose trip count depends on data, itself or through a
    call of one of `functions` (`irregular_functions`)."""
    return _data_dependent_loop(node) or bool(called_names(node) & functions)


def _data_dependent_loop(node: c_ast.Node) -> bool:
    for n in walk(node):
        if isinstance(n, (c_ast.While, c_ast.DoWhile)):
            return True
        if isinstance(n, c_ast.For) and any(isinstance(x, c_ast.ArrayRef) for x in walk(n.cond)):
            return True
    return False

