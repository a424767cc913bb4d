"""The facts of the file's top level the CUDA and MPI backends read (frontend/cfile.py), made once
per file with its tokens (`SourceFile.spans`, `SourceFile.cfile`): the backends ask these instead
of walking the tokens themselves."""
from lifter.frontend.source import SourceFile

TEXT = """#include "grid.h"
#define SQ(x) (helper(x) * (x))
double table[8];
static double helper(double x) { return x + table[0]; }
static double pure(double x) { return SQ(x) + 1.0; }
int main(int argc, char **argv)
{
    return (int)pure(argc);
}
"""


def test_the_lexical_layer_is_made_once_per_file():
    source = SourceFile("f.c", TEXT)
    assert source.spans is source.spans and source.cfile.spans is source.spans
    start = TEXT.index("return (int)")
    assert source.spans.words_between(start, TEXT.index(";", start)) == ["return", "int", "pure", "argc"]


def test_function_facts():
    cfile = SourceFile("f.c", TEXT).cfile
    assert cfile.calls_in("SQ") == {"helper"}  # a macro's calls, before any function of its name
    assert cfile.calls_in("pure") == {"SQ"}
    assert cfile.calls_in("printf") is None  # the file defines no such function or macro
    helper, main = cfile.definition("helper"), cfile.definition("main")
    assert cfile.objects_named_in(helper) == ["table"] and cfile.objects_named_in(main) == []
    open_, close = cfile.body_offsets(main)
    assert TEXT[open_] == "{" and TEXT[close] == "}" and TEXT[close + 1:] == "\n"
    assert TEXT[cfile.start_offset(main):].startswith("int main(")
    ((directive, header, quoted),) = cfile.includes
    assert (TEXT[directive.start:directive.end], header, quoted) == ('#include "grid.h"', "grid.h", True)
