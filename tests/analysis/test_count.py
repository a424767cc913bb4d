"""analysis/count.py: parametric point counts of iteration domains, checked against isl's own
count of the same set with the parameters fixed (isl counts constant sets, not parametric ones)."""
from fractions import Fraction

import islpy as isl
import pytest

from lifter.analysis.count import constant, count_points, largest, poly_to_c, same_value

SHAPES = {
    "rectangle": "[v_n, v_m] -> { [i, j] : 0 <= i < v_n and 0 <= j < v_m }",
    "triangle, row from i": "[v_n, v_m] -> { [i, j] : 0 <= i < v_n and i <= j < v_n }",
    "triangle, row to i": "[v_n, v_m] -> { [i, j] : 0 <= i < v_n and 0 <= j <= i }",
    "strict triangle, decreasing rows": "[v_n, v_m] -> { [i, j] : 0 <= i < v_n and i < j < v_n }",
    "skewed band": "[v_n, v_m] -> { [i, j] : 0 <= i < v_n and i <= j < i + v_m }",
    "tetrahedron (cholesky)": "[v_n, v_m] -> { [i, j, k] : 0 <= i < v_n and 0 <= j < i and 0 <= k < j }",
    "triangle inside a rectangle": "[v_n, v_m] -> { [i, j, k] : 0 <= i < v_n and 0 <= j < v_m and j <= k < v_m }",
    "rows that start empty": "[v_n, v_m] -> { [i, j] : 0 <= i < v_n and 0 <= j < i - 5 }",
    "diagonal band (nussinov)": "[v_n, v_m] -> { [i, k] : 0 <= i < v_n - v_m and i + 1 <= k < i + v_m }",
}


def _value(poly, values):
    total = Fraction(0)
    for monomial, c in poly.items():
        term = c
        for name, power in monomial:
            term *= values[name] ** power
        total += term
    return total


@pytest.mark.parametrize("shape", list(SHAPES))
def test_count_is_the_number_of_points(shape):
    s = isl.Set(SHAPES[shape])
    poly = count_points(s)
    assert poly is not None
    for n in range(0, 14):
        for m in (1, 3, 7):
            fixed = s.fix_val(isl.dim_type.param, 0, n).fix_val(isl.dim_type.param, 1, m)
            if fixed.is_empty():
                continue  # no iterations: the polynomial is not asked there (count.py)
            assert _value(poly, {"v_n": n, "v_m": m}) == fixed.count_val().to_python(), (shape, n, m)


def test_triangle_is_half_the_square():
    poly = count_points(isl.Set(SHAPES["triangle, row from i"]))
    assert poly_to_c(poly) == "((long)n * n + (long)n) / 2"


def test_constant_set():
    poly = count_points(isl.Set("{ [i, j] : 0 <= i < 90 and 0 <= j <= i }"))
    assert constant(poly) == 4095 and poly_to_c(poly) == "4095L"


@pytest.mark.parametrize("text", [
    "[v_n] -> { [i, j] : 0 <= i < v_n and 0 <= j < v_n and exists e: j = 2e }",  # a stride
    "[v_n] -> { [i, j] : 0 <= i < v_n and 0 <= j < v_n and i != j }",  # a hole
    "[v_n] -> { [i, j] : 0 <= i < v_n and 0 <= j < v_n and (i + j) mod 3 = 0 }",  # an if of values
    "[v_n] -> { [i, j] : 0 <= i < v_n and (0 <= j < 2 or 10 <= j < v_n) }",  # two pieces
])
def test_not_a_box_is_not_counted(text):
    assert count_points(isl.Set(text)) is None


def test_largest_run_of_an_inner_loop():
    rows = {(): Fraction(100), (("v_i", 1),): Fraction(-1)}  # 100 - i
    assert largest(rows, isl.Set("[v_n] -> { [v_i] : 0 <= v_i < 100 }")) == 100
    assert largest(rows, isl.Set("[v_n] -> { [v_i] : 0 <= v_i < v_n }")) is None  # grows with n
    assert largest({(("v_n", 1),): Fraction(1)}, isl.Set("[v_n] -> { [v_i] : 0 <= v_i < 100 }")) is None


def test_written_text_is_kept_when_it_is_the_same_polynomial():
    poly = count_points(isl.Set("[v_n, v_m] -> { [i, j] : 0 <= i < v_n and 0 <= j < v_m + 2 }"))
    assert same_value("((long)n) * (((long)m) * (1) + 2L)", poly)
    assert not same_value("((long)n) * ((long)n)", poly)
    assert not same_value("(n + 255) / 256", poly)  # a division: not a polynomial of the sort
