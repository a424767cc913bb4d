"""The constructs of a C file that C++ reads otherwise or not at all, found in the file's tokens.

The CUDA target's output is compiled as C++ (frontend/cxx_text.py before lifting, backend/cuda_cxx.py
after). They edit the user's text where C and C++ differ; what they edit is read here, from the
frontend's tokens and bracket matches (spans.py, cfile.py), so that no backend walks tokens itself:
array parameters (C++ has no variable-length arrays, nor qualifiers in an array parameter's
brackets), array designators, copies of whole volatile structs, prototypes without parameters
and the calls that need them. Names are matched by spelling in the whole file (generous: a
refusal rather than a wrong program).
"""
from __future__ import annotations

from dataclasses import dataclass

from lifter.frontend.cfile import CFile
from lifter.frontend.spans import Spans, TokenKind, after_member

# Words C allows in an array parameter's brackets (`b[restrict 10]`, `[static n]`) and C++ does not.
BRACKET_QUALIFIERS = {"restrict", "__restrict", "__restrict__", "const", "volatile", "static"}


@dataclass(frozen=True)
class ArrayParam:
    """An array parameter (`double a[n][m]`, `double (*a)[m]`), with what C++ needs of it."""

    name: str
    start: int  # offsets of the whole parameter
    end: int
    base: str  # its element type's words and `*`, storage classes left out (`const double`)
    qualifiers: str  # `const` and `volatile` among them
    dims: tuple[str, ...]  # each `[...]`'s words, qualifiers left out, joined by blanks
    variable: tuple[bool, ...]  # each `[...]` names a parameter of its list (or is `[*]`)
    pointer_form: bool  # `(*a)[m]`: every `[...]` is the pointee's
    first: tuple[int, int]  # offsets just inside the first `[` and `]`
    first_qualifiers: tuple[tuple[int, int], ...]  # offsets of the qualifiers in the first `[...]`


@dataclass(frozen=True)
class ParamList:
    """One parameter list of a declaration's or definition's, with its array parameters."""

    arrays: list[ArrayParam]
    body: int | None  # offset just after the definition's `{`; None for a declaration


def array_params(cfile: CFile) -> list[ParamList]:
    """The parameter lists of the file's top level that have array parameters: a definition's
    own, and every one of a declaration."""
    toks, out = cfile.tokens, []
    for d in cfile.decls:
        for _, open_, close in [d.groups[-1]] if d.body else d.groups:
            params = cfile.params(open_, close)
            names = {cfile.param_name(p) for p in params} - {None}
            arrays = []
            for p in params:
                shape = cfile.param_shape(p)
                if shape is None:
                    continue
                name, base, dims, pointer_form = shape
                inside = [range(a + 1, b) for a, b in dims]
                arrays.append(ArrayParam(
                    name, toks[p[0]].start, toks[p[-1]].end,
                    " ".join(toks[k].text for k in base if toks[k].text not in ("register", "static")),
                    " ".join(q for q in ("const", "volatile") if any(toks[k].text == q for k in base)),
                    tuple(" ".join(toks[k].text for k in ks if toks[k].text not in BRACKET_QUALIFIERS)
                          for ks in inside),
                    tuple(any(toks[k].kind == TokenKind.WORD and toks[k].text in names or toks[k].text == "*"
                              for k in ks) for ks in inside),
                    pointer_form, (toks[dims[0][0]].end, toks[dims[0][1]].start),
                    tuple((toks[k].start, toks[k].end) for k in inside[0] if toks[k].text in BRACKET_QUALIFIERS)))
            if arrays:
                out.append(ParamList(arrays, toks[d.body[0]].end if d.body else None))
    return out


def word_offsets(cfile: CFile, word: str) -> list[int]:
    """Where the identifier or keyword `word` stands in the file."""
    return [t.start for t in cfile.tokens if t.kind == TokenKind.WORD and t.text == word]


def array_designators(cfile: CFile) -> list[int]:
    """Where an array designator (`{[3] = 4}`) stands: a `[` that starts an element of a brace
    list, its `]` followed by `=`."""
    toks = cfile.tokens
    return [t.start for i, t in enumerate(toks)
            if t.text == "[" and i > 0 and toks[i - 1].text in ("{", ",") and cfile.close(i) + 2 < len(toks)
            and cfile.spans.assigns(cfile.close(i) + 1)]


def volatile_aggregate_copies(cfile: CFile) -> list[tuple[int, str]]:
    """(offset, name) of each use of an object declared `volatile struct S x` (or `struct S
    volatile x`, arrays of them) as a whole: not a member access (`x.f`, `x[i].f`), its address,
    its size, a declaration or the discarded left operand of `(x, y)`."""
    toks, names, declared = cfile.tokens, set(), set()
    for i in range(len(toks) - 3):
        a, b, c, _ = (t.text for t in toks[i:i + 4])
        if not (a == "volatile" and b in ("struct", "union") or a in ("struct", "union") and c == "volatile"):
            continue
        name = i + 3
        if toks[name].kind == TokenKind.WORD and name + 1 < len(toks) and toks[name + 1].text in "[=;,)":
            names.add(toks[name].text)
            declared.add(name)
    found = []
    for i, t in enumerate(toks):
        if t.text not in names or i in declared or t.kind != TokenKind.WORD:
            continue
        prev = toks[i - 1].text if i else ""
        if i and toks[i - 1].kind == TokenKind.WORD and prev not in ("return", "case") or \
                after_member(toks, i) or prev in ("&", "sizeof", "*") or prev == "(" and toks[i - 2].text == "sizeof":
            continue
        j = i + 1
        while j < len(toks) and toks[j].text == "[":
            j = cfile.close(j) + 1
        if j < len(toks) and (toks[j].text == "." or toks[j].text == "-" and toks[j + 1].text == ">"):
            continue
        if j < len(toks) and toks[j].text == "," and prev == "(" and not (i > 1 and toks[i - 2].kind == TokenKind.WORD):
            continue  # `(g, x)`: the left operand of a comma is not copied (not a call's argument)
        found.append((t.start, t.text))
    return found


@dataclass(frozen=True)
class Conversion:
    """The place a compiler's note about a conversion points to (an operator of an assignment,
    initializer, argument or return, or its `=`), as a cast for C++ needs it: the operand to cast
    (offsets of its first token's start and last token's end) and the function it calls where it is
    one call `f(...)`; `compound`, the place is a compound assignment's operator (`+=`), around
    whose right operand alone no cast gives the type (start and end are then the operator's)."""

    operator: str  # the token at the place
    compound: bool
    start: int
    end: int
    call: str | None = None


def starts_token(cfile: CFile, offset: int) -> bool:
    """A token of the file starts at `offset` (not so inside a directive: a macro's expansion)."""
    return offset in cfile.spans.index


def converted_operand(cfile: CFile, offset: int) -> Conversion:
    """The conversion at the token that starts at `offset` (`starts_token`)."""
    toks, i = cfile.tokens, cfile.spans.index[offset]
    if compound_assignment(cfile.spans, i):
        return Conversion(toks[i].text, True, toks[i].start, toks[i].end)
    first, last = assigned_operand(cfile.spans, i)
    return Conversion(toks[i].text, False, toks[first].start, toks[last].end, whole_call(cfile, first, last))


def compound_assignment(spans: Spans, i: int) -> bool:
    """Token i is the operator of a compound assignment (`+=`, `<=` read as `<` and `=` too)."""
    toks = spans.tokens
    return toks[i].kind == TokenKind.PUNCT and toks[i].text in "+-*/%&|^<>" and i + 1 < len(toks) and \
        toks[i + 1].text == "=" and toks[i].end == toks[i + 1].start


def assigned_operand(spans: Spans, i: int) -> tuple[int, int]:
    """(first, last) token of the assignment expression token i points into: what an
    assignment's or initializer's `=` at i assigns, else the operand around token i."""
    start = i + 1 if spans.assigns(i) else spans.operand_start(i)
    return start, spans.operand_end(start)


def whole_call(cfile: CFile, first: int, last: int) -> str | None:
    """The name of the function tokens first..last call, where they are one call `name(...)`."""
    toks = cfile.tokens
    if toks[first].kind == TokenKind.WORD and first + 1 < len(toks) and toks[first + 1].text == "(" and \
            cfile.close(first + 1) == last:
        return toks[first].text
    return None


def variably_modified(type_text: str) -> bool:
    """A type as a compiler spells it (`double (*)[n]`) has an array bound that is not a number
    (a variable-length array's, which no C++ type can name)."""
    spans = Spans(type_text)
    return any(any(c.isalpha() or c == "_" for t in spans.tokens[k + 1:close] for c in t.text)
               for k, close in spans.brackets.items() if spans.tokens[k].text == "[")


def empty_prototype(cfile: CFile, offset: int) -> tuple[str, int, int] | None:
    """From the token at `offset` (`starts_token`; where a compiler found a declaration without a
    prototype) to the end of its statement: the declarator `name()` followed by `;` or `,`, as
    (name, offsets just inside the parentheses); None if a definition or something else comes first."""
    toks, k = cfile.tokens, cfile.spans.index[offset]
    while k + 1 < len(toks) and not (toks[k].kind == TokenKind.WORD and toks[k + 1].text == "(" and
                                     toks[k + 2].text == ")"):
        if toks[k].text in ";{":
            return None
        k += 1
    if k + 3 >= len(toks) or toks[k + 3].text not in (";", ","):
        return None
    return toks[k].text, toks[k + 1].end, toks[k + 2].start


def called_with_arguments(cfile: CFile, name: str) -> bool:
    """The file calls `name` with arguments somewhere (`name(x)` after an operator or `return`)."""
    toks = cfile.tokens
    return any(t.text == name and k + 2 < len(toks) and toks[k + 1].text == "(" and toks[k + 2].text != ")"
               and k > 0 and (toks[k - 1].kind == TokenKind.PUNCT and toks[k - 1].text != "*"
                              or toks[k - 1].text == "return")
               for k, t in enumerate(toks))
