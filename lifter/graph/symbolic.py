"""C bound expressions as DaCe symbolic text (sympy through `dace.symbolic.pystr_to_symbolic`).

Map and loop bounds after tiling, skewing and unroll-and-jam are C text with casts, `?:` and
integer division (`(0 > t_t ? 0 : t_t)`, `32 * (t_t / 32)`), which sympy cannot read as
written. They are translated on the syntax tree: a cast is dropped (the bounds are integers
either way), `a > b ? a : b` and its mirror images become `Max`/`Min`, `min`/`max` calls the
same, and `/` becomes `int_floor`. Floor and C's truncation agree on the operands lift's bounds
divide (tile and wave counters, which are never negative); a conditional that is not a min or
max, a call, or any other operator leaves the bound untranslatable (None). Parentheses only where
C's (and sympy's) precedence needs them: the text is also a picture's map label.
"""
from __future__ import annotations

import re
from functools import lru_cache

from pycparser import c_ast, c_parser

_ARITHMETIC = {"+", "-", "*", "%"}
_COMPARE = {">": "Max", ">=": "Max", "<": "Min", "<=": "Min"}


@lru_cache(maxsize=4096)
def c_to_symbolic(text: str, members: bool = False) -> str | None:
    """The C integer expression as DaCe symbolic text, or None where it has no exact translation. With
    `members`, a struct member it reads (`g->nx`, `p.n`) is the symbol of the name its container has in the
    SDFG (`g__nx`, `p_n`: the caller passes the member's value); else it has no translation."""
    if not text or text == "?":
        return None
    try:
        tree = c_parser.CParser().parse(f"void __f(void) {{ __e = ({text}); }}")
    except Exception:  # pycparser raises its own ParseError and, on some input, plain errors
        return None
    expr = tree.ext[0].body.block_items[0].rvalue
    try:
        return _translate(_member_symbols(expr) if members else expr)[0]
    except _Untranslatable:
        return None


def _member_symbols(e: c_ast.Node) -> c_ast.Node:
    """The expression with each member access of a named struct (`g->nx`, `a.b.c`) an ID of its symbol's name."""
    if isinstance(e, c_ast.StructRef) and isinstance(e.field, c_ast.ID):
        base = _member_symbols(e.name)
        if isinstance(base, c_ast.ID):
            return c_ast.ID(identifier(base.name + e.type) + e.field.name)
    for name, child in e.children():
        replaced = _member_symbols(child)
        if replaced is not child:
            _set_child(e, name, replaced)
    return e


def _set_child(parent: c_ast.Node, name: str, child: c_ast.Node) -> None:
    """Replaces a child named as pycparser's `children()` names it (`left`, `args`, `exprs[1]`)."""
    if "[" in name:
        attribute, index = name[:-1].split("[")
        getattr(parent, attribute)[int(index)] = child
    else:
        setattr(parent, name, child)


class _Untranslatable(Exception):
    pass


_ATOM = ""  # the operator of a name, constant, call or parenthesized term
_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "%": 2, _ATOM: 3}
_REGROUPS = {("+", "+"), ("+", "-"), ("*", "*")}  # `a op (b op2 c)` is `a op b op2 c` (exact integers)


def _operand(term: tuple[str, str], op: str, right: bool) -> str:
    text, inner = term
    tight = _PRECEDENCE[inner] < _PRECEDENCE[op] or right and _PRECEDENCE[inner] == _PRECEDENCE[op] \
        and (op, inner) not in _REGROUPS
    return f"({text})" if tight else text


def _terms(e: c_ast.Node, sign: int, out: list[tuple[int, c_ast.Node]]) -> None:
    """The signed terms of a chain of `+` and `-` (C's integers: regrouping is exact)."""
    if isinstance(e, c_ast.BinaryOp) and e.op in ("+", "-"):
        _terms(e.left, sign, out)
        _terms(e.right, sign if e.op == "+" else -sign, out)
    elif isinstance(e, c_ast.Cast):
        _terms(e.expr, sign, out)
    else:
        out.append((sign, e))


def _sum(e: c_ast.BinaryOp) -> tuple[str, str]:
    """A sum with its integer constants added up, last (`n - 2 - 1 + t + 31` is `n + t + 28`)."""
    terms: list[tuple[int, c_ast.Node]] = []
    _terms(e, 1, terms)
    constant, text = 0, ""
    for sign, term in terms:
        value = _translate(term)
        if value[1] == _ATOM and value[0].isdigit():
            constant += sign * int(value[0])
            continue
        operand = _operand(value, "+" if sign > 0 or not text else "-", bool(text))
        text = f"{text} {'+' if sign > 0 else '-'} {operand}" if text else (operand if sign > 0 else f"-{operand}")
    if not text:
        return str(constant), _ATOM
    if constant:
        text = f"{text} {'+' if constant > 0 else '-'} {abs(constant)}"
    return text, "+" if len(terms) > 1 else _ATOM


def _translate(e: c_ast.Node) -> tuple[str, str]:
    """The text and its outermost operator (`_ATOM` for none)."""
    if isinstance(e, c_ast.ID):
        return e.name, _ATOM
    if isinstance(e, c_ast.Constant) and e.type in ("int", "long int", "long long int", "unsigned int",
                                                    "unsigned long int"):
        return e.value.rstrip("uUlL"), _ATOM
    if isinstance(e, c_ast.Cast):
        return _translate(e.expr)
    if isinstance(e, c_ast.UnaryOp) and e.op in ("-", "+"):
        return f"{e.op}({_translate(e.expr)[0]})", _ATOM
    if isinstance(e, c_ast.BinaryOp) and e.op in ("+", "-"):
        return _sum(e)
    if isinstance(e, c_ast.BinaryOp) and e.op in _ARITHMETIC:
        left, right = _translate(e.left), _translate(e.right)
        return f"{_operand(left, e.op, False)} {e.op} {_operand(right, e.op, True)}", e.op
    if isinstance(e, c_ast.BinaryOp) and e.op == "/":
        return f"int_floor({_translate(e.left)[0]}, {_translate(e.right)[0]})", _ATOM
    if isinstance(e, c_ast.TernaryOp) and isinstance(e.cond, c_ast.BinaryOp) and e.cond.op in _COMPARE:
        left, right = _translate(e.cond.left)[0], _translate(e.cond.right)[0]
        yes, no = _translate(e.iftrue)[0], _translate(e.iffalse)[0]
        function = _COMPARE[e.cond.op]
        if (yes, no) == (left, right):
            return f"{function}({yes}, {no})", _ATOM
        if (yes, no) == (right, left):
            return f"{'Min' if function == 'Max' else 'Max'}({yes}, {no})", _ATOM
    if isinstance(e, c_ast.FuncCall) and isinstance(e.name, c_ast.ID) and e.name.name in ("min", "max") \
            and e.args is not None and len(e.args.exprs) == 2:
        a, b = (_translate(x)[0] for x in e.args.exprs)
        return f"{e.name.name.capitalize()}({a}, {b})", _ATOM
    if isinstance(e, c_ast.FuncCall) and isinstance(e.name, c_ast.ID) and e.name.name == "floord" \
            and e.args is not None and len(e.args.exprs) == 2:  # isl's division, rounding down
        a, b = (_translate(x)[0] for x in e.args.exprs)
        return f"int_floor({a}, {b})", _ATOM
    raise _Untranslatable


def identifier(text: str) -> str:
    """A DaCe-safe name for a container key such as `<world>` or `pts.x`."""
    name = re.sub(r"\W", "_", text)
    return name if name and not name[0].isdigit() else "_" + name
