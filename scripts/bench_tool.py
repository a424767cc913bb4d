#!/usr/bin/env python3
"""How fast lift itself is: lifting time per file, on a large file, and the batch speedup of -j.

    python3 scripts/bench_tool.py                  # everything (a few minutes on 2 cores)
    python3 scripts/bench_tool.py --repeat 1 --no-cli --lines 2000
    python3 scripts/bench_tool.py --json bench-results/bench_tool.json

Three measurements:

1. Per corpus file (the single-file programs under corpus/, not corpus/apps/): the time of
   `lift_file` in a warm process (the pipeline: preprocessing, parsing, analysis, graphs,
   transformations, emitting), median of --repeat runs per file; and, unless --no-cli, the
   wall time of the `lift FILE -o OUT` command, which adds starting Python and importing
   the pipeline (about 1 s). Reported: the median over files, the slowest files.
2. A synthetic file of --lines lines (default 5,000): many kernel functions of the kinds
   in the corpus (maps, stencils, reductions, matrix products, recurrences), lifted in a
   warm process.
3. The whole corpus as one batch, `lift FILES -d OUT --no-cache -q -j 1` against `-j N`
   (--jobs, default 2), wall time of the command, median of --repeat interleaved runs: the
   speedup and the parallel efficiency (speedup / N); next to it the speedup N processes of
   pure computation get on this machine at the same time (its ceiling: on shared or
   throttled cores no program scales linearly).

Targets: median <= 1 s per single-kernel file, <= 10 s for 5,000 lines, near-linear -j 2.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def corpus_files(corpus: Path) -> list[Path]:
    return sorted(p for p in corpus.rglob("*.c") if "apps" not in p.relative_to(corpus).parts)


def lift_command() -> list[str]:
    return [sys.executable, "-m", "lifter"]


# ------------------------------------------------------------------ the synthetic file

KERNELS = [
    # (name, body template); {k} is the kernel's number
    """/* kernel {k}: scaled vector sum */
void k{k}_axpy(int n, double a, const double *restrict x, double *restrict y)
{{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}}
""",
    """/* kernel {k}: 5-point stencil */
void k{k}_stencil(int n, int m, const double u[restrict n][m], double v[restrict n][m])
{{
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < m - 1; j++)
            v[i][j] = 0.2 * (u[i][j] + u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
}}
""",
    """/* kernel {k}: dot product */
double k{k}_dot(int n, const double *restrict x, const double *restrict y)
{{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}}
""",
    """/* kernel {k}: matrix product */
void k{k}_gemm(int n, double alpha, double c[n][n], const double a[n][n], const double b[n][n])
{{
    int i, j, l;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {{
            double t = 0.0;
            for (l = 0; l < n; l++)
                t += a[i][l] * b[l][j];
            c[i][j] = alpha * t;
        }}
}}
""",
    """/* kernel {k}: prefix sum (a recurrence: stays sequential) */
void k{k}_scan(int n, double *restrict x)
{{
    for (int i = 1; i < n; i++)
        x[i] = x[i] + x[i - 1];
}}
""",
    """/* kernel {k}: row sums and the largest one */
double k{k}_rows(int n, int m, const double a[n][m], double r[n])
{{
    double best = 0.0;
    for (int i = 0; i < n; i++) {{
        double s = 0.0;
        for (int j = 0; j < m; j++)
            s += a[i][j];
        r[i] = s;
    }}
    for (int i = 0; i < n; i++)
        if (r[i] > best)
            best = r[i];
    return best;
}}
""",
    """/* kernel {k}: time steps of a 1D smoother */
void k{k}_smooth(int steps, int n, double a[n], double b[n])
{{
    for (int t = 0; t < steps; t++) {{
        for (int i = 1; i < n - 1; i++)
            b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
        for (int i = 1; i < n - 1; i++)
            a[i] = b[i];
    }}
}}
""",
]


def synthetic_source(lines: int) -> tuple[str, int]:
    """C text of at least `lines` lines made of kernel functions; returns it and the number of kernels."""
    parts = ["/* synthetic input for scripts/bench_tool.py: many independent kernels */\n",
             "#include <stddef.h>\n\n"]
    count, k = sum(p.count("\n") for p in parts), 0
    while count < lines:
        text = KERNELS[k % len(KERNELS)].format(k=k) + "\n"
        parts.append(text)
        count += text.count("\n")
        k += 1
    return "".join(parts), k


# ------------------------------------------------------------------ measurements

def time_in_process(path: Path, repeat: int) -> tuple[float, int, int]:
    from lifter import lift_file

    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = lift_file(str(path))
        times.append(time.perf_counter() - start)
    return statistics.median(times), len(result.loops), sum(1 for e in result.loops if e["parallelized"])


def time_command(cmd: list[str], repeat: int, cwd: Path | None = None) -> float:
    """Median wall seconds of a command."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, cwd=cwd)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            raise SystemExit(f"bench_tool: command failed: {' '.join(cmd)}\n{done.stderr.decode(errors='replace')}")
    return statistics.median(times)


def load_note() -> str:
    """The 1-minute load average, with a warning when other work competes for the cores."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        return ""
    cores = os.cpu_count() or 1
    busy = "  (busy machine: other processes compete for the cores; timings, the speedup above all, suffer)" \
        if load > 0.5 * cores else ""
    return f"load average {load:.2f} on {cores} cores{busy}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default=str(ROOT / "corpus"), help="corpus root (default: %(default)s)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement; the median counts (default: 3)")
    ap.add_argument("--lines", type=int, default=5000, help="size of the synthetic file (default: 5000)")
    ap.add_argument("--jobs", type=int, default=2, help="-j of the parallel batch run (default: 2)")
    ap.add_argument("--no-cli", action="store_true", help="skip the per-file command timings")
    ap.add_argument("--parts", default="files,synthetic,batch",
                    help="what to measure, comma-separated (default: %(default)s)")
    ap.add_argument("--json", metavar="FILE", help="also write every figure as JSON")
    args = ap.parse_args(argv)
    parts = set(args.parts.split(","))
    if parts - {"files", "synthetic", "batch"}:
        ap.error(f"unknown part in --parts: {', '.join(sorted(parts - {'files', 'synthetic', 'batch'}))}")

    import lifter.analysis  # noqa: F401  (warm: imports are not lifting time)
    import lifter.backend  # noqa: F401
    import lifter.graph.build  # noqa: F401
    import lifter.transform  # noqa: F401
    from lifter import __version__

    corpus = Path(args.corpus).resolve()
    files = corpus_files(corpus)
    if not files:
        raise SystemExit(f"bench_tool: no .c files under {corpus}")
    print(f"lift {__version__}, Python {platform.python_version()}, {os.cpu_count()} cores, "
          f"{len(files)} corpus files, median of {args.repeat} runs; {load_note()}\n")
    figures: dict = {"lift": __version__, "python": platform.python_version(), "cores": os.cpu_count(),
                     "repeat": args.repeat}

    if "files" in parts:
        measure_files(args, corpus, files, figures)
    if "synthetic" in parts:
        measure_synthetic(args, figures)
    if "batch" in parts:
        measure_batch(args, files, figures)
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as handle:
            json.dump(figures, handle, indent=2)
            handle.write("\n")
    return 0


def measure_files(args, corpus: Path, files: list[Path], figures: dict) -> None:
    per_file = []
    with tempfile.TemporaryDirectory(prefix="bench_tool-") as tmp:
        for path in files:
            rel = str(path.relative_to(corpus))
            pipeline, loops, par = time_in_process(path, args.repeat)
            command = None
            if not args.no_cli:
                command = time_command([*lift_command(), str(path), "-o", os.path.join(tmp, "out.c")], args.repeat)
            lines = path.read_text(errors="replace").count("\n")
            per_file.append({"file": rel, "lines": lines, "loops": loops, "parallelized": par,
                             "pipeline_s": pipeline, "command_s": command})
    med_pipeline = statistics.median(f["pipeline_s"] for f in per_file)
    print(f"{'file':34} {'lines':>5} {'loops':>5} {'par':>4} {'pipeline':>9} {'command':>8}")
    for f in per_file:
        cmd = f"{f['command_s']:7.2f}s" if f["command_s"] is not None else "       -"
        print(f"{f['file']:34} {f['lines']:5d} {f['loops']:5d} {f['parallelized']:4d} {f['pipeline_s']:8.2f}s {cmd}")
    print(f"\nper file, pipeline (warm process): median {med_pipeline:.2f} s, "
          f"max {max(f['pipeline_s'] for f in per_file):.2f} s")
    figures["per_file"] = per_file
    figures["per_file_median_pipeline_s"] = med_pipeline
    if not args.no_cli:
        med_cmd = statistics.median(f["command_s"] for f in per_file)
        print(f"per file, `lift FILE -o OUT` command: median {med_cmd:.2f} s, "
              f"max {max(f['command_s'] for f in per_file):.2f} s")
        figures["per_file_median_command_s"] = med_cmd


def measure_synthetic(args, figures: dict) -> None:
    text, kernels = synthetic_source(args.lines)
    with tempfile.TemporaryDirectory(prefix="bench_tool-") as tmp:
        big = Path(tmp) / "synthetic.c"
        big.write_text(text)
        big_s, loops, par = time_in_process(big, max(1, min(args.repeat, 2)))
    n_lines = text.count("\n")
    print(f"\nsynthetic file: {n_lines} lines, {kernels} kernels, {loops} loops ({par} parallelized): "
          f"{big_s:.2f} s ({1000 * big_s / n_lines:.2f} ms per line)")
    figures["synthetic"] = {"lines": n_lines, "kernels": kernels, "loops": loops, "parallelized": par,
                            "seconds": big_s}


def _spin(n: int) -> float:
    start = time.perf_counter()
    x = 0
    for i in range(n):
        x += i * i
    return time.perf_counter() - start


def machine_speedup(jobs: int, n: int = 5_000_000) -> float:
    """The speedup `jobs` processes get on this machine right now, on work that needs nothing but a core each.

    A ceiling for lift's batch speedup: on a machine whose cores are shared with other
    work (or throttled), no program gets near-linear speedup.
    """
    import multiprocessing

    start = time.perf_counter()
    for _ in range(jobs):
        _spin(n)
    serial = time.perf_counter() - start
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        pool.map(_spin, [1000] * jobs)  # workers started
        start = time.perf_counter()
        pool.map(_spin, [n] * jobs)
        parallel = time.perf_counter() - start
    return serial / parallel


def measure_batch(args, files: list[Path], figures: dict) -> None:
    # The runs are interleaved (-j 1, -j N, the ceiling) so that a change in the machine's
    # load hits all three alike; the medians count.
    walls: dict[int, list[float]] = {1: [], args.jobs: []}
    work: dict[int, float] = {}
    ceilings = []
    with tempfile.TemporaryDirectory(prefix="bench_tool-") as tmp:
        base = [*lift_command(), *map(str, files), "--no-cache", "-q"]
        for _ in range(args.repeat):
            for jobs in (1, args.jobs):
                report = os.path.join(tmp, f"j{jobs}.json")
                walls[jobs].append(time_command([*base, "-d", os.path.join(tmp, f"j{jobs}"), "-j", str(jobs),
                                                 "--report", report], 1, cwd=ROOT))
                with open(report) as handle:
                    work[jobs] = sum(f["seconds"] for f in json.load(handle)["files"])
            ceilings.append(machine_speedup(args.jobs))
    serial, parallel = statistics.median(walls[1]), statistics.median(walls[args.jobs])
    ceiling = statistics.median(ceilings)
    speedup = serial / parallel
    print(f"\nbatch of {len(files)} files: -j 1 {serial:.2f} s, -j {args.jobs} {parallel:.2f} s: "
          f"speedup {speedup:.2f}x (efficiency {speedup / args.jobs:.0%})")
    print(f"  this machine's ceiling: {args.jobs} processes of pure computation get {ceiling:.2f}x "
          f"(lift gets {speedup / ceiling:.0%} of that)")
    # The time the workers spend per file, summed: equal at -j 1 and -j N on idle cores;
    # larger at -j N when the cores are shared (with each other, or with other programs).
    print(f"  lifting time summed over files (last run): -j 1 {work[1]:.2f} s, -j {args.jobs} {work[args.jobs]:.2f} s")
    print(load_note())
    figures["batch"] = {"files": len(files), "jobs": args.jobs, "serial_s": serial, "parallel_s": parallel,
                        "speedup": speedup, "machine_ceiling": ceiling, "serial_work_s": work[1],
                        "parallel_work_s": work[args.jobs], "runs": {str(k): v for k, v in walls.items()},
                        "ceilings": ceilings}
    figures["load_average_end"] = os.getloadavg()[0] if hasattr(os, "getloadavg") else None


if __name__ == "__main__":
    sys.exit(main())
