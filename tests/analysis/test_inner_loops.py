"""Loops with bounds read from memory, inside an opaque leaf, get a verdict of their own
(analysis/inner_loops.py) when nothing in them can change what their bounds read."""
import pytest

from lifter import lift_source

CSR = """
void spmv(int n, const int *rowptr, const int *col, const double *val, const double *x, double *Y y)
{
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int p = rowptr[i]; p < rowptr[i + 1]; p++)
            %s
        y[i] = s;
    }
}
"""


def entry(body: str, y: str = "") -> dict | None:
    loops = lift_source((CSR % body).replace("Y ", y), "csr.c").loops
    return next((e for e in loops if e["line"] == 6), None)


def test_csr_row_loop_is_a_reduction():
    e = entry("s += val[p] * x[col[p]];")
    assert e["parallel"] and not e["parallelized"] and e["depth"] == 1
    assert e["reduction"] == [{"variable": "s", "operator": "+"}]
    assert "bounds are read from memory" in e["remark"]


def test_carried_dependence_inside_is_found():
    e = entry("{ s += val[p]; y[p + 1] = y[p] * 2.0; }", y="restrict ")
    assert not e["parallel"] and "y" in e["reason"]


@pytest.mark.parametrize("body", [
    "{ s += val[p]; ((int *)rowptr)[i + 1] = 0; }",  # writes what the bound reads (through a cast)
    "{ s += val[p]; y[p] = 0.0; }",  # y may point into rowptr's memory
    "{ s += val[p]; i = p; }",  # writes a name the bounds use
    "{ s += val[p]; rowptr = col; }",
    "{ s += val[p]; unknown(p); }",  # a call may write anything
], ids=["cast-write", "pointer-write", "bound-variable", "bound-pointer", "call"])
def test_loops_that_may_change_their_bounds_have_no_verdict(body):
    text = "void unknown(int);\n" + (CSR % body).replace("Y ", "")
    loops = lift_source(text, "csr.c").loops
    assert not any(e["line"] == 7 and e["parallel"] for e in loops)  # the loop, on line 7 after the declaration
    assert entry("{ s += val[p]; y[p] = 0.0; }", y="restrict ")["parallel"]  # the same, provably apart


def test_nested_memory_bounded_loops_are_reported_at_their_depth():
    text = """
void f(int n, const int *a, const int *b, double *restrict out)
{
    for (int i = 0; i < n; i++)
        for (int p = a[i]; p < a[i + 1]; p++)
            for (int q = b[p]; q < b[p + 1]; q++)
                out[q] += 1.0;
}
"""
    loops = {e["line"]: e for e in lift_source(text, "nested.c").loops}
    assert loops[5]["depth"] == 1 and loops[6]["depth"] == 2
    assert loops[6]["parallel"] and not loops[6]["parallelized"]
    # Rows p may share elements out[q]: parallel only as a reduction into out (issue 16).
    assert loops[5]["reduction"] == [{"variable": "out", "operator": "+"}]


# Loops that stay opaque leaves with no model of their own: a break out of a loop whose bounds
# read memory (a cell scan), and the loops inside a loop that a break leaves early.
EVERY_LOOP = """
void scan(int n, const int *start, const int *atoms, double *f)
{
    for (int i = 0; i < n; i++) {
        for (int c = 0; c < 3; c++) {
            for (int k = start[c]; k < start[c + 1]; k++) {
                int j = atoms[k];
                if (j >= i)
                    break;
                f[i] += j;
            }
        }
    }
}

void search(int n, int m, const double *a, int *first)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < m; j++) {
            if (a[i * m + j] > 0.5) {
                first[i] = j;
                break;
            }
            for (int r = 0; r < 2; r++)
                first[i] += r;
        }
    }
}
"""


def test_every_loop_gets_an_entry():
    from lifter import LiftOptions, lift_source

    entries = {(e["line"], e["var"]): e for e in lift_source(EVERY_LOOP, "e.c", LiftOptions()).loops}
    lines = [k + 1 for k, text in enumerate(EVERY_LOOP.splitlines()) if text.strip().startswith("for (")]
    assert sorted(line for line, _ in entries) == lines
    cell = entries[(6, "k")]
    assert not cell["parallelized"] and cell["reason"].startswith("loop header"), cell["reason"]
    nested = entries[(24, "r")]
    assert not nested["parallelized"] and nested["reason"].startswith("inside the loop over 'j' (line 19)")
