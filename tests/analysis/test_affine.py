"""Property tests: C integer expressions translated to isl agree with C's own evaluation."""
import re

import islpy as isl
from hypothesis import given, settings, strategies as st
from pycparser import c_parser

from lifter.analysis.affine import AffineTranslator, NotAffine

PARSER = c_parser.CParser()


def parse_expr(text):
    ast = PARSER.parse(f"int f(int i, int j, int n) {{ return {text}; }}")
    return ast.ext[0].body.block_items[0].expr


@st.composite
def affine_exprs(draw, depth=0):
    """Affine expressions over i, j, n with constant factors and divisions."""
    if depth > 3 or draw(st.booleans()):
        return draw(st.sampled_from(["i", "j", "n"]) | st.integers(0, 20).map(str))
    op = draw(st.sampled_from(["+", "-", "*", "/", "%"]))
    left = draw(affine_exprs(depth + 1))
    if op in "*/%":
        return f"({left}) {op} {draw(st.integers(1, 7))}"
    return f"({left}) {op} ({draw(affine_exprs(depth + 1))})"


class CInt(int):
    """An int with C's truncating division and remainder; records negative numerators."""

    negative_numerator = False

    def _wrap(self, v):
        return CInt(v)

    def __add__(self, o): return CInt(int(self) + int(o))
    def __radd__(self, o): return CInt(int(o) + int(self))
    def __sub__(self, o): return CInt(int(self) - int(o))
    def __rsub__(self, o): return CInt(int(o) - int(self))
    def __mul__(self, o): return CInt(int(self) * int(o))
    def __rmul__(self, o): return CInt(int(o) * int(self))

    def __truediv__(self, o):
        if self < 0:
            CInt.negative_numerator = True
        q = abs(int(self)) // abs(int(o))
        return CInt(q if (self >= 0) == (o > 0) else -q)

    def __mod__(self, o):
        if self < 0:
            CInt.negative_numerator = True
        return CInt(int(self) - int(o) * int(self.__truediv__(o)))


def c_eval(text, env):
    """Evaluate with C semantics; None if a division saw a negative numerator."""
    CInt.negative_numerator = False
    text = re.sub(r"\b(\d+)\b", r"CInt(\1)", text)
    value = eval(text, {"CInt": CInt}, {k: CInt(v) for k, v in env.items()})
    return None if CInt.negative_numerator else int(value)


@settings(max_examples=150, deadline=None)
@given(affine_exprs(), st.integers(0, 30), st.integers(0, 30), st.integers(0, 30))
def test_translation_evaluates_like_c(text, i, j, n):
    env = {"i": i, "j": j, "n": n}
    expected = c_eval(text, env)
    translator = AffineTranslator(["i", "j"], lambda name: name == "n")
    try:
        isl_text = translator.expr(parse_expr(text))
    except NotAffine:
        return
    # The region builder proves numerators non-negative before it accepts a division
    # (tested below); under that precondition C and isl must agree.
    if expected is None:
        return
    value = isl.PwAff(f"[v_n] -> {{ [v_i, v_j] -> [{isl_text}] }}")
    point = isl.Set(f"[v_n] -> {{ [v_i, v_j] : v_i = {i} and v_j = {j} and v_n = {n} }}")
    got = value.intersect_domain(point)
    assert isl.PwAff(f"[v_n] -> {{ [v_i, v_j] -> [{expected}] }}").intersect_domain(point).is_equal(got)


def test_division_of_a_possibly_negative_value_is_not_modelled():
    from lifter import lift_source

    text = ("void f(int n, double *restrict a) {\n  for (int i = 0; i < n; i++)\n"
            "    a[(i - 5) / 2 + 10] = i;\n}\n")
    (loop,) = lift_source(text, "d.c").loops
    assert not loop["parallelized"]


@given(st.sampled_from(["i * j", "n * i", "a[i]", "f(i)", "i / n", "i % j"]))
def test_non_affine_expressions_are_rejected(text):
    translator = AffineTranslator(["i", "j"], lambda name: name == "n")
    try:
        translator.expr(parse_expr(text.replace("a[i]", "i[0]").replace("f(i)", "n(i)")))
    except NotAffine:
        return
    raise AssertionError(f"{text} accepted as affine")
