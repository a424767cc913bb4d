"""Issue 15, OpenMP side: the reduced programs of the independent check, differentially.

Each file under issue15/ is a complete program that prints what it computed; its
header comment says what lift did wrong. Each is lifted as a user would (the
default profitability guard) and with every provably parallel loop parallelized
(`min_parallel_work=0`), built with `gcc -O2 -fopenmp` (no -Werror: the point is
that gcc accepts the output and it computes the same), and run at 1, 2 and 8
threads against the original. The outputs that gcc used to reject are also
compiled on their own with `gcc -fopenmp -c`, and a hand-written copy of the old
directive shows that this check does reject what lift used to emit.
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from lifter.driver import LiftOptions, lift_file
from tests.cli_runner import lift as lift_cli
from tests.harness import compile_c, have_gcc, outputs_match, run

CASES = Path(__file__).parent / "issue15"
PROGRAMS = sorted(CASES.glob("*.c"))
# Lift options beyond the defaults, per file.
OPTIONS = {"tile_size_overflow.c": {"tile_sizes": (2147483647,)}}
# The outputs gcc -fopenmp used to reject, with the directive lift wrote then.
REJECTED_BEFORE = ["omp_for_in_single.c", "atomic_reduction.c", "and_condition.c", "struct_member_private.c"]

needs_gcc = pytest.mark.skipif(not have_gcc(), reason="needs gcc")


def _lift(program: Path, min_parallel_work: int) -> str:
    options = LiftOptions(min_parallel_work=min_parallel_work, **OPTIONS.get(program.name, {}))
    return lift_file(str(program), options).output


def _accepts(text: str, workdir: Path) -> subprocess.CompletedProcess:
    """`gcc -fopenmp -c` on `text`, as a user builds the output."""
    source = workdir / "out.c"
    source.write_text(text)
    cc = os.environ.get("CC", "gcc")
    return subprocess.run([cc, "-fopenmp", "-c", str(source), "-o", str(workdir / "out.o")],
                          capture_output=True, text=True)


@needs_gcc
@pytest.mark.parametrize("min_work", [0, 40_000], ids=["all-parallel", "default"])
@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_issue15_program_computes_the_same_at_1_2_and_8_threads(program, min_work, tmp_path):
    original, lifted = tmp_path / "orig", tmp_path / "lifted"
    compile_c(program, original, ["-O1"])
    expected = run(original)
    out = tmp_path / f"{program.stem}.lifted.c"
    out.write_text(_lift(program, min_work))
    compile_c(out, lifted, ["-O2", "-fopenmp"])
    for threads in (1, 2, 8):
        got = run(lifted, threads)
        assert outputs_match(expected, got, 1e-9), \
            f"{program.name} at {threads} threads: expected {expected!r}, got {got!r}\n{out.read_text()}"


@needs_gcc
@pytest.mark.parametrize("name", REJECTED_BEFORE)
def test_issue15_output_that_gcc_rejected_now_compiles(name, tmp_path):
    for min_work in (0, 40_000):
        text = _lift(CASES / name, min_work)
        done = _accepts(text, tmp_path)
        assert done.returncode == 0, f"gcc -fopenmp -c rejects the output for {name}:\n{done.stderr}\n{text}"


@needs_gcc
@pytest.mark.parametrize("directive", [
    "#pragma omp parallel for reduction(+: counter)\nfor (int i = 0; i < 100; i++) counter += 1;",
    "#pragma omp parallel for simd\nfor (int i = 0; i < n && i < m; i++) a[i] = 0;",
    "#pragma omp parallel for private(d.x)\nfor (int i = 0; i < 100; i++) { d.x = i; a[i] = d.x; }",
    "#pragma omp single\n{ f();\n#pragma omp for\nfor (int i = 0; i < 100; i++) a[i] = 0;\n}",
], ids=["atomic-reduction", "and-condition", "member-private", "for-in-single"])
def test_the_compile_check_rejects_what_lift_emitted_before(directive, tmp_path):
    text = ("_Atomic int counter; int n, m; double a[100]; struct { int x; } d; void f(void);\n"
            f"void g(void) {{\n#pragma omp parallel\n{{\n{directive}\n}}\n}}\n")
    assert _accepts(text, tmp_path).returncode != 0


def test_absurd_tile_sizes_are_a_command_line_error(tmp_path):
    done = lift_cli(CASES / "tile_size_overflow.c", "-o", tmp_path / "out.c", "--tile-sizes", "2147483647")
    assert done.code != 0 and "--tile-sizes" in done.stderr
    assert not (tmp_path / "out.c").exists()


def test_tile_loops_cannot_overflow_their_variable():
    text = _lift(CASES / "tile_size_overflow.c", 0)
    assert "+= 2147483647" not in text and "+= 300)" in text  # cut to the trip count: one tile
    assert "for (int i_t" not in text  # the tile variable is at least a long


def test_empty_nests_do_not_crash_any_pass():
    for options in (LiftOptions(), LiftOptions(opt_level=1), LiftOptions(tile=False), LiftOptions(tile_sizes=(4,)),
                    LiftOptions(target="cuda")):
        lift_file(str(CASES / "empty_nest.c"), options)


def test_loop_variables_read_after_the_nest_are_never_private():
    """The loops whose variable the statement after the nest reads stay sequential, with the reason."""
    result = lift_file(str(CASES / "ivar_after_distributed.c"), LiftOptions(min_parallel_work=0))
    by_var = {e["var"]: e for e in result.loops}
    assert not by_var["i"]["parallelized"]
    assert "'i' is used after the loop" in by_var["i"]["remark"]
    assert "distribution" not in by_var["t"].get("transformations", [])
