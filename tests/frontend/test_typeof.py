"""typeof (C23 and GNU C): accepted where the compilers accept it, passed through byte for byte,
and the loops that touch a name of a type written with it kept as written (issue 18)."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from lifter import LiftOptions, lift_source
from lifter.frontend.preprocess import PreprocessOptions
from tests.cli_runner import lift
from tests.harness import have_gcc, prepare

pytestmark = pytest.mark.skipif(not have_gcc(), reason="needs gcc")

CLANG = shutil.which("clang-19") or shutil.which("clang")

USES = {
    "typeof": "int f(int x)\n{\n  typeof(x) y = x + 1;\n  return y;\n}\n",
    "__typeof__": "int f(int x)\n{\n  __typeof__(x) y = x + 1;\n  return y;\n}\n",
    "__typeof": "int f(int x)\n{\n  __typeof(x) y = x + 1;\n  return y;\n}\n",
    "typeof_unqual": "int f(const int x)\n{\n  typeof_unqual(x) y = x;\n  return y + 1;\n}\n",
}
WRITES_UNQUAL = "int f(const int x)\n{\n  typeof_unqual(x) y = x;\n  y += 1;\n  return y;\n}\n"
# `typeof` as a name: C before C23 allows it, the GNU dialects and C23 do not.
AS_NAME = "int f(int x)\n{\n  int typeof = x;\n  return typeof;\n}\n"


def accepted(compiler: str, std: str, path: str) -> bool:
    return subprocess.run([compiler, f"-std={std}", "-fsyntax-only", path], capture_output=True,
                          timeout=120).returncode == 0


@pytest.mark.parametrize("std", ["c99", "c11", "gnu99", "gnu11", "gnu17"])
@pytest.mark.parametrize("spelling", ["typeof", "__typeof__", "__typeof"])
def test_typeof_accepted_as_gcc_accepts_it(tmp_path, std, spelling):
    """Before C23 gcc takes `__typeof__` and `__typeof` always, `typeof` in the GNU dialects only."""
    path = tmp_path / "in.c"
    path.write_text(USES[spelling])
    r = lift(path, f"-std={std}", "-o", tmp_path / "out.c")
    assert (r.code == 0) == accepted("gcc", std, str(path)), r.stderr
    if r.code == 0:
        assert (tmp_path / "out.c").read_text() == USES[spelling]  # byte for byte
    else:  # said where and why, at the word
        assert r.stderr.startswith(f"{path}: In function 'f':\n"
                                   f"{path}:3:3: error: '{spelling}' is not a keyword of -std={std}"), r.stderr


@pytest.mark.parametrize("std", ["c11", "gnu11", "c23", "gnu23"])
def test_typeof_as_a_name_as_gcc_reads_it(tmp_path, std):
    path = tmp_path / "in.c"
    path.write_text(AS_NAME)
    r = lift(path, f"-std={std}", "-o", tmp_path / "out.c")
    # gcc 12 knows C23's keyword only from gcc 13 on: for C23 the standard says (clang 19 agrees)
    assert (r.code == 0) == (std == "c11"), r.stderr
    if std != "c23":
        assert (r.code == 0) == accepted("gcc", std, str(path))


@pytest.mark.parametrize("std", ["c23", "gnu23"])
@pytest.mark.parametrize("spelling", sorted(USES))
def test_c23_takes_every_spelling(tmp_path, std, spelling):
    path = tmp_path / "in.c"
    path.write_text(USES[spelling])
    r = lift(path, f"-std={std}", "-o", tmp_path / "out.c")
    assert r.code == 0, r.stderr
    assert (tmp_path / "out.c").read_text() == USES[spelling]
    if CLANG:
        assert accepted(CLANG, std, str(path))


def test_typeof_unqual_is_c23_only(tmp_path):
    path = tmp_path / "in.c"
    path.write_text(USES["typeof_unqual"])
    r = lift(path, "-std=gnu17")
    assert r.code == 1 and "'typeof_unqual' is not a keyword of -std=gnu17" in r.stderr
    if CLANG:
        assert not accepted(CLANG, "gnu17", str(path))


KERNEL = r"""#include <stdio.h>
#include <stdlib.h>
#define SWAP(a, b) do { __typeof__(a) t_ = (a); (a) = (b); (b) = t_; } while (0)

static void shift(double *p, int i)
{
  typeof(p) q = p;  /* writes p's elements: a call has unknown effects, not none */
  q[i + 1] += q[i];
}

static void kernel(int n, double *restrict a, double *restrict b, double *restrict c)
{
  typeof(a) q = b;  /* an alias of b whose type lift does not work out */
  for (int i = 0; i < n; i++)  /* next to typeof, touching nothing of it: parallel */
    a[i] = 2.0 * a[i] + 1.0;
  for (int i = 1; i < n; i++)
    q[i] = q[i - 1] + a[i];
  for (int i = 0; i < n; i++)
    SWAP(a[i], c[i]);
  for (int i = 0; i < n - 1; i++)
    shift(c, i);
  for (int i = 0; i < n; i++) {
    typeof(b[0]) scale = 0.5;
    b[i] = b[i] * scale + c[i];
  }
}

int main(void)
{
  int n = 2000;
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
  for (int i = 0; i < n; i++) { a[i] = i % 7; b[i] = i % 3; c[i] = (i % 5) - 2.0; }
  kernel(n, a, b, c);
  for (int i = 0; i < n; i += 97)
    printf("%d %.17g %.17g %.17g\n", i, a[i], b[i], c[i]);
  return 0;
}
"""


@pytest.mark.parametrize("threads", [1, 4])
def test_typeof_program_runs_as_written(tmp_path, threads):
    """Differential: the lifted program prints what the original prints; the loop next to the
    typeof code is parallel, each loop touching a typeof name (or calling a function that does)
    stays sequential with the reason said."""
    source = tmp_path / "k.c"
    source.write_text(KERNEL)
    built = prepare(source, tmp_path, std="gnu11")
    built.check(threads)
    loops = {e["line"]: e for e in built.loops if e["function"] == "kernel"}
    assert loops[14]["parallelized"]
    for line in (16, 18, 22):
        assert not loops[line]["parallelized"] and loops[line]["reason_code"] == "unknown-type", loops[line]
    assert "'q' has a type written with typeof" in loops[16]["reason"]
    assert not loops[20]["parallelized"], loops[20]  # shift(c, i) writes c[i + 1]
    lifted = built.lifted.read_text()
    assert "  typeof(a) q = b;  /* an alias" in lifted and KERNEL.splitlines()[2] in lifted  # as written


def test_remark_and_report_name_the_reason(tmp_path):
    source = tmp_path / "k.c"
    source.write_text(KERNEL)
    r = lift(source, "-std=gnu11", "-o", tmp_path / "o.c", "--report", tmp_path / "r.json", "-Rpass-missed=.*")
    assert r.code == 0, r.stderr
    assert (f"{source}:16:3: remark: loop over 'i' not parallelized: 'q' has a type written with typeof, "
            "which lift does not work out [-Rpass-missed=lift]") in r.stderr.splitlines()
    codes = {e["line"]: e.get("reason_code") for e in json.loads((tmp_path / "r.json").read_text())["loops"]}
    assert codes[18] == "unknown-type"


def test_typeof_in_a_global_and_a_typedef():
    """A global or a typedef of a typeof type: every loop that names it stays as written."""
    text = ("double data[100];\ntypeof(double *) view = data + 1;\ntypedef __typeof__(data[0]) real;\n"
            "void f(int n, real *restrict out, double *restrict in)\n{\n"
            "  for (int i = 0; i < n; i++)\n    view[i] = view[i - 1];\n"
            "  for (int i = 0; i < n; i++)\n    out[i] = in[i];\n"
            "  for (int i = 0; i < n; i++)\n    in[i] = 2 * in[i];\n}\n")
    result = lift_source(text, "g.c", LiftOptions(min_parallel_work=0, preprocess=PreprocessOptions(std="gnu11")))
    loops = {e["line"]: e for e in result.loops}
    assert loops[6]["reason_code"] == "unknown-type" and loops[8]["reason_code"] == "unknown-type"
    assert loops[10]["parallelized"]
    assert result.output.startswith("double data[100];\ntypeof(double *) view = data + 1;\n")


def test_typeof_unqual_drops_the_qualifiers_where_the_compiler_knows_it(tmp_path):
    """`typeof_unqual(const int)` is `int`. gcc before 14 does not know typeof_unqual: lift's check
    then reads it as `__typeof__`, which keeps `const`, so the write is refused (a documented limit)."""
    path = tmp_path / "in.c"
    path.write_text(WRITES_UNQUAL)
    r = lift(path, "-std=c23", "-o", tmp_path / "out.c")
    probe = subprocess.run(["gcc", "-std=gnu2x", "-fsyntax-only", "-x", "c", "-"], input=b"__typeof_unqual__(int) x;",
                           capture_output=True)
    if probe.returncode == 0:
        assert r.code == 0, r.stderr
    else:
        assert r.code == 1 and "assignment of read-only variable 'y'" in r.stderr
    if CLANG:
        assert accepted(CLANG, "c23", str(path))


def test_syntax_error_after_typeof_at_gccs_place(tmp_path):
    """The parser reads a placeholder where the user wrote `__typeof__(n + 1)`: the error is still
    placed in the user's line and names the keyword, as gcc does."""
    path = tmp_path / "in.c"
    path.write_text("int f(int n, double s)\n{\n  return s + (typeof(s))__typeof__(n + 1)(3);\n}\n")
    r = lift(path, "-std=gnu11")
    gcc = subprocess.run(["gcc", "-std=gnu11", "-fsyntax-only", "-fdiagnostics-color=never", str(path)],
                         capture_output=True, text=True, env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"})
    assert gcc.stderr.splitlines()[:2] == [f"{path}: In function 'f':",
                                           f"{path}:3:25: error: expected expression before '__typeof__'"]
    assert r.code == 1 and r.stderr.splitlines() == gcc.stderr.splitlines()[:4]
