"""C as C++ for the CUDA backend: nvcc compiles .cu files as C++, so the user's C is kept as
written and made valid C++ where the two differ in ways that need no understanding of the code
(see cuda.py's docstring for the list): the edits C++ needs (variable-length array parameters),
made from the file's top level as the frontend reads it (frontend/cfile.py); project headers
(`#include "x.h"` found next to the file) are inlined with the same edits, in an `extern "C"`
block so that the program links with files compiled as C.
"""
from __future__ import annotations

import os

from lifter.backend.edits import apply
from lifter.frontend.cfile import CFile
from lifter.frontend.cxx_constructs import array_params
from lifter.frontend.cxx_text import WRAPPED_ALLOCATORS


def outside_c_linkage(cfile: CFile, offset: int, text: str) -> str:
    """`text` (kernels, which are templates) to insert at `offset`, closing and reopening the
    `extern "C"` block around it if there is one there."""
    if text and any(a <= offset < b for a, b in cfile.c_linkage):
        return f'}} /* extern "C" */\n{text}extern "C" {{\n'
    return text


def cxx_edits(cfile: CFile) -> list[tuple[int, int, str]]:
    """Variable-length array parameters, which C++ lacks, as void * re-declared in the body
    (the parameters as the frontend reads them: frontend/cxx_constructs.py)."""
    edits = []
    for params in array_params(cfile):
        decls_in_body = []
        for p in params.arrays:
            if not any(p.variable):
                # C99's `b[restrict 10]`, `[static n]`: qualifiers in the first brackets are not C++
                edits += [(start, end, "") for start, end in p.first_qualifiers]
                continue
            if not p.pointer_form and not any(p.variable[1:]):
                edits.append((*p.first, ""))
                continue
            inner = "".join(f"[{d}]" for d in (p.dims if p.pointer_form else p.dims[1:]))
            edits.append((p.start, p.end, f"{p.qualifiers + ' ' if p.qualifiers else ''}void *lift_vla_{p.name}"))
            decls_in_body.append(f"{p.base} (*{p.name}){inner} = ({p.base} (*){inner})lift_vla_{p.name};")
        if decls_in_body and params.body is not None:
            edits.append((params.body, params.body, " " + " ".join(decls_in_body)))
    return edits


def inline_project_headers(path: str, cfile: CFile, seen: set[str] | None = None) -> list[tuple[int, int, str]]:
    """Edits replacing each `#include "x.h"` found next to `path` (once per file) by the header's text
    made C++ the same way (variable-length array parameters, recursively its own project headers), in
    an `extern "C"` block: the functions it declares keep C linkage, so objects compiled from the .cu
    link with objects compiled from C. System headers it includes stay outside the block."""
    seen = set() if seen is None else seen
    edits = []
    for tok, name, quoted in cfile.includes:
        header = os.path.normpath(os.path.join(os.path.dirname(path), name))
        if not quoted or not os.path.isfile(header):
            continue
        if header in seen:  # inlined above (its include guard makes this one empty)
            edits.append((tok.start, tok.end, f'/* lift: "{name}" inlined above */'))
            continue
        seen.add(header)
        inner = CFile.read(header)
        if inner is None:
            continue
        inner_edits = cxx_edits(inner) + inline_project_headers(header, inner, seen)
        for directive, _, system in inner.includes:
            if not system:
                inner_edits.append((directive.start, directive.end,
                                    f'}} /* extern "C" */\n{directive.text.strip()}\nextern "C" {{'))
        edits.append((tok.start, tok.end, f'/* lift: "{name}" inlined as C++, with C linkage */\nextern "C" {{\n'
                                          f'{apply(inner.text, [], inner_edits).rstrip()}\n}} /* end of "{name}" */'))
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
""" + "".join(f"#define {f}(...) (lift_void_ptr{{{f}(__VA_ARGS__)}})\n"
             for f in WRAPPED_ALLOCATORS) + r"""#ifndef __cplusplus
#error "this file is CUDA C++: compile it with nvcc (or g++ -x c++ -include cuda_emulation.h)"
#endif
#define register
"""
