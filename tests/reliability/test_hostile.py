"""Malformed and adversarial input through the real command (`python -m lifter`).

Every case runs in its own process, with a time limit, and its peak memory is measured.
Whatever the input, lift must end within the limit with either

* exit status 1 and a compiler-style diagnostic `path[:line[:col]]: error: message` on
  stderr (no traceback), no output file and no temporary file left behind, or
* exit status 0 and a complete output file (for valid C: one gcc compiles),

and it never changes its input. tests/test_cli.py covers the ordinary bad inputs (missing
file, directory, empty, binary, odd names); this extends it with truncation, unbalanced
brackets, garbage, encodings, huge files, deep nesting, huge constants, exploding macros,
pipes and devices, and more file names.
"""
from __future__ import annotations

import os
import random
import re
import stat
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.harness import CORPUS, REPO, have_gcc, prepare

TIMEOUT_S = 60
MEMORY_LIMIT_KB = 2 * 1024 * 1024
DIAG = re.compile(r"^(?P<path>.+?):(?:(?P<line>\d+):(?:(?P<col>\d+):)?)? error: (?P<msg>.+)$", re.M)
# gcc's context lines above an error: the #include chain and the function it is in.
_CONTEXT = re.compile(r"^(?:.+: In function '.+':|In file included from .+|\s+from .+)$")
MB = 1024 * 1024
REGRESSIONS = Path(__file__).parent / "cases"

LOOP = ("void axpy(int n, double a, double *restrict x, double *restrict y)\n{\n"
        "    for (int i = 0; i < n; i++)\n        y[i] += a * x[i];\n}\n")


# -- running lift --------------------------------------------------------------------------

@dataclass
class Result:
    code: int | None  # None: killed at the time limit
    stdout: bytes
    stderr: str
    seconds: float
    max_rss_kb: int | None  # None: killed at the time limit (nothing measured)


# lift's peak memory is measured by a small launcher process that starts it and waits for it. Measured by the
# test process itself, wait4's ru_maxrss of a child counts the test process's own high-water mark: Linux
# carries the memory a child had before exec (at fork or vfork: the parent's) into its peak, so a pytest worker
# grown to 2 GB (by DaCe's builds, tests/graph/test_sdfg_dace.py) read every lift it started as 2 GB. The
# launcher's own mark is carried into its report of lift too, but it is a few MB (python -S, os alone).
# argv: report path, then lift's command; the report is "exit code, peak RSS in kB" (exit code negative: the
# signal that ended lift, as subprocess reports it).
_LAUNCHER = """import os, sys
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as report:
    report.write(f"{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss}")
"""


def run_lift(args: list[str], cwd: Path, timeout: float = TIMEOUT_S) -> Result:
    """`python -m lifter args...` with this tree's lifter, in a process of its own under the launcher
    (above), which measures its peak memory; both are killed (as one process group) at the time limit."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    out_path, err_path, report_path = cwd / ".stdout", cwd / ".stderr", cwd / ".rusage"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        start = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-S", "-c", _LAUNCHER, str(report_path), sys.executable, "-m",
                                 "lifter", *args], cwd=cwd, env=env, stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            proc.wait(timeout)
            killed = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
            killed = True
        seconds = time.monotonic() - start
    if killed:
        code, max_rss_kb = None, None
    else:  # (the launcher failed itself: its traceback)
        assert report_path.exists(), err_path.read_text(errors="replace")
        code, max_rss_kb = map(int, report_path.read_text().split())
    result = Result(code, out_path.read_bytes(), err_path.read_bytes().decode("utf-8", "replace"), seconds,
                    max_rss_kb)
    for path in (out_path, err_path, report_path):
        path.unlink(missing_ok=True)
    return result


def gcc_compiles(path: Path) -> str:
    done = subprocess.run(["gcc", "-std=gnu11", "-fopenmp", "-w", "-c", str(path), "-o", str(path.with_suffix(".o"))],
                          capture_output=True, text=True, timeout=120)
    return "" if done.returncode == 0 else done.stderr


# -- the cases -----------------------------------------------------------------------------

@dataclass
class Case:
    name: str
    data: bytes | None = None           # the input file's bytes (or made by `make`)
    expect: str = "either"              # "ok", "error" or "either"
    line: bool = False                  # an error must give a line number
    msg: str | None = None              # regex the error message must match
    compiles: bool = False              # the output must compile with gcc -fopenmp
    same: bool = False                  # the output must be the input, byte for byte
    pragma: bool = False                # the output must have a lift pragma
    remark: str | None = None           # regex a remark (-v) must match; then no pragma may appear
    timeout: float = TIMEOUT_S
    filename: str = "in.c"


def _rng(name: str) -> random.Random:
    return random.Random(f"lift-hostile-{name}")


def _gemm() -> bytes:
    return (CORPUS / "linalg" / "gemm.c").read_bytes()


def truncations() -> list[Case]:
    text = _gemm()
    cases = []
    for frac in (0.12, 0.45, 0.75, 0.97):
        cases.append(Case(f"truncated_{int(frac * 100)}pct", text[: int(len(text) * frac)], line=True))
    mid_token = text[: text.index(b"kernel_gemm(") + 8]  # inside an identifier
    cases.append(Case("truncated_mid_identifier", mid_token, expect="error", line=True))
    cases.append(Case("truncated_in_comment", b"int x;\n/* the end is not", expect="error", line=True,
                      msg="unterminated comment"))
    cases.append(Case("truncated_in_string", b'const char *s = "abc', expect="error", line=True))
    cases.append(Case("truncated_in_loop_header", LOOP[: LOOP.index("i < n") + 3].encode(), expect="error",
                      line=True))
    cases.append(Case("truncated_after_backslash", b"int x;\n#define A 1 \\", expect="either"))
    return cases


def unbalanced() -> list[Case]:
    body = LOOP.encode()
    return [
        Case("extra_close_brace", body + b"}\n", expect="error", line=True, msg="syntax error"),
        Case("two_extra_close_braces", b"}}\n" + body, expect="error", line=True),
        Case("missing_close_brace", body[: body.rindex(b"}")], expect="error", line=True, msg="end of input"),
        Case("extra_open_brace", body.replace(b"{", b"{{", 1), expect="error", line=True),
        Case("extra_close_paren", body.replace(b"i++)", b"i++))"), expect="error", line=True),
        Case("missing_paren", body.replace(b"i++)", b"i++"), expect="error", line=True),
        Case("unbalanced_bracket", body.replace(b"x[i]", b"x[i]]"), expect="error", line=True),
        Case("unterminated_if", b"#if 1\n" + body, expect="error", line=True, msg="#if"),
        Case("stray_endif", body + b"#endif\n", expect="error", line=True, msg="#endif"),
        Case("unterminated_char", b"int c = 'a;\n", expect="error", line=True),
    ]


def garbage() -> list[Case]:
    cases = []
    valid = LOOP.encode() + _gemm()
    for k in range(3):
        r = _rng(f"bytes{k}")
        data = bytearray(valid)
        for _ in range(r.randint(1, 12)):
            pos = r.randrange(len(data))
            data[pos:pos] = bytes(r.randint(1, 255) for _ in range(r.randint(1, 8)))
        cases.append(Case(f"random_bytes_in_program_{k}", bytes(data)))
    vocab = ["for", "(", ")", "{", "}", ";", "int", "i", "=", "0", "<", "n", "++", "a", "[", "]", "+=", "*", "if",
             "else", "while", "do", "return", "#define", "\n", "#include", "<stdio.h>", "struct", "typedef", ",",
             "...", "->", ".", "\"s\"", "'c'", "0x7fffffffffffffff", "-", "?", ":", "sizeof", "static", "void"]
    for k in range(3):
        r = _rng(f"soup{k}")
        cases.append(Case(f"token_soup_{k}", " ".join(r.choice(vocab) for _ in range(400)).encode()))
    cases.append(Case("control_characters", b"int x;\x01\x02\x1b[31m\n", expect="error", line=True))
    cases.append(Case("trigraphs_and_digraphs", b"int a<:3:> = <% 1, 2, 3 %>; ??=define X 1\nint y;\n"))
    cases.append(Case("lone_surrogate_bytes", b"int x; /* \xed\xa0\x80 */\n", expect="ok", same=True))
    return cases


def encodings() -> list[Case]:
    loop_latin1 = LOOP.replace("y[i] += a * x[i];", "y[i] += a * x[i]; /* caf\xe9 na\xefve */").encode("latin-1")
    return [
        Case("latin1_comment_in_parallel_loop", loop_latin1, expect="ok", pragma=True, compiles=True),
        Case("latin1_identifier", b"int caf\xe9 = 1;\n", expect="error", line=True, msg=r"\\xe9"),
        Case("invalid_utf8_in_comments", b"/* \xc0\xaf \xff\xfe \x80\x80 \xf8\x88\x80\x80\x80 */\n" + LOOP.encode(),
             expect="ok", pragma=True, compiles=True),
        Case("utf8_bom", b"\xef\xbb\xbf" + LOOP.encode(), expect="ok", pragma=True, compiles=True),
        Case("utf16", LOOP.encode("utf-16"), expect="error", msg="NUL"),
        Case("utf32", LOOP.encode("utf-32"), expect="error", msg="NUL"),
        Case("utf8_identifiers", "double caf\u00e9[100];\nvoid f(int n) { for (int \u00f1 = 0; \u00f1 < n; \u00f1++) "
             "caf\u00e9[\u00f1] = 2.0 * \u00f1; }\n".encode(), expect="ok", compiles=True),
        Case("ucn_identifiers", b"double caf\\u00e9[100];\nvoid f(void) { caf\\u00e9[0] = 1; }\n", expect="ok",
             compiles=True, same=True),
        Case("cr_only_line_ends", LOOP.replace("\n", "\r").encode(), expect="ok", compiles=True),
        Case("mixed_line_ends", LOOP.replace("\n", "\r\n", 2).replace("\n", "\r", 1).encode(), expect="ok",
             compiles=True),
    ]


def sizes() -> list[Case]:
    return [
        Case("ten_mb_comment", b"/*" + b"padding " * (10 * MB // 8) + b"*/\n" + LOOP.encode(), expect="ok",
             pragma=True),
        Case("ten_mb_blank_lines", b"\n" * (10 * MB) + LOOP.encode(), expect="ok", pragma=True),
        Case("ten_mb_of_code", b"".join(b"static int f%d(int x) { return x * %d + 1; }\n" % (k, k)
                                        for k in range(10 * MB // 46)) + LOOP.encode(),
             expect="error", msg="larger than"),
        Case("ten_mb_one_line", b"int x = 0" + b" + 1" * (10 * MB // 4) + b";\n", expect="error"),
        Case("very_long_identifier", ("int " + "v" * 1_000_000 + " = 1;\n").encode(), expect="ok", same=True),
    ]


def _nested(n: int, open_: str, inner: str, close: str) -> str:
    return open_ * n + inner + close * n


def _deep_nest(depth: int) -> str:
    return "void f(int n, double *restrict a)\n{\n" + "".join(
        f"for (int i{d} = 0; i{d} < n; i{d}++)\n" for d in range(depth)) + "a[i0] += 1;\n}\n"


def nesting() -> list[Case]:
    elif_in_loop = "void f(int n, int *restrict a)\n{\n  for (int i = 0; i < n; i++) {\n" + "".join(
        f"    {'else ' if k else ''}if (a[i] == {k}) a[i] = {k + 1};\n" for k in range(100)) + "  }\n}\n"
    many_loops = "double a[100];\nvoid f(int n)\n{\n" + "".join(
        f"  for (int i = 0; i < n; i++) a[i] += {k};\n" for k in range(1000)) + "}\n"
    macro = "#define A0 x\n" + "".join(f"#define A{i} A{i - 1}+A{i - 1}\n" for i in range(1, 41))
    macro14 = "#define A0 i\n" + "".join(f"#define A{i} A{i - 1}+A{i - 1}\n" for i in range(1, 15))
    return [
        Case("parens_5000_in_subscript_bound_and_body", (
            "void f(int n, double *restrict a, double *restrict b)\n{\n  for (int i = 0; i < "
            + _nested(5000, "(", "n", ")") + "; i++)\n    a[" + _nested(5000, "(", "i", ")") + "] = "
            + _nested(5000, "(", "b[i]", ")") + ";\n}\n").encode(), expect="ok", pragma=True, compiles=True),
        Case("parens_5000_in_initializer", ("int x = " + _nested(5000, "(", "1", ")") + ";\n").encode(),
             expect="ok", same=True),
        Case("blocks_2000_in_loop", ("void f(int n, double *restrict a)\n{\n  for (int i = 0; i < n; i++) "
                                     + _nested(2000, "{", "a[i] = i;", "}") + "\n}\n").encode(),
             expect="ok", compiles=True),
        Case("blocks_2000", ("void f(void)\n{" + _nested(2000, "{", "", "}") + "}\n").encode(), expect="ok",
             same=True),
        Case("ifs_2000_in_loop", ("void f(int n, double *restrict a)\n{\n  for (int i = 0; i < n; i++)\n"
                                  + "if (i > 0)\n" * 2000 + "a[i] = i;\n}\n").encode(), expect="ok", compiles=True),
        Case("calls_5000", ("int g(int x) { return x; }\nint f(int x) { return "
                            + _nested(5000, "g(", "x", ")") + "; }\n").encode(), expect="ok", same=True),
        Case("unary_minus_5000", ("int f(int x) { return " + "- " * 5000 + "x; }\n").encode(), expect="ok",
             same=True),
        Case("casts_5000", ("int f(int x) { return " + "(int)" * 5000 + "x; }\n").encode(), expect="ok", same=True),
        Case("initializer_braces_5000", ("int x = " + _nested(5000, "{", "1", "}") + ";\n").encode()),
        Case("pointer_declarator_5000", ("int " + "*" * 5000 + "p;\n").encode(), expect="ok", same=True),
        Case("struct_nesting_2000", ("".join(f"struct s{i} {{ " for i in range(2000)) + "int x; "
                                     + "} m;" * 2000 + "\n").encode()),
        Case("sum_of_30000_terms", ("int f(int x) { return " + " + ".join(["x"] * 30_000) + "; }\n").encode(),
             expect="error", line=True, msg="nested"),
        Case("sum_of_20000_terms_in_loop", ("void f(int n, int *restrict a) { for (int i = 0; i < n; i++) a[i] = "
                                            + " + ".join(["i"] * 20_000) + "; }\n").encode(),
             expect="error", line=True),
        Case("else_if_chain_13000", ("int f(int x)\n{\n" + "".join(
            f"  {'else ' if i else ''}if (x == {i}) return {i};\n" for i in range(13_000)) + "  return -1;\n}\n"
                                    ).encode(), expect="error", line=True),
        Case("macro_expanding_to_2_pow_40_terms", (macro + "int f(int x) { return A40; }\n").encode(),
             expect="error", line=True, msg="larger than"),
        Case("macro_expanding_to_16384_terms_in_loop", (macro14 + "void f(int n, int *restrict a)\n{\n"
                                                        "  for (int i = 0; i < n; i++)\n    a[i] = A14;\n}\n").encode(),
             expect="error", line=True),
        # Deeper than analysis.budget.MAX_NEST_DEPTH: the nest stays as written, with a remark.
        Case("loops_nested_2000_deep", _deep_nest(2000).encode(), expect="ok", compiles=True,
             remark="analysis budget exceeded"),
        # At the depth limit: analysed, and the outer loop is parallel.
        Case("loops_nested_20_deep", _deep_nest(20).encode(), expect="ok", compiles=True, pragma=True),
        # Each test reads a[i] again: one isl tuple stands for them all (dependences.representatives).
        Case("else_if_chain_100_in_loop", elif_in_loop.encode(), expect="ok", compiles=True),
        Case("one_thousand_loops_in_one_function", many_loops.encode(), expect="ok", compiles=True, pragma=True),
        # Found by the fuzzer: isl's dataflow analysis of this small strided nest ran for minutes.
        Case("strided_nest_from_fuzzing", (REGRESSIONS / "strided_nest_analysis_budget.c").read_bytes(),
             expect="ok", compiles=True),
    ]


def constants() -> list[Case]:
    head = "int a[10];\n"
    return [
        Case("bound_2_pow_100", (head + "void f(void) { for (long i = 0; i < 1267650600228229401496703205376; i++) "
                                 "a[i % 10] = 1; }\n").encode()),
        Case("subscript_int64_max", (head + "void f(int n) { for (int i = 0; i < n; i++) "
                                     "a[i + 0x7fffffffffffffff] = 0; }\n").encode()),
        Case("coefficient_uint64_max", (head + "void f(int n) { for (int i = 0; i < n; i++) "
                                        "a[18446744073709551615u * i] = 0; }\n").encode()),
        Case("step_int64_max", (head + "void f(int n) { for (long i = 0; i < n; i += 9223372036854775807) "
                                "a[i] = 0; }\n").encode()),
        Case("lower_bound_int64_min", (head + "void f(int n) { for (long i = -9223372036854775807 - 1; i < n; i++) "
                                       "a[i & 7] = 0; }\n").encode()),
        Case("huge_array_dimensions", b"void f(int n, double b[][100000000000]) { for (int i = 0; i < n; i++) "
                                      b"b[i][4611686018427387904 * i] = 0; }\n"),
        Case("decimal_5000_digits", (head + "void f(int n) { for (long i = 0; i < n; i++) a[i % 10 + 0 * "
                                     + "9" * 5000 + "] = 1; }\n").encode()),
        Case("hex_5000_digits", (head + "void f(int n) { for (long i = 0; i < n; i++) a[i + 0x" + "f" * 5000
                                 + "] = 1; }\n").encode(), expect="ok", compiles=True),
        Case("constant_product_overflows_64_bits", (head + "void f(int n) { for (long i = 0; i < n; i++) "
                                                    "a[i + 3000000000 * 3000000000 * 3000000000] = 1; }\n").encode(),
             expect="ok", compiles=True),
        Case("float_bound_1e308", (head + "void f(void) { for (int i = 0; i < 1e308; i++) a[i % 10] = 0; }\n"
                                   ).encode()),
    ]


ALL = truncations() + unbalanced() + garbage() + encodings() + sizes() + nesting() + constants()


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in ALL])
def test_hostile_input(case: Case, tmp_path):
    src = tmp_path / case.filename
    src.write_bytes(case.data)
    out = tmp_path / "out.c"
    r = run_lift([case.filename, "-o", "out.c"] + (["-v"] if case.remark else []), tmp_path, case.timeout)
    check(r, case, src, out, tmp_path)


def _first_message(stderr: str) -> str:
    """The first line of `stderr` that is not a context line ('' if none)."""
    return next((line for line in stderr.splitlines() if not _CONTEXT.match(line)), "")


def check(r: Result, case: Case, src: Path, out: Path, directory: Path) -> None:
    assert r.code is not None, f"no answer within {case.timeout} s"
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
    assert r.code in (0, 1), (r.code, r.stderr[-2000:])
    assert r.max_rss_kb < MEMORY_LIMIT_KB, f"used {r.max_rss_kb // 1024} MB"
    assert src.read_bytes() == case.data, "the input changed"
    assert not [p for p in directory.iterdir() if p.name.startswith(".lift-")], "temporary file left behind"
    if r.code == 1:
        assert case.expect != "ok", f"valid input rejected: {r.stderr}"
        first = _first_message(r.stderr)
        m = DIAG.match(first)
        assert m, f"not a diagnostic: {r.stderr!r}"
        assert m["path"] == case.filename or case.filename not in first, r.stderr
        if case.line:
            assert m["line"], f"no line number: {r.stderr}"
        if case.msg:
            assert re.search(case.msg, m["msg"]), r.stderr
        assert not out.exists(), "partial output after an error"
        return
    assert case.expect != "error", f"expected an error, got success: {r.stderr}"
    assert out.exists(), "no output"
    text = out.read_bytes()
    if case.same:
        assert text == case.data
    if case.remark:
        assert re.search(f"remark: .*{case.remark}", r.stderr), r.stderr[-2000:]
        assert b"#pragma omp" not in text
    if case.pragma:
        assert b"#pragma omp" in text
        assert text.replace(b"/* lift */", b"").count(b"\n") >= case.data.count(b"\n")
    if case.compiles and have_gcc():
        errors = gcc_compiles(out)
        assert not errors, errors


# -- pipes, devices and paths ------------------------------------------------------------------

def _check_error(r: Result, msg: str | None = None):
    assert r.code == 1 and "Traceback" not in r.stderr, (r.code, r.stderr)
    m = DIAG.match(_first_message(r.stderr))
    assert m, r.stderr
    if msg:
        assert re.search(msg, m["msg"]), r.stderr


FAT_MB = 600


def test_peak_memory_is_lifts_own(tmp_path):
    """The peak run_lift measures is lift's own, whatever the memory of the process that calls it: run from a
    process holding FAT_MB (as a pytest worker holds 2 GB after DaCe's builds), lift's peak on a small loop is
    far below it (measured by the test process itself, through wait4, it read FAT_MB and more)."""
    (tmp_path / "k.c").write_text(LOOP)
    fat = (f"import sys; from pathlib import Path; from tests.reliability.test_hostile import run_lift; "
           f"held = b'x' * ({FAT_MB} * {MB}); r = run_lift(['k.c', '-o', 'out.c'], Path(sys.argv[1])); "
           f"print(len(held) // {MB}, r.code, r.max_rss_kb)")
    done = subprocess.run([sys.executable, "-c", fat, str(tmp_path)], cwd=REPO, capture_output=True, text=True,
                          timeout=TIMEOUT_S)
    held_mb, code, peak_kb = map(int, done.stdout.split())
    assert held_mb == FAT_MB and code == 0, done.stderr
    assert 0 < peak_kb < FAT_MB * 1024 // 2, f"lift's peak measured as {peak_kb // 1024} MB"


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_endless_device_as_input(tmp_path):
    r = run_lift(["/dev/zero", "-o", "out.c"], tmp_path)
    _check_error(r, "larger than")
    assert r.max_rss_kb < MEMORY_LIMIT_KB
    assert not (tmp_path / "out.c").exists()


def test_named_pipe_without_writer_is_an_error(tmp_path, monkeypatch):
    from lifter.diagnostics import LiftError
    from lifter.frontend import source

    fifo = tmp_path / "k.c"
    os.mkfifo(fifo)
    monkeypatch.setattr(source, "FIFO_WAIT_S", 1)
    start = time.monotonic()
    with pytest.raises(LiftError, match="no process wrote"):
        source.read_source(str(fifo))
    assert time.monotonic() - start < 10


def test_named_pipe_with_a_writer_is_read(tmp_path):
    fifo = tmp_path / "k.c"
    os.mkfifo(fifo)

    def write():
        time.sleep(0.5)
        with open(fifo, "wb") as w:
            w.write(LOOP.encode())

    writer = threading.Thread(target=write)
    writer.start()
    r = run_lift(["k.c", "-o", "out.c"], tmp_path)
    writer.join(5)
    assert r.code == 0, r.stderr
    assert b"#pragma omp" in (tmp_path / "out.c").read_bytes()


def test_process_substitution_style_pipe(tmp_path):
    """`lift <(generate) -o out.c`: the input is an anonymous pipe (/dev/fd/N)."""
    read, write = os.pipe()
    os.write(write, LOOP.encode())
    os.close(write)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-m", "lifter", f"/dev/fd/{read}", "-o", str(tmp_path / "out.c")],
                          pass_fds=(read,), capture_output=True, text=True, timeout=TIMEOUT_S, env=env)
    os.close(read)
    assert done.returncode == 0, done.stderr
    assert "#pragma omp" in (tmp_path / "out.c").read_text()


@pytest.mark.parametrize("how", ["symlink_loop", "name_too_long", "not_a_directory", "empty_name"])
def test_unopenable_paths(tmp_path, how):
    if how == "symlink_loop":
        (tmp_path / "a.c").symlink_to(tmp_path / "b.c")
        (tmp_path / "b.c").symlink_to(tmp_path / "a.c")
        name = "a.c"
    elif how == "name_too_long":
        name = "x" * 300 + ".c"
    elif how == "not_a_directory":
        (tmp_path / "file.c").write_text(LOOP)
        name = "file.c/k.c"
    else:
        name = ""
    r = run_lift([name, "-o", "out.c"], tmp_path)
    assert r.code in (1, 2) and "Traceback" not in r.stderr, r.stderr
    assert not (tmp_path / "out.c").exists()


@pytest.mark.parametrize("name", ["glob*?[ab].c", "brace{a,b}.c", "~tilde.c", "bang!hist.c", "hash#.c",
                                  "pct%s%n.c", "dollar$HOME.c", "semi;rm -rf x.c", "pipe|cat.c", "amp&.c",
                                  "paren(x).c", "quote'\".c", "tab\tname.c", "unicod\u00e9 \u2603.c",
                                  "l" * 200 + ".c"])
def test_file_names_reach_no_shell(tmp_path, name):
    """Names a shell would expand or split, for the input and the output, through the real
    command: the files are lifted, nothing else appears in the directory."""
    try:
        (tmp_path / name).write_text(LOOP)
    except OSError:
        pytest.skip("the file system refuses the name")
    out = "out " + name
    r = run_lift([name, "-o", out, "--report", name + ".json"], tmp_path)
    assert r.code == 0, r.stderr
    assert "#pragma omp" in (tmp_path / out).read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, out, name + ".json"])


def test_report_never_overwrites_the_input(tmp_path):
    src = tmp_path / "k.c"
    src.write_text(LOOP)
    r = run_lift(["k.c", "-o", "out.c", "--report", "k.c"], tmp_path)
    assert src.read_text() == LOOP
    assert r.code == 1 and "Traceback" not in r.stderr


def test_output_to_a_fifo_writes_into_it(tmp_path):
    src = tmp_path / "k.c"
    src.write_text(LOOP)
    fifo = tmp_path / "pipe.c"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        r = run_lift(["k.c", "-o", "pipe.c"], tmp_path)
        assert r.code == 0, r.stderr
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced by a regular file"
        assert b"#pragma omp" in os.read(reader, 1 << 16)
    finally:
        os.close(reader)


# -- huge constants in programs that run ------------------------------------------------------

RUNNABLE_CONSTANTS = {
    "bounds_near_long_max": """
#include <stdio.h>
#include <limits.h>
static long a[16];
int main(void)
{
    for (long i = LONG_MAX - 9; i < LONG_MAX; i++)
        a[i - (LONG_MAX - 9)] = i % 1000;
    long s = 0;
    for (int i = 0; i < 16; i++) s += a[i] * (i + 1);
    printf("%ld\\n", s);
    return 0;
}
""",
    "offsets_that_cancel": """
#include <stdio.h>
static double a[64], b[64];
int main(void)
{
    for (int i = 0; i < 64; i++) b[i] = i * 0.5;
    for (long i = 0; i < 60; i++)
        a[i + 4611686018427387904L - 4611686018427387904L] = b[i + 3];
    double s = 0;
    for (int i = 0; i < 64; i++) s += a[i] * (i + 1);
    printf("%.17g\\n", s);
    return 0;
}
""",
    "unsigned_near_max": """
#include <stdio.h>
static unsigned long long a[32];
int main(void)
{
    for (unsigned long long i = 18446744073709551600ull; i != 18446744073709551615ull; i++)
        a[i - 18446744073709551600ull] = i ^ 0xdeadbeefull;
    unsigned long long h = 0;
    for (int i = 0; i < 32; i++) h = h * 31 + a[i];
    printf("%llu\\n", h);
    return 0;
}
""",
    "int_min_lower_bound": """
#include <stdio.h>
#include <limits.h>
static int a[8];
int main(void)
{
    for (int i = INT_MIN; i < INT_MIN + 8; i++)
        a[i - INT_MIN] = i / 3;
    printf("%d %d\\n", a[0], a[7]);
    return 0;
}
""",
}


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
@pytest.mark.parametrize("name", sorted(RUNNABLE_CONSTANTS))
def test_huge_constants_round_trip(name, tmp_path):
    src = tmp_path / f"{name}.c"
    src.write_text(RUNNABLE_CONSTANTS[name])
    diff = prepare(src, tmp_path, min_parallel_work=0)
    for threads in (1, 8):
        diff.check(threads)


def test_cases_are_distinct():
    names = [c.name for c in ALL]
    assert len(names) == len(set(names))
