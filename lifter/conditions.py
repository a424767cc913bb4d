"""Run-time conditions shown to the user as they would write them: `n * n > 40000`.

The conditions lift tests before a parallel loop are generated C, written for the compiler:
every value widened with `(long)`, products with `(1)`, `L` suffixes, pointer casts for the
alias tests. Remarks show the same condition with those removed and constants folded, so
that it reads in the user's names. The C that is emitted is never changed; this is display
only (a cast dropped here may matter to the compiler, not to the reader). A condition this
cannot parse (a type name it does not know) is shown as it is, with the suffixes dropped.
"""
from __future__ import annotations

import re

from pycparser import c_ast, c_generator, c_parser

_SUFFIX = re.compile(r"\b(\d+)[lLuU]+\b")
_parser: c_parser.CParser | None = None


def readable(condition: str) -> str:
    """`condition` (C) without casts, `* 1`, `+ 0`, constant arithmetic and redundant parentheses."""
    if not condition:
        return condition
    global _parser
    _parser = _parser or c_parser.CParser()
    try:
        ast = _parser.parse(f"void f(void) {{ ({condition}); }}")
        expr = ast.ext[0].body.block_items[0]
    except Exception:  # noqa: BLE001  pycparser's errors and assertions: show the text as it is
        return _SUFFIX.sub(r"\1", condition)
    return _Generator(reduce_parentheses=True).visit(_simplify(expr))


class _Generator(c_generator.CGenerator):
    """pycparser's generator with no parentheses around a unary operand of a binary operator:
    3.12 prints `&a[i] + 1`, 3.11 `(&a[i]) + 1`; the text must not depend on the version."""

    _operands: tuple = ()

    def _parenthesize_if(self, n, condition):
        if isinstance(n, c_ast.UnaryOp) and any(n is o for o in self._operands):
            return self._visit_expr(n)
        return super()._parenthesize_if(n, condition)

    def visit_BinaryOp(self, n):
        outer, self._operands = self._operands, (n.left, n.right)
        try:
            return super().visit_BinaryOp(n)
        finally:
            self._operands = outer


def _constant(node) -> int | None:
    if isinstance(node, c_ast.Constant) and node.type in ("int", "long int", "unsigned int", "long", "unsigned long"):
        try:
            return int(_SUFFIX.sub(r"\1", node.value).rstrip("lLuU"), 0)
        except ValueError:
            return None
    if isinstance(node, c_ast.UnaryOp) and node.op == "-":
        value = _constant(node.expr)
        return None if value is None else -value
    return None


def _number(value: int) -> c_ast.Node:
    if value < 0:
        return c_ast.UnaryOp("-", c_ast.Constant("int", str(-value)))
    return c_ast.Constant("int", str(value))


_FOLD = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b}


def _simplify(node: c_ast.Node) -> c_ast.Node:
    if isinstance(node, c_ast.Cast):
        return _simplify(node.expr)
    if isinstance(node, c_ast.Constant):
        value = _constant(node)
        return _number(value) if value is not None else node
    for name, child in node.children():
        simple = _simplify(child)
        if "[" not in name:
            setattr(node, name, simple)
    if isinstance(node, c_ast.BinaryOp):
        left, right = _constant(node.left), _constant(node.right)
        if left is not None and right is not None and node.op in _FOLD:
            return _number(_FOLD[node.op](left, right))
        if node.op == "*" and 1 in (left, right):
            return node.right if left == 1 else node.left
        if node.op in ("+", "-") and right == 0:
            return node.left
        if node.op == "+" and left == 0:
            return node.right
    return node
