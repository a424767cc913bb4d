"""The output comparison every differential test and the fuzzer rely on (tests/outputs.py)."""
from tests.outputs import outputs_match


def test_exact_comparison_accepts_only_identical_text():
    assert outputs_match("a: 1.5\n", "a: 1.5\n", 0.0)
    assert not outputs_match("a: 1.5\n", "a: 1.5000000001\n", 0.0)


def test_numbers_within_the_relative_tolerance_match_and_the_text_around_them_must_not_move():
    assert outputs_match("s: 1.0000000000e+00\n", "s: 1.0000000001e+00\n", 1e-9)
    assert not outputs_match("s: 1.0e+00\n", "s: 1.1e+00\n", 1e-9)
    assert not outputs_match("s: 1.0\n", "t: 1.0\n", 1e-9)


def test_a_cancelled_sum_is_compared_against_the_typical_magnitude_not_its_own():
    """A reassociated sum that cancels prints 1.1e-17 in one order and 0 in another (a mutant of
    ludcmp found by scripts/fuzz.py mutants): rounding, not a wrong result."""
    values = "".join(f"{v:.10e}\n" for v in (0.25, -0.5, 0.75, 1.0))
    assert outputs_match(values + "1.1102230246e-17\n", values + "0.0000000000e+00\n", 1e-9)
    # ... but a difference of the typical magnitude's order is still one.
    assert not outputs_match(values + "1.0e-03\n", values + "0.0\n", 1e-9)
