"""C names that are C++ keywords, renamed in the CUDA output (nvcc compiles .cu files as C++).

Which names to rename is the C compiler's word, not a list of lift's: the check of the input
(frontend/check.py, with -Wc++-compat) warns at every identifier that is a C++ keyword
(`new`, `class`, `template`, `bool`, `true`, ...) or one of C++'s alternative operator
spellings (`and`, `or`, `not`, `xor`, ...); `cxx_text.keyword_names` reads them from its notes.
Names that a header defines as macros for C (`bool`, `true` from <stdbool.h>, `and` from
<iso646.h>) are replaced by the preprocessor before the compiler sees an identifier, so they
draw no warning and keep their C++ meaning, which is the same.

Why over the finished text, and here: the CUDA backend spells the user's names in many places
besides the statements it copies (array names in launches, views, copies and dirty-row
tracking; inlined project headers; directives' bodies), and it writes them as the graph names
them, in C. Making that C also C++ is the lexical layer's work, like `cxx_text` before lifting:
the driver hands the backend's text here (`Emitted.cxx_names`), and the renaming goes by token,
over code, kernels and the text of directives, never comments, string literals or the header
names of `#include`. Macros cannot rename the alternative spellings (C++ does not let them be
macro names) nor `template`/`typename` (the kernels use them). The one line lift writes with
C++ keywords, a kernel's `template <typename LIFT_T0, ...>`, is left alone (no C code can spell
that line).

The same step writes C's null pointer constant `(void *)0`, which C++ does not convert to other
pointer types, as `nullptr` (a pointer's size, like it, and converted to every pointer type).
"""
from __future__ import annotations

from lifter.frontend.spans import Spans, TokenKind, replace_tokens, word_tokens

_NULL_TOKENS = ("(", "void", "*", ")", "0")
_TEMPLATE_HEAD = ("template", "<", "typename")


def cxx_names(text: str, names: frozenset[str] | set[str]) -> str:
    """`text` with every identifier token in `names` renamed `lift_cxx_<name>` (with a number
    added where that name is already a word of the text), and `(void *)0` as `nullptr`."""
    if not names and "void" not in text:
        return text
    tokens = Spans(text).tokens
    words = {t.text for t in tokens if t.kind == TokenKind.WORD}
    words.update(w for t in tokens if t.kind == TokenKind.DIRECTIVE for w in word_tokens(t.text.lstrip()[1:]))
    renamed = {}
    for name in sorted(names):
        new, k = f"lift_cxx_{name}", 2
        while new in words:
            new, k = f"lift_cxx_{name}_{k}", k + 1
        renamed[name] = new
        words.add(new)
    return replace_tokens(text, renamed, {_NULL_TOKENS: "nullptr"}, _kernel_templates(tokens), tokens)


def _kernel_templates(tokens) -> list[tuple[int, int]]:
    """The offsets of each `template <typename LIFT_T0, ...>` line the CUDA backend wrote (the
    only template heads in the output whose parameters are lift's `LIFT_T` names)."""
    spans = []
    for k, t in enumerate(tokens):
        head = tokens[k:k + 4]
        if (len(head) == 4 and tuple(u.text for u in head[:3]) == _TEMPLATE_HEAD
                and head[3].text.startswith("LIFT_T")):
            close = next(u for u in tokens[k + 4:] if u.text == ">")
            spans.append((t.start, close.end))
    return spans
