"""frontend/pointer_steps.py: which loops' stepping pointers are written as indices, and how."""
from __future__ import annotations

from lifter.frontend import PreprocessOptions, load
from lifter.frontend.pointer_steps import rewritten
from lifter.frontend.source import SourceFile


def _rewrite(text: str) -> str | None:
    source = SourceFile("t.c", text)
    stepped = rewritten(source, load(source, PreprocessOptions()).ast)
    return None if stepped is None else stepped.text


def test_copy_loops_become_indexed_on_the_same_lines():
    text = ("void f(int n, double *d, const double *s)\n{\n    for (int i = 2; i < n; i++)\n"
            "        *d++ = *(s++) * 2.0;\n}\n"
            "void g(long n, int *d)\n{\n    while (n--) *d++ = 7;\n}\n")
    out = _rewrite(text)
    assert out is not None and out.count("\n") == text.count("\n")
    assert "d[i - 2] = s[i - 2] * 2.0;" in out
    assert "for (long lift_k = 0; lift_k < n; lift_k++) d[lift_k] = 7;" in out


def test_loops_where_the_pointer_tells_are_left_alone():
    untouched = [
        # not evaluated: sizeof's operand
        "int f(int n, double *p)\n{\n    int s = 0;\n    for (int i = 0; i < n; i++)\n"
        "        s += sizeof(*p++);\n    return s;\n}\n",
        # behind a macro
        "#define NEXT(p) (*(p)++)\nvoid f(int n, double *p)\n{\n    for (int i = 0; i < n; i++)\n"
        "        NEXT(p) = 0;\n}\n",
        # a break: not every iteration steps it
        "void f(int n, double *p, const double *x)\n{\n    for (int i = 0; i < n; i++) {\n"
        "        if (x[i] < 0) break;\n        *p++ = x[i];\n    }\n}\n",
        # stepped twice an iteration
        "void f(int n, double *p)\n{\n    for (int i = 0; i < n; i++) {\n        *p++ = 0;\n"
        "        *p++ = 1;\n    }\n}\n",
        # the counter is read after the loop
        "long f(long n, double *d)\n{\n    while (n-- > 0)\n        *d++ = 0;\n    return n;\n}\n",
        # the address of the pointer is taken
        "void g(double **q);\nvoid f(int n, double *p)\n{\n    g(&p);\n    for (int i = 0; i < n; i++)\n"
        "        *p++ = 0;\n}\n",
    ]
    for text in untouched:
        assert _rewrite(text) is None, text


def test_a_function_the_pipeline_leaves_alone_keeps_its_text_as_written():
    """Only what lift transforms shows the indexed form: a stepping loop too short to run in
    parallel passes through byte for byte, beside one that runs in parallel."""
    from lifter import lift_file
    import pathlib
    import tempfile
    text = ("void copy(int n, double *dst, const double *src, double k)\n{\n"
            "    for (int i = 0; i < n; i++)\n        *dst++ = *src++ * k;\n}\n"
            "void small(double *d, const double *s)\n{\n"
            "    for (int i = 0; i < 10; i++)\n        *d++ = *s++ + 1.0;\n}\n")
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "steps.c"
        path.write_text(text)
        result = lift_file(str(path))
    small = text[text.index("void small"):]
    assert result.output.endswith(small)
    assert "dst[i] = src[i] * k;" in result.output and "omp parallel for" in result.output


def test_a_start_a_call_may_change_is_not_an_index_base():
    """`p[i - start]` would read `start` in every iteration: a global that the loop's calls may
    change is no base (the loop stays as written)."""
    text = ("int start;\nint next(void);\nvoid f(int n, int *d)\n{\n"
            "    for (int i = start; i < n; i++)\n        *d++ = next();\n}\n")
    assert _rewrite(text) is None
