"""Parameters every call passes one integer constant (analysis/call_constants.py), and what
parallelize does with them: a loop too small at those sizes is not parallelized at all, so a
suite kernel at a size where no loop pays has no OpenMP construct and needs no OpenMP runtime."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from pycparser import c_parser

from lifter import LiftOptions, lift_source
from lifter.analysis.symbols import SymbolTable, Typedefs
from lifter.frontend.preprocess import PreprocessOptions
from lifter.transform.parallelize import MIN_PARALLEL_WORK
from tests.harness import CORPUS, REDUCTION_RTOL, have_gcc, prepare
from tests.outputs import outputs_match

CALLS = """
static void kernel(int tsteps, int n, long m, double *a) { for (int i = 0; i < n; i++) a[i] = tsteps + m; }
static void twice(int n, double *a) { for (int i = 0; i < n; i++) a[i] = 0; }
static void written(int n, double *a) { n = n - 1; a[n] = 0; }
static void pointed(int n, double *a) { a[0] = n; }
static void unused(int n, double *a) { a[0] = n; }
void exported(int n, double *a) { a[0] = n; }
static void vla(int n, double a[n]) { a[0] = n; }
static void tabled(int n, double *a) { a[0] = n; }
static void (*table[])(int, double *) = {tabled};
int main(void)
{
    double a[4096];
    int k = 3;
    void (*f)(int, double *) = pointed;
    kernel(2 * 250, 4000 - 2 + 2, 1L << 4, a);
    twice(10, a);
    twice(20, a);
    written(10, a);
    pointed(10, a);
    f(20, a);
    exported(10, a);
    vla(k, a);
    tabled(10, a);
    return 0;
}
"""


def _sizes(text: str) -> dict:
    ast = c_parser.CParser().parse(text)
    return SymbolTable(ast, Typedefs(ast)).call_sizes


def test_static_function_called_with_constants_knows_them_per_call():
    sizes = _sizes(CALLS)
    assert sizes["kernel"] == [{"tsteps": 500, "n": 4000, "m": 16}]
    assert sizes["twice"] == [{"n": 10}, {"n": 20}]


def test_unknown_where_the_function_may_be_called_from_elsewhere_or_changes_its_parameter():
    sizes = _sizes(CALLS)
    # assigned in the body; its address escapes (in main, in a file-scope table); never called;
    # external; a variable
    for name in ("written", "pointed", "tabled", "unused", "exported", "vla"):
        assert name not in sizes, name


def _lifted(program, flags):
    options = LiftOptions(preprocess=PreprocessOptions(defines=[f[2:] for f in flags]))
    return lift_source(program.read_text(), str(program), options)


def _flags(program, line: int) -> list[str]:
    text = program.read_text().splitlines()[line]
    return text[text.index(":") + 1:].rstrip(" */").split()


def test_loops_too_small_at_the_call_sizes_are_not_parallelized_and_say_so():
    """jacobi_1d at its medium size (N = 2000): each sweep is 1,998 iterations, the parallel region
    around the time loop started no team at run time anyway (its test folded to false); now the
    remark says why at lift time and the output has no parallel construct."""
    program = CORPUS / "suite" / "jacobi_1d.c"
    result = _lifted(program, _flags(program, 0))
    assert "omp parallel" not in result.output and "omp for" not in result.output
    sweeps = [e for e in result.loops if e.get("function") == "kernel_jacobi_1d" and e["var"] == "i"]
    assert len(sweeps) == 2 and all(
        not e["parallelized"] and "about 1998 iterations of work at the sizes its calls pass (n = 2000)"
        in e["remark"] for e in sweeps), sweeps


def test_a_loop_too_small_at_every_call_is_not_parallelized_whatever_the_calls_differ_in():
    """bicg's dump1 sums a vector of M and one of N elements: at the medium size (1900 and 2100)
    both are below the threshold, so its loop stays sequential; at 50,000 and 2100 the larger
    call pays and the loop keeps its guard."""
    program = CORPUS / "suite" / "bicg.c"
    for flags, parallel in ((["-DM=1900", "-DN=2100"], False), (["-DM=50000", "-DN=2100"], True)):
        entry = next(e for e in _lifted(program, flags).loops if e.get("function") == "dump1")
        assert entry["parallelized"] == parallel, entry
        if not parallel:
            assert "at the sizes its calls pass (n = 1900 or 2100)" in entry["remark"], entry


def test_a_run_time_size_keeps_its_guard():
    """The same kernel called with a size read at run time: the guard stays a test in C."""
    program = CORPUS / "suite" / "jacobi_1d.c"
    text = program.read_text().replace("kernel_jacobi_1d(TSTEPS, N, A, B);",
                                       "int n = N;\n    kernel_jacobi_1d(TSTEPS, n, A, B);")
    assert text != program.read_text()
    output = lift_source(text, str(program), LiftOptions()).output
    assert "#pragma omp parallel" in output and "lift_team_worth(" in output


def _links_as_needed() -> bool:
    """gcc passes --as-needed to the linker by default (Debian's, Ubuntu's): unused libraries drop."""
    if not have_gcc() or shutil.which("ldd") is None:
        return False
    return "--as-needed" in subprocess.run(["gcc", "-dumpspecs"], capture_output=True, text=True).stdout


@pytest.mark.skipif(not _links_as_needed(), reason="needs gcc linking --as-needed, and ldd")
@pytest.mark.parametrize("line", [0, None], ids=["medium", "small"])
def test_a_kernel_whose_loops_never_pay_builds_without_the_openmp_runtime(line, tmp_path):
    """jacobi_1d at its medium and small sizes, built with -fopenmp: nothing references libgomp,
    so with the linker's --as-needed (the distribution's default) the binary does not load it
    (loading it moved the heap and cost 4-5% at the medium size); it prints what the serial
    build prints."""
    program = CORPUS / "suite" / "jacobi_1d.c"
    flags = _flags(program, line) if line is not None else []
    (tmp_path / "lifted.c").write_text(_lifted(program, flags).output)
    outputs = {}
    for name, source, extra in (("lifted", tmp_path / "lifted.c", ["-fopenmp"]), ("serial", program, [])):
        exe = tmp_path / name
        subprocess.run(["gcc", "-O2", *extra, *flags, "-o", exe, source, "-lm"], check=True)
        outputs[name] = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
        if name == "lifted":
            libraries = subprocess.run(["ldd", exe], check=True, capture_output=True, text=True).stdout
            assert "libgomp" not in libraries, libraries
    assert outputs_match(outputs["serial"], outputs["lifted"], REDUCTION_RTOL)


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
def test_a_loop_too_small_inside_a_parallel_region_runs_in_single_with_its_simd_inside(tmp_path):
    """fdtd_2d at its medium size: the row `ey[0][j] = fict[t]` (600 iterations a step) is too small
    at the call sizes, so inside the region around the time loop it runs in `omp single`; its
    `omp simd` goes inside the single's block (before it, gcc rejected the file: a directive must
    precede a `for`). Prints what the original prints at 1, 2 and 8 threads."""
    program = CORPUS / "suite" / "fdtd_2d.c"
    diff = prepare(program, tmp_path, [f[2:] for f in _flags(program, 0)], min_parallel_work=MIN_PARALLEL_WORK)
    assert re.search(r"#pragma omp single /\* lift \*/\n\s*\{\n\s*#pragma omp simd /\* lift \*/\n\s*for \(j = 0; j < ny",
                     diff.lifted.read_text())
    for threads in (1, 2, 8):
        diff.check(threads)


def test_a_loop_that_runs_no_iteration_at_the_call_sizes_is_not_profitable():
    """Work 0 at the call's sizes (n = 5: `i < n - 10` runs no iteration) is a constant too."""
    text = """static void f(int n, double *a) { for (int i = 0; i < n - 10; i++) a[i] = i; }
int main(void) { static double a[100]; f(5, a); return (int)a[0]; }
"""
    loop = lift_source(text, "k.c", LiftOptions()).loops[0]
    assert not loop["parallelized"] and "about 0 iterations of work at the sizes its calls pass (n = 5)" \
        in loop["remark"], loop
