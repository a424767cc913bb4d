"""Visiting every node of a pycparser AST without recursion: a nest thousands of levels deep
must not overflow Python's stack, nor pass each node up through a generator per level. The
frontend's passes over the AST (pointer_steps.py) and the analysis (analysis/walk.py) share it."""
from __future__ import annotations

from pycparser import c_ast


def walk(node: c_ast.Node | None, backwards: bool = False):
    """Every node under `node` (included), parents before children, in source order (`backwards`:
    each node's children last to first, so that of two declarations the earlier comes last). A
    node's children are what iterating it gives (pycparser's `__iter__`: the nodes of `children()`
    in its order, without building its (name, node) pairs), a third faster over a file with its
    headers."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n is None:
            continue
        yield n
        children = list(n)
        if not backwards:
            children.reverse()
        stack += children
