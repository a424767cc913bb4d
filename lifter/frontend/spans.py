"""Where statements begin and end in the user's exact text.

Backends that re-emit a loop nest in a new shape need the exact text of each
loop header and each statement. pycparser gives only start lines, so a small
tokenizer over the original text finds the extents: a statement ends at its
`;` or closing `}` (with `if`/`else`, `do`/`while` and nested loops followed
through). Preprocessor directives inside a span make it unusable: such code is
never re-emitted, only annotated.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

_TOKEN = re.compile(
    r"""(?P<space>\s+)"""
    r"""|(?P<comment>/\*.*?\*/|//(?:[^\n\\]|\\.)*)"""
    r"""|(?P<directive>(?<![^\n])[ \t]*\#(?:[^\n\\]|\\.|\\\n)*)"""
    r"""|(?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')"""
    r"""|(?P<word>[A-Za-z_]\w*)"""
    r"""|(?P<number>\.?\d(?:[\w.]|[eEpP][-+])*)"""
    r"""|(?P<punct>.)""",
    re.S,
)


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class ForSpan:
    """Offsets in the text: `for` keyword, just after its `)`, body start, statement end."""

    start: int
    header_end: int
    body_start: int
    end: int


class Unparsable(Exception):
    pass


class Spans:
    def __init__(self, text: str):
        self.text = text
        self.tokens = [Token(m.lastgroup, m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)
                       if m.lastgroup not in ("space", "comment")]
        self.index = {t.start: i for i, t in enumerate(self.tokens)}

    @cached_property
    def brackets(self) -> dict[int, int]:
        """Token index of every `(`, `[` and `{` -> that of the bracket closing it, over the whole
        file and every kind at once (a closing bracket closes the innermost open one, whatever its
        kind: unbalanced text still gets matches, as the compiler's error would follow them);
        directives are single tokens, so brackets inside them do not count. One unclosed has none.
        Computed once, on first use, for the readers that skip whole bracketed groups of a file."""
        stack, out = [], {}
        for i, t in enumerate(self.tokens):
            if t.kind != "punct":
                continue
            if t.text in "([{":
                stack.append(i)
            elif t.text in ")]}" and stack:
                out[stack.pop()] = i
        return out

    def closing(self, i: int, open_: str, close: str) -> int:
        """Index just after the bracket that closes tokens[i]."""
        depth = 0
        for j in range(i, len(self.tokens)):
            tok = self.tokens[j]
            if tok.kind == "directive":
                raise Unparsable("preprocessor directive inside a statement")
            if tok.text == open_:
                depth += 1
            elif tok.text == close:
                depth -= 1
                if depth == 0:
                    return j + 1
        raise Unparsable(f"unbalanced {open_}")

    def _expect(self, i: int, text: str) -> None:
        if i >= len(self.tokens) or self.tokens[i].text != text:
            raise Unparsable(f"expected '{text}'")

    def statement_end(self, i: int) -> int:
        """Index just after the statement starting at token i."""
        if i >= len(self.tokens):
            raise Unparsable("statement expected")
        tok = self.tokens[i]
        if tok.kind == "directive":
            raise Unparsable("preprocessor directive where a statement is expected")
        if tok.text == "{":
            return self.closing(i, "{", "}")
        if tok.text in ("for", "while", "switch"):
            self._expect(i + 1, "(")
            return self.statement_end(self.closing(i + 1, "(", ")"))
        if tok.text == "if":
            self._expect(i + 1, "(")
            j = self.statement_end(self.closing(i + 1, "(", ")"))
            if j < len(self.tokens) and self.tokens[j].text == "else":
                return self.statement_end(j + 1)
            return j
        if tok.text == "do":
            j = self.statement_end(i + 1)
            self._expect(j, "while")
            self._expect(j + 1, "(")
            j = self.closing(j + 1, "(", ")")
            self._expect(j, ";")
            return j + 1
        depth = 0
        for j in range(i, len(self.tokens)):
            t = self.tokens[j]
            if t.kind == "directive":
                raise Unparsable("preprocessor directive inside a statement")
            if t.text in "({[" and t.kind == "punct":
                depth += 1
            elif t.text in ")}]" and t.kind == "punct":
                depth -= 1
                if depth < 0:
                    raise Unparsable("unbalanced brackets")
            elif t.text == ";" and depth == 0:
                return j + 1
        raise Unparsable("missing ';'")

    def for_span(self, offset: int) -> ForSpan:
        i = self.index.get(offset)
        if i is None or self.tokens[i].text != "for":
            raise Unparsable("no 'for' at this place")
        self._expect(i + 1, "(")
        body = self.closing(i + 1, "(", ")")
        end = self.statement_end(body)
        return ForSpan(offset, self.tokens[body - 1].end, self.tokens[body].start, self.tokens[end - 1].end)

    def block_items(self, offset: int) -> list[tuple[int, int]]:
        """The statements of the block whose `{` is at `offset`, as (start, end) offsets."""
        i = self.index.get(offset)
        if i is None or self.tokens[i].text != "{":
            raise Unparsable("no block here")
        close = self.closing(i, "{", "}") - 1
        items, j = [], i + 1
        while j < close:
            if self.tokens[j].text == ";":
                j += 1  # an empty statement
                continue
            end = self.statement_end(j)
            items.append((self.tokens[j].start, self.tokens[end - 1].end))
            j = end
        return items


def without_comments(text: str) -> str:
    """The text with each comment replaced by a space."""
    return "".join(" " if m.lastgroup == "comment" else m.group() for m in _TOKEN.finditer(text))


def word_tokens(text: str) -> set[str]:
    """Identifiers in a piece of C text (outside comments and strings)."""
    return {m.group() for m in _TOKEN.finditer(text) if m.lastgroup == "word"}


