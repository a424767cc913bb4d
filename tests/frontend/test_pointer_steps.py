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
        # stepped twice in one statement (unsequenced: no order to index them by)
        "double f(int n, const double *p)\n{\n    double s = 0;\n    for (int i = 0; i < n; i++)\n"
        "        s += *p++ * *p++;\n    return s;\n}\n",
        # stepped forwards and backwards
        "void f(int n, double *p)\n{\n    for (int i = 0; i < n; i++) {\n        *p++ = 0;\n"
        "        *p-- = 1;\n    }\n}\n",
        # read after the loop, whose trip count is not kept (n - 1 is no plain bound)
        "double *f(int n, double *p)\n{\n    for (int i = 0; i < n - 1; i++)\n        *p++ = 0;\n"
        "    return p;\n}\n",
        # read after the loop, which is no statement of a block (nowhere to put the step)
        "double *f(int n, int c, double *p)\n{\n    if (c)\n        for (int i = 0; i < n; i++)\n"
        "            *p++ = 0;\n    return p;\n}\n",
        # read after the loop, whose bound is no integer of a plain type (`p += x` would be no C)
        "double *f(double x, double *p)\n{\n    for (int i = 0; i < x; i++)\n        *p++ = i;\n"
        "    return p;\n}\n",
        # read after the loop, whose bound a call may change
        "int n;\nvoid g(void);\ndouble *f(double *p)\n{\n    for (int i = 0; i < n; i++) {\n"
        "        g();\n        *p++ = 0;\n    }\n    return p;\n}\n",
        # the counter is read after the loop
        "long f(long n, double *d)\n{\n    while (n-- > 0)\n        *d++ = 0;\n    return n;\n}\n",
        # the address of the pointer is taken
        "void g(double **q);\nvoid f(int n, double *p)\n{\n    g(&p);\n    for (int i = 0; i < n; i++)\n"
        "        *p++ = 0;\n}\n",
    ]
    for text in untouched:
        assert _rewrite(text) is None, text


def test_steps_several_backwards_and_before_the_access():
    """A pointer stepped m times an iteration is read at m*i + j at its j-th step; `*p--` walks
    back from p, `*--p` and `*++p` step before they read."""
    text = ("void f(int n, double *p, const double *x)\n{\n    for (int i = 1; i <= n; i++) {\n"
            "        *p++ = x[i];\n        *(p++) = -x[i];\n        *p++ = 0;\n    }\n}\n"
            "void g(int n, double *q, double *r, const double *x)\n{\n    for (int i = 0; i < n; i++) {\n"
            "        *--q = x[i];\n        *r-- = x[i];\n    }\n}\n"
            "void h(long n, double *s)\n{\n    while (n--) {\n        *++s = 1;\n        *++s = 2;\n    }\n}\n")
    out = _rewrite(text)
    assert out is not None and out.count("\n") == text.count("\n")
    assert "p[3 * (i - 1)] = x[i];" in out and "p[3 * (i - 1) + 1] = -x[i];" in out and "p[3 * (i - 1) + 2] = 0;" in out
    assert "q[-i - 1] = x[i];" in out and "r[-i] = x[i];" in out
    assert "s[2 * lift_k + 1] = 1;" in out and "s[2 * lift_k + 2] = 2;" in out


def test_a_pointer_read_after_the_loop_is_stepped_past_it():
    """Where the value the steps leave is read after the loop, it is set there from the trip
    count, on the loop's last line."""
    text = ("double *f(int n, int from, double *p)\n{\n    for (int i = from; i <= n; i++)\n"
            "        *p++ = i;\n    return p;\n}\n"
            "float *g(unsigned n, float *d)\n{\n    while (n-- > 0) {\n        *d-- = 1;\n        *d-- = 2;\n"
            "    }\n    return d;\n}\n")
    out = _rewrite(text)
    assert out is not None and out.count("\n") == text.count("\n")
    assert "p[i - from] = i; p += (n + 1 > from ? n + 1 - from : 0);" in out
    assert "    } d -= 2 * (n > 0 ? n : 0);" in out


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
