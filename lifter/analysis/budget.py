"""A bound on the polyhedral work spent on one question, so that adversarial nests end.

Exact dependence analysis is polynomial in the number of loops, statements and
accesses but of high degree: a nest 40 loops deep took minutes. isl counts its
own elementary operations; `isl_budget` lets one analysis step use at most
`ISL_OPERATIONS` of them. A step that runs out raises `BudgetExceeded`, and its
caller falls back to the conservative answer (the loops concerned stay
sequential, with the remark `BUDGET_REASON`).

Budgets do not nest: a step run inside another one's budget shares it, so the
outermost step bounds the total. The limit applies only while a budget is open;
elsewhere isl runs unbounded.
"""
from __future__ import annotations

import islpy as isl
from pycparser import c_ast

# 18 times what the largest region of the corpus needs (particles.c, 220,000), 13 times what
# a time-stepped pair of 27-point 3-D stencils needs.
ISL_OPERATIONS = 4_000_000
# isl's operations cost more as the nest gets deeper (each works on constraints over all of
# its loops), so the count alone does not bound the time; and building a region's model does
# work in Python, before isl's limit applies, that grows with the square of the depth.
# Deeper nests are not modelled: a 20-deep nest takes about 3 s (idle machine), 30 about 10 s.
MAX_NEST_DEPTH = 20
BUDGET_REASON = "analysis budget exceeded"
# Dependence analysis splits into one problem per group of accesses that may touch common
# elements (dependences.py), so its work grows about linearly with the accesses: each one
# adds this much to the open budget, up to `MAX_ISL_OPERATIONS` in all. A block-tridiagonal
# line solve written out (200 statements, 1,100 accesses) needs about 8 million; a nest too
# deep for exact analysis has few accesses, and stays bounded by the base budget.
ISL_OPERATIONS_PER_ACCESS = 6_000
MAX_ISL_OPERATIONS = 16_000_000


class BudgetExceeded(Exception):
    """isl ran out of operations for this step (or the step was too big to start)."""

    def __init__(self, why: str = "the nest is too large for exact dependence analysis"):
        self.reason = f"{BUDGET_REASON} ({why})"
        super().__init__(self.reason)


def nest_deeper_than(node: c_ast.Node, limit: int) -> bool:
    """Whether more than `limit` `for` loops nest inside each other at `node` (itself included)."""
    stack = [(node, int(isinstance(node, c_ast.For)))]
    while stack:
        n, depth = stack.pop()
        if depth > limit:
            return True
        stack.extend((c, depth + isinstance(c, c_ast.For)) for _, c in n.children())
    return False


class isl_budget:
    """`with isl_budget(): ...` runs the block with isl's operation limit set (or, inside
    another budget, under that one), turning isl's quota error into BudgetExceeded."""

    _open = False

    def __init__(self, operations: int = ISL_OPERATIONS):
        self.operations = operations
        self.outermost = False

    def __enter__(self) -> isl_budget:
        if not isl_budget._open:
            isl_budget._open = self.outermost = True
            isl.DEFAULT_CONTEXT.set_max_operations(self.operations)
            isl.DEFAULT_CONTEXT.reset_operations()
        return self

    @staticmethod
    def grant(accesses: int) -> None:
        """Let the open budget (if any) grow with a step's number of accesses, up to the cap."""
        if isl_budget._open:
            limit = isl.DEFAULT_CONTEXT.get_max_operations()
            isl.DEFAULT_CONTEXT.set_max_operations(min(limit + ISL_OPERATIONS_PER_ACCESS * accesses,
                                                       max(limit, MAX_ISL_OPERATIONS)))

    def __exit__(self, kind, exc, tb) -> bool:
        # isl reports running out where it happens to notice (a parser says "syntax error"),
        # and, like Polly, we trust no result computed once the quota is gone.
        exhausted = (exc is None or isinstance(exc, isl.Error)) and _exhausted()
        if self.outermost:
            isl_budget._open = False
            isl.DEFAULT_CONTEXT.set_max_operations(0)
            isl.DEFAULT_CONTEXT.reset_operations()
        if exhausted:
            raise BudgetExceeded() from None
        return False


def _exhausted() -> bool:
    """Whether the open budget is spent: then every isl operation fails, even this tiny one."""
    try:
        isl.Set("{ : }")
    except isl.Error:
        return True
    return False
