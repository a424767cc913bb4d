"""Alias checks over ranges whose bounds are piecewise in the parameters.

A time loop's union of skewed ranges (fdtd2d: `ex[i][j+1]` and `ex[i][j]` over
`0 <= j < ny - 1` give `2 - nx + i <= j` after isl's coalescing) starts at 0 when
nx >= 2 and at 2 - nx otherwise; the check then selects the piece in C. These tests
compare the C text with isl at many parameter values, and run a time-loop kernel
with disjoint and with overlapping arrays (the check fails, the loop as written runs).
"""
import re
import subprocess
from pathlib import Path

import islpy as isl
import pytest

from lifter import lift_source
from lifter.transform.alias_test import piecewise_bound
from tests.harness import CORPUS, compile_c, have_gcc, prepare

SETS = [  # parameters as the analysis names them (v_ + the C name)
    "[v_nx, v_ny] -> { [i, j] : 0 <= i < v_nx and j >= 0 and 2 - v_nx + i <= j < v_ny }",
    "[v_n, v_m] -> { [i, j] : 0 <= i < v_n and (0 <= j < v_m or 5 <= j <= v_n + 3) }",
    "[v_n, v_m] -> { [i, j] : 1 <= i <= v_n and i - v_m <= j <= i + v_m and j >= 0 }",
]


@pytest.mark.skipif(not have_gcc(), reason="gcc not found")
@pytest.mark.parametrize("text", SETS)
def test_piecewise_bounds_in_c_agree_with_isl(text, tmp_path: Path):
    s = isl.Set(text)
    names = [p[2:] for p in s.get_space().get_var_names(isl.dim_type.param)]
    points = [(a, b) for a in range(-2, 9) for b in range(-2, 7)]
    lines, expected = [], []
    for d in range(2):
        for upper in (False, True):
            c = piecewise_bound(s, d, upper)
            assert c is not None
            for a, b in points:
                fixed = s.fix_val(isl.dim_type.param, 0, a).fix_val(isl.dim_type.param, 1, b)
                if fixed.is_empty():
                    continue
                v = (fixed.dim_max_val(d) if upper else fixed.dim_min_val(d)).to_python()
                lines.append(f'{{ long {names[0]} = {a}, {names[1]} = {b}; printf("%ld\\n", (long)({c})); }}')
                expected.append(str(v))
    src = tmp_path / "bounds.c"
    src.write_text("#include <stdio.h>\nint main(void)\n{\n" + "\n".join(lines) + "\nreturn 0;\n}\n")
    compile_c(src, tmp_path / "bounds", ["-O0", "-w"])
    got = subprocess.run([str(tmp_path / "bounds")], capture_output=True, text=True, timeout=60).stdout.split()
    assert got == expected


def test_fdtd2d_time_loop_gets_one_parallel_region():
    # External linkage: the kernel's callers are not all in the file, so its arrays may overlap.
    source = (CORPUS / "stencils/fdtd2d.c").read_text().replace("static void kernel_fdtd2d", "void kernel_fdtd2d")
    out = lift_source(source, "fdtd2d.c").output
    kernel = out[out.index("void kernel_fdtd2d"):out.index("static double checksum")]
    region = kernel.index("#pragma omp parallel ")
    assert kernel.index("if (") < region < kernel.index("for (int t = 0; t < tmax; t++)") < kernel.index("#pragma omp for")
    assert kernel.count("#pragma omp for") == 4


OVERLAP = (CORPUS / "stencils/fdtd2d.c").read_text().split("int main(void)")[0] + r"""
int main(void)
{
    double *buf = malloc(sizeof(double) * (3 * NX * NY + NX * NY / 2));
    double *fict = malloc(TMAX * sizeof(double));
    for (int shared = 0; shared < 2; shared++) {
        /* shared: ey starts in the middle of ex (the fields overlap, lift's check fails) */
        double (*ex)[NY] = (double (*)[NY])buf;
        double (*ey)[NY] = (double (*)[NY])(buf + (shared ? NX * NY / 2 : NX * NY));
        double (*hz)[NY] = (double (*)[NY])(buf + 2 * NX * NY + NX * NY / 2);
        init_array(TMAX, NX, NY, ex, ey, hz, fict);
        kernel_fdtd2d(TMAX, NX, NY, ex, ey, hz, fict);
        printf("%.10e %.10e %.10e\n", checksum(NX, NY, ex), checksum(NX, NY, ey), checksum(NX, NY, hz));
    }
    free(buf);
    free(fict);
    return 0;
}
"""


@pytest.mark.skipif(not have_gcc(), reason="gcc not found")
def test_time_loop_region_with_disjoint_and_overlapping_fields(tmp_path: Path):
    src = tmp_path / "fdtd_overlap.c"
    src.write_text(OVERLAP)
    diff = prepare(src, tmp_path)
    kernel = diff.lifted.read_text().split("static double checksum")[0]
    assert re.search(r"#pragma omp parallel (?!for)", kernel) and "#pragma omp for" in kernel
    for threads in (1, 2, 8, 8):
        diff.check(threads)
