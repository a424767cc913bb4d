"""What the CUDA backend's C-as-C++ edits read of a file, from the frontend's tokens
(frontend/cxx_constructs.py): the backends build their edits from these facts alone."""
from lifter.frontend.cfile import CFile
from lifter.frontend.cxx_constructs import (array_designators, array_params, called_with_arguments,
                                            converted_operand, empty_prototype, starts_token, variably_modified,
                                            volatile_aggregate_copies)

TEXT = """struct s { int x; };
void f(int n, const double a[restrict n][n], double (*b)[n], int c[static 4]);
void g(int n, double v[n])
{
    volatile struct s w;
    struct s volatile u;
    int d[4] = {[2] = 1};
    w = u;
    w.x = sizeof(u) + h(n);
}
int h();
"""


def test_array_parameters_are_read_as_facts():
    cfile = CFile(TEXT)
    lists = array_params(cfile)
    assert [p.body for p in lists] == [None, TEXT.index("{\n") + 1]
    a, b, c = lists[0].arrays
    assert (a.name, a.base, a.qualifiers, a.dims, a.variable, a.pointer_form) == \
        ("a", "const double", "const", ("n", "n"), (True, True), False)
    assert TEXT[a.start:a.end] == "const double a[restrict n][n]"
    assert (b.dims, b.variable, b.pointer_form) == (("n",), (True,), True)
    assert c.variable == (False,) and [TEXT[s:e] for s, e in c.first_qualifiers] == ["static"]
    assert TEXT[slice(*c.first)] == "static 4"
    assert [p.name for p in lists[1].arrays] == ["v"]


def test_constructs_cxx_reads_otherwise():
    cfile = CFile(TEXT)
    assert [TEXT[at:at + 4] for at in array_designators(cfile)] == ["[2] "]
    # `w = u` copies both (as a whole); `w.x` and `sizeof(u)` do not
    assert [name for _, name in volatile_aggregate_copies(cfile)] == ["w", "u"]
    name, start, end = empty_prototype(cfile, TEXT.index("int h()"))
    assert name == "h" and start == end == TEXT.index("int h()") + len("int h(")
    assert called_with_arguments(cfile, "h") and not called_with_arguments(cfile, "g")
    assert variably_modified("double (*)[n]") and not variably_modified("double (*)[10]")


def test_conversions_and_declarations_are_read_as_offsets():
    """What a cast or a prototype for C++ needs, as offsets and texts: the backend indexes no tokens."""
    text = "int f(int n, double *p) { return n; }\nvoid g(double *q, int k) {\n  void *v = q + k;\n  k += 1;\n}\n"
    cfile = CFile(text)
    place = converted_operand(cfile, text.index("= q"))
    assert not place.compound and text[place.start:place.end] == "q + k" and place.call is None
    assert converted_operand(cfile, text.index("+=")).compound
    call = CFile("int *p = f(1, 2);")
    assert converted_operand(call, call.text.index("=")).call == "f"
    assert starts_token(cfile, text.index("void *v")) and not starts_token(cfile, text.index("oid *v"))
    f = cfile.definition("f")
    assert cfile.parameters_text(f) == "int n, double *p" and cfile.head_text(f) == "int f(int n, double *p)"
    assert cfile.holding(text.index("k += 1")) is cfile.definition("g") and cfile.holding(len(text)) is None
