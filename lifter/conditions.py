"""Run-time conditions shown to the user as they would write them: `n * n > 40000`.

The conditions lift tests before a parallel loop are generated C, written for the compiler:
every value widened with `(long)`, products with `(1)`, `L` suffixes, pointer casts for the
alias tests. Remarks show the same condition with those removed, constants folded and like
terms of a sum combined (`m - 1 + 1` is `m`), so that it reads in the user's names. A test of
constants is folded to 1 or 0: a condition that folds to 0 never lets the parallel version
run. The C that is emitted is never changed; this is display only (a cast dropped here may
matter to the compiler, not to the reader). A condition this
cannot parse (a type name it does not know) is shown as it is, with the suffixes dropped.
"""
from __future__ import annotations

import functools
import re

from pycparser import c_ast, c_generator, c_parser

_SUFFIX = re.compile(r"\b(\d+)[lLuU]+\b")
_parser: c_parser.CParser | None = None


@functools.lru_cache(maxsize=4096)
def readable(condition: str, fold_tests: bool = True) -> str:
    """`condition` (C) without casts, `* 1`, `+ 0`, constant arithmetic and redundant parentheses;
    with `fold_tests`, comparisons of constants become 1 or 0 (and `&&`, `||` with them).
    Kept per text: a plan's condition is read again for its remark, the report's checks and the
    work's folding (the suite: 539 calls, 132 texts), and pycparser parses each from scratch."""
    if not condition:
        return condition
    expr = parse_expression(condition)
    if expr is None:  # show the text as it is
        return _SUFFIX.sub(r"\1", condition)
    return _text(_simplify(expr, fold_tests))


def parse_expression(text: str) -> c_ast.Node | None:
    """A C expression's tree (names of types it does not declare are not types), or None."""
    global _parser
    _parser = _parser or c_parser.CParser()
    try:
        ast = _parser.parse(f"void f(void) {{ ({text}); }}")
        return ast.ext[0].body.block_items[0]
    except Exception:  # noqa: BLE001  pycparser's errors and assertions
        return None


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


def int_value(node) -> int | None:
    """The value of an integer constant (suffixes allowed) or its negation, else None."""
    if isinstance(node, c_ast.Constant) and node.type in ("int", "long int", "unsigned int", "long", "unsigned long"):
        try:
            return int(_SUFFIX.sub(r"\1", node.value).rstrip("lLuU"), 0)
        except ValueError:
            return None
    if isinstance(node, c_ast.UnaryOp) and node.op == "-":
        value = int_value(node.expr)
        return None if value is None else -value
    return None


def _number(value: int) -> c_ast.Node:
    if value < 0:
        return c_ast.UnaryOp("-", c_ast.Constant("int", str(-value)))
    return c_ast.Constant("int", str(value))


_FOLD = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b}
_TESTS = {"<": lambda a, b: a < b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b,
          "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


def _text(node: c_ast.Node) -> str:
    return _Generator(reduce_parentheses=True).visit(node)


def _simplify(node: c_ast.Node, fold_tests: bool) -> c_ast.Node:
    if isinstance(node, c_ast.Cast):
        return _simplify(node.expr, fold_tests)
    if isinstance(node, c_ast.Constant):
        value = int_value(node)
        return _number(value) if value is not None else node
    for name, child in node.children():
        simple = _simplify(child, fold_tests)
        if "[" not in name:
            setattr(node, name, simple)
        else:  # an element of a list: a call's arguments (`exprs[0]`)
            field, index = name.rstrip("]").split("[")
            getattr(node, field)[int(index)] = simple
    if isinstance(node, c_ast.BinaryOp) and node.op in _FOLD:
        return _polynomial(node)
    if isinstance(node, c_ast.BinaryOp) and fold_tests:
        left, right = int_value(node.left), int_value(node.right)
        if left is not None and right is not None and node.op in _TESTS:
            return _number(int(_TESTS[node.op](left, right)))
        if node.op in ("&&", "||"):
            absorbing = 0 if node.op == "&&" else 1  # `0 && x` is 0, `1 || x` is 1
            if absorbing in (_truth(left), _truth(right)):
                return _number(absorbing)
            if _truth(left) is not None:
                return node.right
            if _truth(right) is not None:
                return node.left
    return node


def _truth(value: int | None) -> int | None:
    return None if value is None else int(value != 0)


def _polynomial(node: c_ast.Node) -> c_ast.Node:
    """A sum of products rewritten with its constants folded and its like terms combined, in the
    order the terms first appear (positive ones first, the constant last): `m - 2 + 1 + n + 1`
    is `m + n`, `m - 1 + (m - 1 + 1)` is `2 * m - 1`, `n * (n * 2)` is `2 * n * n`. A constant
    times a sum is multiplied out only where that leaves fewer terms: `2 * (n - 2) + n - 2` is
    `3 * n - 6`, `2 * (n - 1)` stays."""
    kept, expanded = _combined(_terms(node, 1, False)), _combined(_terms(node, 1, True))
    terms = expanded if _count(expanded) < _count(kept) else kept
    constant = terms.pop((), [0, []])[0]
    ordered = [t for t in terms.values() if t[0]]
    ordered.sort(key=lambda t: t[0] < 0)
    if ordered and ordered[0][0] < 0 < constant:
        ordered.insert(0, [constant, []])  # `1 - n`, not `-n + 1`
    else:
        ordered.append([constant, []])
    out = None
    for coefficient, factors in ordered:
        if out is not None and not coefficient:
            continue
        if out is None:
            out = _product(coefficient, factors) if coefficient != -1 or not factors else \
                c_ast.UnaryOp("-", _product(1, factors))
        else:
            term = _product(abs(coefficient), factors)
            out = c_ast.BinaryOp("+" if coefficient > 0 else "-", out, term)
    return out


def _combined(terms: list[tuple[int, list[c_ast.Node]]]) -> dict[tuple[str, ...], list]:
    """Terms with the same factors (in any order) added up: factors' text -> [coefficient, factors]."""
    out: dict[tuple[str, ...], list] = {}
    for coefficient, factors in terms:
        key = tuple(sorted(_text(f) for f in factors))
        if key in out:
            out[key][0] += coefficient
        else:
            out[key] = [coefficient, factors]
    return out


def _count(terms: dict[tuple[str, ...], list]) -> int:
    return sum(1 for coefficient, _ in terms.values() if coefficient)


def _terms(node: c_ast.Node, sign: int, expand: bool) -> list[tuple[int, list[c_ast.Node]]]:
    """The terms of a sum, each as (coefficient, factors that are not constants); with `expand`,
    a constant times a sum counts as that sum's terms."""
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-"):
        return _terms(node.left, sign, expand) + _terms(node.right, sign if node.op == "+" else -sign, expand)
    if isinstance(node, c_ast.UnaryOp) and node.op == "-":
        return _terms(node.expr, -sign, expand)
    coefficient, factors = _factors(node)
    if expand and len(factors) == 1 and isinstance(factors[0], c_ast.BinaryOp) and factors[0].op in ("+", "-"):
        return _terms(factors[0], sign * coefficient, expand)
    return [(sign * coefficient, factors)]


def _factors(node: c_ast.Node) -> tuple[int, list[c_ast.Node]]:
    value = int_value(node)
    if value is not None:
        return value, []
    if isinstance(node, c_ast.BinaryOp) and node.op == "*":
        (a, left), (b, right) = _factors(node.left), _factors(node.right)
        return a * b, left + right
    if isinstance(node, c_ast.UnaryOp) and node.op == "-":
        a, factors = _factors(node.expr)
        return -a, factors
    return 1, [node]


def _product(coefficient: int, factors: list[c_ast.Node]) -> c_ast.Node:
    out = None if coefficient == 1 and factors else _number(coefficient)
    if coefficient == 0:
        return out
    for f in factors:
        out = f if out is None else c_ast.BinaryOp("*", out, f)
    return out
