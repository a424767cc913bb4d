"""The C inspector of analysis/owned_rows.py: every gathered element of each row lies in the
range its iteration owns.

One static function per pair of integer types (index array, offsets), emitted once at the top
of an output file that calls it (C89, clean under -Wall -Wextra -Werror), like row_spans.py's
tests. Rows `v` from `first` to `last` run `k` from `rows[v + c]` to `rows[v + c + 1] - 1`
(none where that is empty, as the loop as written); iteration `v` owns the elements
`a_lo * v + lo0` to `a_hi * v + hi0`, and its gathers touch `index[k] + dlo` to `index[k] + dhi`.
The rows are shared by the threads when they hold many elements (the pass reads as much of the
index array as the loop does, and is most of the test's cost). A row's elements are tested
without a branch, so that the compiler vectorizes the test: with an exit at the first failure it
ran 3x slower (7 ms against 2.3 ms for 2^24 keys, one thread, -O3 -march=native; NPB IS's
ranking loop itself took 5.6 ms there), and a thread skips the rows after a failing one.
"""
from __future__ import annotations

import re

from lifter.analysis.owned_rows import PREFIX

_CALL = re.compile(rf"\b{PREFIX}(\w+)\(")


def helper_definitions(text: str, scan: int) -> str:
    """Definitions of the inspectors `text` calls (empty if none), to go before it; shared by the
    threads from `scan` elements of the index array (row_spans.py's threshold for its passes)."""
    out = []
    for suffix in sorted(set(_CALL.findall(text))):
        index, rows = (part.replace("_", " ") for part in suffix.split("__"))
        out.append(
            f"/* lift: for every row v in first .. last, each index[k] (rows[v + c] <= k < rows[v + c + 1]),\n"
            f"   shifted by dlo .. dhi, lies in a_lo * v + lo0 .. a_hi * v + hi0: the range row v owns */\n"
            f"static int {PREFIX}{suffix}(const {index} *index, const {rows} *rows, long c, long first, long last,\n"
            f"    long a_lo, long lo0, long a_hi, long hi0, long dlo, long dhi)\n"
            "{\n"
            "    long v;\n"
            "    int ok = 1;\n"
            f"    #pragma omp parallel for reduction(&: ok) schedule(dynamic, 16)"
            f" if (last >= first && (long)rows[last + c + 1] - (long)rows[first + c] > {scan}L)\n"
            "    for (v = first; v <= last; v++) {\n"
            "        long k, lo = a_lo * v + lo0 - dlo, hi = a_hi * v + hi0 - dhi;\n"
            "        int row = 1;\n"
            "        if (!ok)\n"
            "            continue;\n"
            "        for (k = (long)rows[v + c]; k < (long)rows[v + c + 1]; k++)\n"
            "            row &= ((long)index[k] >= lo) & ((long)index[k] <= hi);\n"
            "        ok &= row;\n"
            "    }\n"
            "    return ok;\n"
            "}\n")
    return "".join(out)
