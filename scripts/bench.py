#!/usr/bin/env python3
"""Benchmark lift against the sequential build and two automatic parallelizers.

What is measured
----------------
For every selected corpus program (by default every ``corpus/**/*.c`` whose first
line is a ``/* lift-bench: -DN=... */`` comment) four builds are made, all with
the program's lift-bench ``-D`` flags (or none with ``--sizes small``) and ``-lm``.
The multi-file mini-applications (``corpus/apps/APP/Makefile`` with a
``# lift-bench: ARGS`` line) are built by their Makefile instead, in a copy of
the application per tool, with the same compilers and flags passed as ``CC`` and
``CFLAGS`` (lift: ``make LIFT=1``), and run with those ARGS (``--sizes small``:
none); their row has no lift tool time.

``serial``
    ``gcc -O3 -march=native in.c`` -- the sequential reference.
``gcc-autopar``
    ``gcc -O3 -march=native -ftree-parallelize-loops=T in.c`` (GCC's
    auto-parallelizer, T = ``--threads``).
``polly``
    ``clang-19 -O3 -march=native -mllvm -polly -mllvm -polly-parallel -fopenmp
    in.c`` when ``clang-19`` with Polly works (a tiny probe program is built
    first); otherwise every cell of the column is ``n/a``.  ``--install-polly``
    first runs ``apt-get install -y clang-19 libpolly-19-dev libomp-19-dev``.
``hand-omp``
    Applications only: the application's hand-written OpenMP version (``make
    OMP=1``: its sources with the ``OMP(...)`` directives a user would write, see
    ``corpus/apps/hand_omp.h``), the baseline lift is compared with; ``n/a`` for
    single files and for applications without ``OMP(...)`` marks.
``lift``
    ``lift <-D flags> in.c -o out.c`` then ``gcc -O3 -march=native -fopenmp
    out.c``.  The lift run itself is timed too (``--repeat`` runs, median).

How
---
Each binary runs ``--repeat`` times (default 3) with ``OMP_NUM_THREADS=T``
(default: the number of cores).  Repetitions are interleaved: repetition r runs
every tool once (in an order rotated by r) before repetition r+1 starts, so a
slow phase of a noisy shared machine hits all tools alike.  A run's time is the
kernel time the program reports on standard error as a line ``time: S`` (the
suite-style kernels of ``corpus/suite`` time their kernel, as PolyBench's own
timer does and as the figures of ``shared/PEERS.md`` were taken: loading the
OpenMP runtime and the init functions are not the kernel's), otherwise its
wall-clock time (process start to exit, ``time.perf_counter``); the JSON keeps
each run's wall-clock time beside it.  A cell's time is the median over its
repetitions, and its speedup is ``serial median / tool median``.

Every run's standard output is compared with the first serial run's output,
token by token: integer tokens must be equal, other numbers must agree to a
relative tolerance (``--rtol``, default 1e-6, because reductions in another
order round differently), any other text must match exactly.

A cell is a speedup (``1.23x``) or one of: ``build-error`` (compiler failed),
``tool-error`` (lift failed), ``timeout`` (a run exceeded ``--timeout``),
``crash`` (non-zero exit status), ``wrong`` (output differs from the serial
output), ``n/a`` (tool not available).  Nothing in a cell stops the benchmark.

Data-set sizes (``--sizes``, a comma-separated list, one table each): ``bench``
(or ``medium``) uses the first line's flags, ``large`` those of a
``/* lift-bench large: -DN=... */`` comment on the second line (programs without
one are left out of that table), ``small`` the programs' defaults.  The
suite-style kernels of ``corpus/suite`` are named ``suite/<stem>``.

Output: a Markdown table per size on standard output (kernel, serial seconds,
speedup per tool, lift's speed relative to the hand-written OpenMP version
(``lift/hand``: hand-omp median / lift median, where both ran), median lift time,
the best peer and lift's speedup over it), a geometric-mean row per tool in which
failed cells count as 1.0x (as in shared/PEERS.md) and ``n/a`` cells are left out,
the kernels where lift is below 0.95x, notes on programs whose serial time is
outside 0.3-5 s, and a JSON file (``--json``, default
``bench-results/bench.json``) with every individual time and every command.
The best peer of a kernel is the fastest of this run's other tools; for
``suite/`` kernels at the large size, the Pluto and PPCG figures of
``--peers`` (shared/PEERS.md, PolyBench LARGE data sets) count too: those two
tools are not run here.  Builds and lifted sources are kept under ``--workdir``
(default ``bench-results/build/<kernel>/<size>/``).

Examples::

    python3 scripts/bench.py                          # whole corpus, bench sizes
    python3 scripts/bench.py --sizes small --repeat 1 # quick smoke run
    python3 scripts/bench.py --kernels gemm,jacobi2d --repeat 5
    python3 scripts/bench.py --kernels suite --sizes medium,large   # the suite-style corpus
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import best_peer, read_peers, suite_name  # noqa: E402  (a module beside this script)

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ("serial", "gcc-autopar", "polly", "hand-omp", "lift")
PARALLEL_TOOLS = TOOLS[1:]
POLLY_PACKAGES = ("clang-19", "libpolly-19-dev", "libomp-19-dev")
BENCH_LINE = re.compile(r"/\*\s*lift-bench:(.*?)\*/")
LARGE_LINE = re.compile(r"/\*\s*lift-bench large:(.*?)\*/")  # a second, larger data set (line 2)
SIZES = ("small", "bench", "large")  # "medium" is read as "bench"
SUITE = "suite"  # corpus/suite: the suite-style kernels, named suite/<stem>, peers from PEERS.md
APP_BENCH_LINE = re.compile(r"^#\s*lift-bench:(.*)$", re.M)
APP_SHARED = ("app.mk", "hand_omp.h")  # beside the applications, used by each
HAND_OMP_MARK = "OMP(omp"  # an application source with a hand-written OpenMP directive
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)", re.I)
INTEGER = re.compile(r"[-+]?\d+")
SHORT_S, LONG_S = 0.3, 5.0  # sane range of a serial run at bench sizes
LIFT_TIME_TARGET_S = 0.25  # issue 21: lifting time per kernel, median (Pluto's)


# --------------------------------------------------------------------------- data


@dataclass
class Program:
    """One corpus program and the -D flags it is benchmarked with."""

    path: Path  # the .c file, or an application's directory
    bench_flags: list[str]  # from the lift-bench line: -D flags, or an application's arguments
    flags: list[str] = field(default_factory=list)  # flags (arguments) actually used
    app: bool = False  # a multi-file application built by its Makefile
    large_flags: list[str] | None = None  # from the lift-bench large line, if the program has one

    @property
    def name(self) -> str:
        if self.app:
            return f"apps/{self.path.name}"
        return f"{SUITE}/{self.path.stem}" if self.path.parent.name == SUITE else self.path.stem

    def flags_for(self, size: str) -> list[str] | None:
        """The -D flags (an application's arguments) of a data-set size; None if it has no such size."""
        return {"small": [], "bench": list(self.bench_flags)}.get(size, self.large_flags)


@dataclass
class Cell:
    """The result of one tool on one program."""

    status: str = "ok"  # ok | build-error | tool-error | timeout | crash | wrong | n/a
    detail: str = ""
    build_cmd: list[str] = field(default_factory=list)
    binary: Path | None = None
    times: list[float] = field(default_factory=list)  # the program's own kernel time, else wall-clock
    wall_times: list[float] = field(default_factory=list)  # process start to exit
    run_args: list[str] = field(default_factory=list)  # an application's command-line arguments

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def median(self) -> float | None:
        return statistics.median(self.times) if self.ok and self.times else None

    def fail(self, status: str, detail: str = "") -> None:
        if self.ok:  # keep the first failure
            lines = detail.strip().splitlines()
            errors = [ln for ln in lines if "error:" in ln]
            # compiler diagnostics first (a crash backtrace can be long), then the tail
            self.status = status
            self.detail = "\n".join(errors[:5] + ["..."] + lines[-15:] if errors else lines[-20:])


# --------------------------------------------------------------------------- helpers


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def bench_flags(path: Path, line: re.Pattern = BENCH_LINE, lines: int = 1) -> list[str] | None:
    """The -D flags of a lift-bench comment in the file's first `lines` lines, or None."""
    with path.open(encoding="utf-8", errors="replace") as f:
        head = "".join(f.readline() for _ in range(lines))
    m = line.search(head)
    return shlex.split(m.group(1)) if m else None


def selected(name: str, stem: str, kernels: set[str] | None) -> bool:
    """--kernels names a program by name (suite/gemm, apps/cg), file stem (gemm) or folder (suite)."""
    return not kernels or bool({name, stem, name.split("/")[0]} & kernels)


def discover(corpus: Path, kernels: set[str] | None) -> list[Program]:
    programs = []
    for path in sorted(corpus.rglob("*.c")):
        flags = bench_flags(path)
        if flags is None:
            continue
        prog = Program(path, flags, large_flags=bench_flags(path, LARGE_LINE, lines=3))
        if selected(prog.name, path.stem, kernels):
            programs.append(prog)
    for makefile in sorted((corpus / "apps").glob("*/Makefile")):
        m = APP_BENCH_LINE.search(makefile.read_text(encoding="utf-8", errors="replace"))
        if m and selected(f"apps/{makefile.parent.name}", makefile.parent.name, kernels):
            programs.append(Program(makefile.parent, shlex.split(m.group(1)), app=True))
    return programs


KERNEL_TIME = re.compile(r"^time: *([0-9.eE+-]+) *$", re.M)


def kernel_time(stderr: str) -> float | None:
    """The kernel time a program reports on standard error (`time: 0.123456`), if it does."""
    found = KERNEL_TIME.findall(stderr or "")
    try:
        return float(found[-1]) if found else None
    except ValueError:
        return None


def run_cmd(cmd: list[str], timeout: float, env: dict | None = None):
    """Run cmd (an argument list, no shell); return (CompletedProcess|None, seconds).

    None means the command timed out (or could not be started: then the
    CompletedProcess carries returncode 127 and the error in stderr)."""
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - start
    except OSError as e:
        proc = subprocess.CompletedProcess(cmd, 127, "", str(e))
    return proc, time.perf_counter() - start


def outputs_match(ref: str, out: str, rtol: float) -> tuple[bool, str]:
    """Compare two program outputs token by token (see module docstring)."""
    ref_lines, out_lines = ref.splitlines(), out.splitlines()
    if len(ref_lines) != len(out_lines):
        return False, f"{len(out_lines)} output lines, expected {len(ref_lines)}"
    for a_line, b_line in zip(ref_lines, out_lines):
        a_tok, b_tok = a_line.split(), b_line.split()
        if len(a_tok) != len(b_tok):
            return False, f"got {b_line!r}, expected {a_line!r}"
        for a, b in zip(a_tok, b_tok):
            if a == b:
                continue
            if INTEGER.fullmatch(a) and INTEGER.fullmatch(b):
                return False, f"got {b_line!r}, expected {a_line!r}"
            if NUMBER.fullmatch(a) and NUMBER.fullmatch(b):
                x, y = float(a), float(b)
                if math.isclose(x, y, rel_tol=rtol, abs_tol=1e-300):
                    continue
            return False, f"got {b_line!r}, expected {a_line!r}"
    return True, ""


def has_hand_omp(prog: Program) -> bool:
    """Whether the program is an application with hand-written OpenMP directives."""
    return prog.app and any(HAND_OMP_MARK in src.read_text(encoding="utf-8", errors="replace")
                            for src in prog.path.glob("*.c"))


def geomean(values: list[float]) -> float | None:
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def bytecode_state() -> dict:
    """Whether this tree's lifter modules start from compiled bytecode: without .pyc files (and
    PYTHONDONTWRITEBYTECODE set, so none are written) every lift process compiles them again, about
    0.1 s of CPU in each lift time measured here. Recorded beside the times, which it explains."""
    return {"PYTHONDONTWRITEBYTECODE": bool(os.environ.get("PYTHONDONTWRITEBYTECODE")),
            "pyc_files": sum(1 for _ in (ROOT / "lifter").rglob("__pycache__/*.pyc"))}


def compile_lifter() -> dict:
    """Compile this tree's lifter package to bytecode once, before any lift is timed, as pip does
    when it installs lift: the lift times are then what an installed lift costs, not that plus
    compiling its modules from source in every process (which PYTHONDONTWRITEBYTECODE, set on
    some machines, would otherwise make every run pay). compileall writes the .pyc files even
    where that variable is set. Returns bytecode_state() after it, with `compiled_at_setup`."""
    done = subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "lifter")],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)
    return {**bytecode_state(), "compiled_at_setup": done.returncode == 0}


def version_of(cmd: list[str]) -> str:
    proc, _ = run_cmd(cmd, 30)
    return proc.stdout.splitlines()[0].strip() if proc and proc.returncode == 0 and proc.stdout else "?"


# --------------------------------------------------------------------------- polly


def install_polly() -> None:
    """apt-get install the Polly packages (as root, or through sudo)."""
    prefix = [] if os.geteuid() == 0 else (["sudo", "-n"] if shutil.which("sudo") else [])
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for cmd in (["apt-get", "update"], ["apt-get", "install", "-y", *POLLY_PACKAGES]):
        log(f"$ {shlex.join(prefix + cmd)}")
        proc, _ = run_cmd(prefix + cmd, 1800, env)
        if proc is None or proc.returncode != 0:
            log("  failed: " + ("timeout" if proc is None else proc.stderr.strip()[-500:]))
            return


def polly_works(clang: str, flags: list[str], workdir: Path) -> tuple[bool, str]:
    """Build and run a tiny program with the Polly flags."""
    if not shutil.which(clang):
        return False, f"{clang} not installed"
    src, exe = workdir / "polly_probe.c", workdir / "polly_probe"
    src.write_text("#include <stdio.h>\nstatic double a[1000];\n"
                   "int main(void) { for (int i = 0; i < 1000; i++) a[i] = 2.0 * i;\n"
                   "  printf(\"%g\\n\", a[999]); return 0; }\n")
    proc, _ = run_cmd([clang, *flags, str(src), "-o", str(exe), "-lm"], 120)
    if proc is None or proc.returncode != 0:
        return False, "probe build failed: " + ("timeout" if proc is None else proc.stderr.strip()[-300:])
    proc, _ = run_cmd([str(exe)], 30)
    if proc is None or proc.returncode != 0 or proc.stdout.strip() != "1998":
        return False, "probe run failed"
    return True, ""


# --------------------------------------------------------------------------- benchmark


class Bench:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.workdir = Path(args.workdir).resolve()
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
        base = ["-O3", "-march=native"]
        self.compile_flags = {
            "serial": [args.cc, *base],
            "gcc-autopar": [args.cc, *base, f"-ftree-parallelize-loops={args.threads}"],
            "polly": [args.clang, *base, "-mllvm", "-polly", "-mllvm", "-polly-parallel", "-fopenmp"],
            "hand-omp": [args.cc, *base, "-fopenmp"],
            "lift": [args.cc, *base, "-fopenmp"],
        }
        self.tools = [t for t in TOOLS if t == "serial" or t in args.tools]
        self.peers = read_peers(Path(args.peers))
        self.polly_ok, self.polly_reason = True, ""
        if "polly" in self.tools:
            self.polly_ok, self.polly_reason = polly_works(
                args.clang, self.compile_flags["polly"][1:], self.workdir)
            if not self.polly_ok:
                log(f"polly: n/a ({self.polly_reason})")

    # -- building ---------------------------------------------------------------

    def compile(self, tool: str, src: Path, prog: Program, cell: Cell, outdir: Path) -> None:
        exe = outdir / tool
        cell.build_cmd = [*self.compile_flags[tool], *prog.flags, str(src), "-o", str(exe), "-lm"]
        proc, _ = run_cmd(cell.build_cmd, self.args.build_timeout)
        if proc is None:
            cell.fail("build-error", "compiler timed out")
        elif proc.returncode != 0:
            cell.fail("build-error", proc.stderr)
        else:
            cell.binary = exe

    def lift(self, prog: Program, cell: Cell, outdir: Path) -> tuple[Path | None, list[float], list[float]]:
        """Lift the program --repeat times; return (lifted source, wall times, CPU times).

        The CPU time (user + system of lift and the preprocessor and compiler it runs) is what the
        lift run itself costs; the wall time also counts waiting for a busy machine's cores."""
        out = outdir / f"{prog.path.stem}_lift.c"
        cmd = [*self.args.lift, *prog.flags, str(prog.path), "-o", str(out)]
        times, cpu = [], []
        for _ in range(self.args.repeat):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            proc, secs = run_cmd(cmd, self.args.build_timeout)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if proc is None or proc.returncode != 0:
                cell.build_cmd = cmd
                cell.fail("tool-error", "lift timed out" if proc is None else proc.stderr)
                return None, times, cpu
            times.append(secs)
            cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        return out, times, cpu

    def make_app(self, tool: str, prog: Program, cell: Cell, outdir: Path) -> None:
        """Build an application with its Makefile, in a copy of it (with app.mk beside it)."""
        copy = outdir / tool / prog.path.name
        shutil.rmtree(outdir / tool, ignore_errors=True)
        shutil.copytree(prog.path, copy, ignore=shutil.ignore_patterns("build"))
        for shared in APP_SHARED:
            shutil.copy(prog.path.parent / shared, outdir / tool / shared)
        cc, *flags = self.compile_flags[tool]
        app = prog.path.name
        target = {"lift": f"build/{app}_lift", "hand-omp": f"build/{app}_omp"}.get(tool, f"build/{app}")
        if tool in ("lift", "hand-omp"):
            flags.remove("-fopenmp")  # app.mk adds it to the lifted and hand OpenMP builds
        cell.build_cmd = ["make", "-C", str(copy), f"CC={cc}", f"CFLAGS={shlex.join(flags)} -std=c99"]
        if tool == "lift":
            cell.build_cmd += ["LIFT=1", f"LIFT_TOOL={shlex.join(self.args.lift)}"]
        elif tool == "hand-omp":
            cell.build_cmd.append("OMP=1")
        cell.build_cmd.append(target)
        proc, _ = run_cmd(cell.build_cmd, self.args.build_timeout)
        if proc is None:
            cell.fail("build-error", "make timed out")
        elif proc.returncode != 0:
            cell.fail("tool-error" if tool == "lift" and "lift" in proc.stderr else "build-error",
                      proc.stdout + proc.stderr)
        else:
            cell.binary = copy / target

    def build(self, prog: Program, size: str) -> tuple[dict[str, Cell], dict]:
        outdir = self.workdir / prog.name / size
        outdir.mkdir(parents=True, exist_ok=True)
        cells = {t: Cell() for t in self.tools}
        lift_info: dict = {"times": [], "median": None, "cpu_times": [], "cpu_median": None, "command": None}
        for tool, cell in cells.items():
            if tool == "polly" and not self.polly_ok:
                cell.fail("n/a", self.polly_reason)
                continue
            if tool == "hand-omp" and not has_hand_omp(prog):
                cell.fail("n/a", "no hand-written OpenMP version")
                continue
            if prog.app:
                self.make_app(tool, prog, cell, outdir)
                continue
            src = prog.path
            if tool == "lift":
                src, lift_info["times"], lift_info["cpu_times"] = self.lift(prog, cell, outdir)
                lift_info["command"] = [*self.args.lift, *prog.flags, str(prog.path), "-o",
                                        str(outdir / f"{prog.path.stem}_lift.c")]
                if lift_info["times"]:
                    lift_info["median"] = statistics.median(lift_info["times"])
                    lift_info["cpu_median"] = statistics.median(lift_info["cpu_times"])
                if src is None:
                    continue
            self.compile(tool, src, prog, cell, outdir)
        return cells, lift_info

    # -- running ----------------------------------------------------------------

    def run_once(self, cell: Cell) -> str | None:
        """Run a cell's binary once; record its time; return its output."""
        proc, secs = run_cmd([str(cell.binary), *cell.run_args], self.args.timeout, self.env)
        if proc is None:
            cell.fail("timeout", f"> {self.args.timeout:g} s")
            return None
        if proc.returncode != 0:
            cell.fail("crash", f"exit status {proc.returncode}\n{proc.stderr}")
            return None
        cell.wall_times.append(secs)
        own = kernel_time(proc.stderr)
        cell.times.append(secs if own is None else own)
        return proc.stdout

    def measure(self, prog: Program, cells: dict[str, Cell]) -> str | None:
        """Interleaved timing runs; every output is checked against serial's."""
        ref: str | None = None
        order = list(cells)
        for rep in range(self.args.repeat):
            k = rep % len(order)
            # serial goes first in repetition 0 so that a reference exists
            for tool in (order if rep == 0 else order[k:] + order[:k]):
                cell = cells[tool]
                if not cell.ok:
                    continue
                out = self.run_once(cell)
                if out is None:
                    continue
                if tool == "serial" and ref is None:
                    ref = out
                    continue
                if ref is None:
                    continue  # serial failed: nothing to check against
                same, why = outputs_match(ref, out, self.args.rtol)
                if not same:
                    cell.fail("wrong", why)
        return ref

    def bench(self, prog: Program, size: str) -> dict:
        prog.flags = prog.flags_for(size)
        log(f"== {prog.path.relative_to(ROOT) if prog.path.is_relative_to(ROOT) else prog.path}"
            f" ({size}) {shlex.join(prog.flags)}")
        cells, lift_info = self.build(prog, size)
        if prog.app:
            for cell in cells.values():
                cell.run_args = prog.flags
        ref = self.measure(prog, cells)
        serial = cells["serial"].median
        result = {
            "kernel": prog.name,
            "size": size,
            "file": str(prog.path.relative_to(ROOT) if prog.path.is_relative_to(ROOT) else prog.path),
            "flags": prog.flags,
            "serial_output": ref,
            "lift_time": lift_info,
            "tools": {},
        }
        for tool, cell in cells.items():
            med = cell.median
            speedup = serial / med if serial and med and tool != "serial" else None
            result["tools"][tool] = {
                "status": cell.status, "detail": cell.detail, "build": cell.build_cmd,
                "times": cell.times, "wall_times": cell.wall_times, "median": med, "speedup": speedup,
            }
            shown = (f"{med:.3g} s" if med else cell.status) + (f" ({speedup:.2f}x)" if speedup else "")
            log(f"   {tool:12s} {shown}" + (f"  [{cell.detail.splitlines()[0][:100]}]"
                                             if cell.detail and not cell.ok else ""))
        result["lift_vs_hand"] = lift_vs_hand(result)
        if result["lift_vs_hand"] is not None:
            log(f"   lift/hand    {result['lift_vs_hand']:.2f}x")
        if lift_info["median"] is not None:
            log(f"   lift tool    {lift_info['median']:.3g} s")
        result["peers"] = self.peers_of(prog, size, result["tools"])
        return result

    def peers_of(self, prog: Program, size: str, tools: dict) -> dict:
        """The best peer of one kernel: this run's Polly and gcc-autopar, and for suite kernels at
        the large size (the data sets PEERS.md was measured on) the table's Pluto and PPCG."""
        table = {}
        if size == "large" and prog.name.startswith(f"{SUITE}/"):
            table = self.peers.get(suite_name(prog.path.stem), {})
        measured = {t: tools[t]["speedup"] for t in PARALLEL_TOOLS if t != "lift" and t in tools}
        best = best_peer(measured, table)
        lift = tools["lift"]["speedup"] if "lift" in tools else None
        return {"table": table, "best": list(best) if best else None,
                "lift_over_best": lift / best[1] if lift and best else None}


# --------------------------------------------------------------------------- report


def cell_text(entry: dict) -> str:
    return f"{entry['speedup']:.2f}x" if entry["speedup"] is not None else entry["status"]


def fmt_seconds(s: float | None) -> str:
    return "-" if s is None else f"{s:.3g}"


def lift_vs_hand(result: dict) -> float | None:
    """hand-omp median / lift median (above 1: lift is faster), where both ran."""
    hand, lift = result["tools"].get("hand-omp"), result["tools"].get("lift")
    if hand and lift and hand["median"] and lift["median"]:
        return hand["median"] / lift["median"]
    return None


def summarize(results: list[dict], tools: list[str]) -> dict:
    """Geometric mean per tool over kernels with a serial time (failures = 1.0x, n/a left
    out), and of lift's speed relative to the hand-written OpenMP versions."""
    summary = {}
    timed = [r for r in results if r["tools"]["serial"]["median"] is not None]
    for tool in tools:
        entries = [r["tools"][tool] for r in timed if r["tools"][tool]["status"] != "n/a"]
        if not entries:
            summary[tool] = None
            continue
        summary[tool] = geomean([e["speedup"] if e["speedup"] else 1.0 for e in entries])
    summary["lift_vs_hand"] = geomean([x for x in map(lift_vs_hand, timed) if x is not None])
    summary["best peer"] = geomean([r["peers"]["best"][1] if r["peers"]["best"] else 1.0 for r in timed])
    if "lift" in tools and timed:
        lift = [r["tools"]["lift"]["speedup"] or 1.0 for r in timed]
        summary["below 0.95x"] = [r["kernel"] for r, x in zip(timed, lift) if x < 0.95]
        summary["lift/best"] = geomean([x / (r["peers"]["best"][1] if r["peers"]["best"] else 1.0)
                                        for r, x in zip(timed, lift)])
    lift_times = [r["lift_time"]["median"] for r in results if r["lift_time"]["median"] is not None]
    summary["lift_tool_median_s"] = statistics.median(lift_times) if lift_times else None
    lift_cpu = [r["lift_time"]["cpu_median"] for r in results if r["lift_time"].get("cpu_median") is not None]
    summary["lift_tool_cpu_median_s"] = statistics.median(lift_cpu) if lift_cpu else None
    return summary


def table(results: list[dict], tools: list[str], summary: dict, args, size: str) -> str:
    par = [t for t in tools if t != "serial"]
    has_lift = "lift" in par
    has_ratio = has_lift and "hand-omp" in par
    head = ["kernel", "serial s", *par] + (["lift/hand"] if has_ratio else []) + \
        (["lift tool s", "lift CPU s", "best peer", "lift/best"] if has_lift else [])
    rows = ["| " + " | ".join(head) + " |",
            "|---|" + "---:|" * (len(head) - 1)]
    for r in results:
        serial = r["tools"]["serial"]
        row = [r["kernel"], fmt_seconds(serial["median"]) if serial["median"] else serial["status"]]
        row += [cell_text(r["tools"][t]) if serial["median"] else "-" for t in par]
        if has_ratio:
            ratio = lift_vs_hand(r)
            row.append(f"{ratio:.2f}x" if ratio else "-")
        if has_lift:
            best, ratio = r["peers"]["best"], r["peers"]["lift_over_best"]
            cpu = r["lift_time"].get("cpu_median")
            row += [fmt_seconds(r["lift_time"]["median"]), fmt_seconds(cpu),
                    f"{best[1]:.2f}x {best[0]}" if best else "-",
                    f"{ratio:.2f}" if ratio else "-"]
        rows.append("| " + " | ".join(row) + " |")
    gm = ["**geomean** (failures count 1.0x, n/a left out)", ""]
    gm += [f"**{summary[t]:.2f}x**" if summary[t] else "n/a" for t in par]
    if has_ratio:
        gm.append(f"**{summary['lift_vs_hand']:.2f}x**" if summary["lift_vs_hand"] else "n/a")
    if has_lift:
        cpu = summary.get("lift_tool_cpu_median_s")
        gm += [f"**{fmt_seconds(summary['lift_tool_median_s'])}**", f"**{fmt_seconds(cpu)}**",
               f"**{summary['best peer']:.2f}x**" if summary["best peer"] else "n/a",
               f"**{summary['lift/best']:.2f}**" if summary.get("lift/best") else "n/a"]
    rows.append("| " + " | ".join(gm) + " |")
    sizes = {"bench": "lift-bench sizes", "large": "lift-bench large sizes", "small": "default (small) sizes"}
    title = (f"{len(results)} corpus programs, {sizes[size]}, {args.threads} threads, median of "
             f"{args.repeat} run(s) of the kernel time a program reports (`time: S` on stderr; else "
             f"process wall time); speedup over `gcc -O3 -march=native` serial (higher is better); "
             f"'wrong' = output differs from serial; 'lift/hand' = lift's speed relative to the "
             f"application's hand-written OpenMP version; 'lift tool s' and 'lift CPU s' = median wall and CPU "
             f"(user + system, with the preprocessor and compiler it runs) time of the lift run itself, "
             + ("its modules compiled from source in each run (--lift-from-source); " if args.lift_from_source else
                "its modules compiled to bytecode once beforehand, as an installed lift has them; ")
             + "'best peer' = the fastest of this run's other tools"
             + (" and, for suite/ kernels, PEERS.md's Pluto and PPCG figures (measured on LARGE data sets)"
                if size == "large" else "") + ".")
    if has_lift and summary.get("lift_tool_median_s") is not None:
        cpu = summary.get("lift_tool_cpu_median_s")
        title += (f"\n\nlift time per program: median {fmt_seconds(summary['lift_tool_median_s'])} s wall, "
                  f"{fmt_seconds(cpu)} s CPU (target: at most {LIFT_TIME_TARGET_S} s; the parsed headers "
                  f"kept in {os.environ.get('LIFT_HEADER_CACHE', 'the default folder') or 'no folder'}, "
                  f"docs/options.md)")
    if has_lift and summary.get("below 0.95x") is not None:
        below = summary["below 0.95x"]
        title += f"\n\nlift below 0.95x: {len(below)}" + (f" ({', '.join(below)})" if below else "")
    return title + "\n\n" + "\n".join(rows)


def size_notes(results: list[dict]) -> list[str]:
    notes = []
    for r in results:
        s = r["tools"]["serial"]["median"]
        if s is not None and not SHORT_S <= s <= LONG_S:
            notes.append(f"{r['file']}: serial {s:.3g} s at {shlex.join(r['flags'])} "
                         f"({'too short' if s < SHORT_S else 'too long'}; want {SHORT_S}-{LONG_S} s)")
    return notes


# --------------------------------------------------------------------------- main


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Build, check and time corpus programs: serial gcc, gcc auto-parallelizer, "
                    "Polly and lift, side by side.",
        epilog="See the module docstring (scripts/bench.py) for what is measured and how.")
    p.add_argument("--corpus", default=str(ROOT / "corpus"), help="corpus root (default: %(default)s)")
    p.add_argument("--kernels", help="comma-separated file stems (gemm) or applications (apps/cg) to run (default: all with a lift-bench line)")
    p.add_argument("--tools", default=",".join(PARALLEL_TOOLS),
                   help="comma-separated tools to compare with serial (default: %(default)s)")
    p.add_argument("--sizes", default="bench",
                   help="comma-separated data-set sizes, each a table: bench (or medium): the lift-bench -D "
                        "flags; large: the 'lift-bench large' flags (programs without them are skipped); "
                        "small: the programs' default sizes (default: %(default)s)")
    p.add_argument("--peers", default=str(ROOT.parent / "shared" / "PEERS.md"),
                   help="PEERS.md with the Pluto/PPCG figures per kernel (default: %(default)s)")
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                   help="OMP_NUM_THREADS and -ftree-parallelize-loops (default: %(default)s)")
    p.add_argument("--repeat", type=int, default=3, help="timed runs per binary (default: %(default)s)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per run (default: %(default)s)")
    p.add_argument("--build-timeout", type=float, default=300.0,
                   help="seconds per compile or lift (default: %(default)s)")
    p.add_argument("--rtol", type=float, default=1e-6,
                   help="relative tolerance on non-integer numbers in outputs (default: %(default)s)")
    p.add_argument("--cc", default="gcc", help="C compiler (default: %(default)s)")
    p.add_argument("--clang", default="clang-19", help="clang with Polly (default: %(default)s)")
    p.add_argument("--lift", default="lift", help="lift command (split like a shell would; default: %(default)s)")
    p.add_argument("--lift-from-source", action="store_true",
                   help="time lift as this tree has it, without compiling its modules to bytecode first "
                        "(by default they are compiled once, as pip compiles an installed lift)")
    p.add_argument("--install-polly", action="store_true",
                   help="apt-get install -y " + " ".join(POLLY_PACKAGES) + " first")
    p.add_argument("--workdir", default=str(ROOT / "bench-results" / "build"),
                   help="where builds and lifted sources go (default: %(default)s)")
    p.add_argument("--json", default=str(ROOT / "bench-results" / "bench.json"),
                   help="JSON results file (default: %(default)s)")
    args = p.parse_args(argv)
    args.tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    unknown = set(args.tools) - set(PARALLEL_TOOLS)
    if unknown:
        p.error(f"unknown tool(s) {', '.join(sorted(unknown))}; choose from {', '.join(PARALLEL_TOOLS)}")
    args.lift = shlex.split(args.lift)
    args.sizes = [{"medium": "bench"}.get(x.strip(), x.strip()) for x in args.sizes.split(",") if x.strip()]
    if not args.sizes or set(args.sizes) - set(SIZES):
        p.error(f"--sizes: choose from {', '.join(SIZES)} (or medium)")
    if args.repeat < 1 or args.threads < 1:
        p.error("--repeat and --threads must be at least 1")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.install_polly:
        install_polly()
    kernels = {k.strip() for k in args.kernels.split(",")} if args.kernels else None
    programs = discover(Path(args.corpus).resolve(), kernels)
    if kernels:
        missing = {k for k in kernels if not any(selected(p.name, p.path.stem, {k}) for p in programs)}
        if missing:
            log(f"warning: no program with a lift-bench line for: {', '.join(sorted(missing))}")
    if not programs:
        log("no programs selected")
        return 1

    bench = Bench(args)
    started = time.time()
    header = {
        "machine": {"node": platform.node(), "cpus": os.cpu_count(), "platform": platform.platform()},
        "lift_bytecode": bytecode_state() if args.lift_from_source else compile_lifter(),
        "compilers": {"gcc": version_of([args.cc, "--version"]),
                      "clang": version_of([args.clang, "--version"]) if shutil.which(args.clang) else None,
                      "lift": version_of([*args.lift, "--version"])},
        "settings": {"threads": args.threads, "repeat": args.repeat, "sizes": args.sizes,
                     "timeout_s": args.timeout, "rtol": args.rtol, "tools": bench.tools,
                     "compile": bench.compile_flags, "polly": bench.polly_ok or bench.polly_reason},
    }
    out = Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    runs = [(size, prog) for size in args.sizes for prog in programs if prog.flags_for(size) is not None]
    results: list[dict] = []
    for size, prog in runs:
        results.append(bench.bench(prog, size))
        # rewrite the JSON after every program, so an interrupted run keeps its results
        text, notes = write_report(out, header, results, bench.tools, args, started,
                                   complete=len(results) == len(runs))

    print(text)
    if notes:
        print("\nlift-bench sizes outside the intended range:")
        print("\n".join(f"- {n}" for n in notes))
    log(f"wrote {out} ({time.time() - started:.1f} s)")
    return 0


def write_report(out: Path, header: dict, results: list[dict], tools: list[str], args,
                 started: float, complete: bool) -> tuple[str, list[str]]:
    """Write the JSON report for the results so far; return (the tables, one per size, and size notes)."""
    summaries, tables = {}, []
    for size in args.sizes:
        of_size = [r for r in results if r["size"] == size]
        if of_size:
            summaries[size] = summarize(of_size, tools)
            tables.append(table(of_size, tools, summaries[size], args, size))
    text = "\n\n".join(tables)
    notes = size_notes([r for r in results if r["size"] != "small"])
    report = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        **header,
        "complete": complete,
        "wall_s": round(time.time() - started, 1),
        "geomean": {size: {t: summ[t] for t in [*tools[1:], "best peer", "lift/best"] if t in summ}
                    for size, summ in summaries.items()},
        "lift_vs_hand_geomean": {size: summ["lift_vs_hand"] for size, summ in summaries.items()},
        "lift_tool_median_s": {size: summ["lift_tool_median_s"] for size, summ in summaries.items()},
        "size_notes": notes,
        "kernels": results,
        "table": text,
    }
    out.write_text(json.dumps(report, indent=2) + "\n")
    return text, notes


if __name__ == "__main__":
    sys.exit(main())
