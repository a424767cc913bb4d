"""C as C++ for the CUDA backend: nvcc compiles .cu files as C++, so the user's C is kept as
written and made valid C++ where the two differ in ways that need no understanding of the code
(see cuda.py's docstring for the list). `CFile` reads the file as tokens: its top-level
declarations, function definitions and macros, and the edits C++ needs (variable-length array
parameters); project headers (`#include "x.h"` found next to the file) are inlined with the same
edits, in an `extern "C"` block so that the program links with files compiled as C.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from lifter.backend.edits import apply
from lifter.frontend.spans import Spans, Token

KEYWORDS = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
    "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
    "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while",
    "_Bool", "_Alignof", "_Alignas", "_Static_assert", "__attribute__", "__declspec", "__asm__", "asm",
    "__asm", "typeof", "__typeof__", "__typeof", "__extension__", "__inline", "__inline__", "__restrict",
    "__restrict__", "_Generic", "__builtin_offsetof", "offsetof", "alignof",
}

# --------------------------------------------------------------------------------------
# The C file as tokens: top-level declarations, function definitions, macros.


@dataclass
class Decl:
    """A top-level declaration: token range, the declarator groups, and a body for functions."""

    start: int
    end: int  # index of the last token
    groups: list[tuple[int, int, int]]  # (name token, '(' token, ')' token) at depth 0
    body: tuple[int, int] | None = None  # '{' and '}' token indices of a function definition
    name: str = ""  # the function's name, for definitions and prototypes


class CFile:
    def __init__(self, text: str):
        self.text = text
        self.spans = Spans(text)
        self.tokens: list[Token] = self.spans.tokens
        self.decls: list[Decl] = []
        self.macros: dict[str, str] = {}
        self.words = {t.text for t in self.tokens if t.kind == "word"}
        self.system_headers: list[str] = []  # <...> included outside any #if
        self.includes: list[tuple[int, str, bool]] = []  # (directive token, header, quoted) of every #include
        self.c_linkage: list[tuple[int, int]] = []  # offsets inside each `extern "C" {` ... `}` (C++ only)
        self._if_depth = 0
        self._scan()

    def close(self, i: int) -> int:
        """The token closing the bracket at token `i` (the frontend's matches), or the last token."""
        return self.spans.brackets.get(i, len(self.tokens) - 1)

    def _scan(self) -> None:
        toks, i, n = self.tokens, 0, len(self.tokens)
        while i < n:
            t = toks[i]
            if t.kind == "directive":
                self._directive(t.text, i)
                i += 1
                continue
            if t.text == "extern" and i + 2 < n and toks[i + 1].text == '"C"' and toks[i + 2].text == "{":
                # a header's `#ifdef __cplusplus` linkage block: its declarations are the file's
                self.c_linkage.append((toks[i + 2].end, toks[self.close(i + 2)].start))
                i += 3
                continue
            start, groups, j = i, [], i
            decl = None
            while j < n:
                t = toks[j]
                if t.kind == "directive":
                    j += 1
                    continue
                if t.kind == "punct" and t.text in "([":
                    close = self.close(j)
                    if t.text == "(" and j > start and toks[j - 1].kind == "word" and toks[j - 1].text not in KEYWORDS:
                        groups.append((j - 1, j, close))
                    j = close + 1
                    continue
                if t.kind == "punct" and t.text == "{":
                    close = self.close(j)
                    prev = toks[j - 1] if j > start else None
                    if prev is not None and prev.text == ")" and groups:
                        decl = Decl(start, close, groups, (j, close))
                        j = close + 1
                        break
                    j = close + 1
                    continue
                if t.kind == "punct" and t.text == ";":
                    decl = Decl(start, j, groups)
                    j += 1
                    break
                if t.kind == "punct" and t.text == "}":  # stray: unbalanced text
                    j += 1
                    break
                j += 1
            if decl is None:
                decl = Decl(start, min(j, n) - 1, groups)
            named = [gr for gr in decl.groups if toks[gr[0]].text not in ("__attribute__", "__declspec")]
            if named:
                decl.name = toks[named[-1][0]].text if decl.body else ""
                if not decl.body and len(named) == 1 and not self._is_object_decl(decl, named[0]):
                    decl.name = toks[named[0][0]].text
            self.decls.append(decl)
            i = max(j, i + 1)

    def _directive(self, text: str, index: int) -> None:
        text = text.replace("\\\n", " ")
        m = re.match(r"\s*#\s*(\w+)\s*(.*)", text, re.S)
        if not m:
            return
        word, rest = m.group(1), m.group(2)
        if word in ("if", "ifdef", "ifndef"):
            self._if_depth += 1
        elif word == "endif":
            self._if_depth = max(0, self._if_depth - 1)
        elif word == "include":
            h = re.match(r"<([^>]+)>", rest.strip())
            q = re.match(r'"([^"]+)"', rest.strip())
            if h or q:
                self.includes.append((index, (h or q).group(1), q is not None))
            if h and self._if_depth == 0 and h.group(1) not in self.system_headers:
                self.system_headers.append(h.group(1))
            return
        elif word == "define":
            d = re.match(r"([A-Za-z_]\w*)(\([^)]*\))?(.*)", rest, re.S)
            if d:
                self.macros[d.group(1)] = d.group(3)
                self.words.add(d.group(1))

    def _is_object_decl(self, decl: Decl, group) -> bool:
        """`double (*A)[N] = ...;` or `int x = f(3);`: the group is not a prototype's parameter list."""
        toks = self.tokens
        for k in range(decl.start, group[0]):
            if toks[k].text == "=":
                return True
        after = group[2] + 1
        return after <= decl.end and toks[after].text not in (";", ",", "__attribute__", "__asm__", "asm")

    def object_names(self) -> set[str]:
        """Names the file's top-level object declarations declare (`static unsigned U1[N][N];`,
        `int x = 3, y;`): host memory, which a host+device helper must not name (nvcc: undefined
        in device code). Generous (a member or enumerator of a declaration counts too), so that
        a helper is kept on the host rather than miscompiled."""
        toks, out = self.tokens, set()
        for d in self.decls:
            if d.body is not None or d.groups or toks[d.start].text == "typedef":
                continue
            for k in range(d.start, d.end):
                if toks[k].kind == "word" and toks[k + 1].text in ("[", "=", ";", ","):
                    out.add(toks[k].text)
        return out

    def outside_c_linkage(self, offset: int, text: str) -> str:
        """`text` (kernels, which are templates) to insert at `offset`, closing and reopening the
        `extern "C"` block around it if there is one there."""
        if text and any(a <= offset < b for a, b in self.c_linkage):
            return f'}} /* extern "C" */\n{text}extern "C" {{\n'
        return text

    def function_at(self, offset: int) -> Decl | None:
        for d in self.decls:
            if d.body and self.tokens[d.body[0]].start <= offset < self.tokens[d.body[1]].end:
                return d
        return None

    def definition(self, name: str) -> Decl | None:
        for d in self.decls:
            if d.body and d.name == name:
                return d
        return None

    # -- C to C++ --------------------------------------------------------------------

    def cxx_edits(self) -> list[tuple[int, int, str]]:
        """Variable-length array parameters, which C++ lacks, as void * re-declared in the body."""
        edits = []
        toks = self.tokens
        for d in self.decls:
            param_groups = [d.groups[-1]] if d.body else d.groups
            for name_tok, open_, close in param_groups:
                params = split_params(toks, open_ + 1, close)
                names = {param_name(toks, p) for p in params} - {None}
                decls_in_body = []
                for p in params:
                    shape = _param_shape(toks, p)
                    if shape is None:
                        continue
                    name, base, dims, pointer_form = shape
                    variable = [any(toks[k].kind == "word" and toks[k].text in names or toks[k].text == "*"
                                    for k in range(a + 1, b)) for a, b in dims]
                    if not any(variable):
                        # C99's `b[restrict 10]`, `[static n]`: qualifiers in the first brackets are not C++
                        a, b = dims[0]
                        edits += [(toks[k].start, toks[k].end, "") for k in range(a + 1, b)
                                  if toks[k].text in _BRACKET_QUALIFIERS]
                        continue
                    if not pointer_form and not any(variable[1:]):
                        a, b = dims[0]
                        edits.append((toks[a].end, toks[b].start, ""))
                        continue
                    inner = dims if pointer_form else dims[1:]
                    base_text = " ".join(toks[k].text for k in base if toks[k].text not in ("register", "static"))
                    quals = " ".join(q for q in ("const", "volatile") if any(toks[k].text == q for k in base))
                    inner_text = "".join(
                        "[" + " ".join(toks[k].text for k in range(a + 1, b)
                                       if toks[k].text not in _BRACKET_QUALIFIERS) + "]"
                        for a, b in inner)
                    edits.append((toks[p[0]].start, toks[p[-1]].end, f"{quals + ' ' if quals else ''}void *lift_vla_{name}"))
                    decls_in_body.append(f"{base_text} (*{name}){inner_text} = ({base_text} (*){inner_text})lift_vla_{name};")
                if decls_in_body and d.body:
                    brace = toks[d.body[0]]
                    edits.append((brace.end, brace.end, " " + " ".join(decls_in_body)))
        return edits


_BRACKET_QUALIFIERS = {"restrict", "__restrict", "__restrict__", "const", "volatile", "static"}


def split_params(toks, start: int, end: int) -> list[list[int]]:
    """The token indices of each comma-separated part of toks[start:end], commas inside brackets kept."""
    params, cur, depth = [], [], 0
    for k in range(start, end):
        t = toks[k]
        if t.kind == "punct" and t.text in "([{":
            depth += 1
        elif t.kind == "punct" and t.text in ")]}":
            depth -= 1
        if t.text == "," and depth == 0:
            params.append(cur)
            cur = []
            continue
        cur.append(k)
    if cur:
        params.append(cur)
    return params


def param_name(toks, p: list[int]) -> str | None:
    shape = _param_shape(toks, p)
    if shape:
        return shape[0]
    words = [k for k in p if toks[k].kind == "word" and toks[k].text not in KEYWORDS]
    return toks[words[-1]].text if words else None


def _param_shape(toks, p: list[int]):
    """(name, base type tokens, [(open, close) of each [dim]], pointer form) of an array parameter."""
    if not p:
        return None
    # double (*A)[n][m]
    for idx, k in enumerate(p):
        if toks[k].text == "(" and idx + 3 < len(p) and toks[p[idx + 1]].text == "*" and \
                toks[p[idx + 2]].kind == "word" and toks[p[idx + 3]].text == ")":
            dims = _dims(toks, p, idx + 4)
            if dims:
                return toks[p[idx + 2]].text, p[:idx], dims, True
            return None
    # double A[n][m]
    for idx, k in enumerate(p):
        if toks[k].text == "[":
            if idx == 0 or toks[p[idx - 1]].kind != "word":
                return None
            dims = _dims(toks, p, idx)
            if not dims:
                return None
            return toks[p[idx - 1]].text, p[:idx - 1], dims, False
        if toks[k].text == "(":
            return None
    return None


def _dims(toks, p: list[int], idx: int) -> list[tuple[int, int]]:
    dims = []
    while idx < len(p) and toks[p[idx]].text == "[":
        depth, j = 0, idx
        while j < len(p):
            if toks[p[j]].text == "[":
                depth += 1
            elif toks[p[j]].text == "]":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        if j >= len(p):
            return []
        dims.append((p[idx], p[j]))
        idx = j + 1
    return dims if idx == len(p) else []



def inline_project_headers(path: str, cfile: CFile, seen: set[str] | None = None) -> list[tuple[int, int, str]]:
    """Edits replacing each `#include "x.h"` found next to `path` (once per file) by the header's text
    made C++ the same way (variable-length array parameters, recursively its own project headers), in
    an `extern "C"` block: the functions it declares keep C linkage, so objects compiled from the .cu
    link with objects compiled from C. System headers it includes stay outside the block."""
    seen = set() if seen is None else seen
    edits = []
    for index, name, quoted in cfile.includes:
        header = os.path.normpath(os.path.join(os.path.dirname(path), name))
        if not quoted or not os.path.isfile(header):
            continue
        if header in seen:  # inlined above (its include guard makes this one empty)
            tok = cfile.tokens[index]
            edits.append((tok.start, tok.end, f'/* lift: "{name}" inlined above */'))
            continue
        seen.add(header)
        try:
            with open(header, encoding="utf-8", errors="surrogateescape") as f:
                text = f.read()
        except OSError:
            continue
        inner = CFile(text)
        inner_edits = inner.cxx_edits() + inline_project_headers(header, inner, seen)
        for i, _, system in inner.includes:
            if not system:
                tok = inner.tokens[i]
                inner_edits.append((tok.start, tok.end, f'}} /* extern "C" */\n{tok.text.strip()}\nextern "C" {{'))
        tok = cfile.tokens[index]
        edits.append((tok.start, tok.end, f'/* lift: "{name}" inlined as C++, with C linkage */\nextern "C" {{\n'
                                          f'{apply(text, [], inner_edits).rstrip()}\n}} /* end of "{name}" */'))
    return edits


def cxx_section(cfile: "CFile") -> str:
    """The file's unconditional system headers (so that the macros below stay out of them) and the
    C-as-C++ shims."""
    lines = ["/* lift: this file's system headers first, then C as C++ */"]
    lines += [f"#include <{h}>" for h in cfile.system_headers]
    return "\n".join(lines) + "\n" + CXX_SHIMS



# After the prelude and the file's own system headers: C as C++.
CXX_SHIMS = r"""/* nvcc compiles .cu files as C++: the C99/C11 spellings this file was written in. */
#define restrict __restrict__
#ifndef __bool_true_false_are_defined
#define _Bool bool
#endif
#define _Static_assert static_assert
#define _Alignof alignof
#define _Alignas alignas
#define _Thread_local thread_local
#define _Noreturn
/* In C, malloc's void * converts to any object pointer; in C++ only with a cast. */
struct lift_void_ptr {
    void *p;
    template <class T> operator T *() const { return (T *)p; }
};
#define malloc(...) (lift_void_ptr{malloc(__VA_ARGS__)})
#define calloc(...) (lift_void_ptr{calloc(__VA_ARGS__)})
#define realloc(...) (lift_void_ptr{realloc(__VA_ARGS__)})
#ifndef __cplusplus
#error "this file is CUDA C++: compile it with nvcc (or g++ -x c++ -include cuda_emulation.h)"
#endif
#define register
"""
