"""The run-time test that the rows of an array of row pointers are disjoint.

The analysis reads `A[i][j]` on a `double **A` as a 2-D array only on this
condition (analysis/rows.py). Rows lo..hi, each used from column `first` to
`last`, are tested to lie in increasing address order without overlapping, the
common case of one contiguous block or of rows malloc'd one after another; the
block they then span, from `&A[lo][first]` to `&A[hi][last] + 1`, is compared with
the other data like any pointer's range. Any other layout (rows sharing a buffer,
in decreasing order, overlapping) fails the test and the loop runs as written.
The test is a static function, one per element type, emitted once at the top of an
output file that calls it (C89, clean under -Wall -Werror).
"""
from __future__ import annotations

import re

PREFIX = "lift_rows_"
_CALL = re.compile(rf"\b{PREFIX}(\w+)\(")


def rows_test(element: str, name: str, lo: str, hi: str, first: str, last: str) -> str:
    """The C call testing rows lo..hi of `name` over columns first..last (false when empty,
    so that what follows it in `&&` may read A[lo] and A[hi])."""
    suffix = "_".join(element.split())
    return f"{PREFIX}{suffix}(({element} *const *)({name}), {lo}, {hi}, {first}, {last})"


def helper_definitions(text: str) -> str:
    """Definitions of the tests `text` calls (empty if none), to go before it."""
    out = []
    for suffix in sorted(set(_CALL.findall(text))):
        element = suffix.replace("_", " ")
        out.append(
            f"/* lift: rows lo..hi of an array of row pointers, each used from column first to last, lie\n"
            f"   in increasing address order without overlapping (so they are disjoint) */\n"
            f"static int {PREFIX}{suffix}({element} *const *rows, long lo, long hi, long first, long last)\n"
            "{\n"
            "    long r;\n"
            "    if (lo > hi || first > last)\n"
            "        return 0;\n"
            "    for (r = lo; r < hi; r++)\n"
            "        if ((const char *)(rows[r] + last + 1) > (const char *)(rows[r + 1] + first))\n"
            "            return 0;\n"
            "    return 1;\n"
            "}\n")
    return "".join(out)
