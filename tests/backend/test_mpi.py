"""The MPI target: corpus stencils and dense kernels at 1-4 ranks print what the original prints,
and the halo bytes each rank sends per step are those the access ranges predict (checked on the
same runs: mpirun's start dominates this module's time).

Built with `mpicc -fopenmp -DLIFT_MPI_PROFILE` (each rank reports its bytes on stderr at exit)
and run with `mpirun -np N --oversubscribe`, one OpenMP thread per rank. Skipped where Open MPI
is not installed (.ci/run installs it).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from lifter import LiftOptions, lift_file, lift_source
from lifter.frontend.preprocess import PreprocessOptions
from tests.harness import CORPUS, REDUCTION_RTOL, compile_c, has_float_reduction, outputs_match, run

pytestmark = pytest.mark.skipif(not (shutil.which("mpicc") and shutil.which("mpirun")),
                                reason="Open MPI (mpicc, mpirun) is not installed")

RANKS = (1, 2, 3, 4)
DOUBLE = 8
_PROFILE = re.compile(r"lift-mpi: rank (\d+) of (\d+): halo (\d+) bytes, gather (\d+) bytes")

# program -> the functions whose loops must run distributed (the kernels whose arrays allow it;
# atax's and bicg's kernels run replicated: their loops are parallel only under a run-time test)
PROGRAMS = {
    "stencils/jacobi1d.c": ["kernel_jacobi1d"],
    "stencils/jacobi2d.c": ["kernel_jacobi2d"],
    "stencils/heat3d.c": ["kernel_heat3d"],
    "stencils/fdtd2d.c": ["kernel_fdtd2d"],
    "linalg/gemm.c": ["kernel_gemm"],
    "linalg/two_mm.c": ["kernel_2mm"],
    "linalg/gemv.c": ["kernel_gemv"],
    "linalg/mvt.c": ["kernel_mvt"],
    "linalg/atax.c": [],
    "linalg/bicg.c": [],
}


def lift_mpi(source: Path, workdir: Path) -> tuple[Path, list[dict]]:
    """Lift with the MPI target (no profitability threshold, so the small sizes distribute) and build."""
    result = lift_file(str(source), LiftOptions(target="mpi", min_parallel_work=0))
    lifted = workdir / f"{source.stem}.mpi.c"
    lifted.write_text(result.output, encoding="utf-8", errors="surrogateescape")
    exe = workdir / f"{source.stem}.mpi"
    done = subprocess.run(["mpicc", "-O2", "-std=gnu11", "-fopenmp", "-Wall", "-Werror", "-Wno-unknown-pragmas",
                           "-DLIFT_MPI_PROFILE", str(lifted), "-o", str(exe), "-lm"], capture_output=True, text=True)
    assert done.returncode == 0, f"mpicc failed on {lifted}:\n{done.stderr}"
    return exe, result.loops


def run_mpi(exe: Path, ranks: int) -> tuple[str, dict[int, tuple[int, int]]]:
    """Standard output, and per rank (halo bytes, gather bytes) sent."""
    # Each mpirun its own TMPDIR, short enough for its sockets' paths: runs started at once (these
    # tests overlap them, and so does xdist) otherwise clash in Open MPI's session directory
    # ("orte_session_dir failed").
    with tempfile.TemporaryDirectory(prefix="ompi") as session:
        env = dict(os.environ, OMP_NUM_THREADS="1", OMP_WAIT_POLICY="PASSIVE", OMPI_ALLOW_RUN_AS_ROOT="1",
                   OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1", TMPDIR=session)
        done = subprocess.run(["mpirun", "--oversubscribe", "-np", str(ranks), str(exe)], capture_output=True,
                              text=True, timeout=120, env=env)
    assert done.returncode == 0, f"{exe} at {ranks} ranks exited with {done.returncode}:\n{done.stderr}"
    profile = {int(m[1]): (int(m[3]), int(m[4])) for m in _PROFILE.finditer(done.stderr)}
    assert len(profile) == ranks, done.stderr
    return done.stdout, profile


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_corpus_kernel_matches_original_at_1_to_4_ranks(program, tmp_path):
    source = CORPUS / program
    original = tmp_path / "original"
    compile_c(source, original, ["-O2", "-std=gnu11"])
    reference = run(original)
    exe, loops = lift_mpi(source, tmp_path)
    distributed = {e["function"] for e in loops if "distributed over the MPI ranks" in e["remark"]}
    assert set(PROGRAMS[program]) <= distributed, [e["remark"] for e in loops]
    rtol = REDUCTION_RTOL if has_float_reduction(loops) else 0.0
    with ThreadPoolExecutor(len(RANKS)) as pool:  # mpirun's start is waiting, not work: overlap it
        runs = list(pool.map(lambda ranks: run_mpi(exe, ranks), RANKS))
    for ranks, (out, profile) in zip(RANKS, runs):
        assert outputs_match(reference, out, rtol), f"{program} at {ranks} ranks:\n{reference}---\n{out}"
        if ranks == 1:
            assert profile == {0: (0, 0)}  # one rank exchanges nothing
        elif program in HALOS:  # the halo bytes each rank sent are those the ranges predict
            halos, steps = HALOS[program]
            assert {r: h for r, (h, _) in profile.items()} == predicted_halo(halos, ranks, steps), ranks


def _blocks(lb: int, end: int, ranks: int) -> list[tuple[int, int]]:
    """The blocks of [lb, end) the runtime gives each rank (the first count % ranks one longer)."""
    n = max(end - lb, 0)
    q, rem = divmod(n, ranks)
    out = []
    for r in range(ranks):
        lo = lb + r * q + min(r, rem)
        out.append((lo, lo + q + (1 if r < rem else 0)))
    return out


def predicted_halo(halos, ranks: int, steps: int) -> dict[int, int]:
    """Bytes each rank sends: for every array, the rows reader block r reads ([lo + a, hi + b))
    that writer block q != r wrote, times the row size, once per step."""
    sent = dict.fromkeys(range(ranks), 0)
    for writer, reader, (a, b), row in halos:
        wrote, read = _blocks(*writer, ranks), _blocks(*reader, ranks)
        for q, (wlo, whi) in enumerate(wrote):
            for r, (rlo, rhi) in enumerate(read):
                if q != r and rlo < rhi:
                    sent[q] += max(0, min(whi, rhi + b) - max(wlo, rlo + a)) * row
    return {q: v * steps for q, v in sent.items()}


# (writer loop range, reader loop range, read rows relative to the reader's block, row bytes),
# from the sources at their default sizes; and the number of time steps.
HALOS = {
    "stencils/jacobi1d.c": ([((1, 399), (1, 399), (-1, 1), DOUBLE)] * 2, 20),  # A and B, N=400
    "stencils/jacobi2d.c": ([((1, 59), (1, 59), (-1, 1), 60 * DOUBLE)], 10),  # A (B: own rows), N=60
    "stencils/heat3d.c": ([((1, 23), (1, 23), (-1, 1), 24 * 24 * DOUBLE)] * 2, 10),  # N=24
    "stencils/fdtd2d.c": ([((0, 59), (1, 60), (-1, 0), 70 * DOUBLE),  # hz[i-1] in ey's sweep
                           ((1, 60), (0, 59), (0, 1), 70 * DOUBLE)], 20),  # ey[i+1] in hz's sweep
}


def test_more_ranks_than_rows_leaves_blocks_empty(tmp_path):
    source = tmp_path / "tiny.c"
    source.write_text(
        "#include <stdio.h>\n"
        "static double a[3][4], b[3][4];\n"
        "int main(void) {\n"
        "    for (int t = 0; t < 3; t++) {\n"
        "        for (int i = 0; i < 3; i++)\n"
        "            for (int j = 0; j < 4; j++)\n"
        "                b[i][j] = (i > 0 ? a[i - 1][j] : 1.0) + (i < 2 ? a[i + 1][j] : 2.0) + t;\n"
        "        for (int i = 0; i < 3; i++)\n"
        "            for (int j = 0; j < 4; j++)\n"
        "                a[i][j] = 0.5 * b[i][j];\n"
        "    }\n"
        "    for (int i = 0; i < 3; i++)\n"
        "        printf(\"%g %g\\n\", a[i][0], a[i][3]);\n"
        "    return 0;\n"
        "}\n")
    compile_c(source, tmp_path / "orig", ["-O2"])
    reference = run(tmp_path / "orig")
    exe, loops = lift_mpi(source, tmp_path)
    assert any("distributed over the MPI ranks" in e["remark"] for e in loops)
    for ranks in (4,):
        out, _ = run_mpi(exe, ranks)
        assert out == reference


def test_region_that_cannot_be_distributed_runs_replicated_with_a_remark():
    text = ("void f(int n, double *a, double *b) {\n"
            "    for (int i = 1; i < n; i++)\n"
            "        a[i] = a[i - 1] + b[i];\n"
            "}\n")
    result = lift_source(text, "f.c", LiftOptions(target="mpi", min_parallel_work=0,
                                                   preprocess=PreprocessOptions()))
    assert "runs replicated on every MPI rank" in result.loops[0]["remark"]
    assert "MPI_Isend" in result.output  # the runtime is there, unused
    assert "lift_mpi_block(" not in result.output.split("void f(")[1]


def test_pointer_swap_in_the_time_loop_keeps_the_region_replicated(tmp_path):
    """After `a = b`, the rows a rank owns of `a` are in the other buffer: no distribution."""
    source = tmp_path / "swap.c"
    source.write_text(
        "#include <stdio.h>\n#include <stdlib.h>\n"
        "static void step(int n, int T, double *restrict a, double *restrict b) {\n"
        "    for (int t = 0; t < T; t++) {\n"
        "        for (int i = 1; i < n - 1; i++)\n"
        "            b[i] = 0.5 * (a[i - 1] + a[i + 1]);\n"
        "        double *tmp = a; a = b; b = tmp;\n"
        "    }\n"
        "    printf(\"%f %f\\n\", a[n / 2], b[n / 3]);\n"
        "}\n"
        "int main(void) {\n"
        "    int n = 100;\n"
        "    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);\n"
        "    if (!a || !b) return 1;\n"
        "    for (int i = 0; i < n; i++) a[i] = b[i] = i % 7;\n"
        "    step(n, 10, a, b);\n"
        "    return 0;\n"
        "}\n")
    compile_c(source, tmp_path / "orig", ["-O2"])
    exe, loops = lift_mpi(source, tmp_path)
    assert "changes where" in next(e for e in loops if e["line"] == 4)["remark"]
    assert run_mpi(exe, 2)[0] == run(tmp_path / "orig")


def test_command_line_picks_the_target_from_the_mpi_extension(tmp_path):
    from tests.cli_runner import lift as lift_command
    out = tmp_path / "jacobi2d.mpi.c"
    done = lift_command(CORPUS / "stencils/jacobi2d.c", "-o", out)
    assert done.code == 0, done.stderr
    assert "#include <mpi.h>" in out.read_text() and "lift_mpi_setup();" in out.read_text()
    assert b"#include <mpi.h>" in lift_command(CORPUS / "stencils/jacobi2d.c", "--target", "mpi").stdout


def test_runtime_follows_the_feature_test_macros(tmp_path):
    """`_POSIX_C_SOURCE` must precede every system header, the MPI runtime's too."""
    source = tmp_path / "posix.c"
    source.write_text("/* a program */\n#define _POSIX_C_SOURCE 199309L\n#include <time.h>\n#include <stdio.h>\n"
                      "int main(void) {\n    struct timespec ts;\n    clock_gettime(CLOCK_MONOTONIC, &ts);\n"
                      "    printf(\"%d\\n\", ts.tv_sec >= 0);\n    return 0;\n}\n")
    exe, _ = lift_mpi(source, tmp_path)
    assert run_mpi(exe, 2)[0] == "1\n"
