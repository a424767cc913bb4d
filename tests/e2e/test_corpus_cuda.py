"""Every corpus program, lifted to CUDA: nvcc compiles it, and run on the CPU (g++ with
lifter/backend/cuda_emulation.h) it prints what the original prints.

No GPU is needed: the emulation runs every kernel's blocks and threads one after the
other (in index order, then again in reverse order, so that a kernel whose result depends
on the order of its threads shows), with device memory kept apart from host memory (and
poisoned until copied), so a missing or misplaced copy changes the output. Numbers may differ by rounding only where a
reduction was offloaded (block-level trees and atomics add in another order).
"""
import functools
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import lifter.backend
from lifter import LiftOptions, lift_file
from tests.harness import (REDUCTION_RTOL, RUN_TIMEOUT_S, compile_c, corpus_programs, needs_nvcc, nvcc_compiles,
                           outputs_match, run)

PROGRAMS = corpus_programs()
EMULATION = Path(lifter.backend.__file__).parent / "cuda_emulation.h"
CXX = os.environ.get("CXX", "g++")


@functools.lru_cache(maxsize=None)
def lifted(program: Path) -> str:
    return lift_file(str(program), LiftOptions(target="cuda", min_parallel_work=0)).output


def ids(p: Path) -> str:
    return str(p.relative_to(p.parents[1]))


@pytest.mark.skipif(shutil.which(CXX) is None, reason=f"{CXX} not found (needed to run the emulated CUDA)")
@pytest.mark.parametrize("program", PROGRAMS, ids=ids)
def test_corpus_program_runs_like_the_original_on_emulated_cuda(program, tmp_path):
    text = lifted(program)
    cu = tmp_path / f"{program.stem}.cu"
    cu.write_text(text, encoding="utf-8", errors="surrogateescape")
    original = tmp_path / f"{program.stem}.orig"
    compile_c(program, original, ["-O1", "-std=gnu11"])
    emulated = tmp_path / f"{program.stem}.emu"
    build_emulated(cu, emulated)
    expected = run(original)
    rtol = emulated_rtol(text)
    for order in ("", "reverse"):  # threads in index order, then reversed: exposes order dependence
        got = run_emulated(emulated, order)
        assert outputs_match(expected, got, rtol), (
            f"{program}: emulated CUDA output differs (LIFT_EMU_ORDER={order})\n--- original\n{expected}--- cuda\n{got}")


def build_emulated(cu: Path, exe: Path) -> None:
    """Build the lifted `cu` for the CPU: g++ with the emulation of the CUDA runtime."""
    done = subprocess.run([CXX, "-O1", "-x", "c++", "-include", str(EMULATION), str(cu), "-o", str(exe), "-lm"],
                          capture_output=True, text=True)
    assert done.returncode == 0, f"{CXX} (CUDA emulation) failed on {cu}:\n{done.stderr[-4000:]}"


def emulated_rtol(text: str) -> float:
    """Offloaded reductions (block trees, atomics) add in another order than the original."""
    return REDUCTION_RTOL if "lift_block_reduce(lift_op_" in text or "lift_atomic_update(lift_op_" in text else 0.0


def run_emulated(exe: Path, order: str) -> str:
    done = subprocess.run([str(exe)], capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                          env=dict(os.environ, LIFT_EMU_ORDER=order))
    assert done.returncode == 0, f"{exe} (LIFT_EMU_ORDER={order}) exited with {done.returncode}:\n{done.stderr[-4000:]}"
    return done.stdout


@needs_nvcc
@pytest.mark.parametrize("program", PROGRAMS, ids=ids)
def test_corpus_program_compiles_with_nvcc(program, tmp_path):
    nvcc_compiles(tmp_path / f"{program.stem}.cu", lifted(program), host=False)


def test_most_corpus_programs_offload_a_kernel():
    offloading = [p for p in PROGRAMS if "__global__ void kernel_" in lifted(p)]
    assert len(offloading) >= 0.8 * len(PROGRAMS), sorted(set(PROGRAMS) - set(offloading))


HEAT = Path(__file__).resolve().parents[2] / "corpus" / "apps" / "heat"


@functools.lru_cache(maxsize=None)
def lifted_app(source: Path) -> str:
    return lift_file(str(source), LiftOptions(target="cuda", min_parallel_work=0)).output


@pytest.mark.skipif(shutil.which(CXX) is None or shutil.which("gcc") is None, reason="needs g++ and gcc")
def test_multi_file_app_runs_like_the_original_and_links_with_c_objects(tmp_path):
    """Each file of corpus/apps/heat lifted on its own: its project headers (with variable-length
    array parameters, which C++ lacks) are inlined as C++ with C linkage, so the .cu files link
    with each other and with objects compiled from the C files."""
    sources = sorted(HEAT.glob("*.c"))
    original = tmp_path / "heat_orig"
    subprocess.run(["gcc", "-O1", "-std=gnu11", *map(str, sources), "-o", str(original), "-lm"], check=True)
    expected = run(original)
    objects = {}
    for src in sources:
        text = lifted_app(src)
        assert f'/* lift: "{"solver.h" if src.stem != "grid" else "grid.h"}" inlined as C++, with C linkage */' in text
        cu = tmp_path / f"{src.stem}.cu"  # away from the headers: they must not be needed
        cu.write_text(text, encoding="utf-8", errors="surrogateescape")
        obj = tmp_path / f"{src.stem}.o"
        done = subprocess.run([CXX, "-O1", "-x", "c++", "-include", str(EMULATION), "-c", str(cu), "-o", str(obj)],
                              capture_output=True, text=True)
        assert done.returncode == 0, f"{cu}:\n{done.stderr[-4000:]}"
        objects[src.stem] = obj
    assert any("__global__ void kernel_" in lifted_app(s) for s in sources)
    emulated = tmp_path / "heat_emu"
    subprocess.run([CXX, *map(str, objects.values()), "-o", str(emulated), "-lm"], check=True)
    assert outputs_match(expected, run_emulated(emulated, ""), 0.0)
    # grid.c compiled as C, the others as (emulated) CUDA: the linkage agrees
    grid_c = tmp_path / "grid_c.o"
    subprocess.run(["gcc", "-O1", "-std=gnu11", "-c", str(HEAT / "grid.c"), "-o", str(grid_c)], check=True)
    mixed = tmp_path / "heat_mixed"
    subprocess.run([CXX, str(objects["main"]), str(objects["solver"]), str(grid_c), "-o", str(mixed), "-lm"],
                   check=True)
    assert outputs_match(expected, run_emulated(mixed, "reverse"), 0.0)


@needs_nvcc
@pytest.mark.parametrize("source", sorted(HEAT.glob("*.c")), ids=lambda p: f"heat/{p.name}")
def test_multi_file_app_compiles_with_nvcc(source, tmp_path):
    nvcc_compiles(tmp_path / f"{source.stem}.cu", lifted_app(source))
