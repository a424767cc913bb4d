#!/usr/bin/env python3
"""Random-program differential testing of lift.

    python3 scripts/fuzz.py loops  --seed 1 --count 1000 -j 2 --keep fuzz-out
    python3 scripts/fuzz.py csmith --seed 1 --count 1000 -j 2 --keep fuzz-out --max-funcs 3 --max-block-depth 3
    python3 scripts/fuzz.py csmith --seed 1 --count 1000 -j 1 --csmith-arg=--max-array-dim --csmith-arg=3 \
        --csmith-arg=--max-array-len-per-dim --csmith-arg=10   # any csmith option, passed on as given
    python3 scripts/fuzz.py brink  --seed 1 --count 300 -j 1 --threads 1,2,8 --tiny-caches --keep fuzz-out
    python3 scripts/fuzz.py loops  --seed 7 --count 50 --keep fuzz-out --reduce   # creduce each failure
    python3 scripts/fuzz.py loops  --seed 1 --count 200 --tiny-caches   # small programs tiled too

Seven generators (each module's docstring says what it draws and why):

``csmith``
    Random C programs from Csmith (``apt-get install csmith libcsmith-dev``), built
    with ``-I/usr/include/csmith``. They print a checksum of all their globals.
``loops``
    ``scripts/loopgen.py``: affine nests, where a wrong dependence verdict shows.
``idioms``
    ``scripts/idiomgen.py``: the everyday C around the nests (counters read after
    the loops, calls, unsigned counters, structs, ``_Atomic``, VLAs, ``break``).
``reach``
    ``scripts/reachgen.py``: issue 16's application idioms where the analyses'
    preconditions almost hold. A program whose first line is ``/* lift-options:
    assume_no_alias */`` keeps that promise and is lifted with ``--assume-no-alias``.
``mutants``
    ``scripts/mutantgen.py``: the suite's kernels a step off their shape, run
    under the sanitizers first.
``brink``
    ``scripts/brinkgen.py``: sessions 14-15's analyses on the brink (bucket
    scatters, gathers through fields, helpers' field summaries, block calls,
    padded strides, header scalars, diagonal fills); the same first line.
``traps``
    ``scripts/trapgen.py``: C semantics an affine model reads wrong (narrow and
    unsigned counters, ``!=``, side effects, aliased helpers, ``goto``, ``switch``).

For each program: build the original with ``gcc -O2`` and run it (a program gcc
rejects, that fails or that runs past ``--run-timeout`` is discarded: it says
nothing about lift; so is one whose output differs at ``-O0``, checked on a
mismatch: a compiler bug or undefined behaviour in the original; and, where lift
reduces floating-point values, one whose output differs beyond the tolerance at ``-O2
-ffast-math``: rounding alone moves it); lift it (by default in a worker process with the
profitability threshold off, so that every loop proved parallel is
parallelized, as ``tests/harness.py`` does; ``--cli`` runs the real ``lift``
command instead); build the output with ``gcc -O2 -fopenmp``; run it at every
``--threads`` count (default 1 and 8) and compare what it prints with the
original.

``--target cuda`` lifts to CUDA instead and runs the ``.cu`` on the CPU, as
tests/e2e/test_corpus_cuda.py does: ``g++ -x c++ -include
lifter/backend/cuda_emulation.h``, then run with the emulated threads in index
order and again in reverse (``LIFT_EMU_ORDER``), each compared with the original.
Where ``nvcc`` is installed the ``.cu`` must also compile with ``nvcc -c`` (the
emulation is C++ on the host and does not see what nvcc rejects).

``--tiny-caches`` lifts as for a machine of a 1 KiB L1 and a 4 KiB L2
(``LIFT_CACHE_DIR``, ``tests/caches.py``): tiling pays only where reuse reaches past
the cache, so without it the generators' small arrays are never tiled.

Outcomes (each failure is kept under ``--keep DIR/<mode>-<seed>/`` with the
program, lift's output and stderr and ``failure.json``):

``ok``          output identical (``lifted`` counts these and the failures after lift).
``mismatch``    the lifted program prints something else (a miscompile).
``crash``       lift died: a Python traceback, a signal, or an error without a
                ``path:line:col: error:`` diagnostic.
``hang``        lift, or the lifted program, ran past its time limit.
``rejected``    lift refused a program gcc compiles, with a clean diagnostic.
``bad-output``  lift's output does not compile.
``run-error``   the lifted program crashed or exited with another status.

The exit status is 1 if any program failed. No subprocess is run through a shell.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import brinkgen  # noqa: E402  (scripts/brinkgen.py)
import idiomgen  # noqa: E402  (scripts/idiomgen.py)
import loopgen  # noqa: E402  (scripts/loopgen.py)
import mutantgen  # noqa: E402  (scripts/mutantgen.py)
import reachgen  # noqa: E402  (scripts/reachgen.py)
import trapgen  # noqa: E402  (scripts/trapgen.py)

sys.path.insert(0, str(REPO))
from tests.caches import write_caches  # noqa: E402
from tests.outputs import NUMBER, REDUCTION_RTOL, has_float_reduction, outputs_match  # noqa: E402

CSMITH_INCLUDE = "/usr/include/csmith"
CUDA_EMULATION = REPO / "lifter" / "backend" / "cuda_emulation.h"
# The modes written in Python: program text from (seed, config).
GENERATORS = {"loops": lambda seed, cfg: loopgen.generate(seed),
              "idioms": lambda seed, cfg: idiomgen.generate(seed, cfg.skip_idioms),
              "reach": lambda seed, cfg: reachgen.generate(seed),
              "mutants": lambda seed, cfg: mutantgen.generate(seed),
              "brink": lambda seed, cfg: brinkgen.generate(seed),
              "traps": lambda seed, cfg: trapgen.generate(seed)}
# The modes whose programs are not free of undefined behaviour by construction: the original is
# first run under the sanitizers, and discarded where they object.
SANITIZED = ("mutants",)
UNSTABLE = 1e12
SANITIZERS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
EMULATION_ORDERS = ("", "reverse")  # LIFT_EMU_ORDER: threads in index order, then reversed
DIAGNOSTIC = re.compile(r"^.+?:(\d+:(\d+:)?)? error: .+$", re.M)
FAILURES = ("mismatch", "crash", "hang", "rejected", "bad-output", "run-error")
OUTCOMES = ("ok",) + FAILURES + ("discarded",)


@dataclass
class Config:
    mode: str = "loops"
    target: str = "openmp"
    seed: int = 1
    count: int = 100
    jobs: int = 2
    keep: str | None = None
    reduce: bool = False
    threads: tuple[int, ...] = (1, 8)
    run_timeout: float = 5.0
    lift_timeout: float = 120.0
    compile_timeout: float = 120.0
    opt_level: int = 2
    min_work: int = 0
    cli: bool = False
    max_funcs: int = 3
    max_block_depth: int = 3
    csmith_args: tuple[str, ...] = ()
    skip_idioms: tuple[str, ...] = ()  # idioms mode: idiomgen.SKIPPABLE names left out
    cc: str = "gcc"
    cxx: str = "g++"
    nvcc: str = "nvcc"  # CUDA target: compile-check with `nvcc -c` where it is installed
    rtol: float = REDUCTION_RTOL
    reduce_timeout: float = 1800.0
    reduce_max: int = 10
    verbose: bool = False
    seed_is_program: bool = False
    time_limit: float = 0.0  # seconds; 0: no limit


@dataclass
class Outcome:
    mode: str
    seed: int
    outcome: str
    detail: str = ""
    parallel_loops: int = 0
    lift_seconds: float = 0.0
    kept: str = ""
    reduced: str = ""
    extra: dict = field(default_factory=dict)


# -- subprocesses (argument lists only, never a shell) -------------------------------------


@dataclass
class Ran:
    code: int | None  # None: timed out
    stdout: str
    stderr: str
    seconds: float


def run(argv: list[str], timeout: float, env: dict | None = None, cwd: str | None = None,
        stdin: bytes | None = None, grace: float = 0.0) -> Ran:
    """Run argv in its own process group; on timeout the whole group is killed
    (after SIGTERM and `grace` seconds, if grace is given)."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd,
                            start_new_session=True)
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        if grace:
            _signal_group(proc.pid, signal.SIGTERM)
            try:
                proc.wait(grace)
            except subprocess.TimeoutExpired:
                pass
        _signal_group(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        code = None
    return Ran(code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), time.monotonic() - start)


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


# -- generation ----------------------------------------------------------------------------


def generate(cfg: Config, seed: int, path: Path) -> bool:
    """Write program `seed` of the mode to `path`; False if the generator failed."""
    if cfg.mode in GENERATORS:
        path.write_text(GENERATORS[cfg.mode](seed, cfg))
        return True
    argv = ["csmith", "--seed", str(seed), "--max-funcs", str(cfg.max_funcs),
            "--max-block-depth", str(cfg.max_block_depth), *cfg.csmith_args, "-o", str(path)]
    ran = run(argv, 60)
    return ran.code == 0 and path.exists()


def cflags(cfg: Config) -> list[str]:
    flags = ["-O2", "-w"]
    if cfg.mode == "csmith":
        flags += ["-I", CSMITH_INCLUDE]
    return flags


def lift_flags(cfg: Config) -> list[str]:
    return ["-I", CSMITH_INCLUDE] if cfg.mode == "csmith" else []


# -- lifting -------------------------------------------------------------------------------


def lift_command(cfg: Config, src: Path, out: Path, report: Path, extra: list[str] = ()) -> list[str]:
    """The command that lifts `src` (relative to the work folder it runs in); `extra`: the
    program's own flags (`program_options`)."""
    if cfg.cli:
        return [sys.executable, "-m", "lifter", *lift_flags(cfg), *extra, f"-O{cfg.opt_level}",
                "--target", cfg.target, str(src), "-o", str(out), "--report", str(report)]
    return [sys.executable, str(Path(__file__).resolve()), "_lift", "--opt-level", str(cfg.opt_level),
            "--min-work", str(cfg.min_work), "--target", cfg.target, *lift_flags(cfg), *extra,
            str(src), str(out), str(report)]


def program_options(src: Path) -> list[str]:
    """The lift flags a program asks for on its first line (`/* lift-options: assume_no_alias */`,
    reachgen's programs that keep that flag's promise; the regression cases use the same line)."""
    try:
        with open(src, encoding="utf-8", errors="replace") as handle:
            first = handle.readline()
    except OSError:
        return []
    return ["--assume-no-alias"] if "lift-options:" in first and "assume_no_alias" in first else []


def lifted_name(cfg: Config, src: Path) -> str:
    return src.stem + (".lift.cu" if cfg.target == "cuda" else ".lift.c")


def build_lifted_commands(cfg: Config, out: Path, exe: Path) -> list[list[str]]:
    """The builds of lift's output, the runnable one last. OpenMP: gcc -fopenmp. CUDA:
    `nvcc -c` where installed (a compile check only: the emulation below is plain C++ and
    accepts what nvcc rejects), then g++ with the CPU emulation of the CUDA runtime."""
    if cfg.target == "cuda":
        check = ([[cfg.nvcc, "-c", "-arch=sm_80", *cflags(cfg), out.name,
                   "-o", str(exe.with_suffix(".o"))]] if shutil.which(cfg.nvcc) else [])
        return check + [[cfg.cxx, *cflags(cfg), "-x", "c++", "-include", str(CUDA_EMULATION), out.name,
                         "-o", str(exe), "-lm"]]
    return [[cfg.cc, *cflags(cfg), "-fopenmp", out.name, "-o", str(exe), "-lm"]]


def run_settings(cfg: Config) -> list[tuple[str, dict]]:
    """(what to call it in a message, extra environment) for each run of the lifted program."""
    if cfg.target == "cuda":
        return [(f"emulation order '{order or 'index'}'", {"LIFT_EMU_ORDER": order}) for order in EMULATION_ORDERS]
    # Passive waiting: 8 threads on fewer cores spinning between thousands of tiny
    # parallel regions would look like a hang.
    return [(f"{t} threads", {"OMP_NUM_THREADS": str(t), "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE")})
            for t in cfg.threads]


def tree_env() -> dict:
    """The environment for lift's process: this working tree's `lifter` comes first on the
    path, whatever copy of it is installed (pip install without -e makes a stale one)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def lift_worker(argv: list[str]) -> int:
    """`fuzz.py _lift [opts] IN OUT REPORT`: lift with the Python API (profitability threshold
    as given), as the CLI would: exit 1 with a diagnostic on LiftError, a traceback otherwise."""
    parser = argparse.ArgumentParser(prog="fuzz.py _lift")
    parser.add_argument("--opt-level", type=int, default=2)
    parser.add_argument("--min-work", type=int, default=0)
    parser.add_argument("--target", default="openmp")
    parser.add_argument("--assume-no-alias", action="store_true")
    parser.add_argument("-I", dest="include_dirs", action="append", default=[])
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("report")
    args = parser.parse_args(argv)
    from lifter import LiftOptions, lift_file
    from lifter.diagnostics import LiftError
    from lifter.frontend.preprocess import PreprocessOptions

    options = LiftOptions(preprocess=PreprocessOptions(include_dirs=args.include_dirs),
                          opt_level=args.opt_level, min_parallel_work=args.min_work, target=args.target,
                          assume_no_alias=args.assume_no_alias)
    try:
        result = lift_file(args.input, options)
    except LiftError as exc:
        print(exc.diagnostic, file=sys.stderr)
        return 1
    Path(args.output).write_text(result.output, encoding="utf-8", errors="surrogateescape")
    Path(args.report).write_text(json.dumps({"loops": result.loops}))
    return 0


def classify_lift_failure(ran: Ran) -> tuple[str, str]:
    if ran.code is None:
        return "hang", "lift ran past its time limit"
    if "Traceback (most recent call last)" in ran.stderr:
        last = [ln for ln in ran.stderr.strip().splitlines() if ln.strip()]
        return "crash", last[-1] if last else "traceback"
    if ran.code == 1 and DIAGNOSTIC.search(ran.stderr):
        return "rejected", DIAGNOSTIC.search(ran.stderr).group(0)
    return "crash", f"lift exited with status {ran.code}: {ran.stderr.strip()[-300:]}"


# -- one program ---------------------------------------------------------------------------


def check_one(cfg: Config, seed: int, work: Path) -> Outcome:
    src = work / "prog.c"
    if not generate(cfg, seed, src):
        return Outcome(cfg.mode, seed, "discarded", "generator failed")
    return check_file(cfg, seed, src, work)


def check_file(cfg: Config, seed: int, src: Path, work: Path, until: str = "run") -> Outcome:
    """Build and run `src`, lift it, build and run the output; src is in the directory `work`.

    `until` stops early (used while reducing): "lift" after lifting, "build" after
    building lift's output; both skip building and running the original."""
    cc = cfg.cc
    ref = Ran(0, "", "", 0.0)
    if until == "run":
        orig_exe = work / "orig"
        built = run([cc, *cflags(cfg), src.name, "-o", str(orig_exe), "-lm"], cfg.compile_timeout, cwd=str(work))
        if built.code != 0:
            return Outcome(cfg.mode, seed, "discarded", "gcc rejects the original")
        if cfg.mode in SANITIZED and not _sanitizers_pass(cfg, src, work):
            return Outcome(cfg.mode, seed, "discarded", "the original trips the sanitizers")
        ref = run([str(orig_exe)], cfg.run_timeout)
        if ref.code == 0 and cfg.mode in SANITIZED and _unstable(ref.stdout):
            return Outcome(cfg.mode, seed, "discarded", "the original prints nan, inf or values past 1e12")
        if ref.code != 0:
            why = "original timed out" if ref.code is None else f"original exited with {ref.code}"
            return Outcome(cfg.mode, seed, "discarded", why)

    out, report = work / lifted_name(cfg, src), work / "report.json"
    lifted = run(lift_command(cfg, Path(src.name), Path(out.name), Path(report.name), program_options(src)),
                 cfg.lift_timeout,
                 cwd=str(work), env=tree_env())
    (work / "lift.stderr").write_text(lifted.stderr)
    if lifted.code != 0 or "Traceback" in lifted.stderr:
        kind, detail = classify_lift_failure(lifted)
        return Outcome(cfg.mode, seed, kind, detail, lift_seconds=lifted.seconds)
    loops = json.loads(report.read_text())["loops"] if report.exists() else []
    n_par = sum(1 for loop in loops if loop.get("parallelized"))
    float_reduction = has_float_reduction(loops)
    result = Outcome(cfg.mode, seed, "ok", parallel_loops=n_par, lift_seconds=lifted.seconds)
    if not out.exists():
        result.outcome, result.detail = "crash", "lift succeeded but wrote no output"
        return result
    if until == "lift":
        return result

    lift_exe = work / "lifted"
    for command in build_lifted_commands(cfg, out, lift_exe):
        built = run(command, cfg.compile_timeout, cwd=str(work))
        if built.code != 0:
            errors = [ln for ln in built.stderr.splitlines() if " error: " in ln]
            result.outcome, result.detail = "bad-output", (errors[0] if errors else built.stderr.strip()[-300:])
            return result
    if until == "build":
        return result
    rtol = cfg.rtol if float_reduction else 0.0
    limit = max(cfg.run_timeout * 4, ref.seconds * 20 + 5)
    for setting, extra_env in run_settings(cfg):
        got = run([str(lift_exe)], limit, env=dict(os.environ, **extra_env))
        if got.code is None:
            result.outcome, result.detail = "hang", f"lifted program timed out at {setting}"
            return result
        if got.code != 0:
            result.outcome = "run-error"
            result.detail = f"lifted program exited with {got.code} at {setting}: {got.stderr.strip()[-200:]}"
            return result
        if not outputs_match(ref.stdout, got.stdout, rtol):
            if not _optimization_stable(cfg, src, work, ref):
                return Outcome(cfg.mode, seed, "discarded", "the original prints something else at -O0")
            if rtol and not _reassociation_stable(cfg, src, work, ref, rtol):
                return Outcome(cfg.mode, seed, "discarded",
                               "the original's output depends on the order of its floating-point sums")
            result.outcome = "mismatch"
            result.detail = f"output differs at {setting}"
            result.extra = {"expected": ref.stdout[-2000:], "got": got.stdout[-2000:], "run": setting}
            return result
    return result


def _unstable(output: str) -> bool:
    """A mutant whose values blow up (durbin's recurrence turned unstable reaches 1e19 from data
    of 1): a reassociated sum's last-bit rounding grows to any size there, so no tolerance can
    tell lift's reordering from a wrong result."""
    return any(v != v or abs(v) > UNSTABLE for v in map(float, NUMBER.findall(output)))


def _sanitizers_pass(cfg: Config, src: Path, work: Path) -> bool:
    """The original runs clean under AddressSanitizer and UndefinedBehaviorSanitizer (array
    bounds, VLA bounds included): a mutant that reads outside an array says nothing about lift."""
    exe = work / "orig-sanitized"
    built = run([cfg.cc, *cflags(cfg), *SANITIZERS, src.name, "-o", str(exe), "-lm"], cfg.compile_timeout,
                cwd=str(work))
    return built.code == 0 and run([str(exe)], cfg.run_timeout * 4).code == 0


def _optimization_stable(cfg: Config, src: Path, work: Path, ref: "Ran") -> bool:
    """The original prints the same at -O0 as at -O2. When not (gcc 12's vectorizer miscompiled
    a loops program; or undefined behaviour), a mismatch says nothing about lift."""
    exe = work / "orig-O0"
    flags = [f for f in cflags(cfg) if f != "-O2"] + ["-O0"]
    built = run([cfg.cc, *flags, src.name, "-o", str(exe), "-lm"], cfg.compile_timeout, cwd=str(work))
    if built.code != 0:
        return True
    plain = run([str(exe)], cfg.run_timeout * 4)
    return plain.code == 0 and plain.stdout == ref.stdout


def _reassociation_stable(cfg: Config, src: Path, work: Path, ref: "Ran", rtol: float) -> bool:
    """The original prints the same, within `rtol`, when gcc may reassociate its floating-point
    sums (`-ffast-math`), as lift's reductions do. When not (a mutated Gram-Schmidt recurrence that
    cancels to 1e-4 out of values of 1e10), rounding alone moves its output past any tolerance,
    and a mismatch says nothing about lift."""
    exe = work / "orig-fast"
    built = run([cfg.cc, *cflags(cfg), "-ffast-math", src.name, "-o", str(exe), "-lm"], cfg.compile_timeout,
                cwd=str(work))
    if built.code != 0:
        return True
    fast = run([str(exe)], cfg.run_timeout * 4)
    return fast.code == 0 and outputs_match(ref.stdout, fast.stdout, rtol)


def keep_failure(cfg: Config, outcome: Outcome, work: Path) -> None:
    if not cfg.keep:
        return
    dest = Path(cfg.keep) / (f"{cfg.mode}-{outcome.seed}" if cfg.target == "openmp"
                             else f"{cfg.mode}-{cfg.target}-{outcome.seed}")
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for name in ("prog.c", "prog.lift.c", "prog.lift.cu", "lift.stderr", "report.json"):
        if (work / name).exists():
            shutil.copy(work / name, dest / name)
    info = asdict(outcome)
    info["reproduce"] = reproduce_command(cfg, outcome.seed)
    (dest / "failure.json").write_text(json.dumps(info, indent=2) + "\n")
    outcome.kept = str(dest)


def reproduce_command(cfg: Config, seed: int) -> str:
    parts = ["python3", "scripts/fuzz.py", cfg.mode, "--seed", str(seed), "--count", "1", "--seed-is-program"]
    if cfg.mode == "csmith":
        parts += ["--max-funcs", str(cfg.max_funcs), "--max-block-depth", str(cfg.max_block_depth)]
    parts += [f"--csmith-arg={a}" for a in cfg.csmith_args]
    if cfg.mode == "idioms" and cfg.skip_idioms:
        parts += ["--skip-idioms", ",".join(cfg.skip_idioms)]
    if cfg.target != "openmp":
        parts += ["--target", cfg.target]
    if cfg.cli:
        parts.append("--cli")
    return " ".join(parts)


def fuzz_one(cfg: Config, seed: int) -> Outcome:
    with tempfile.TemporaryDirectory(prefix=f"lift-fuzz-{cfg.mode}-{seed}-") as tmp:
        work = Path(tmp)
        try:
            outcome = check_one(cfg, seed, work)
        except Exception:  # a bug in this script: report it, keep going
            outcome = Outcome(cfg.mode, seed, "crash", "fuzz.py: " + traceback.format_exc().strip().splitlines()[-1])
        if outcome.outcome in FAILURES:
            keep_failure(cfg, outcome, work)
    return outcome


# -- driver --------------------------------------------------------------------------------


def summarize(outcomes: list[Outcome], cfg: Config, seconds: float) -> dict:
    counts = {k: 0 for k in OUTCOMES}
    for o in outcomes:
        counts[o.outcome] += 1
    tried = len(outcomes) - counts["discarded"]
    discarded = _discarded(outcomes)
    lifted = sum(1 for o in outcomes if o.outcome in ("ok", "mismatch", "bad-output", "run-error")
                 or (o.outcome == "hang" and o.detail.startswith("lifted")))
    return {
        "mode": cfg.mode,
        "seeds": (f"program seeds {cfg.seed}..{cfg.seed + cfg.count - 1}" if cfg.seed_is_program
                  else f"master seed {cfg.seed}, {cfg.count} programs"),
        "generated": len(outcomes),
        "discarded": counts["discarded"],
        "tried": tried,
        "lifted": lifted,
        "programs_with_parallel_loops": sum(1 for o in outcomes if o.parallel_loops),
        "parallel_loops": sum(o.parallel_loops for o in outcomes),
        "ok": counts["ok"],
        "mismatches": counts["mismatch"],
        "crashes": counts["crash"],
        "hangs": counts["hang"],
        "clean_rejections": counts["rejected"],
        "bad_outputs": counts["bad-output"],
        "run_errors": counts["run-error"],
        "seconds": round(seconds, 1),
        "failures": [asdict(o) for o in outcomes if o.outcome in FAILURES],
        "discards": {why: len(seeds) for why, seeds in discarded.items()},
        "discarded_seeds": discarded,
    }


def _discarded(outcomes: list[Outcome]) -> dict[str, list[int]]:
    """The program seeds discarded, by reason: a discard may hide a generator's bug (a program
    gcc rejects, undefined behaviour the sanitizers catch), so each can be replayed."""
    out: dict[str, list[int]] = {}
    for o in outcomes:
        if o.outcome == "discarded":
            out.setdefault(o.detail, []).append(o.seed)
    return out


def print_summary(summary: dict, stream=sys.stdout) -> None:
    s = summary
    print(f"\n== lift fuzz: {s['mode']}, {s['seeds']} ({s['seconds']} s)", file=stream)
    if s.get("planned", s["generated"]) > s["generated"]:
        print(f"stopped early: {s['generated']} of {s['planned']} programs done", file=stream)
    print(f"generated {s['generated']}, discarded {s['discarded']} {s['discards'] or ''}", file=stream)
    for why, seeds in s["discarded_seeds"].items():
        print(f"  discarded ({why}): seeds {' '.join(map(str, seeds))}", file=stream)
    print(f"tried {s['tried']}  lifted {s['lifted']}  ok {s['ok']}  "
          f"(programs with parallel loops {s['programs_with_parallel_loops']}, parallel loops {s['parallel_loops']})",
          file=stream)
    print(f"mismatches {s['mismatches']}  crashes {s['crashes']}  hangs {s['hangs']}  "
          f"clean rejections {s['clean_rejections']}  bad outputs {s['bad_outputs']}  run errors {s['run_errors']}",
          file=stream)
    for f in s["failures"]:
        where = f" -> {f['kept']}" if f["kept"] else ""
        red = f" (reduced: {f['reduced']})" if f["reduced"] else ""
        print(f"  {f['outcome']:10} seed {f['seed']}: {f['detail'][:200]}{where}{red}", file=stream)


def fuzz(cfg: Config, seeds: list[int] | None = None, progress=None,
         stop: threading.Event | None = None) -> dict:
    """Run every seed; once `stop` is set or `cfg.time_limit` seconds have passed, start no
    more programs, finish the running ones and summarize what was done (a campaign that
    does not fit its time still reports its counts)."""
    if cfg.mode == "csmith" and shutil.which("csmith") is None:
        raise SystemExit("csmith is not installed (apt-get install -y csmith libcsmith-dev)")
    seeds = seeds if seeds is not None else seed_list(cfg)
    start = time.monotonic()
    stop = stop or threading.Event()
    outcomes: list[Outcome] = []
    lock = threading.Lock()

    def one(seed: int) -> Outcome | None:
        if cfg.time_limit and time.monotonic() - start > cfg.time_limit:
            stop.set()
        return None if stop.is_set() else fuzz_one(cfg, seed)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, cfg.jobs)) as pool:
        futures = [pool.submit(one, s) for s in seeds]
        for fut in concurrent.futures.as_completed(futures):
            o = fut.result()
            if o is None:
                continue
            with lock:
                outcomes.append(o)
                if progress:
                    progress(o, len(outcomes), len(seeds))
    outcomes.sort(key=lambda o: seeds.index(o.seed))
    summary = summarize(outcomes, cfg, time.monotonic() - start)
    summary["planned"] = len(seeds)
    return summary


def seed_list(cfg: Config) -> list[int]:
    """Program seeds: `--count` numbers drawn from `--seed` (so runs with nearby seeds differ)."""
    if cfg.seed_is_program:
        return [cfg.seed + i for i in range(cfg.count)]
    rng = random.Random(cfg.seed)
    out: list[int] = []
    seen = set()
    while len(out) < cfg.count:
        s = rng.randrange(1, 2**31)
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["_lift"]:
        return lift_worker(argv[1:])
    parser = argparse.ArgumentParser(prog="fuzz.py", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=textwrap.dedent(__doc__.split("\n\n", 1)[1]))
    parser.add_argument("mode", choices=(*GENERATORS, "csmith"))
    parser.add_argument("--target", choices=("openmp", "cuda"), default="openmp",
                        help="lift to OpenMP (run at --threads) or CUDA (run under the CPU emulation)")
    parser.add_argument("--seed", type=int, default=1, help="master seed (default 1)")
    parser.add_argument("--count", type=int, default=100, help="programs to try (default 100)")
    parser.add_argument("--seed-is-program", action="store_true",
                        help="use --seed .. --seed+count-1 as the program seeds themselves (to replay one)")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--keep", metavar="DIR", help="keep every failing program under DIR")
    parser.add_argument("--reduce", action="store_true", help="after the run, minimize each distinct failure with creduce (needs --keep)")
    parser.add_argument("--reduce-timeout", type=float, default=1800.0, help="seconds per creduce run")
    parser.add_argument("--reduce-max", type=int, default=10, help="reduce at most this many failures")
    parser.add_argument("--threads", default="1,8", help="OMP_NUM_THREADS values to run the output at")
    parser.add_argument("--run-timeout", type=float, default=5.0,
                        help="seconds for the original (past it the program is discarded)")
    parser.add_argument("--lift-timeout", type=float, default=120.0)
    parser.add_argument("--compile-timeout", type=float, default=120.0)
    parser.add_argument("-O", "--opt-level", type=int, choices=(0, 1, 2), default=2)
    parser.add_argument("--min-work", type=int, default=0,
                        help="lift's profitability threshold (default 0: every parallel loop)")
    parser.add_argument("--cli", action="store_true", help="run the installed command (python -m lifter) instead")
    parser.add_argument("--max-funcs", type=int, default=3, help="csmith --max-funcs")
    parser.add_argument("--max-block-depth", type=int, default=3, help="csmith --max-block-depth")
    parser.add_argument("--csmith-arg", action="append", default=[], help="extra csmith argument (repeatable)")
    parser.add_argument("--skip-idioms", default="",
                        help=f"idioms mode: comma-separated idioms to leave out ({', '.join(idiomgen.SKIPPABLE)})")
    parser.add_argument("--time-limit", type=float, default=0.0,
                        help="start no program after this many seconds, then summarize (also on SIGINT/SIGTERM)")
    parser.add_argument("--json", metavar="FILE", help="write the summary as JSON")
    parser.add_argument("-v", "--verbose", action="store_true", help="a line per program")
    parser.add_argument("--tiny-caches", action="store_true",
                        help="lift for a machine of 1 KiB L1 and 4 KiB L2 caches, so that small programs' "
                             "bands are tiled too (tiling pays only past the cache: LIFT_CACHE_DIR)")
    args = parser.parse_args(argv)
    if args.tiny_caches:
        os.environ["LIFT_CACHE_DIR"] = str(write_caches(Path(tempfile.mkdtemp(prefix="lift-fuzz-caches-"))))
    if args.reduce and not args.keep:
        parser.error("--reduce needs --keep DIR")
    unknown = set(x for x in args.skip_idioms.split(",") if x) - set(idiomgen.SKIPPABLE)
    if unknown:
        parser.error(f"--skip-idioms: unknown {', '.join(sorted(unknown))} (known: {', '.join(idiomgen.SKIPPABLE)})")
    cfg = Config(mode=args.mode, target=args.target, seed=args.seed, count=args.count, jobs=args.jobs, keep=args.keep,
                 reduce=args.reduce, threads=tuple(int(t) for t in args.threads.split(",")),
                 run_timeout=args.run_timeout, lift_timeout=args.lift_timeout,
                 compile_timeout=args.compile_timeout, opt_level=args.opt_level, min_work=args.min_work,
                 cli=args.cli, max_funcs=args.max_funcs, max_block_depth=args.max_block_depth,
                 csmith_args=tuple(args.csmith_arg),
                 skip_idioms=tuple(x for x in args.skip_idioms.split(",") if x), reduce_timeout=args.reduce_timeout, reduce_max=args.reduce_max,
                 verbose=args.verbose,
                 seed_is_program=args.seed_is_program, time_limit=args.time_limit)

    def progress(o: Outcome, done: int, total: int) -> None:
        if args.verbose or o.outcome in FAILURES:
            print(f"[{done}/{total}] seed {o.seed}: {o.outcome} {o.detail[:160]}", flush=True)
        elif done % 50 == 0:
            print(f"[{done}/{total}]", flush=True)

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    summary = fuzz(cfg, progress=progress, stop=stop)
    if cfg.reduce:
        outcomes = [Outcome(**{k: v for k, v in f.items()}) for f in summary["failures"]]
        import fuzz_reduce  # scripts/fuzz_reduce.py, which imports this module

        fuzz_reduce.reduce_all(cfg, outcomes, log=lambda m: print(m, flush=True))
        summary["failures"] = [asdict(o) for o in outcomes]
    print_summary(summary)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2) + "\n")
    return 1 if any(summary[k] for k in ("mismatches", "crashes", "hangs", "clean_rejections", "bad_outputs",
                                          "run_errors")) else 0


if __name__ == "__main__":
    sys.exit(main())
