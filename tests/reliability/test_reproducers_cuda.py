"""Issue 15, CUDA side: every reduced reproducer, lifted to CUDA, compiles or is refused at its place.

The programs under issue15/ (the independent check's reproducers, OpenMP side in
test_issue15_openmp.py) and fuzz-found/ (scripts/fuzz.py's, reduced) are all
accepted by the OpenMP target. Lifted to CUDA each must either give a `.cu` that
`nvcc -c` compiles and that, run on the CPU emulation, prints what the original
prints, or stop with a located `file:line:col: error:` naming the construct that
has no C++ spelling (`_Atomic`, for one): never a `.cu` that nvcc rejects.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from lifter import LiftOptions, lift_file
from lifter.diagnostics import LiftError
from tests.e2e.test_corpus_cuda import CXX, build_emulated, emulated_rtol, run_emulated
from tests.harness import needs_nvcc, nvcc_compiles
from tests.harness import REPO, compile_c, have_gcc, outputs_match, run

PROGRAMS = sorted((Path(__file__).parent / "issue15").glob("*.c")) + sorted((REPO / "fuzz-found").glob("*.c"))
# The reproducers whose C has no C++ spelling: a located error, the construct named.
REFUSED = {"atomic_reduction.c": "'_Atomic'", "volatile_atomic.c": "'_Atomic'", "cuda_atomic_global.c": "'_Atomic'"}
# Bugs found and not fixed yet (fuzz-found/README.md): strict, so the mark goes with the fix.
OPEN: dict[str, str] = {}


def _id(p: Path) -> str:
    return f"{p.parent.name}/{p.stem}"


def _lifted_programs():
    """The programs that lift to a .cu, the open bugs marked xfail."""
    return [pytest.param(p, id=_id(p), marks=[pytest.mark.xfail(strict=True, reason=OPEN[p.name])] if p.name in OPEN
                         else []) for p in PROGRAMS if p.name not in REFUSED]


def _lift(program: Path):
    """The `.cu` text, or the LiftError lift stopped with."""
    try:
        return lift_file(str(program), LiftOptions(target="cuda", min_parallel_work=0)).output
    except LiftError as error:
        return error


@pytest.mark.parametrize("program", PROGRAMS, ids=_id)
def test_reproducer_is_refused_at_its_place_or_lifted(program):
    got = _lift(program)
    if program.name in REFUSED:
        assert isinstance(got, LiftError), f"{program.name}: expected a located error, got a .cu"
        assert re.match(rf"{re.escape(str(program))}:\d+:\d+: error: .*{REFUSED[program.name]}", str(got)), str(got)
    else:
        assert isinstance(got, str), f"{program.name}: refused: {got}"


@needs_nvcc
@pytest.mark.parametrize("program", _lifted_programs())
def test_reproducer_compiles_with_nvcc(program, tmp_path):
    nvcc_compiles(tmp_path / f"{program.stem}.cu", _lift(program))


@pytest.mark.skipif(not have_gcc() or shutil.which(CXX) is None, reason="needs gcc and g++")
@pytest.mark.parametrize("program", _lifted_programs())
def test_reproducer_runs_like_the_original_on_emulated_cuda(program, tmp_path):
    text = _lift(program)
    cu, emulated, original = tmp_path / f"{program.stem}.cu", tmp_path / "emu", tmp_path / "orig"
    cu.write_text(text)
    compile_c(program, original, ["-O1", "-std=gnu11"])
    build_emulated(cu, emulated)
    expected, rtol = run(original), emulated_rtol(text)
    for order in ("", "reverse"):
        got = run_emulated(emulated, order)
        assert outputs_match(expected, got, rtol), f"{program.name} (LIFT_EMU_ORDER={order}): {expected!r} != {got!r}"


def test_rows_bounded_only_by_an_inner_variable_keep_a_pointer_nest_on_the_host(tmp_path):
    """cuda_rows_bound_by_inner_variable.c with U3 behind a pointer parameter: no extent to fall
    back to, so the nest stays as written with the reason, and no host code names `uj`."""
    source = (REPO / "fuzz-found" / "cuda_rows_bound_by_inner_variable.c").read_text()
    source = source[source.index("#include"):]  # (the header comment quotes the old output)
    source = source.replace("static void kernel(int m)", "static void kernel(unsigned (*U3)[N], int m)")
    program = tmp_path / "pointer_rows.c"
    program.write_text(source.replace("kernel(6);", "kernel(U3, 6);"))
    text = _lift(program)
    assert "not offloaded to the GPU: the rows of 'U3' the nest touches cannot be bounded" in text
    assert "(long)(uj)" not in text
