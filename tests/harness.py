"""Differential testing: build and run the original and lift's output, compare what they print.

The original is built with `gcc -O2`, the output with `gcc -O2 -fopenmp`, and both
are run; their standard outputs must match. Numbers may differ only by rounding,
and only where lift parallelized a floating-point reduction (the report says so):
then numeric tokens are compared with a relative tolerance.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from lifter import LiftOptions, lift_file, lift_source
from lifter.frontend.preprocess import PreprocessOptions
from tests.outputs import REDUCTION_RTOL, has_float_reduction, outputs_match  # noqa: F401  (re-exported for the tests)

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "corpus"
RUN_TIMEOUT_S = 60


def corpus_programs() -> list[Path]:
    """Single-file corpus programs (corpus/apps holds multi-file applications with Makefiles)."""
    return sorted(p for p in CORPUS.rglob("*.c") if "apps" not in p.relative_to(CORPUS).parts)


def compile_c(source: Path, exe: Path, flags: list[str]) -> None:
    cc = os.environ.get("CC", "gcc")
    done = subprocess.run([cc, *flags, str(source), "-o", str(exe), "-lm"], capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError(f"{cc} failed on {source}:\n{done.stderr}")


def run(exe: Path, threads: int | None = None) -> str:
    env = dict(os.environ)
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
        if threads > (os.cpu_count() or 1):
            # Oversubscribed threads that spin at barriers starve each other: sleep instead.
            env["OMP_WAIT_POLICY"] = "PASSIVE"
    done = subprocess.run([str(exe)], capture_output=True, text=True, timeout=RUN_TIMEOUT_S, env=env)
    if done.returncode != 0:
        raise AssertionError(f"{exe} exited with {done.returncode}:\n{done.stderr}")
    return done.stdout


@dataclass
class Differential:
    """One program, built both ways, ready to run and compare."""

    original: Path
    lifted: Path
    loops: list[dict]
    original_exe: Path
    lifted_exe: Path
    reference: str

    @property
    def rtol(self) -> float:
        return REDUCTION_RTOL if has_float_reduction(self.loops) else 0.0

    def check(self, threads: int) -> str:
        out = run(self.lifted_exe, threads)
        assert outputs_match(self.reference, out, self.rtol), (
            f"{self.original} with OMP_NUM_THREADS={threads}: lifted output differs\n"
            f"--- original\n{self.reference}--- lifted\n{out}")
        return out


def prepare(source: Path, workdir: Path, defines: list[str] = (), target: str = "openmp",
            min_parallel_work: int = 0, tile_sizes: tuple[int, ...] = (), std: str = "c11",
            assume_no_alias: bool = False, opt_level: int = 2) -> Differential:
    """Lift `source`, then build the original and the output.

    The profitability guard is off by default here, so that every loop the
    analysis calls parallel really runs in parallel at the tests' small sizes.
    """
    options = LiftOptions(target=target, preprocess=PreprocessOptions(defines=list(defines), std=std),
                          min_parallel_work=min_parallel_work, tile_sizes=tuple(tile_sizes),
                          assume_no_alias=assume_no_alias, opt_level=opt_level)
    result = lift_file(str(source), options)
    lifted = workdir / f"{source.stem}.lifted.c"
    lifted.write_text(result.output, encoding="utf-8", errors="surrogateescape")
    dflags = [f"-D{d}" for d in defines]
    original_exe, lifted_exe = workdir / f"{source.stem}.orig", workdir / f"{source.stem}.lift"
    compile_c(source, original_exe, ["-O2", "-std=gnu11", *dflags])
    # Markers such as `#pragma scop` are kept in the output; compilers only warn that they ignore them.
    compile_c(lifted, lifted_exe, ["-O2", "-std=gnu11", "-fopenmp", "-Wall", "-Werror", "-Wno-unknown-pragmas",
                                   *dflags])
    return Differential(source, lifted, result.loops, original_exe, lifted_exe, run(original_exe))


def loops_by_function(text: str, target: str = "openmp") -> dict[str, list[dict]]:
    """The report entries of a test program lifted with the profitability guard off, per function."""
    out: dict[str, list[dict]] = {}
    for e in lift_source(text, "test.c", LiftOptions(target=target, min_parallel_work=0)).loops:
        out.setdefault(e["function"], []).append(e)
    return out


def write_program(workdir: Path, stem: str, text: str) -> Path:
    """A test's C program written to `workdir/stem.c`."""
    path = workdir / f"{stem}.c"
    path.write_text(text)
    return path


def kernel_function(output: str) -> str:
    """The text of a lifted test program's `static void kernel...` function, up to its closing brace."""
    start = output.index("static void kernel")
    return output[start:output.index("\n}\n", start)]


def check_program(text: str, name: str, workdir: Path, threads: int) -> None:
    """Write a test's C program to `workdir/name`, lift it, build both, run both at `threads`."""
    source = workdir / name
    source.write_text(text)
    prepare(source, workdir).check(threads)


def have_gcc() -> bool:
    return shutil.which(os.environ.get("CC", "gcc")) is not None


# -- nvcc -------------------------------------------------------------------------------------

NVCC = os.environ.get("NVCC", "nvcc")
NVCC_ARCH = os.environ.get("LIFT_NVCC_ARCH", "sm_80")
# .ci/run's lowest-versions run sets LIFT_TEST_NVCC=0: nvcc sees the same lifted text in both runs
# (the emulated CUDA runs, which compile that text with g++, stay in both), and its 1.5 s a file
# would put CI over its time limit.
needs_nvcc = pytest.mark.skipif(
    shutil.which(NVCC) is None or os.environ.get("LIFT_TEST_NVCC") == "0",
    reason="nvcc not found (set NVCC to its path), or LIFT_TEST_NVCC=0")


def nvcc_compiles(cu: Path, text: str, *, warnings: bool = True, host: bool = True) -> None:
    """nvcc compiles the lifted `text`, written to `cu`, without an error (nor, with
    `warnings=False`, a warning). With `host=False` it stops at the device binary (`-cubin`): nvcc's
    front end still checks the whole file, host code included, and ptxas the kernels; only the host
    compiler's pass is left out (the emulated runs compile the host code with g++ anyway), which
    saves a third of nvcc's time over the corpus."""
    cu.write_text(text, encoding="utf-8", errors="surrogateescape")
    output = ["-cubin", "-o", str(cu.with_suffix(".cubin"))] if not host else ["-c", "-o", str(cu.with_suffix(".o"))]
    done = subprocess.run([NVCC, f"-arch={NVCC_ARCH}", str(cu), *output],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"nvcc failed on {cu}:\n{done.stderr[-4000:]}"
    assert "error" not in done.stderr, done.stderr[-4000:]
    if not warnings:
        assert "warning" not in done.stderr, done.stderr[-4000:]
