"""Compare two programs' printed output, numbers within a relative tolerance.

Kept free of lift's imports so that machines without lift's dependencies (the GPU machine
of scripts/gpu_check.sh) can compare outputs too:  python3 tests/outputs.py A B [RTOL]
exits 0 when the files match.
"""
from __future__ import annotations

import re
import sys

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf", re.I)
# The tolerance where lift reordered a floating-point reduction (`has_float_reduction`).
REDUCTION_RTOL = 1e-9


def outputs_match(expected: str, actual: str, rtol: float) -> bool:
    """Same text, except numbers that differ by at most `rtol` relative to the larger, or to
    the typical magnitude printed where both are smaller than that.

    The floor is there because a reassociated sum's rounding error is bounded relative to its
    terms, not to its result: a sum that cancels to 1e-17 in one order may be exactly 0 in
    another. The median magnitude of the expected numbers stands for the terms' magnitude."""
    if expected == actual:
        return True
    if rtol == 0 or NUMBER.sub("#", expected) != NUMBER.sub("#", actual):
        return False
    pairs = [(float(a), float(b)) for a, b in zip(NUMBER.findall(expected), NUMBER.findall(actual))]
    magnitudes = sorted(abs(x) for x, _ in pairs if x == x and x != 0)
    floor = magnitudes[len(magnitudes) // 2] if magnitudes else 0.0
    for x, y in pairs:
        if x != y and not abs(x - y) <= rtol * max(abs(x), abs(y), floor):
            return False
    return True


def has_float_reduction(loops: list[dict]) -> bool:
    """A loop of lift's report (its "loops") reassociates a reduction, so rounding may change:
    it runs in parallel, or as SIMD lanes. The one rule for the tests and the fuzzer."""
    return any((loop.get("parallelized") or "simd" in loop.get("transformations", [])) and loop.get("reduction")
               for loop in loops)


if __name__ == "__main__":
    with open(sys.argv[1]) as f, open(sys.argv[2]) as g:
        expected, actual = f.read(), g.read()
    rtol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-8
    sys.exit(0 if expected.strip() and outputs_match(expected, actual, rtol) else 1)
