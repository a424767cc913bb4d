"""The `lift` command line: targets, output, cc-style flags, diagnostics and file handling."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from lifter import __version__
from tests.cli_runner import Run, lift
from tests.harness import CORPUS

DIAG = re.compile(r"^(?P<path>.+?):(?:(?P<line>\d+):(?:(?P<col>\d+):)?)? error: (?P<msg>.+)$", re.M)

NO_LOOPS = (
    b"/* no loops here: caf\xe9 (Latin-1), tab\there */\r\n"
    b"#include <stdio.h>\r\n"
    b"#define TWICE(x) ((x) + (x))\r\n"
    b"\r\n"
    b"static int\ttwice(int v)\t{ return TWICE(v); }   // trailing   \r\n"
    b"int main(void)\r\n"
    b"{\r\n"
    b"\tprintf(\"%d\\n\", twice(21));\r\n"
    b"\treturn 0;\r\n"
    b"}\r\n"
)

LOOP = b"""void axpy(int n, double a, double *restrict x, double *restrict y)
{
    for (int i = 0; i < n; i++)
        y[i] += a * x[i];
}
"""


def assert_error(run: Run, path=None, line=None, col=None, msg=None):
    assert run.code == 1, (run.code, run.stderr)
    assert "Traceback" not in run.stderr
    m = DIAG.search(run.stderr)
    assert m, run.stderr
    if path is not None:
        assert m["path"] == str(path), run.stderr
    if line is not None:
        assert m["line"] == str(line), run.stderr
    if col is not None:
        assert m["col"] == str(col), run.stderr
    if msg is not None:
        assert re.search(msg, m["msg"], re.I), run.stderr
    return m


@pytest.fixture
def src(tmp_path):
    def make(text: bytes | str, name="in.c"):
        p = tmp_path / name
        p.write_bytes(text.encode() if isinstance(text, str) else text)
        return p
    return make


# 1. targets and output -------------------------------------------------------------

def test_no_loops_byte_identical_to_file(src, tmp_path):
    out = tmp_path / "out.c"
    r = lift(src(NO_LOOPS), "-o", out)
    assert r.code == 0, r.stderr
    assert out.read_bytes() == NO_LOOPS


@pytest.mark.parametrize("args", [["-o", "-"], []])
def test_stdout_output_byte_identical(src, args):
    r = lift(src(NO_LOOPS), *args)
    assert r.code == 0, r.stderr
    assert r.stdout == NO_LOOPS


def test_stdout_survives_ascii_locale(src):
    """The installed script, writing Latin-1 bytes to a stdout whose encoding is ASCII."""
    p = src(NO_LOOPS)
    env = dict(os.environ, PYTHONIOENCODING="ascii", LC_ALL="C")
    done = subprocess.run([sys.executable, "-c", "from lifter.cli import main; main()", str(p)],
                          capture_output=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == NO_LOOPS


def test_openmp_output_parallelizes(src, tmp_path):
    out = tmp_path / "axpy_omp.c"
    r = lift(src(LOOP), "-o", out)
    assert r.code == 0, r.stderr
    assert "#pragma omp" in out.read_text()


@pytest.mark.parametrize("name,flags,target", [
    ("k.c", [], "openmp"),
    ("k.cu", [], "cuda"),
    ("k.cu", ["--target", "openmp"], "openmp"),
    ("k.c", ["--target", "cuda"], "cuda"),
    ("k.c", ["--target=cuda"], "cuda"),
])
def test_target_from_extension_or_flag(src, tmp_path, monkeypatch, name, flags, target):
    import lifter.cli as cli

    seen = {}
    real = cli.lift_file

    def spy(path, options):
        seen["target"] = options.target
        return real(path, options)

    monkeypatch.setattr(cli, "lift_file", spy)
    out = tmp_path / name
    r = lift(src(LOOP), *flags, "-o", out)
    assert r.code == 0, r.stderr
    assert seen["target"] == target
    assert out.exists()


def test_bad_target_is_usage_error(src):
    r = lift(src(LOOP), "--target", "opencl")
    # issue 18: usage errors in the compiler's form, exit status 1 (not click's block and 2)
    assert r.code == 1 and r.stderr.startswith("lift: error: ") and "Traceback" not in r.stderr


# 2. cc-style flags -------------------------------------------------------------

NEEDS_FOO = "#ifndef FOO\n#error FOO is not defined\n#endif\n#if FOO != 7\n#error FOO is not 7\n#endif\nint x;\n"


@pytest.mark.parametrize("flags", [["-D", "FOO=7"], ["-DFOO=7"], ["-DFOO=7", "-DBAR"], ["-D", "BAR", "-DFOO=7"]])
def test_define_reaches_preprocessor(src, flags):
    r = lift(src(NEEDS_FOO), *flags, "-o", "-")
    assert r.code == 0, r.stderr
    assert r.stdout == NEEDS_FOO.encode()


def test_missing_define_is_error_at_directive(src):
    p = src(NEEDS_FOO)
    assert_error(lift(p, "-o", "-"), path=p, line=2, msg="FOO is not defined")


@pytest.mark.parametrize("flags", [["-U", "FOO"], ["-UFOO"]])
def test_undefine_reaches_preprocessor(src, flags):
    p = src("#ifdef FOO\n#error FOO still defined\n#endif\nint x;\n")
    assert lift(p, "-DFOO", *flags).code == 0
    assert_error(lift(p, "-DFOO"), line=2, msg="FOO still defined")


@pytest.mark.parametrize("style", ["separate", "joined"])
def test_include_dir_reaches_preprocessor(src, tmp_path, style):
    inc = tmp_path / "my include"
    inc.mkdir()
    (inc / "only_here.h").write_text("#define ANSWER 42\n")
    p = src('#include "only_here.h"\nint a[ANSWER];\n')
    assert_error(lift(p), path=p, line=1, msg="only_here.h")
    flags = ["-I", inc] if style == "separate" else [f"-I{inc}"]
    r = lift(*flags, p, "-o", "-")
    assert r.code == 0, r.stderr


def test_forced_include(src, tmp_path):
    h = tmp_path / "forced.h"
    h.write_text("#define FORCED 1\n")
    p = src("#ifndef FORCED\n#error not forced\n#endif\nint x;\n")
    assert_error(lift(p), line=2)
    assert lift("-include", h, p).code == 0


@pytest.mark.parametrize("std", ["-std=c99", "-std=c11", "-std=gnu99"])
def test_std(src, std):
    r = lift(std, src("#if __STDC_VERSION__ < 199901L\n#error old\n#endif\nint x;\n"))
    assert r.code == 0, r.stderr


def test_std_reaches_preprocessor(src):
    p = src("#if __STDC_VERSION__ != 201112L\n#error not c11\n#endif\nint x;\n")
    assert lift("-std=c11", p).code == 0
    assert_error(lift("-std=c99", p), line=2, msg="not c11")


def test_ignored_cc_flags(src, tmp_path):
    out = tmp_path / "out.c"
    r = lift("-O3", "-Wall", "-Wextra", "-march=native", "-fopenmp", "-g", "-pedantic",
             "-DFOO=7", "-std=c99", src(NEEDS_FOO), "-o", out)
    assert r.code == 0, r.stderr
    assert out.read_text() == NEEDS_FOO


def test_O0_reemits_unchanged(src, tmp_path):
    out = tmp_path / "out.c"
    assert lift("-O0", src(LOOP), "-o", out).code == 0
    assert out.read_bytes() == LOOP


# 4. bad input -------------------------------------------------------------------

SYNTAX = "int f(int x)\n{\n    int y = x +;\n    return y;\n}\n"


def test_syntax_error_position(src, tmp_path):
    p, out = src(SYNTAX), tmp_path / "out.c"
    assert_error(lift(p, "-o", out), path=p, line=3, col=16)
    assert not out.exists()
    assert p.read_text() == SYNTAX


def test_syntax_error_after_headers_and_macros(src):
    p = src("#include <stdio.h>\n#define N 10\n\nint main(void) {\n  int a[N];\n  a[0] = 1\n  return a[0];\n}\n")
    # issue 18: as gcc, at the missing ';' (just after the '1' of line 6), not at the next token
    assert_error(lift(p), path=p, line=6, col=11, msg="expected ';' before 'return'")


def test_error_leaves_existing_output_untouched(src, tmp_path):
    out = tmp_path / "out.c"
    out.write_bytes(b"precious")
    assert_error(lift(src(SYNTAX), "-o", out))
    assert out.read_bytes() == b"precious"
    assert [f.name for f in tmp_path.iterdir() if f.name.startswith(".lift-")] == []


def test_missing_file(tmp_path):
    p, out = tmp_path / "nope.c", tmp_path / "out.c"
    assert_error(lift(p, "-o", out), path=p, msg="no such file")
    assert not out.exists()


def test_unreadable_file(src, tmp_path):
    p = src("int x;\n")
    p.chmod(0)
    try:
        if os.access(p, os.R_OK):
            pytest.skip("running as root: permissions are not enforced")
        assert_error(lift(p, "-o", tmp_path / "out.c"), path=p, msg="permission denied")
    finally:
        p.chmod(0o644)


def test_unreadable_fifo_like_input(tmp_path):
    """A path that cannot be read as a regular file (a dangling symlink) is a clean error."""
    link = tmp_path / "dangling.c"
    link.symlink_to(tmp_path / "missing-target.c")
    assert_error(lift(link, "-o", tmp_path / "out.c"), path=link)
    assert not (tmp_path / "out.c").exists()


def test_binary_garbage(src, tmp_path):
    out = tmp_path / "out.c"
    assert_error(lift(src(bytes(range(256)) * 4), "-o", out))
    assert not out.exists()


def test_binary_without_nul(src, tmp_path):
    out = tmp_path / "out.c"
    assert_error(lift(src(bytes(range(1, 256)) * 4), "-o", out))
    assert not out.exists()


@pytest.mark.parametrize("text", [b"", b"   \n\t\r\n  \n", b"/* only a comment */\n// and one more\n",
                                  b"#define N 10 /* only a macro */"])
def test_empty_or_blank_file_is_c(src, tmp_path, text):
    """cc compiles an empty translation unit (a warning only under -pedantic): so does lift,
    leaving it as it is (a .cu output gets the CUDA support code before it)."""
    p = src(text)
    r = lift(p, "-o", tmp_path / "out.c", "-v")
    assert r.code == 0 and "error" not in r.stderr, r.stderr
    assert (tmp_path / "out.c").read_bytes() == text
    r = lift(p, "-o", tmp_path / "out.cu")
    assert r.code == 0, r.stderr
    assert (tmp_path / "out.cu").read_bytes().endswith(text)


def test_missing_header_at_include_line(src):
    p = src("int a;\n\n#include \"nope.h\"\nint b;\n")
    assert_error(lift(p), path=p, line=3, msg="nope.h")


def test_error_directive(src):
    p = src("int a;\n#error this is not supported\n")
    assert_error(lift(p), path=p, line=2, msg="this is not supported")


def test_error_in_included_header_names_header(src, tmp_path):
    (tmp_path / "h.h").write_text("int ok;\nint bad = ;\n")
    p = src('#include "h.h"\nint x;\n')
    assert_error(lift(p), path=tmp_path / "h.h", line=2)


def test_directory_as_input(tmp_path):
    d = tmp_path / "dir.c"
    d.mkdir()
    assert_error(lift(d, "-o", tmp_path / "out.c"), path=d, msg="directory")
    assert not (tmp_path / "out.c").exists()


def test_output_directory_missing(src, tmp_path):
    out = tmp_path / "no" / "such" / "dir" / "out.c"
    assert_error(lift(src(LOOP), "-o", out))
    assert not out.parent.exists()


def test_output_is_a_directory(src, tmp_path):
    d = tmp_path / "outdir"
    d.mkdir()
    assert_error(lift(src(LOOP), "-o", d))
    assert d.is_dir() and list(d.iterdir()) == []


@pytest.mark.parametrize("how", ["same", "relative", "symlink", "hardlink"])
def test_input_never_overwritten(src, tmp_path, monkeypatch, how):
    p = src(LOOP)
    if how == "same":
        target = p
    elif how == "relative":
        monkeypatch.chdir(tmp_path)
        target = os.path.join(".", "sub", "..", p.name)
        (tmp_path / "sub").mkdir()
    elif how == "symlink":
        target = tmp_path / "link.c"
        target.symlink_to(p)
    else:
        target = tmp_path / "hard.c"
        os.link(p, target)
    assert_error(lift(p, "-o", target), msg="overwrite the input")
    assert p.read_bytes() == LOOP


@pytest.mark.parametrize("name", ["a b;$(x).c", "it's `q` & <t>|\"z\".c", "back\\slash.c", "new\nline.c",
                                  "caf\udce9.c", "-dash.c"])
def test_odd_file_names(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    try:
        p = tmp_path / name
        p.write_bytes(LOOP)
    except (UnicodeEncodeError, OSError):
        pytest.skip("file system refuses the name")
    out = "out " + name

    def run(path, *rest):  # relative names, so '-dash.c' needs '--'
        return lift(*rest, "--", path) if path.startswith("-") else lift(path, *rest)

    r = run(name, "-o", out)
    assert r.code == 0, r.stderr
    assert "#pragma omp" in (tmp_path / out).read_text(errors="surrogateescape")
    # errors name the file as given
    bad = "bad " + name
    (tmp_path / bad).write_bytes(SYNTAX.encode())
    r = run(bad)
    m = assert_error(r, line=3)
    assert m["path"] == bad.replace("\udce9", "\ufffd") or "\n" in name


def test_odd_file_name_includes_sibling_header(tmp_path):
    d = tmp_path / "dir with \"quote\" and space"
    d.mkdir()
    (d / "h.h").write_text("#define N 3\n")
    p = d / "k;$(x).c"
    p.write_text('#include "h.h"\nint a[N];\n')
    r = lift(p, "-o", "-")
    assert r.code == 0, r.stderr


def test_installed_script_on_odd_name(tmp_path):
    """The real console script, through a shell-free subprocess: nothing is interpreted."""
    p = tmp_path / "a b;$(touch pwned).c"
    p.write_bytes(NO_LOOPS)
    out = tmp_path / "o`touch pwned2`.c"
    done = subprocess.run(["lift", str(p), "-o", str(out)], capture_output=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == NO_LOOPS
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "pwned2").exists()


def test_installed_script_error_has_no_traceback(tmp_path):
    p = tmp_path / "bad.c"
    p.write_text(SYNTAX)
    done = subprocess.run(["lift", str(p), "-o", str(tmp_path / "o.c")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.startswith(f"{p}: In function 'f':\n{p}:3:") and "Traceback" not in done.stderr
    assert not (tmp_path / "o.c").exists()


def test_no_input_is_usage_error():
    r = lift()
    assert r.code == 1 and r.stderr == "lift: error: no input files\n"


# 5. --version, --help ------------------------------------------------------------

def test_version():
    r = lift("--version")
    assert r.code == 0 and __version__ in r.stdout.decode()


def test_help_documents_every_option():
    r = lift("--help")
    assert r.code == 0
    text = r.stdout.decode()
    for opt in ["-o", "--target", "-I", "-D", "-U", "-include", "-std", "--opt-level", "--report",
                "-v", "--remarks", "--emit-graph", "--version", "--help"]:
        assert re.search(rf"(^|[\s,]){re.escape(opt)}\b", text), opt
    for flag in ["-O", "-Wall", "-march", "-fopenmp", "-g"]:
        assert flag in text, flag


def test_output_file_gets_ordinary_permissions(tmp_path):
    import os
    import stat

    from lifter.cli import write_atomically

    target = tmp_path / "out.c"
    write_atomically(str(target), "int x;\n")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask


def test_importing_the_command_runs_no_cycle_collection():
    """`lift` starts by importing the command (click, and through the driver pycparser and the
    frontend): the collector's thresholds are raised before those imports (`cli._collect_less`,
    and `import lifter` loads none of them first), which at the default ones paid for 35 collections.
    Counted from where the first of those libraries starts to load (compiling cli.py itself, where
    there is no .pyc, may collect before its first line runs)."""
    script = ("import gc, sys\n"
              "seen = []\n"
              "gc.callbacks.append(lambda phase, info: phase == 'stop' and\n"
              "                    ('click' in sys.modules or 'pycparser' in sys.modules) and seen.append(1))\n"
              "import lifter.cli\n"
              "print(len(seen))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0"], "collections while importing the command: " + done.stdout


def test_a_suite_lift_runs_no_cycle_collection(tmp_path):
    """The collector's young generation is all a run has made so far: the command's threshold lies
    above what a lift of the largest suite kernel allocates (deriche: about 91,000 objects), so such
    a run pays for no collection (at a threshold of 50,000 each paid for one; `cli._collect_less`)."""
    kernel = CORPUS / "suite" / "deriche.c"
    flags = re.search(r"lift-bench large:(.*?)\*/", kernel.read_text()).group(1).split()
    script = (
        "import gc, sys\n"
        "from lifter import cli\n"
        "seen = []\n"
        "gc.callbacks.append(lambda phase, info: phase == 'stop' and gc.get_threshold()[0] > 700\n"
        "                    and seen.append(info['generation']))\n"
        "try:\n"
        f"    cli.main({[*flags, str(kernel), '-o', str(tmp_path / 'out.c')]!r})\n"
        "except SystemExit as exit:\n"
        "    assert exit.code == 0, exit.code\n"
        "print(len(seen))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0"], "collections during the run: " + done.stdout
