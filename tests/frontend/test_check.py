"""The input is checked as a C compiler checks it (frontend/check.py): its errors stop lifting at
their places, exit status 1 and no output written; warnings change nothing."""
import re
import shutil

import pytest

from lifter import LiftOptions, lift_source
from lifter.diagnostics import LiftError
from lifter.frontend import PreprocessOptions
from tests.cli_runner import lift

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

DIAG = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.+)$", re.M)

VALID = """void f(int n, double *a, double *b, double *z)
{
    for (int i = 0; i < n; i++)
        a[i] = b[i] + z[i];
}
"""
# name -> (text, line, column, words of gcc's message)
INVALID = {
    "undeclared_identifier": (VALID.replace(", double *z", ""), 4, 23, "'z' undeclared"),
    "wrong_argument_count": ("int g(int x, int y) { return x + y; }\n"
                             "int h(void)\n{\n    return g(1);\n}\n", 4, 12, "too few arguments"),
    "type_error": ("struct point { double x, y; };\n"
                   "double f(struct point p)\n{\n    return p * 2.0;\n}\n", 4, 14, "invalid operands"),
}


@pytest.mark.parametrize("name", sorted(INVALID))
def test_semantic_error_is_located_and_writes_nothing(tmp_path, monkeypatch, name):
    text, line, col, words = INVALID[name]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.c").write_text(text)
    (tmp_path / "out.c").write_text("/* an earlier output */\n")
    r = lift("in.c", "-o", "out.c")
    assert r.code == 1
    m = DIAG.search(r.stderr)
    assert m and (m["path"], int(m["line"]), int(m["col"])) == ("in.c", line, col), r.stderr
    assert words in m["msg"]
    assert "Traceback" not in r.stderr
    assert (tmp_path / "out.c").read_text() == "/* an earlier output */\n", "an existing output is kept"
    r = lift("in.c", "-o", "new.c")
    assert r.code == 1 and not (tmp_path / "new.c").exists()


def test_undeclared_identifier_is_an_error_for_both_targets():
    text = INVALID["undeclared_identifier"][0]
    for target in ("openmp", "cuda"):
        with pytest.raises(LiftError) as info:
            lift_source(text, "k.c", LiftOptions(target=target))
        assert (info.value.diagnostic.line, info.value.diagnostic.column) == (4, 23)


def test_warnings_are_not_errors(tmp_path, monkeypatch):
    """Unused variables, an implicit declaration (a warning in C before C23 for gcc 12),
    mixed signs: the file is lifted and nothing of the compiler's is printed."""
    text = ("#include <stdio.h>\nvoid f(int n, double *restrict a)\n{\n    int unused;\n    unsigned u = 3;\n"
            "    for (int i = 0; i < n; i++)\n        a[i] = i < u;\n}\n")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.c").write_text(text)
    r = lift("in.c", "-o", "out.c", "-Wall")
    assert r.code == 0, r.stderr
    assert "warning" not in r.stderr
    assert "#pragma omp parallel for" in (tmp_path / "out.c").read_text()


def test_valid_file_is_lifted_as_before():
    assert "#pragma omp parallel for" in lift_source(VALID, "k.c").output


def test_the_users_defines_are_respected():
    text = "#ifdef HAVE_Z\ndouble z[100];\n#endif\n" + INVALID["undeclared_identifier"][0]
    opts = LiftOptions(preprocess=PreprocessOptions(defines=["HAVE_Z"]))
    assert "#pragma omp" in lift_source(text, "k.c", opts).output
    with pytest.raises(LiftError) as info:
        lift_source(text, "k.c")
    assert info.value.diagnostic.line == 7 and "'z' undeclared" in info.value.diagnostic.message


def test_an_error_in_a_header_is_reported_in_the_header(tmp_path):
    (tmp_path / "bad.h").write_text("static int h(void) { return missing; }\n")
    src = tmp_path / "k.c"
    src.write_text('#include "bad.h"\n' + VALID)
    with pytest.raises(LiftError) as info:
        lift_source(src.read_text(), str(src))
    d = info.value.diagnostic
    assert (d.path, d.line) == (str(tmp_path / "bad.h"), 1) and "'missing' undeclared" in d.message


def test_batch_mode_reports_each_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.c").write_text(VALID)
    (tmp_path / "bad1.c").write_text(INVALID["undeclared_identifier"][0])
    (tmp_path / "bad2.c").write_text(INVALID["wrong_argument_count"][0])
    r = lift("good.c", "bad1.c", "bad2.c", "-d", "out", "-j", "1")
    assert r.code == 1
    found = {(m["path"], m["line"]) for m in DIAG.finditer(r.stderr)}
    assert {("bad1.c", "4"), ("bad2.c", "4")} <= found, r.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir() if p.suffix == ".c") == ["good.c"]


def test_the_compiler_probe_runs_beside_the_preprocessor(monkeypatch):
    """`load` starts the check's probe of the compiler (a compiler run of its own, check.py) with
    the preprocessor, not after it: the probe no longer stands between the parse and the check.
    The preprocessor here waits for the probe to start; a probe run only by the check, after the
    preprocessor, never would. It runs once: the check waits for its answer."""
    import functools
    import importlib
    import threading

    import lifter.frontend as frontend
    from lifter.frontend import SourceFile, load

    checking = importlib.import_module("lifter.frontend.check")
    probed, probes = threading.Event(), []
    shim = checking._typeof_unqual_shim.__wrapped__

    def probe(compiler, std):
        probes.append(std)
        probed.set()
        return shim(compiler, std)

    def preprocess(*args):
        assert probed.wait(timeout=10), "no probe of the compiler while the preprocessor ran"
        return real_preprocess(*args)

    real_preprocess = frontend.preprocess
    monkeypatch.setattr(checking, "_typeof_unqual_shim", functools.lru_cache(probe))
    monkeypatch.setattr(frontend, "preprocess", preprocess)
    load(SourceFile("k.c", VALID), PreprocessOptions())
    assert len(probes) == 1, probes
