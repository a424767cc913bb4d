"""Translating C integer expressions into isl affine expressions.

Names are prefixed (`v_i` for C's `i`) so that C identifiers can never collide
with isl's keywords (`and`, `min`, `mod`, ...); `c_name` strips the prefix.
A *stand-in* is an isl parameter for a region-invariant expression that is not
affine itself (`k * dim`, `g->n`): the region builder decides when one is sound,
it is named `w_<readable>` (never a `v_` name, so never a C variable's) and
`c_name` prints it back as the original C expression in parentheses.
C division and remainder truncate toward zero while isl's floor and mod round
down: they agree on the non-negative values loop bounds and subscripts have,
which is why division is accepted only by a positive constant.
"""
from __future__ import annotations

import re

from pycparser import c_ast

from lifter.frontend.walk import walk

PREFIX = "v_"
STAND_IN_PREFIX = "w_"
_PREFIXED = re.compile(r"\b([vw])_(\w+)")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*\Z")
# Stand-ins interned for the process: isl name <-> C text, one name per text, never reused.
_STAND_IN_TEXT: dict[str, str] = {}
_STAND_IN_NAME: dict[str, str] = {}


class NotAffine(Exception):
    """The expression is not affine in loop variables and parameters; the message says why."""


# Every C integer type fits in [-2**63, 2**64): a constant outside it has no C value the model
# could agree with (gcc truncates it), and a huge one cannot even be printed as isl text
# (Python refuses to convert integers of over 4300 digits to decimal).
INT_MIN, INT_LIMIT = -2**63, 2**64


# A constant shift's value must fit a (signed) int, the type of `1 << LOGB` in C.
_INT_MAX = 2**31 - 1
_BIT_OPERATORS = ("<<", ">>", "&", "|", "^")


# Casts that keep every index value: to an integer type at least as wide as int. A narrower one
# wraps (`a[(unsigned char)i]` is a[i % 256]: iterations 3 and 259 write one element, which the
# model, reading `i`, kept apart; found by fuzz10), a floating one changes what `/` and a
# comparison mean (`i < (double)n / 2` is not `i < floor(n / 2)`).
_WIDE_WORDS = {"int", "long", "signed", "unsigned"}
_WIDE_TYPEDEFS = {"size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t", "int32_t", "uint32_t", "int64_t",
                  "uint64_t"}


def value_preserving_cast(node: c_ast.Cast, typedefs=None) -> bool:
    """Whether the cast `node` is to an integer type at least as wide as int (typedefs resolved
    where `typedefs` is given; an unknown typedef name is not known to be one)."""
    t = node.to_type.type
    if typedefs is not None:
        t = typedefs.resolve(t)
    if not (isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType)):
        return False
    words = set(t.type.names) - {"const", "volatile"}
    return bool(words) and (words <= _WIDE_WORDS or len(words) == 1 and next(iter(words)) in _WIDE_TYPEDEFS)


def _unsigned(node: c_ast.Node) -> bool:
    """The expression holds an unsigned literal (`~0u` is not `-1`): C's `~` then depends on width."""
    return any(isinstance(n, c_ast.Constant) and "int" in n.type.split() and "u" in n.value.lower()
               for n in walk(node))


def _fits(value: int) -> bool:
    return INT_MIN <= value < INT_LIMIT


def _checked(value: int) -> int:
    """A constant subexpression's value, which C's 64-bit arithmetic must be able to hold.

    Operands fit in 64 bits, so `value` has at most 128 and prints quickly."""
    if not _fits(value):
        raise NotAffine(f"constant expression {_shortened(str(value))} overflows 64 bits")
    return value


def _shortened(text: str) -> str:
    return text if len(text) <= 24 else text[:20] + "..."


def isl_name(name: str) -> str:
    """The isl name of a C variable, or of a stand-in given by its C text (`k * dim`)."""
    return _stand_in_name(name) if is_stand_in(name) else PREFIX + name


def _stand_in_name(text: str) -> str:
    """The isl parameter standing for the C expression `text`: `w_k_dim` for `k * dim`."""
    if text not in _STAND_IN_NAME:
        base = STAND_IN_PREFIX + ("_".join(re.findall(r"\w+", text)) or "e")
        name, n = base, 1
        while name in _STAND_IN_TEXT:
            n += 1
            name = f"{base}_{n}"
        _STAND_IN_NAME[text], _STAND_IN_TEXT[name] = name, text
    return _STAND_IN_NAME[text]


def is_stand_in(name: str) -> bool:
    """A region parameter that is a stand-in's C text rather than a variable's name."""
    return not _IDENTIFIER.match(name)


def c_name(text: str) -> str:
    """Turn isl text back into C: variables' names, stand-ins' expressions (parenthesized)."""
    def back(m: re.Match) -> str:
        if m.group(1) == "v":
            return m.group(2)
        expr = _STAND_IN_TEXT.get(m.group(0))
        return f"({expr})" if expr is not None else m.group(0)

    return _PREFIXED.sub(back, text)


def int_constant(node: c_ast.Node) -> int | None:
    """The value of an integer literal (possibly negated) that fits a C integer type, else None."""
    if isinstance(node, c_ast.Constant) and "int" in node.type.split():
        digits = node.value.rstrip("uUlL")
        octal = len(digits) > 1 and digits[0] == "0" and digits[1] not in "xXbB"
        try:
            value = int(digits, 8) if octal else int(digits, 0)
        except ValueError:
            return None
        return value if _fits(value) else None
    if isinstance(node, c_ast.UnaryOp) and node.op == "-":
        inner = int_constant(node.expr)
        return -inner if inner is not None and _fits(-inner) else None
    return None


class AffineTranslator:
    """Converts expressions over `iterators` (loop variables in scope) and parameters.

    `is_parameter(name)` decides whether a free name may be a symbolic parameter
    (an integer scalar that the region never writes); used parameters are
    collected in `parameters`. `stand_in(node)`, where given, returns the C text of
    a non-affine subexpression (a product or quotient of parameters, a struct field)
    that may be a stand-in parameter, else None; the text joins `parameters`.
    """

    def __init__(self, iterators, is_parameter, stand_in=None, typedefs=None):
        self.iterators = set(iterators)
        self.typedefs = typedefs  # resolves the type names of casts (value_preserving_cast)
        self.is_parameter = is_parameter
        self.stand_in = stand_in
        self.parameters: set[str] = set()
        self.numerators: list[str] = []  # must be proved non-negative where evaluated

    def expr(self, node: c_ast.Node) -> str:
        text, _ = self._expr(node)
        return text

    def constant(self, node: c_ast.Node) -> int | None:
        """The integer value of a constant expression, or None."""
        try:
            _, value = self._expr(node)
        except NotAffine:
            return None
        return value

    def _expr(self, node: c_ast.Node) -> tuple[str, int | None]:
        """Returns (isl text, value if the expression is constant)."""
        value = int_constant(node)
        if value is not None:
            return str(value), value
        if isinstance(node, c_ast.Constant) and "int" in node.type.split():
            raise NotAffine(f"integer constant {_shortened(node.value)} does not fit in 64 bits")
        if isinstance(node, c_ast.ID):
            if node.name in self.iterators:
                return isl_name(node.name), None
            if self.is_parameter(node.name):
                self.parameters.add(node.name)
                return isl_name(node.name), None
            raise NotAffine(f"'{node.name}' is neither a loop variable nor a loop-invariant integer")
        if isinstance(node, c_ast.Cast):
            if not value_preserving_cast(node, self.typedefs):
                raise NotAffine("cast to a type narrower than int or not an integer")
            return self._expr(node.expr)
        if isinstance(node, c_ast.UnaryOp):
            if node.op == "-":
                text, value = self._expr(node.expr)
                return f"-({text})", None if value is None else _checked(-value)
            if node.op == "+":
                return self._expr(node.expr)
            if node.op == "~":
                _, value = self._expr(node.expr)
                if value is not None and not _unsigned(node.expr):
                    return str(~value), ~value  # two's complement, as for every signed type
            raise NotAffine(f"operator '{node.op}' in an index or bound")
        if isinstance(node, c_ast.BinaryOp):
            return self._binary(node)
        if isinstance(node, c_ast.TernaryOp):
            return self._min_max(node)
        if isinstance(node, c_ast.StructRef):
            return self._stand_in(node, "struct field")
        if isinstance(node, c_ast.ArrayRef):
            return self._stand_in(node, "array element")
        raise NotAffine(f"{type(node).__name__.lower()} in an index or bound")

    def _binary(self, node: c_ast.BinaryOp) -> tuple[str, int | None]:
        left, lv = self._expr(node.left)
        right, rv = self._expr(node.right)
        op = node.op
        if op in "+-":
            value = None if lv is None or rv is None else _checked(lv + rv if op == "+" else lv - rv)
            return f"({left}) {op} ({right})", value
        if op == "*":
            if lv is not None and rv is not None:
                value = _checked(lv * rv)
                return str(value), value
            if lv is not None:
                return f"{lv}*({right})", None
            if rv is not None:
                return f"{rv}*({left})", None
            return self._stand_in(node, "product of two variables")
        if op in ("/", "%"):
            if rv is None and lv is None:
                return self._stand_in(node, f"'{op}' of two variables")
            if rv is None or rv <= 0:
                raise NotAffine(f"'{op}' by a value that is not a positive constant")
            if lv is not None and lv >= 0:
                value = lv // rv if op == "/" else lv % rv
                return str(value), value
            self.numerators.append(left)
            if op == "/":
                return f"floor(({left})/{rv})", None
            return f"(({left}) mod {rv})", None
        if op in _BIT_OPERATORS:
            return self._bits(op, left, lv, right, rv)
        raise NotAffine(f"operator '{op}' in an index or bound")

    def _bits(self, op: str, left: str, lv: int | None, right: str, rv: int | None) -> tuple[str, int | None]:
        """Shifts and bit operations: folded on constants (`1 << LOGB`); on a variable, a shift by
        a constant is a product (`x << c`) or a floor division (`i >> c`), and a mask of low bits
        (`i & 7`) a remainder. Shifted or masked variables must be non-negative where evaluated
        (`numerators`, as for `/`): that is where C's and isl's meanings agree without relying on
        how a compiler shifts negative numbers."""
        if lv is not None and rv is not None:
            if op in ("<<", ">>"):
                if lv < 0 or not 0 <= rv < 63:
                    raise NotAffine("shift of a negative value or by an out-of-range count in a constant")
                value = lv << rv if op == "<<" else lv >> rv
                if value > _INT_MAX:
                    raise NotAffine(f"constant shift {lv} << {rv} may overflow int")
                return str(value), value
            value = {"&": lv & rv, "|": lv | rv, "^": lv ^ rv}[op]
            return str(value), value
        if op in ("<<", ">>") and lv is None and rv is not None and 0 <= rv < 31:
            self.numerators.append(left)
            if op == "<<":
                return f"{2 ** rv}*({left})", None
            return f"floor(({left})/{2 ** rv})", None
        mask, other = (rv, left) if rv is not None else (lv, right)
        if op == "&" and mask is not None and mask > 0 and mask & (mask + 1) == 0:
            self.numerators.append(other)
            return f"(({other}) mod {mask + 1})", None
        raise NotAffine(f"operator '{op}' in an index or bound (only shifts by constants and masks "
                        f"of low bits of non-negative values are affine)")

    def _stand_in(self, node: c_ast.Node, what: str) -> tuple[str, None]:
        text = self.stand_in(node) if self.stand_in is not None else None
        if text is None:
            raise NotAffine(f"{what} (not affine, and not provably invariant in the loop nest)")
        self.parameters.add(text)
        return isl_name(text), None

    def _min_max(self, node: c_ast.TernaryOp) -> tuple[str, int | None]:
        """`a < b ? a : b` is min(a, b); `a > b ? a : b` is max(a, b) (and the mirrored forms)."""
        cond = node.cond
        if isinstance(cond, c_ast.BinaryOp) and cond.op in ("<", "<=", ">", ">="):
            gen = _same_text
            a, b = cond.left, cond.right
            if gen(node.iftrue, a) and gen(node.iffalse, b):
                fn = "min" if cond.op in ("<", "<=") else "max"
            elif gen(node.iftrue, b) and gen(node.iffalse, a):
                fn = "max" if cond.op in ("<", "<=") else "min"
            else:
                raise NotAffine("conditional expression in an index or bound")
            left, _ = self._expr(a)
            right, _ = self._expr(b)
            return f"{fn}({left}, {right})", None
        raise NotAffine("conditional expression in an index or bound")

    def condition(self, node: c_ast.Node) -> str:
        """An affine condition (comparisons joined by &&, ||, !) as isl constraint text."""
        if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
            joiner = "and" if node.op == "&&" else "or"
            return f"({self.condition(node.left)}) {joiner} ({self.condition(node.right)})"
        if isinstance(node, c_ast.UnaryOp) and node.op == "!":
            return f"not ({self.condition(node.expr)})"
        if isinstance(node, c_ast.BinaryOp) and node.op in ("<", "<=", ">", ">=", "==", "!="):
            op = {"==": "=", "!=": "!="}.get(node.op, node.op)
            left, right = self.expr(node.left), self.expr(node.right)
            if op == "!=":
                return f"(({left}) < ({right}) or ({left}) > ({right}))"
            return f"({left}) {op} ({right})"
        raise NotAffine("condition is not a comparison of affine expressions")


_GEN = None


def c_text(node: c_ast.Node) -> str:
    """C text of an AST node (pycparser's generator, for messages and tasklet code)."""
    global _GEN
    if _GEN is None:
        from pycparser.c_generator import CGenerator

        _GEN = CGenerator()
    return _GEN.visit(node)


def _same_text(a: c_ast.Node, b: c_ast.Node) -> bool:
    return c_text(a) == c_text(b)
