"""C bound expressions as DaCe symbolic text (sympy through `dace.symbolic.pystr_to_symbolic`).

Map and loop bounds after tiling, skewing and unroll-and-jam are C text with casts, `?:` and
integer division (`(0 > t_t ? 0 : t_t)`, `32 * (t_t / 32)`), which sympy cannot read as
written. They are translated on the syntax tree: a cast is dropped (the bounds are integers
either way), `a > b ? a : b` and its mirror images become `Max`/`Min`, `min`/`max` calls the
same, and `/` becomes `int_floor`. Floor and C's truncation agree on the operands lift's bounds
divide (tile and wave counters, which are never negative); a conditional that is not a min or
max, a call, or any other operator leaves the bound untranslatable (None).
"""
from __future__ import annotations

from functools import lru_cache

from pycparser import c_ast, c_parser

_ARITHMETIC = {"+", "-", "*", "%"}
_COMPARE = {">": "Max", ">=": "Max", "<": "Min", "<=": "Min"}


@lru_cache(maxsize=4096)
def c_to_symbolic(text: str) -> str | None:
    """The C integer expression as DaCe symbolic text, or None where it has no exact translation."""
    if not text or text == "?":
        return None
    try:
        tree = c_parser.CParser().parse(f"void __f(void) {{ __e = ({text}); }}")
    except Exception:  # pycparser raises its own ParseError and, on some input, plain errors
        return None
    expr = tree.ext[0].body.block_items[0].rvalue
    try:
        text = _translate(expr)
    except _Untranslatable:
        return None
    return text[1:-1] if isinstance(expr, c_ast.BinaryOp) and expr.op in _ARITHMETIC else text


class _Untranslatable(Exception):
    pass


def _translate(e: c_ast.Node) -> str:
    if isinstance(e, c_ast.ID):
        return e.name
    if isinstance(e, c_ast.Constant) and e.type in ("int", "long int", "long long int", "unsigned int",
                                                    "unsigned long int"):
        return e.value.rstrip("uUlL")
    if isinstance(e, c_ast.Cast):
        return _translate(e.expr)
    if isinstance(e, c_ast.UnaryOp) and e.op in ("-", "+"):
        return f"{e.op}({_translate(e.expr)})"
    if isinstance(e, c_ast.BinaryOp) and e.op in _ARITHMETIC:
        return f"({_translate(e.left)} {e.op} {_translate(e.right)})"
    if isinstance(e, c_ast.BinaryOp) and e.op == "/":
        return f"int_floor({_translate(e.left)}, {_translate(e.right)})"
    if isinstance(e, c_ast.TernaryOp) and isinstance(e.cond, c_ast.BinaryOp) and e.cond.op in _COMPARE:
        left, right = _translate(e.cond.left), _translate(e.cond.right)
        yes, no = _translate(e.iftrue), _translate(e.iffalse)
        function = _COMPARE[e.cond.op]
        if (yes, no) == (left, right):
            return f"{function}({yes}, {no})"
        if (yes, no) == (right, left):
            return f"{'Min' if function == 'Max' else 'Max'}({yes}, {no})"
    if isinstance(e, c_ast.FuncCall) and isinstance(e.name, c_ast.ID) and e.name.name in ("min", "max") \
            and e.args is not None and len(e.args.exprs) == 2:
        a, b = (_translate(x) for x in e.args.exprs)
        return f"{e.name.name.capitalize()}({a}, {b})"
    raise _Untranslatable
