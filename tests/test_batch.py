"""Batch lifting (`lift INPUTS... -d OUTDIR`), parallel jobs, the cache, Make dependency files and the heat app."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lifter import batch, lift_file
from lifter.batch import BatchOptions, DepOptions, lift_batch
from tests.cli_runner import lift

REPO = Path(__file__).resolve().parent.parent
APPS = REPO / "corpus" / "apps"
HEAT = APPS / "heat"
APP_SHARED = ("app.mk", "hand_omp.h")  # beside the apps, used by every one
DIAG = re.compile(r"^(?P<path>.+?):(?:(?P<line>\d+):(?:(?P<col>\d+):)?)? error: (?P<msg>.+)$", re.M)

AXPY = """#include "vec.h"
void axpy(int n, double a, double *restrict x, double *restrict y)
{
    for (int i = 0; i < n; i++)
        y[i] += a * x[i];
}
"""
SCALE = """void scale(int n, double a, double *restrict x)
{
    for (int i = 0; i < n; i++)
        x[i] *= a;
}
"""
NOLOOP = "int answer(void) { return 42; }\n"
BAD = "int f(int x)\n{\n    int y = x +;\n    return y;\n}\n"


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A small source tree in a fresh current directory: a.c, src/b.c (includes src/vec.h), src/sub/c.c."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src" / "sub").mkdir(parents=True)
    (tmp_path / "src" / "vec.h").write_text("#define VEC_H 1\n")
    (tmp_path / "a.c").write_text(SCALE)
    (tmp_path / "src" / "b.c").write_text(AXPY)
    (tmp_path / "src" / "sub" / "c.c").write_text(NOLOOP)
    (tmp_path / "src" / "notes.txt").write_text("not C\n")
    return tmp_path


def files_under(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".lift-cache" not in p.parts}


# 1. many inputs, one output tree -------------------------------------------------------

def test_tree_layout_and_outputs_equal_single_file_runs(tree):
    r = lift("a.c", "src", "-d", "out", "-j", "1")
    assert r.code == 0, r.stderr
    assert sorted(files_under(tree / "out")) == ["a.c", "src/b.c", "src/sub/c.c"]
    for rel in ["a.c", "src/b.c", "src/sub/c.c"]:
        assert (tree / "out" / rel).read_text() == lift_file(rel).output
    assert "#pragma omp parallel for" in (tree / "out" / "src" / "b.c").read_text()
    assert (tree / "out" / "src" / "sub" / "c.c").read_text() == NOLOOP


def test_cuda_target_names_outputs_cu(tree):
    r = lift("src", "-d", "gpu", "--target", "cuda", "-q")
    assert r.code == 0, r.stderr
    assert sorted(files_under(tree / "gpu")) == ["src/b.cu", "src/sub/c.cu"]


def test_inputs_outside_cwd_are_placed_relative_to_their_common_root(tmp_path, monkeypatch):
    lib = tmp_path / "elsewhere" / "lib"
    (lib / "k").mkdir(parents=True)
    (lib / "x.c").write_text(SCALE)
    (lib / "k" / "y.c").write_text(NOLOOP)
    work = tmp_path / "work"
    work.mkdir()
    (work / "m.c").write_text(NOLOOP)
    monkeypatch.chdir(work)
    r = lift("m.c", str(lib / "x.c"), "../elsewhere/lib/k/y.c", "-d", "out", "-q")
    assert r.code == 0, r.stderr
    # m.c is below the current directory; the others keep their paths below elsewhere/lib
    assert sorted(files_under(work / "out")) == ["k/y.c", "m.c", "x.c"]
    assert not list(tmp_path.glob("elsewhere/**/out"))


def test_directory_argument_skips_output_dir_hidden_dirs_and_other_files(tree):
    (tree / "src" / ".hidden").mkdir()
    (tree / "src" / ".hidden" / "h.c").write_text(NOLOOP)
    assert lift("src", "-d", "src/lifted", "-q").code == 0
    assert sorted(files_under(tree / "src" / "lifted")) == ["src/b.c", "src/sub/c.c"]
    # a second run does not pick up its own outputs
    assert lift("src", "-d", "src/lifted", "-q").code == 0
    assert sorted(files_under(tree / "src" / "lifted")) == ["src/b.c", "src/sub/c.c"]


def test_never_overwrites_an_input(tree):
    before = (tree / "a.c").read_bytes()
    r = lift("a.c", "src/b.c", "-d", ".", "-q")
    assert r.code == 1
    m = DIAG.search(r.stderr)
    assert m and m["path"] == "a.c" and "overwrite the input" in m["msg"], r.stderr
    assert (tree / "a.c").read_bytes() == before
    assert (tree / "src" / "b.c").read_text() == AXPY


def test_never_writes_through_a_symlink_out_of_outdir(tree, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (tree / "out").mkdir()
    (tree / "out" / "src").symlink_to(outside)
    r = lift("src/b.c", "a.c", "-d", "out", "-q")
    assert r.code == 1
    assert "out of the output directory" in r.stderr and "Traceback" not in r.stderr
    assert list(outside.iterdir()) == []
    assert (tree / "out" / "a.c").exists()  # the other file is still lifted


def test_two_inputs_one_output_is_refused(tmp_path, monkeypatch):
    for d in ("p", "q"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "k.c").write_text(NOLOOP)
    monkeypatch.chdir(tmp_path / "p")
    # ../q/k.c is outside the current directory: relative to its own root it is k.c, like ./k.c
    r = lift("k.c", "../q/k.c", "-d", "out", "-q")
    assert r.code == 1
    assert "is also the output of 'k.c'" in r.stderr
    assert (tmp_path / "p" / "out" / "k.c").exists()


def test_same_file_twice_is_lifted_once(tree):
    r = lift("a.c", "./a.c", "-d", "out", "--report", "r.json", "-q")
    assert r.code == 0, r.stderr
    assert [f["file"] for f in json.loads((tree / "r.json").read_text())["files"]] == ["a.c"]


# 2. keep going, fail fast, exit status, summary ---------------------------------------

def test_failing_file_does_not_stop_the_others(tree):
    (tree / "src" / "bad.c").write_text(BAD)
    r = lift("src", "a.c", "-d", "out", "-j", "1")
    assert r.code == 1
    assert "Traceback" not in r.stderr
    m = DIAG.search(r.stderr)
    assert (m["path"], m["line"], m["col"]) == ("src/bad.c", "3", "16"), r.stderr
    assert sorted(files_under(tree / "out")) == ["a.c", "src/b.c", "src/sub/c.c"]
    # the summary lists the failure at the end
    tail = r.stderr[r.stderr.index("failed:"):]
    assert "src/bad.c" in tail


def test_missing_input_is_one_failure(tree):
    r = lift("a.c", "nosuch.c", "-d", "out", "-q")
    assert r.code == 1
    assert DIAG.search(r.stderr)["path"] == "nosuch.c"
    assert (tree / "out" / "a.c").exists()


def test_fail_fast_stops_at_first_error_in_input_order(tree):
    (tree / "bad.c").write_text(BAD)
    r = lift("a.c", "bad.c", "src", "-d", "out", "--fail-fast", "-j", "2")
    assert r.code == 1
    assert len(DIAG.findall(r.stderr)) == 1
    assert sorted(files_under(tree / "out")) == ["a.c"]
    assert "not lifted (--fail-fast)" in r.stderr


def test_parallel_run_equals_serial_run(tree):
    (tree / "src" / "bad.c").write_text(BAD)
    for i in range(3):
        (tree / "src" / f"k{i}.c").write_text(SCALE.replace("scale", f"scale{i}"))
    serial = lift("src", "a.c", "-d", "out1", "-j", "1", "-v", "-q", "--no-cache", "--report", "r1.json")
    parallel = lift("src", "a.c", "-d", "out2", "-j", "2", "-v", "-q", "--no-cache", "--report", "r2.json")
    assert serial.code == parallel.code == 1
    assert serial.stderr == parallel.stderr
    assert "remark: loop over 'i' parallelized" in serial.stderr
    assert files_under(tree / "out1") == files_under(tree / "out2")
    r1, r2 = (json.loads((tree / n).read_text()) for n in ("r1.json", "r2.json"))
    for r in (r1, r2):
        for f in r["files"]:
            f.pop("seconds")
            f["output"] = f["output"] and f["output"][5:]
    assert r1 == r2


def test_batch_report_covers_every_file(tree):
    (tree / "bad.c").write_text(BAD)
    r = lift("a.c", "src", "bad.c", "-d", "out", "--report", "r.json", "-q")
    assert r.code == 1
    report = json.loads((tree / "r.json").read_text())
    assert report["tool"].startswith("lift ")
    assert {e["file"] for e in report["loops"]} == {"a.c", "src/b.c"}
    assert [(f["file"], f["status"]) for f in report["files"]] == [
        ("a.c", "lifted"), ("src/b.c", "lifted"), ("src/sub/c.c", "lifted"), ("bad.c", "failed")]
    assert report["files"][3]["error"].startswith("bad.c:3:16: error:")


def test_summary_table(tree):
    r = lift("a.c", "src", "-d", "out")
    assert r.code == 0
    assert re.search(r"files\s+loops\s+parallelized\s+time", r.stderr), r.stderr
    total = re.search(r"total\s+(\d+)\s+(\d+)\s+(\d+)\s+[\d.]+ s", r.stderr)
    assert total and total.groups() == ("3", "2", "2"), r.stderr
    assert "\r" not in r.stderr  # no progress bar: stderr is not a terminal
    assert lift("a.c", "src", "-d", "out2", "-q").stderr == ""


def test_progress_bar_on_a_terminal(tree):
    pty = pytest.importorskip("pty")
    master, slave = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "lifter", "a.c", "src", "-d", "out", "-j", "1"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave, timeout=120)
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
    text = b"".join(chunks).decode()
    assert done.returncode == 0, text
    assert "3/3" in text and "[" in text and "\r" in text
    assert "parallelized" in text  # the summary follows


def test_progress_bar_draws_and_clears():
    out = []
    bar = batch.ProgressBar(out.append, enabled=True, width=60)
    bar.update(1, 4, "src/a_very_long_name_that_does_not_fit_the_line_at_all.c")
    assert out[-1].startswith("[#") and " 1/4 " in out[-1] and len(out[-1]) < 60
    bar.clear()
    assert out[-1] == "\r\033[K"
    off = []
    batch.ProgressBar(off.append, enabled=False).update(1, 2, "x.c")
    assert off == []


# 3. the cache --------------------------------------------------------------------------

def test_cache_skips_unchanged_inputs_and_rechecks_headers(tree, monkeypatch):
    calls = []
    real = batch.lift_file

    def spy(path, options):
        calls.append(path)
        return real(path, options)

    monkeypatch.setattr(batch, "lift_file", spy)
    args = ["a.c", "src", "-d", "out", "-j", "1", "-q"]
    assert lift(*args).code == 0
    assert sorted(calls) == ["a.c", "src/b.c", "src/sub/c.c"]
    first = files_under(tree / "out")
    stamp = (tree / "out" / "a.c").stat().st_mtime_ns

    calls.clear()
    assert lift(*args).code == 0
    assert calls == []                                      # nothing changed: nothing lifted
    assert files_under(tree / "out") == first
    assert (tree / "out" / "a.c").stat().st_mtime_ns == stamp  # unchanged outputs are not rewritten

    (tree / "src" / "vec.h").write_text("#define VEC_H 2\n")   # a header only b.c includes
    calls.clear()
    assert lift(*args).code == 0
    assert calls == ["src/b.c"]

    (tree / "a.c").write_text(SCALE + "\n")                  # the input itself
    calls.clear()
    assert lift(*args).code == 0
    assert calls == ["a.c"]

    calls.clear()
    assert lift(*args, "-DX=1").code == 0                    # other flags: everything again
    assert sorted(calls) == ["a.c", "src/b.c", "src/sub/c.c"]

    calls.clear()
    assert lift(*args, "--no-cache").code == 0
    assert len(calls) == 3

    (tree / "out" / "src" / "b.c").unlink()                  # a deleted output comes back from the cache
    calls.clear()
    assert lift(*args, "-DX=1").code == 0
    assert calls == [] and (tree / "out" / "src" / "b.c").exists()


def test_cache_misses_when_the_caches_or_the_compiler_version_change(tree, monkeypatch):
    """Tile sizes come from the caches in sysfs, and what the preprocessor makes of the system
    headers from the compiler's version: a result lifted under other ones is not reused."""
    from lifter.transform import tiling

    calls = []
    real = batch.lift_file
    monkeypatch.setattr(batch, "lift_file", lambda p, o: calls.append(p) or real(p, o))
    caches = tree / "sys-cache"
    for index, (kind, level, size) in enumerate([("Data", 1, "32K"), ("Unified", 2, "1024K")]):
        (caches / f"index{index}").mkdir(parents=True)
        for name, value in (("type", kind), ("level", str(level)), ("size", size)):
            (caches / f"index{index}" / name).write_text(value + "\n")
    monkeypatch.setenv(tiling.CACHE_DIR_ENV, str(caches))
    version = tree / "cc-version"
    version.write_text("cc (Test) 12.2.0\n")
    compiler = tree / "cc"
    compiler.write_text(f'#!/bin/sh\n[ "$1" = --version ] && exec cat {version}\nexec {shutil.which("gcc")} "$@"\n')
    compiler.chmod(0o755)
    monkeypatch.setenv("LIFT_CPP_CC", str(compiler))
    args = ["a.c", "-d", "out", "-j", "1", "-q"]

    def lifted_again() -> bool:
        calls.clear()
        assert lift(*args).code == 0
        return calls == ["a.c"]

    assert lifted_again() and not lifted_again()
    (caches / "index1" / "size").write_text("2048K\n")
    assert lifted_again() and not lifted_again()
    version.write_text("cc (Test) 13.1.0\n")
    assert lifted_again() and not lifted_again()


def test_explicit_cache_dir_and_single_file_cache(tree, monkeypatch):
    calls = []
    real = batch.lift_file
    monkeypatch.setattr(batch, "lift_file", lambda p, o: calls.append(p) or real(p, o))
    assert lift("a.c", "-d", "out", "--cache", "cachedir", "-q", "-j", "1").code == 0
    assert (tree / "cachedir").is_dir() and not (tree / "out" / ".lift-cache").exists()
    assert lift("a.c", "-d", "out2", "--cache", "cachedir", "-q", "-j", "1").code == 0
    assert calls == ["a.c"]
    # a single input through the same cache
    r = lift("a.c", "-o", "single.c", "--cache", "cachedir")
    assert r.code == 0 and calls == ["a.c"]
    assert (tree / "single.c").read_text() == (tree / "out" / "a.c").read_text()


def test_cached_run_reports_and_remarks_like_a_fresh_one(tree):
    first = lift("a.c", "src", "-d", "out", "-v", "-q", "--report", "r1.json")
    second = lift("a.c", "src", "-d", "out", "-v", "-q", "--report", "r2.json")
    assert first.stderr == second.stderr and "remark:" in first.stderr
    r1, r2 = (json.loads((tree / n).read_text()) for n in ("r1.json", "r2.json"))
    assert r1["loops"] == r2["loops"]
    assert [f["status"] for f in r2["files"]] == ["cached"] * 3


# 4. Make dependency files --------------------------------------------------------------

def test_dependency_rule_format():
    rule = batch.dependency_rule(["out/x.c"], "x.c", ["a b.h", "c$.h", "d#.h"], phony=True)
    assert rule.splitlines()[0] == r"out/x.c: x.c a\ b.h c$$.h d\#.h"
    assert "\na\\ b.h:\n" in rule
    long = batch.dependency_rule(["t"], "x.c", [f"include/header_number_{i}.h" for i in range(10)])
    assert all(len(line) <= 80 for line in long.splitlines())
    assert long.count(" \\\n") >= 2


def test_MD_lists_system_headers_MMD_only_user_headers(tree):
    (tree / "m.c").write_text('#include <stdio.h>\n#include "src/vec.h"\n' + SCALE)
    assert lift("m.c", "-o", "m.lifted.c", "-MD").code == 0
    md = (tree / "m.lifted.d").read_text()   # cc's name: the output with suffix .d
    assert md.startswith("m.lifted.c: m.c")
    assert "src/vec.h" in md and "stdio.h" in md
    assert lift("m.c", "-o", "m.lifted.c", "-MMD", "-MP").code == 0
    mmd = (tree / "m.lifted.d").read_text()
    assert mmd == "m.lifted.c: m.c src/vec.h\n\nsrc/vec.h:\n"


def test_MF_MT_MQ(tree):
    assert lift("src/b.c", "-o", "b out.c", "-MMD", "-MF", "deps/b.d").code == 1  # deps/ does not exist
    (tree / "deps").mkdir()
    assert lift("src/b.c", "-o", "b out.c", "-MMD", "-MF", "deps/b.d").code == 0
    assert (tree / "deps" / "b.d").read_text() == "b\\ out.c: src/b.c src/vec.h\n"
    assert lift("src/b.c", "-o", "-", "-MFdeps/b2.d", "-MT", "$(OUT)/b.c", "-MQ", "$x").code == 0
    rule = (tree / "deps" / "b2.d").read_text()
    assert rule.startswith("$(OUT)/b.c $$x: src/b.c ") and rule.rstrip().endswith("src/vec.h")
    # stdout output needs a target name
    r = lift("src/b.c", "-MMD")
    assert r.code == 1 and "-MT" in r.stderr and r.stderr.startswith("lift: error: ")
    # a failed lift writes no dependency file
    (tree / "bad.c").write_text(BAD)
    assert lift("bad.c", "-o", "bad.out.c", "-MMD").code == 1
    assert not (tree / "bad.out.d").exists()


def test_batch_writes_a_dependency_file_per_output(tree):
    assert lift("a.c", "src", "-d", "out", "-MMD", "-q").code == 0
    assert (tree / "out" / "src" / "b.d").read_text() == "out/src/b.c: src/b.c src/vec.h\n"
    assert (tree / "out" / "a.d").read_text() == "out/a.c: a.c\n"
    r = lift("a.c", "src", "-d", "out", "-MMD", "-MF", "x.d")
    assert r.code == 1 and r.stderr.startswith("lift: error: ")


@pytest.mark.parametrize("args,msg", [
    (["a.c", "src/b.c"], "-d OUTDIR"),
    (["a.c", "-d", "out", "-o", "x.c"], "-o"),
    (["a.c", "-d", "out", "--emit-graph", "g.dot"], "--emit-graph"),
    (["a.c", "-d", "out", "--cache", "c", "--no-cache"], "--no-cache"),
])
def test_usage_errors(tree, args, msg):
    r = lift(*args)
    assert r.code == 1 and r.stderr.startswith("lift: error: ") and msg in r.stderr and "Traceback" not in r.stderr


def test_outdir_that_is_a_file(tree):
    r = lift("a.c", "-d", "a.c")
    assert r.code == 1 and DIAG.search(r.stderr)["path"] == "a.c"
    assert (tree / "a.c").read_text() == SCALE


def test_help_documents_batch_options():
    r = lift("--help")
    text = r.stdout.decode()
    for opt in ["-d", "--output-dir", "-j", "--jobs", "--fail-fast", "-q", "--quiet", "--cache", "--no-cache",
                "-MD", "-MMD", "-MF", "-MT", "-MQ", "-MP"]:
        assert re.search(rf"(^|[\s,]){re.escape(opt)}\b", text), opt


# 5. the Python API ---------------------------------------------------------------------

def test_lift_batch_api(tree):
    seen = []
    result = lift_batch(["src", "a.c"], "out", batch=BatchOptions(jobs=1, deps=DepOptions(system=False)),
                        on_file=lambda o: seen.append(o.path))
    assert result.ok and seen == ["src/b.c", "src/sub/c.c", "a.c"]
    assert [f.status for f in result.files] == ["lifted"] * 3
    assert result.report()["loops"][0]["file"] == "src/b.c"
    assert (tree / "out" / "src" / "b.d").exists()


# 6. the heat mini-application through make ----------------------------------------------

def _make(app: Path, *args, env=None):
    done = subprocess.run(["make", "-C", str(app), *args], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _copy_app(app: Path, tmp_path: Path) -> Path:
    """The app and the files every app includes (../app.mk, ../hand_omp.h)."""
    for shared in APP_SHARED:
        shutil.copy(APPS / shared, tmp_path / shared)
    shutil.copytree(app, tmp_path / app.name, ignore=shutil.ignore_patterns("build"))
    return tmp_path / app.name


needs_make = pytest.mark.skipif(shutil.which("make") is None or shutil.which("gcc") is None,
                                reason="needs make and gcc")


@needs_make
def test_heat_app_builds_through_lift_and_rebuilds_on_header_change(tmp_path):
    app = _copy_app(HEAT, tmp_path)
    tool = f"{sys.executable} -m lifter"
    env = dict(os.environ)
    out = _make(app, "check", f"LIFT_TOOL={tool}", "ARGS=220 20", "THREADS=2", env=env)
    assert "lifted build agrees with plain build at 2 threads" in out
    lifted = (app / "build" / "lift" / "solver.c").read_text()
    assert "#pragma omp parallel for" in lifted
    assert (app / "build" / "lift" / "main.c.d").read_text().startswith("build/lift/main.c: main.c grid.h solver.h")
    assert "Nothing to be done" in _make(app, "LIFT=1", f"LIFT_TOOL={tool}", env=env)

    def relifted() -> list[str]:
        dry = _make(app, "-n", "LIFT=1", f"LIFT_TOOL={tool}", env=env)
        return sorted(m for line in dry.splitlines() if line.startswith(tool)
                      for m in re.findall(r"(\S+\.c) -o build/lift/", line))

    def touch(path: Path) -> None:
        time.sleep(0.05)  # make compares time stamps with sub-second resolution
        os.utime(path)

    touch(app / "solver.h")   # included by main.c and solver.c only
    assert relifted() == ["main.c", "solver.c"]
    _make(app, "LIFT=1", f"LIFT_TOOL={tool}", env=env)
    assert relifted() == []
    touch(app / "grid.h")     # included by every source
    assert relifted() == ["grid.c", "main.c", "solver.c"]


# Every app: arguments small enough for a test, large enough that the hot loops' run-time
# work conditions hold (so the parallel code runs), and the functions whose loops must be
# parallel in the lifted source.
APP_RUNS = {
    "heat": ("220 20", {"solver.c": ["jacobi_sweep", "max_change"]}),
    "cg": ("40 20", {"csr.c": ["spmv"], "vector.c": ["dot", "axpy", "xpay"]}),
    "md": ("12 10", {"force.c": ["lj"], "cells.c": ["bin"]}),
    "xs": ("20000 200 20", {"lookup.c": ["lookups_kernel"]}),
    "kmeans": ("20000 8 10", {"kmeans.c": ["assign", "inertia"]}),
    # The apps of issue 16, written as real applications are (corpus/apps/REACH.md says which
    # of their hot loops lift parallelizes); listed here: the loops parallel today.
    "xsmc": ("50000 500 40", {"simulation.c": ["run_event_based_simulation"]}),
    "cgcsr": ("40 20", {"blas.c": ["dot", "axpby"], "sparse.c": ["spmv"]}),
    "cellmd": ("8 10", {"integrate.c": ["half_kick", "kinetic_energy"], "force.c": ["compute_forces"]}),
    "mgrid": ("8 8", {"grid.c": ["norm2"], "ops.c": ["smooth", "residual", "restrict_residual", "prolongate_add"]}),
    "isort": ("16 4", {"keys.c": ["generate_keys"], "rank.c": ["rank_keys"], "verify.c": ["partial_verify", "full_verify"]}),
    "stencil3d": ("40 10", {"stencil.c": ["total_heat"]}),
}


def test_every_app_has_a_test_run():
    assert sorted(APP_RUNS) == sorted(p.parent.name for p in APPS.glob("*/Makefile"))


def _function_text(text: str, name: str) -> str:
    """The definition of `name` (header to closing brace) in C text of one-brace-per-line style."""
    start = re.search(rf"^\w[^;{{}}]*?\b{name}\([^;{{}}]*?\)\s*\{{", text, re.M)
    assert start, name
    return text[start.start():text.index("\n}\n", start.end())]


@needs_make
@pytest.mark.parametrize("name", sorted(APP_RUNS))
def test_app_gives_the_same_results_through_lift_at_1_2_and_8_threads(tmp_path, name):
    """Plain and lifted builds of the app agree (within its RTOL) at 1, 2 and 8 threads,
    and its hot loops carry OpenMP directives."""
    args, hot = APP_RUNS[name]
    app = _copy_app(APPS / name, tmp_path)
    # apps with a hand-written OpenMP version (OMP(...) marks) check that baseline too
    hand = any("OMP(omp" in src.read_text() for src in app.glob("*.c"))
    out = _make(app, "check", *(["check-omp"] if hand else []), f"LIFT_TOOL={sys.executable} -m lifter",
                f"ARGS={args}", "THREADS=1 2 8")
    for threads in (1, 2, 8):
        assert f"lifted build agrees with plain build at {threads} threads" in out
        assert not hand or f"hand OpenMP build agrees with plain build at {threads} threads" in out
    for source, functions in hot.items():
        lifted = (app / "build" / "lift" / source).read_text()
        for function in functions:
            # `parallel for`, or `parallel` then `for` (a loop with per-thread scratch copies)
            assert "#pragma omp parallel" in _function_text(lifted, function), (source, function)


# 7. the benchmark's synthetic input -------------------------------------------------------

@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_bench_tool_synthetic_file_is_valid_c(tmp_path):
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import bench_tool
    finally:
        sys.path.remove(str(REPO / "scripts"))
    text, kernels = bench_tool.synthetic_source(300)
    assert text.count("\n") >= 300 and kernels >= len(bench_tool.KERNELS)
    path = tmp_path / "synthetic.c"
    path.write_text(text)
    done = subprocess.run(["gcc", "-std=c99", "-Wall", "-Werror", "-fsyntax-only", str(path)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


class _CrashingPath(str):
    """A path that kills the worker process that receives it (as a crash in a native library would)."""

    def __reduce__(self):
        return (os._exit, (3,))


def test_a_crashing_worker_fails_only_its_file(tree):
    jobs = batch.plan(["a.c", "src/b.c", "src/sub/c.c"], "out")
    jobs[1].path = _CrashingPath("src/b.c")
    seen = []
    result = batch.run_batch(jobs, batch=BatchOptions(jobs=2), on_file=lambda o: seen.append(o.path))
    assert [f.status for f in result.files] == ["lifted", "failed", "lifted"]
    assert str(result.files[1].error) == "src/b.c: error: internal error: lift crashed on this file"
    assert seen == ["a.c", "src/b.c", "src/sub/c.c"]
    assert (tree / "out" / "a.c").exists() and (tree / "out" / "src" / "sub" / "c.c").exists()
    assert not (tree / "out" / "src" / "b.c").exists()


# 8. the benchmark's hand-written OpenMP column --------------------------------------------

def _bench_module():
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import bench
    finally:
        sys.path.remove(str(REPO / "scripts"))
    return bench


def test_bench_finds_the_hand_written_openmp_versions_of_the_apps():
    bench = _bench_module()
    programs = bench.discover(REPO / "corpus", {"apps/xsmc", "apps/stencil3d", "apps/cg", "gemm"})
    assert {p.name: bench.has_hand_omp(p) for p in programs} == {
        "apps/xsmc": True, "apps/stencil3d": True, "apps/cg": False, "gemm": False, "suite/gemm": False}


def test_bench_summary_leaves_na_out_and_compares_lift_with_the_hand_version():
    bench = _bench_module()

    def result(serial, hand, lift):
        def cell(t):
            return {"status": "ok" if t else "n/a", "median": t, "speedup": serial / t if t else None}
        return {"tools": {"serial": cell(serial), "hand-omp": cell(hand), "lift": cell(lift)},
                "lift_time": {"median": None}, "peers": {"best": None, "lift_over_best": None}}

    results = [result(4.0, 2.0, 1.0), result(4.0, 1.0, 2.0), result(1.0, None, 0.5)]
    summary = bench.summarize(results, ["serial", "hand-omp", "lift"])
    assert summary["hand-omp"] == pytest.approx((2.0 * 4.0) ** 0.5)  # the n/a kernel left out
    assert summary["lift"] == pytest.approx((4.0 * 2.0 * 2.0) ** (1 / 3))
    assert [bench.lift_vs_hand(r) for r in results] == [2.0, 0.5, None]
    assert summary["lift_vs_hand"] == pytest.approx(1.0)


UNGUARDED_SCRIPT = """import sys
{patch}from lifter.batch import BatchOptions, lift_batch
result = lift_batch(["src"], "out", batch=BatchOptions(jobs=2))
print(result.jobs, [(f.status, f.error.message if f.error else "") for f in result.files])
sys.exit(0 if result.ok else 1)
"""


@pytest.mark.parametrize("patch", ["", "import lifter.batch\nlifter.batch.workers_can_start = lambda: True\n"],
                         ids=["detected", "workers_fail_to_start"])
def test_lift_batch_from_a_script_without_main_guard(tmp_path, patch):
    """Workers import the main module again: a script calling lift_batch at its top level would
    run again in each. It is detected and lifted in this process; and where workers start and die
    before they lift anything (the detection bypassed), no file is called crashed."""
    (tmp_path / "src").mkdir()
    for k in range(3):
        (tmp_path / "src" / f"s{k}.c").write_text(SCALE.replace("scale", f"scale{k}"))
    (tmp_path / "run.py").write_text(UNGUARDED_SCRIPT.format(patch=patch))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "run.py"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "crashed" not in done.stdout + done.stderr
    assert done.stdout.startswith("1 " if not patch else "2 "), done.stdout
    for k in range(3):
        assert "#pragma omp" in (tmp_path / "out" / "src" / f"s{k}.c").read_text()


def test_guarded_scripts_and_modules_may_start_workers(tmp_path, monkeypatch):
    from lifter import main_module

    guarded = tmp_path / "guarded.py"
    guarded.write_text('"""doc"""\nimport os\nX = [1, 2]\ndef f():\n    pass\nif __name__ == "__main__":\n    f()\n')
    unguarded = tmp_path / "plain.py"
    unguarded.write_text("import os\nfrom lifter.batch import lift_batch\nlift_batch(['a.c'], 'out')\n")
    fake = type(sys)("__main__")
    monkeypatch.setitem(sys.modules, "__main__", fake)
    fake.__spec__ = None
    for path, expected in ((guarded, True), (unguarded, False)):
        fake.__file__ = str(path)
        assert main_module.workers_can_start() is expected, path


@needs_make
def test_readme_make_rules_keep_lifted_files(tmp_path):
    """The README's pattern rules, in a Makefile that builds an object from the lifted file:
    the lifted file is kept (not deleted as an intermediate file) and a second make does nothing."""
    readme = (REPO / "README.md").read_text()
    rules = re.search(r"```make\n(.*?)```", readme, re.S).group(1)
    (tmp_path / "Makefile").write_text(
        "all: axpy.omp.o\n\n%.omp.o: %.lifted.c\n\t$(CC) -fopenmp -c $< -o $@\n\n" + rules)
    (tmp_path / "axpy.c").write_text(SCALE)
    tool = f"LIFT_TOOL={sys.executable} -m lifter"
    first = _make(tmp_path, tool)
    assert "-m lifter" in first and (tmp_path / "axpy.lifted.c").exists(), first
    assert "#pragma omp" in (tmp_path / "axpy.lifted.c").read_text()
    assert "Nothing to be done" in _make(tmp_path, tool)
    time.sleep(0.05)
    os.utime(tmp_path / "axpy.c")
    assert "-m lifter" in _make(tmp_path, tool)


def test_a_pool_that_breaks_while_files_are_handed_out_lifts_them_all(tmp_path, monkeypatch):
    """A worker can die before the last file is handed to the pool: `submit` then raises
    BrokenProcessPool (seen in CI with a script without a main guard). The files not handed out
    are lifted again like those the dead worker took, not lost with an exception."""
    import concurrent.futures as cf
    import concurrent.futures.process  # noqa: F401  (cf.process)

    class Breaking:
        def __init__(self):
            self.calls = 0

        def submit(self, fn, *args):
            self.calls += 1
            if self.calls > 1:
                raise cf.process.BrokenProcessPool("a worker died")
            future = cf.Future()
            future.set_result(fn(*args))
            return future

        def shutdown(self, **_):
            pass

    paths = []
    for k in range(3):
        (tmp_path / f"s{k}.c").write_text(SCALE.replace("scale", f"scale{k}"))
        paths.append(str(tmp_path / f"s{k}.c"))
    jobs = [batch.FileJob(k, p) for k, p in enumerate(paths)]
    monkeypatch.setattr(batch, "_work_alone", lambda path, options, ctx: batch._work(path, options))
    done = {}
    batch._run_pool(Breaking(), jobs, [0, 1, 2], batch.LiftOptions(), False,
                    lambda i, outcome: done.__setitem__(i, outcome), lambda: None, lambda: False)
    assert sorted(done) == [0, 1, 2] and all(o.status == "lifted" for o in done.values()), done
