#!/usr/bin/env python3
"""Strong scaling and communication volume of lift's MPI target (`--target mpi`).

For each program (default: the corpus stencils and dense kernels) the original is built with
``gcc -O3`` and lift's MPI output with ``mpicc -O3 -fopenmp -DLIFT_MPI_PROFILE``, then run as

``serial``          the original;
``1x1``             1 rank x 1 OpenMP thread;
``2x1``             2 ranks x 1 thread (strong scaling over ranks);
``1x2``             1 rank x 2 threads (the same two cores used by threads instead);

each ``--repeat`` times (median wall-clock time, process start to exit; the outputs must equal the
original's, numbers within 1e-9 where a reduction was distributed). Sizes: the program's
``/* lift-bench: -D... */`` flags with ``--sizes bench``, the defaults with ``--sizes small``.

Communication: every run prints, per rank, the bytes it sent in halo exchanges and in gathers
(the profile counters of the emitted code). The table gives the halo bytes per rank per time step
at 2 and 3 ranks (steps: the program's TSTEPS or TMAX), and a model for 64 and 1,024
ranks from the same ranges: a block-distributed loop that reads rows [lo + a, hi + b) of an array
another block-distributed loop wrote exchanges, per step, the rows of the reach beyond each side
of its block, whatever the block's size (while every block holds at least the reach). So at P
ranks the two edge ranks send what the edge ranks send at 3 ranks, each of the P - 2 interior ranks
what the middle rank sends at 3 ranks: total = 2 edge + (P - 2) interior, the largest per rank =
interior. The model is checked against the run at 4 ranks. The gathers at the end of a region move
every distributed array to every rank: (P - 1) times the bytes the 2-rank run gathers in total.

Timings taken on a shared or loaded machine mean little: the script prints them, it does not
judge them.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from lifter import LiftOptions, lift_file  # noqa: E402
from lifter.frontend.preprocess import PreprocessOptions  # noqa: E402
from tests.harness import outputs_match  # noqa: E402

PROGRAMS = ["stencils/jacobi1d.c", "stencils/jacobi2d.c", "stencils/heat3d.c", "stencils/fdtd2d.c",
            "linalg/gemm.c", "linalg/two_mm.c", "linalg/gemv.c", "linalg/mvt.c", "linalg/atax.c", "linalg/bicg.c"]
CONFIGS = {"1x1": (1, 1), "2x1": (2, 1), "1x2": (1, 2)}
PROFILE = re.compile(r"lift-mpi: rank (\d+) of (\d+): halo (\d+) bytes, gather (\d+) bytes")


def bench_flags(source: Path) -> list[str]:
    first = source.read_text().splitlines()[0]
    m = re.match(r"/\*\s*lift-bench:(.*)\*/", first)
    return m.group(1).split() if m else []


def steps_of(source: Path, flags: list[str]) -> int:
    """Time steps: the TSTEPS/TMAX flag, else the source's default; 1 for kernels without."""
    m = re.search(r"-D(?:TSTEPS|TMAX)=(\d+)", " ".join(flags)) or \
        re.search(r"#define\s+(?:TSTEPS|TMAX)\s+(\d+)", source.read_text())
    return int(m.group(1)) if m else 1


def run(cmd: list[str], threads: int) -> tuple[float, str, str]:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=3600)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr}")
    return elapsed, done.stdout, done.stderr


def mpirun(exe: Path, ranks: int, threads: int = 1) -> list[str]:
    """Open MPI binds each rank to one core when there are at most two ranks: a rank's OpenMP
    threads would then share that core, so ranks with threads are left unbound."""
    binding = ["--bind-to", "none"] if threads > 1 else []
    return ["mpirun", "--oversubscribe", *binding, "-np", str(ranks), str(exe)]


def profile(stderr: str) -> dict[int, tuple[int, int]]:
    return {int(m[1]): (int(m[3]), int(m[4])) for m in PROFILE.finditer(stderr)}


def bench(program: str, sizes: str, repeat: int, workdir: Path) -> dict:
    source = REPO / "corpus" / program
    flags = bench_flags(source) if sizes == "bench" else []
    defines = [f[2:] for f in flags if f.startswith("-D")]
    result = lift_file(str(source), LiftOptions(target="mpi", preprocess=PreprocessOptions(defines=defines),
                                                min_parallel_work=40_000 if sizes == "bench" else 0))
    lifted = workdir / f"{source.stem}.mpi.c"
    lifted.write_text(result.output)
    original, exe = workdir / f"{source.stem}.orig", workdir / f"{source.stem}.mpi"
    for cc, src, out, extra in (("gcc", source, original, []),
                                ("mpicc", lifted, exe, ["-fopenmp", "-DLIFT_MPI_PROFILE"])):
        subprocess.run([cc, "-O3", *flags, *extra, str(src), "-o", str(out), "-lm"], check=True)
    reduction = any(e.get("reduction") and "distributed" in e["remark"] for e in result.loops)
    times = {name: [] for name in ["serial", *CONFIGS]}
    reference = None
    for r in range(repeat):
        order = list(times)[r % len(times):] + list(times)[:r % len(times)]
        for name in order:
            if name == "serial":
                t, out, _ = run([str(original)], 1)
                reference = out
            else:
                ranks, threads = CONFIGS[name]
                t, out, _ = run(mpirun(exe, ranks, threads), threads)
            times[name].append((t, out))
    for name, runs in times.items():
        for _, out in runs:
            if not outputs_match(reference, out, 1e-9 if reduction else 0.0):
                raise SystemExit(f"{program} {name}: output differs from the original's")
    steps = steps_of(source, flags)
    comm = {p: profile(run(mpirun(exe, p), 1)[2]) for p in (2, 3, 4)}
    edge, interior = comm[3][0][0], comm[3][1][0]
    model = {p: (2 * edge + (p - 2) * interior, interior) for p in (4, 64, 1024)}
    gather_total = sum(g for _, g in comm[2].values())
    return {
        "program": program,
        "distributed": sum("distributed over the MPI ranks" in e["remark"] for e in result.loops),
        "times": {name: statistics.median(t for t, _ in runs) for name, runs in times.items()},
        "steps": steps,
        "halo_per_rank_step": {p: max(h for h, _ in comm[p].values()) / steps for p in (2, 3)},
        "model_check_4": sum(h for h, _ in comm[4].values()) == model[4][0],
        "model": {p: (total / steps, largest / steps, (p - 1) * gather_total) for p, (total, largest) in model.items()
                  if p != 4},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("programs", nargs="*", default=PROGRAMS, help="corpus-relative paths")
    parser.add_argument("--sizes", choices=["small", "bench"], default="small")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not (shutil.which("mpicc") and shutil.which("mpirun")):
        raise SystemExit("needs Open MPI: apt-get install openmpi-bin libopenmpi-dev")
    print(f"{'program':22} {'loops':>5} {'serial':>8} {'1x1':>8} {'2x1':>8} {'1x2':>8} {'2x1/1x1':>7} "
          f"{'halo/rank/step@2':>16} {'@3':>8} {'total/step@64':>13} {'@1024':>10} {'gather@1024':>12} model@4")
    with tempfile.TemporaryDirectory() as tmp:
        for program in args.programs:
            b = bench(program, args.sizes, args.repeat, Path(tmp))
            t = b["times"]
            h = b["halo_per_rank_step"]
            m = b["model"]
            print(f"{program:22} {b['distributed']:5d} {t['serial']:8.3f} {t['1x1']:8.3f} {t['2x1']:8.3f} "
                  f"{t['1x2']:8.3f} {t['1x1'] / t['2x1']:7.2f} {h[2]:16.0f} {h[3]:8.0f} {m[64][0]:13.0f} "
                  f"{m[1024][0]:10.0f} {m[1024][2]:12d} {'ok' if b['model_check_4'] else 'differs'}", flush=True)


if __name__ == "__main__":
    main()
