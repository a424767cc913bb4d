"""Remarks in three kinds, selected as clang's -Rpass and gcc's -fopt-info select them (issue 18):
their form compared with what clang and gcc print for the same file, the selection by pass name,
the conditions in the user's names, only the user's loops named, and "may" for may-dependences."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest

from lifter.conditions import readable
from tests.cli_runner import lift

CLANG = shutil.which("clang-19") or shutil.which("clang")

KERNEL = """void k(int n, double *restrict a, double *restrict b, double *restrict c, int *restrict p,
       double *restrict o)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a[i * n + j] = b[i * n + j] + 1.0;
    for (int i = 0; i < n; i++)
        o[p[i]] = c[i];
    for (int i = 1; i < n; i++)
        c[i] = c[i - 1] + 1.0;
}
"""
# line: (kind, passes) of each loop of KERNEL at -O1 (parallelization only: no simd on line 5)
KINDS = {4: ("passed", ["parallelize"]), 5: ("analysis", ["parallelize"]), 7: ("missed", ["parallelize"]),
         9: ("missed", ["parallelize"])}
CLANG_REMARK = re.compile(r"^(?P<file>[^:\s]+):(?P<line>\d+):(?P<col>\d+): remark: .+ \[(?P<flag>-Rpass(?:-missed|"
                          r"-analysis)?=[\w-]+)\]$")
GCC_REMARK = re.compile(r"^(?P<file>[^:\s]+):(?P<line>\d+):(?P<col>\d+): (?P<kind>optimized|missed|note): .+$")


@pytest.fixture
def kernel(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.c").write_text(KERNEL)
    return "k.c"


def remarks_of(stderr: str, pattern: re.Pattern = CLANG_REMARK) -> list[re.Match]:
    return [m for m in map(pattern.match, stderr.splitlines()) if m]


def test_every_remark_with_v_one_line_each(kernel):
    r = lift(kernel, "-o", "out.c", "-O1", "-v")
    lines = r.stderr.splitlines()
    found = remarks_of(r.stderr)
    assert r.code == 0 and len(found) == len(lines) == len(KINDS)
    tags = {int(m["line"]): m["flag"] for m in found}
    assert tags == {4: "-Rpass=lift", 5: "-Rpass-analysis=lift", 7: "-Rpass-missed=lift", 9: "-Rpass-missed=lift"}


def test_report_kinds_and_passes(kernel):
    assert lift(kernel, "-o", "out.c", "-O1", "--report", "r.json").code == 0
    loops = json.load(open("r.json"))["loops"]
    assert {e["line"]: (e["kind"], e["passes"]) for e in loops} == KINDS


@pytest.mark.skipif(CLANG is None, reason="needs clang")
def test_rpass_missed_looks_like_clangs(kernel):
    """clang's form: the tagged line, then the source line and a caret under the loop's 'for'."""
    theirs = subprocess.run([CLANG, "-O2", "-c", "-o", os.devnull, "-Rpass-missed=loop-vectorize", kernel],
                            capture_output=True, text=True, timeout=120).stderr.splitlines()
    r = lift(kernel, "-o", "out.c", "-O1", "-Rpass-missed=parallel")
    ours = r.stderr.splitlines()
    assert [int(m["line"]) for m in remarks_of(r.stderr)] == [7, 9]
    # clang's remark on the loop at line 9 and ours: same place, same layout
    clang_at = next(i for i, line in enumerate(theirs) if line.startswith("k.c:9:5: remark: "))
    ours_at = next(i for i, line in enumerate(ours) if line.startswith("k.c:9:5: remark: "))
    assert CLANG_REMARK.match(theirs[clang_at]) and CLANG_REMARK.match(ours[ours_at])
    assert ours[ours_at + 1:ours_at + 3] == theirs[clang_at + 1:clang_at + 3]


@pytest.mark.skipif(CLANG is None, reason="needs clang")
def test_rpass_alone_selects_every_pass_as_in_clang(kernel):
    """clang takes `-Rpass` without a regex and prints the remarks of every pass, as `-Rpass=.` does."""
    def clang(flag: str) -> str:
        return subprocess.run([CLANG, "-O2", "-c", "-o", os.devnull, flag, kernel], capture_output=True, text=True,
                              timeout=120).stderr
    assert remarks_of(clang("-Rpass")) and clang("-Rpass") == clang("-Rpass=.")
    for kind in ("-Rpass", "-Rpass-missed", "-Rpass-analysis"):
        alone = lift(kernel, "-o", "out.c", "-O1", kind)
        regex = lift(kernel, "-o", "out.c", "-O1", kind + "=.")
        assert alone.code == 0 and alone.stderr and alone.stderr == regex.stderr


def test_fopt_info_looks_like_gccs(kernel):
    theirs = subprocess.run(["gcc", "-O3", "-c", "-o", os.devnull, "-fopt-info-vec-missed", kernel],
                            capture_output=True, text=True, timeout=120).stderr
    assert remarks_of(theirs, GCC_REMARK)
    r = lift(kernel, "-o", "out.c", "-O1", "-fopt-info-missed")
    found = remarks_of(r.stderr, GCC_REMARK)
    assert len(found) == len(r.stderr.splitlines()) == 2
    assert {m["kind"] for m in found} == {"missed"} and [m["line"] for m in found] == ["7", "9"]


@pytest.mark.parametrize("flags,lines", [
    (["-Rpass=parallelize"], [4]),
    (["-Rpass=tile"], []),
    (["-Rpass-missed=^parallelize$"], [7, 9]),
    (["-Rpass-missed=offload"], []),
    (["-Rpass-analysis=."], [5]),
    (["-Rpass"], [4]),  # alone, as clang takes it: every pass
    (["-Rpass-missed"], [7, 9]),
    (["-Rpass-analysis"], [5]),
    (["-Rpass=.", "-Rpass-missed=.", "-Rpass-analysis=."], [4, 5, 7, 9]),
    (["-fopt-info"], [4]),
    (["-fopt-info-omp-optimized"], [4]),
    (["-fopt-info-vec-missed"], []),
    (["-fopt-info-note"], [5]),
    (["-fopt-info-all"], [4, 5, 7, 9]),
    (["-fopt-info-loop-all"], [4, 5, 7, 9]),
    (["-fopt-info-ipa-all"], []),
    ([], []),
])
def test_selection_by_kind_and_pass(kernel, flags, lines):
    r = lift(kernel, "-o", "out.c", "-O1", *flags)
    pattern = GCC_REMARK if flags and flags[0].startswith("-fopt-info") else CLANG_REMARK
    assert r.code == 0
    assert sorted(int(m["line"]) for m in remarks_of(r.stderr, pattern)) == lines


def test_fopt_info_into_a_file(kernel):
    r = lift(kernel, "-o", "out.c", "-O1", "-fopt-info-missed=opt.txt")
    assert r.code == 0 and r.stderr == ""
    lines = open("opt.txt").read().splitlines()
    assert [GCC_REMARK.match(line)["line"] for line in lines] == ["7", "9"]


@pytest.mark.parametrize("flag", ["-Rpass=(", "-fopt-info-bogus", "-fopt-info-missed-wrong"])
def test_bad_remark_flags_are_usage_errors(kernel, flag):
    r = lift(kernel, "-o", "out.c", flag)
    assert r.code == 1 and r.stderr.startswith("lift: error: ") and "Traceback" not in r.stderr


def test_may_dependence_said_as_may(kernel):
    assert lift(kernel, "-o", "out.c", "--report", "r.json").code == 0
    entry = next(e for e in json.load(open("r.json"))["loops"] if e["line"] == 7)
    assert "may write the same element" in entry["remark"] and entry["reason_code"] == "non-affine-subscript"
    certain = next(e for e in json.load(open("r.json"))["loops"] if e["line"] == 9)
    assert " may " not in certain["remark"] and certain["reason_code"] == "flow-dependence"


@pytest.mark.parametrize("generated,shown", [
    ("((long)n) * (((long)n) * (1)) > 40000L", "n * n > 40000"),
    ("((long)n - 2L) * (1) > 40000L && ((const void *)a == (const void *)b)", "n - 2 > 40000 && a == b"),
    ("(const char *)(&f[((long)m - 2L)*(n) + ((long)n - 2L)*(1)] + 1) <= (const char *)&r[(1L)*(n) + (1L)*(1)]",
     "&f[(m - 2) * n + n - 2] + 1 <= &r[n + 1]"),
    ("W[c][c] >= 0", "W[c][c] >= 0"),
    # like terms combined, constants folded (as the corpus's guards came out before: covariance.c, mvt.c)
    ("((long)m - 1L + 1L) <= 65536L && (long)n * ((long)m * 2L + 1L) > 40000L",
     "m <= 65536 && n * (2 * m + 1) > 40000"),
    ("(long)m * ((long)n * ((long)m - 1L + 1L + ((long)m - 1L - 1L + 1L))) > 40000L", "m * n * (2 * m - 1) > 40000"),
    ("(1L - (long)n) * (1) > 0L", "1 - n > 0"),
    ("100L * (((99L) - (0L) + 1) * (1)) > 40000L", "0"),  # a test of constants: never true
    ("1 && (long)n > 5L", "n > 5"),
    ("(long)n * (2L * ((long)n - 2L) + (long)n - 2L) > 40000L", "n * (3 * n - 6) > 40000"),  # blur_pipeline.c
    ("2L * ((long)n - 1L) > 40000L", "2 * (n - 1) > 40000"),  # multiplied out only when it makes fewer terms
    ("(size_t)n > 3 +", "(size_t)n > 3 +"),  # not C: shown as it is
])
def test_conditions_in_the_users_names(generated, shown):
    assert readable(generated) == shown


def test_remark_condition_is_simplified(tmp_path):
    p = tmp_path / "sq.c"
    p.write_text("void sq(int n, double *restrict a)\n{\n    for (int i = 0; i < n * n; i++)\n"
                 "        a[i] = a[i] * 2.0;\n}\n")
    r = lift(p, "-o", tmp_path / "o.c", "-v")
    assert "(in parallel when n * n > 40000 && lift_team_worth(n * n))" in r.stderr and "(long)" not in r.stderr


CALL_IN_LOOP = """double x1[100];
static void step(void)
{
    for (int i = 1; i < 100; i++)
        x1[i] += x1[i - 1];
}
void k(int n)
{
    for (int r = 0; r < n; r++)
        step();
}
"""


def test_one_access_named_once(tmp_path, monkeypatch):
    """A dependence of an access on itself (a call, in corpus/linalg/mvt.c) names it once, not
    as `step() may read the value written to step()`."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.c").write_text(CALL_IN_LOOP)
    r = lift("c.c", "-o", "o.c", "-Rpass-missed=.")
    assert "c.c:9:5: remark: loop over 'r' not parallelized: may flow dependence on x1: step() (line 10) may read " \
           "the value it wrote in an earlier iteration of 'r' [-Rpass-missed=lift]" in r.stderr.splitlines()
    assert "written to x1[i] (line 5)" in r.stderr  # two accesses: both named


SMALL = """#define N 100
long t[N][N];
long f(void)
{
    long s = 0;
    for (int i = 0; i < N; i++)
        for (int j = i; j < N; j++)
            s += t[i][j];
    return s;
}
"""


def test_guard_that_is_never_true_is_not_called_parallelized(tmp_path):
    """N is a macro: the triangle's work, 5050, is known and below the threshold (corpus/dynprog/nussinov.c
    has this loop; counted as a square it was emitted with the test `10000 > 40000`). It never runs in
    parallel: no parallel version is emitted, the remark says so (missed, not-profitable), and the
    inner loop is not said to be under a parallel loop."""
    (tmp_path / "s.c").write_text(SMALL)
    r = lift(tmp_path / "s.c", "-o", tmp_path / "o.c", "-v", "--report", tmp_path / "r.json")
    assert r.code == 0
    outer, inner = json.load(open(tmp_path / "r.json"))["loops"]
    assert (outer["parallelized"], outer["kind"], outer["reason_code"]) == (False, "missed", "not-profitable")
    assert "not profitable: about 5050 iterations of work" in outer["remark"] and "[-Rpass-missed=lift]" in r.stderr
    assert "omp parallel" not in (tmp_path / "o.c").read_text()
    assert inner["reason_code"] == "not-profitable" and "already parallel" not in inner["remark"]


SEIDEL = os.path.join(os.path.dirname(__file__), "..", "corpus", "stencils", "seidel2d.c")
APPS = os.path.join(os.path.dirname(__file__), "..", "corpus", "apps")


@pytest.mark.parametrize("path,flags", [
    (SEIDEL, []),
    (os.path.join(APPS, "cellmd", "force.c"), ["-I", APPS]),
    (os.path.join(APPS, "mgrid", "ops.c"), ["-I", APPS]),
])
def test_every_user_loop_exactly_once_and_only_user_loops(tmp_path, path, flags):
    r = lift(path, *flags, "-o", tmp_path / "o.c", "--report", tmp_path / "r.json", "-v")
    assert r.code == 0, r.stderr
    loops = json.load(open(tmp_path / "r.json"))["loops"]
    text = open(path).read()
    written: dict[int, int] = {}  # the `for` statements of the file (not 'omp parallel for' in a macro)
    for m in re.finditer(r"\bfor\s*\(", text):
        line = text.count("\n", 0, m.start()) + 1
        written[line] = written.get(line, 0) + 1
    per_line: dict[int, int] = {}
    for e in loops:
        per_line[e["line"]] = per_line.get(e["line"], 0) + 1
    assert per_line == written
    assert len(remarks_of(r.stderr)) == len(loops)
    names = {e["var"] for e in loops}
    for line in r.stderr.splitlines():
        for name in re.findall(r"loop over '(\w+)'", line):
            assert name in names, line  # never 'wave', 'i_t', ...
