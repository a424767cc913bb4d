"""C names that are C++ keywords, renamed in the CUDA output (nvcc compiles .cu files as C++).

Which names to rename is the C compiler's word, not a list of lift's: the check of the input
(frontend/check.py, with -Wc++-compat) warns at every identifier that is a C++ keyword
(`new`, `class`, `template`, `bool`, `true`, ...) or one of C++'s alternative operator
spellings (`and`, `or`, `not`, `xor`, ...). Names that a header defines as macros for C
(`bool`, `true` from <stdbool.h>, `and` from <iso646.h>) are replaced by the preprocessor before
the compiler sees an identifier, so they draw no warning and keep their C++ meaning, which is
the same. Macros cannot rename the alternative spellings (C++ does not let them be macro names)
nor `template`/`typename` (the kernels use them), so the renaming is by token over the host
part of the output: code, kernels and the text of directives, never comments, string literals
or the header names of `#include`. The one line lift writes with C++ keywords, a kernel's
`template <typename LIFT_T0, ...>`, is left alone (no C code can spell that line).

The same pass writes C's null pointer constant `(void *)0`, which C++ does not convert to other
pointer types, as `nullptr` (a pointer's size, like it, and converted to every pointer type).
"""
from __future__ import annotations

import re

from lifter.frontend.spans import replace_tokens

_KERNEL_TEMPLATE = re.compile(r"^template <typename LIFT_T\d+(?:, typename LIFT_T\d+)*>$", re.M)
_NULL = re.compile(r"\(\s*void\s*\*\s*\)\s*0\b")
_NULL_TOKENS = ("(", "void", "*", ")", "0")


def rename_keywords(text: str, names: set[str]) -> str:
    """`text` with every identifier token in `names` renamed `lift_cxx_<name>` (with a number
    added where that name is already a word of the text), and `(void *)0` as `nullptr`."""
    if not names and not _NULL.search(text):
        return text
    words = set(re.findall(r"\w+", text))
    renamed = {}
    for name in sorted(names):
        new, k = f"lift_cxx_{name}", 2
        while new in words:
            new, k = f"lift_cxx_{name}_{k}", k + 1
        renamed[name] = new
        words.add(new)
    protected = [(m.start(), m.end()) for m in _KERNEL_TEMPLATE.finditer(text)]
    return replace_tokens(text, renamed, {_NULL_TOKENS: "nullptr"}, protected)
