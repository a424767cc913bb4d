"""Visiting every node of a pycparser AST without recursion (deep nests must not overflow)."""
from __future__ import annotations

from pycparser import c_ast


def walk(node: c_ast.Node | None):
    """Every node under `node` (included), parents before children, in source order."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n is None:
            continue
        yield n
        stack.extend(child for _, child in reversed(n.children()))
