"""The one lexical layer over the user's exact text: tokens, bracket matches, statement ends,
identifiers.

Backends that re-emit a loop nest in a new shape need the exact text of each
loop header and each statement. pycparser gives only start lines, so a small
tokenizer over the original text finds the extents: a statement ends at its
`;` or closing `}` (with `if`/`else`, `do`/`while` and nested loops followed
through). Preprocessor directives inside a span make it unusable: such code is
never re-emitted, only annotated.

Every other reader of C text (the CUDA backend's file scan `frontend/cfile.py`, the host-code
effects `analysis/host_effects.py`) walks these tokens with the matches computed here
(`Spans.brackets`, `opening`, `split`, `enclosing`) instead of counting brackets itself, and takes
names from text through `word_tokens` and `called_names`. A text the graph's nodes hold comes with
its tokens (`lexed`, made once per text; `Spans.free_words`, `called_names`, `path_edits`,
`array_declarators` read it), so that a backend that copies it into code of its own reads names
and their places off them and edits by their offsets instead of lexing its code.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property, lru_cache

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


# C's keywords and the compilers' reserved spellings: words that name no variable or function.
KEYWORDS = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
    "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
    "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while",
    "_Bool", "_Alignof", "_Alignas", "_Static_assert", "__attribute__", "__declspec", "__asm__", "asm",
    "__asm", "typeof", "__typeof__", "__typeof", "__extension__", "__inline", "__inline__", "__restrict",
    "__restrict__", "_Generic", "__builtin_offsetof", "offsetof", "alignof",
}


class TokenKind(StrEnum):
    """What a token of the text is (blanks and comments are dropped; a directive, with its
    continuation lines, is one token). A str enum: each is also its name in `_TOKEN`."""

    WORD = "word"  # an identifier or keyword
    NUMBER = "number"
    STRING = "string"  # a string or character literal
    PUNCT = "punct"  # one character of punctuation (`->` is two tokens)
    DIRECTIVE = "directive"


class LoopKind(StrEnum):
    """A loop statement's keyword (`LoopStatement.kind`)."""

    FOR = "for"
    WHILE = "while"
    DO = "do"


_KINDS = {k.value: k for k in TokenKind}


@dataclass(frozen=True)
class Token:
    kind: TokenKind
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


@dataclass(frozen=True)
class LoopStatement:
    """Where a loop statement's parts are (`Spans.loop_around`), as offsets in the text."""

    kind: LoopKind
    start: int  # its keyword
    end: int  # just after the statement
    body_start: int  # where the body's statements begin: just after `{` when braced
    body_end: int  # where they end: at the `}` when braced
    braced: bool
    clauses: tuple[tuple[int, int], ...]  # the header's `;`-separated parts (a `do`'s condition), (start, end)


@dataclass(frozen=True)
class ArrayDeclarator:
    """A declarator `name[size]` in a declaration (`double *x, sum[np];`), found by `array_declarators`."""

    name: str
    size: str | None  # the text between the brackets; None when they are never closed
    size_words: frozenset[str]
    type_words: tuple[str, ...]  # the words and `*` right before the name (`double`, `register double`)
    start: int  # offset of the first of them
    # offset just after the `;`, where the declaration is a statement of its own (`T name[size];`,
    # after `;`, `{` or `}`), else None
    statement_end: int | None
    size_span: tuple[int, int] | None = None  # offsets of `size` (None when never closed)


class Spans:
    def __init__(self, text: str):
        self.text = text
        self.tokens = [Token(_KINDS[m.lastgroup], m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)
                       if m.lastgroup not in ("space", "comment")]
        self.index = {t.start: i for i, t in enumerate(self.tokens)}

    @cached_property
    def brackets(self) -> dict[int, int]:
        """Token index of every `(`, `[` and `{` -> that of the bracket closing it, over the whole
        file (`match_brackets`). Computed once, on first use, for the readers that skip whole
        bracketed groups of a file."""
        return match_brackets(self.tokens)

    @cached_property
    def opening(self) -> dict[int, int]:
        """Token index of every matched closing bracket -> that of the bracket it closes: the
        readers that walk back from a statement skip whole groups with it."""
        return {close: open_ for open_, close in self.brackets.items()}

    def top_level(self, start: int, end: int):
        """`top_level` over the file's tokens."""
        return top_level(self.tokens, self.brackets, start, end)

    def split(self, start: int, end: int, sep: str = ",") -> list[tuple[int, int]]:
        """`split` over the file's tokens (a function's parameters, a `for` header's clauses)."""
        return split(self.tokens, self.brackets, start, end, sep)

    def enclosing(self, i: int) -> int | None:
        """The `{` of the innermost block around token i (the groups before it skipped whole), or
        None at the top level of the file."""
        o = i - 1
        while o >= 0:
            t = self.tokens[o]
            if t.kind == TokenKind.PUNCT and t.text == "}" and o in self.opening:
                o = self.opening[o] - 1
            elif t.text == "{":
                return o
            else:
                o -= 1
        return None

    def loop_around(self, start: int, end: int) -> LoopStatement | None:
        """The `while`, `do` or `for` statement whose body holds the statement at offsets
        [start, end) directly: the statement is the whole body, or one of the body's block."""
        toks = self.tokens
        i = self.index.get(start)
        if not i:
            return None
        try:
            p = i - 1
            if toks[p].text in (")", "do"):  # the statement is the whole body
                body, body_end, braced = i, self.statement_end(i), False
                if toks[body_end - 1].end != end:
                    return None
            else:  # the innermost block around it
                o = self.enclosing(i)
                if o is None or o < 1:
                    return None
                body, body_end, braced, p = o + 1, self.closing(o, "{", "}") - 1, True, o - 1
            after = body_end + 1 if braced else body_end
            if toks[p].text == "do":
                self._expect(after, "while")
                self._expect(after + 1, "(")
                close = self.closing(after + 1, "(", ")")
                self._expect(close, ";")
                kind, keyword, paren, close, end = "do", p, after + 1, close, close + 1
            else:
                if toks[p].text != ")":
                    return None
                q = self.opening.get(p, -1)
                if q < 1 or toks[q - 1].text not in ("while", "for"):
                    return None
                kind, keyword, paren, close, end = toks[q - 1].text, q - 1, q, p + 1, after
        except Unparsable:
            return None
        return self._loop_statement(kind, keyword, paren, close, body, body_end, end, braced)

    @cached_property
    def starts(self) -> list[int]:
        """Every token's start offset, in order (for bisecting an offset)."""
        return [t.start for t in self.tokens]

    def between(self, start: int, end: int) -> list[Token]:
        """The tokens that begin between offsets `start` and `end`."""
        return self.tokens[bisect.bisect_left(self.starts, start):bisect.bisect_left(self.starts, end)]

    def words_between(self, start: int, end: int, skip: list[tuple[int, int]] = ()) -> list[str]:
        """The identifiers between offsets `start` and `end` in order, repeats kept (`words` of that
        piece of the file, read off the file's tokens instead of lexing the piece again), but those
        inside the offset ranges `skip`."""
        return [t.text for t in self.between(start, end) if t.kind == TokenKind.WORD
                and not any(a <= t.start < b for a, b in skip)]

    def free_words(self, skip: list[tuple[int, int]] = ()) -> set[str]:
        """Names the text uses, leaving out struct members (after `.` or `->`) and the words inside
        the offset ranges `skip` (member paths a caller renames: `path_edits`)."""
        toks = self.tokens
        return {t.text for k, t in enumerate(toks) if t.kind == TokenKind.WORD and not after_member(toks, k)
                and not any(a <= t.start < b for a, b in skip)}

    def called_names(self) -> set[str]:
        """The functions (or function-like macros) the text calls by name."""
        toks = self.tokens
        return {t.text for k, t in enumerate(toks) if t.kind == TokenKind.WORD and k + 1 < len(toks)
                and toks[k + 1].text == "(" and not after_member(toks, k)} - KEYWORDS

    def path_edits(self, subst: dict[str, str]) -> list[tuple[int, int, str]]:
        """Where each expression of `subst` (a name or member path like `g->u`, matched token by
        token, the longest first, never as a member of something else) occurs: (start, end, its new
        text), in text order."""
        if not subst:
            return []
        toks = self.tokens
        texts = [t.text for t in toks]
        patterns = sorted((([t.text for t in lexed(name).tokens], new) for name, new in subst.items()),
                          key=lambda p: -len(p[0]))
        out, k = [], 0
        while k < len(toks):
            for pat, new in patterns:
                n = len(pat)
                if texts[k] == pat[0] and texts[k:k + n] == pat and not after_member(toks, k):
                    out.append((toks[k].start, toks[k + n - 1].end, new))
                    k += n
                    break
            else:
                k += 1
        return out

    def array_declarators(self, names: set[str]):
        """The declarators of arrays named `names` (a name after a type word, `*` or `,`, followed by
        `[`), in text order."""
        toks = self.tokens
        for i, t in enumerate(toks[:-1]):
            if not (t.kind == TokenKind.WORD and t.text in names and toks[i + 1].text == "[" and i > 0 and
                    (toks[i - 1].kind == TokenKind.WORD or toks[i - 1].text in ("*", ","))):
                continue
            try:
                j = self.closing(i + 1, "[", "]") - 1
            except Unparsable:
                yield ArrayDeclarator(t.text, None, frozenset(), (), t.start, None)
                continue
            start = i
            while start > 0 and (toks[start - 1].kind == TokenKind.WORD or toks[start - 1].text == "*"):
                start -= 1
            alone = (start == 0 or toks[start - 1].text in (";", "{", "}")) and start < i and \
                j + 1 < len(toks) and toks[j + 1].text == ";"
            size = (toks[i + 2].start, toks[j - 1].end) if i + 2 < j else (toks[i + 1].end, toks[i + 1].end)
            yield ArrayDeclarator(t.text, self.text[size[0]:size[1]],
                                  frozenset(x.text for x in toks[i + 2:j] if x.kind == TokenKind.WORD),
                                  tuple(x.text for x in toks[start:i]), toks[start].start,
                                  toks[j + 1].end if alone else None, size)

    def piece(self, start: int, end: int) -> "Spans":
        """The lexical layer of text[start:end] (a loop's body cut from the file), its tokens this
        text's, moved to the piece's offsets: not lexed again."""
        out = Spans.__new__(Spans)
        out.text = self.text[start:end]
        out.tokens = [Token(t.kind, t.text, t.start - start, t.end - start) for t in self.between(start, end)]
        out.index = {t.start: i for i, t in enumerate(out.tokens)}
        return out

    def loops(self, start: int, end: int) -> list[LoopStatement]:
        """Every `while`, `do` and `for` statement whose keyword lies between offsets `start` and
        `end`, nested ones too, in text order (a `do`'s closing `while` is no loop of its own)."""
        out, tails = [], set()
        for t in self.between(start, end):
            if t.kind == TokenKind.WORD and t.text in ("while", "for", "do") and t.start not in tails:
                where = self.loop_at(t.start)
                if where is not None:
                    out.append(where)
                    if where.kind == LoopKind.DO:
                        tails.add(self.tokens[self.statement_end(self.index[t.start] + 1)].start)
        return out

    def loop_at(self, offset: int) -> LoopStatement | None:
        """The `while`, `do` or `for` statement whose keyword is at `offset`."""
        toks = self.tokens
        i = self.index.get(offset)
        if i is None or toks[i].text not in ("while", "for", "do"):
            return None
        try:
            end = self.statement_end(i)
            if toks[i].text == "do":
                body, body_end = i + 1, self.statement_end(i + 1)
                paren = body_end + 1
            else:
                paren = i + 1
                body, body_end = self.closing(paren, "(", ")"), end
            close = self.closing(paren, "(", ")")
        except Unparsable:
            return None
        braced = toks[body].text == "{"
        return self._loop_statement(toks[i].text, i, paren, close, body + braced, body_end - braced, end, braced)

    def _loop_statement(self, kind: str, keyword: int, paren: int, close: int, body: int, body_end: int, end: int,
                        braced: bool) -> LoopStatement:
        """A LoopStatement from token indices: `body` is the body's first statement (after `{`
        when braced), `body_end` the `}` when braced, else just after the body; `close` just
        after the header's `)`, `end` just after the statement."""
        toks = self.tokens
        lo = toks[body - 1].end if braced else toks[body].start
        hi = toks[body_end].start if braced else toks[body_end - 1].end
        clauses = tuple((toks[a].start, toks[b - 1].end if b > a else toks[a].start)
                        for a, b in self.split(paren + 1, close - 1, ";"))
        return LoopStatement(LoopKind(kind), toks[keyword].start, toks[end - 1].end, lo, hi, braced, clauses)

    def assigns(self, j: int) -> bool:
        """Token j is the `=` of an assignment or initializer (not of `==`, `<=`, `!=`, ...)."""
        toks = self.tokens
        if toks[j].text != "=" or j + 1 < len(toks) and toks[j + 1].text == "=" and toks[j + 1].start == toks[j].end:
            return False
        prev = toks[j - 1] if j > 0 and toks[j - 1].end == toks[j].start else None
        if prev is None or prev.text not in "=!<>":
            return True
        return prev.text in "<>" and j > 1 and toks[j - 2].text == prev.text and toks[j - 2].end == prev.start

    def operand_start(self, i: int) -> int:
        """Index of the first token of the assignment expression holding token i: back to an
        unmatched `(` or `[`, or to a `,` or assignment outside brackets; a directive, `;`, `{`,
        `}` or `return` ends it even inside brackets (a statement expression is not one operand)."""
        toks, j = self.tokens, i

        def ends(t: Token) -> bool:
            return t.kind == TokenKind.DIRECTIVE or t.text in (";", "{", "}", "return")

        while j > 0:
            t = toks[j - 1]
            if ends(t) or t.text == "," or self.assigns(j - 1):
                break
            if t.kind == TokenKind.PUNCT and t.text in ")]":
                open_ = self.opening.get(j - 1)
                if open_ is None:
                    break
                inner = next((x for x in range(j - 2, open_, -1) if ends(toks[x])), None)
                if inner is not None:
                    return inner + 1
                j = open_
                continue
            if t.kind == TokenKind.PUNCT and t.text in "([":
                break
            j -= 1
        return j

    def operand_end(self, i: int) -> int:
        """Index of the last token of the assignment expression starting at token i: before a `,`
        or closing bracket outside brackets, or a directive or `;` anywhere."""
        toks, j, n = self.tokens, i, len(self.tokens)

        def ends(t: Token) -> bool:
            return t.kind == TokenKind.DIRECTIVE or t.text == ";"

        while j < n:
            t = toks[j]
            if ends(t) or t.text == "," or t.kind == TokenKind.PUNCT and t.text in ")]}":
                break
            if t.kind == TokenKind.PUNCT and t.text in "([{":
                close = self.brackets.get(j)
                inner = next((x for x in range(j + 1, n if close is None else close) if ends(toks[x])), None)
                if inner is not None or close is None:
                    return (n if inner is None else inner) - 1
                j = close
            j += 1
        return j - 1

    def prologue_end(self) -> int:
        """Where a runtime prelude may go: after the directives and comments the file starts with
        (feature-test macros such as `_POSIX_C_SOURCE` must precede every system header), unless a
        conditional directive is still open there; then first thing in the file."""
        depth = 0
        for tok in self.tokens:
            if tok.kind != TokenKind.DIRECTIVE:
                return self.text.rfind("\n", 0, tok.start) + 1 if depth == 0 else 0
            word = tok.text.lstrip()[1:].lstrip()
            depth += word.startswith("if") - word.startswith("endif")
        return len(self.text) if depth == 0 else 0

    def closing(self, i: int, open_: str, close: str) -> int:
        """Index just after the bracket that closes tokens[i]."""
        depth = 0
        for j in range(i, len(self.tokens)):
            tok = self.tokens[j]
            if tok.kind == TokenKind.DIRECTIVE:
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
        if tok.kind == TokenKind.DIRECTIVE:
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
            if t.kind == TokenKind.DIRECTIVE:
                raise Unparsable("preprocessor directive inside a statement")
            if t.text in "({[" and t.kind == TokenKind.PUNCT:
                depth += 1
            elif t.text in ")}]" and t.kind == TokenKind.PUNCT:
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


def match_brackets(tokens: list[Token]) -> dict[int, int]:
    """Index of every `(`, `[` and `{` of `tokens` -> that of the bracket closing it, every kind at
    once (a closing bracket closes the innermost open one, whatever its kind: unbalanced text still
    gets matches, as the compiler's error would follow them); directives are single tokens, so
    brackets inside them do not count. One left unclosed has none."""
    stack, out = [], {}
    for i, t in enumerate(tokens):
        if t.kind != TokenKind.PUNCT:
            continue
        if t.text in "([{":
            stack.append(i)
        elif t.text in ")]}" and stack:
            out[stack.pop()] = i
    return out


def top_level(tokens: list[Token], brackets: dict[int, int], start: int, end: int):
    """The indices of tokens[start:end] outside every bracketed group that starts there (a group
    is skipped whole: its opening bracket is yielded, its inside and closing bracket are not);
    `brackets` are the tokens' matches (`match_brackets`)."""
    k = start
    while k < end:
        yield k
        close = brackets.get(k) if tokens[k].kind == TokenKind.PUNCT else None
        k = close + 1 if close is not None and close < end else k + 1


def split(tokens: list[Token], brackets: dict[int, int], start: int, end: int, sep: str = ",") -> list[tuple[int, int]]:
    """The (first, end) index ranges of the parts of tokens[start:end] separated by `sep` outside
    brackets, empty parts included."""
    parts, first = [], start
    for k in top_level(tokens, brackets, start, end):
        if tokens[k].text == sep:
            parts.append((first, k))
            first = k + 1
    parts.append((first, end))
    return parts


def after_member(toks: list[Token], k: int) -> bool:
    """Token k follows `.` or `->`: a struct member, not a name of its own."""
    if k == 0:
        return False
    p = toks[k - 1]
    return p.text == "." or p.text == ">" and k >= 2 and toks[k - 2].text == "-" and toks[k - 2].end == p.start


def value_words(text: str) -> set[str]:
    """Names whose values a piece of C text uses: one only under `&name[...]` (an address) is left out."""
    toks = lexed(text).tokens
    return {t.text for n, t in enumerate(toks) if t.kind == TokenKind.WORD and not (
        n > 0 and toks[n - 1].text == "&" and n + 1 < len(toks) and toks[n + 1].text == "[")}


def called_names(text: str) -> set[str]:
    """The functions (or function-like macros) a piece of C text calls by name."""
    return lexed(text).called_names()


def replace_paths(text: str, subst: dict[str, str]) -> str:
    """`text` with each expression of `subst` (a name or member path like `g->u`, matched token by
    token, the longest first, never as a member of something else) replaced by its new text."""
    out, last = [], 0
    for start, end, new in lexed(text).path_edits(subst):
        out += [text[last:start], new]
        last = end
    return "".join(out) + text[last:]


@lru_cache(maxsize=1 << 14)
def lexed(text: str) -> Spans:
    """The lexical layer of a piece of C text (a statement, a loop header), made once per text: the
    graph's nodes hand it out for their texts (`Tasklet.lexed`, ...), so that a backend reads names
    and their places off these tokens and edits the text by their offsets instead of lexing it; the
    word readers here take it too (the passes rename and read the same statements and headers
    again and again: gemm lexed 39 texts 1,270 times). The same object for the same text: its
    readers must not change it."""
    return Spans(text)


class CExpr(str):
    """C text lift generates (a row bound, a run-time test, a launch's work) with the words it uses,
    known where it is made: code that composes such texts (`CExpr.of`) unions their words instead
    of lexing what it composed. `names`: its words (keywords such as a cast's `long` too, as
    `word_tokens` reads them); `values`: those whose values it uses, not only their addresses
    (`value_words`). A str: it is written into the output as it is."""

    names: frozenset[str]
    values: frozenset[str]

    def __new__(cls, text: str = "", names=frozenset(), values=None) -> "CExpr":
        out = super().__new__(cls, text)
        out.names = frozenset(names)
        out.values = out.names if values is None else frozenset(values)
        return out

    @staticmethod
    def of(text: str, *parts: "CExpr", names=frozenset()) -> "CExpr":
        """`text` made of `parts` and lift's own text, which uses `names` besides."""
        return CExpr(text, frozenset(names).union(*(p.names for p in parts)),
                     frozenset(names).union(*(p.values for p in parts)))


@lru_cache(maxsize=1 << 12)
def c_expr(text: str) -> CExpr:
    """`text` with the words it uses, read by the lexical layer where the text is made."""
    return CExpr(text, word_tokens(text), value_words(text))


def compound_update(text: str) -> tuple[str, str, str] | None:
    """A statement `y[j] += e;`, `y[j] = y[j] + e;`, `y[j] = e * y[j];` or `h[k]++;` as (the
    updated lvalue's text, the operator, the value it combines), subtraction as `+` of the negated
    value; None for any other statement."""
    toks = lexed(text).tokens
    if not toks or toks[-1].text != ";" or any(t.kind == TokenKind.DIRECTIVE for t in toks):
        return None
    body = toks[:-1]
    n = len(body)

    def joined(a: int, b: int) -> bool:
        return body[a].end == body[b].start

    def cut(a: int, b: int) -> str:
        return text[body[a].start:body[b - 1].end] if a < b else ""

    sign = {"+": "1", "-": "-1"}
    if n >= 3 and body[0].text == body[1].text and body[0].text in sign and joined(0, 1):
        return cut(2, n), "+", sign[body[0].text]
    if n >= 3 and body[-1].text == body[-2].text and body[-1].text in sign and joined(n - 2, n - 1):
        return cut(0, n - 2), "+", sign[body[-1].text]
    match = match_brackets(body)
    k, i = None, 0
    while i < n:
        if body[i].kind == TokenKind.PUNCT and body[i].text in "([{)]}" and i not in match:
            return None  # unbalanced: no statement of this form
        if body[i].text == "=":
            if i + 1 < n and body[i + 1].text == "=" and joined(i, i + 1):
                return None
            if i > 0 and body[i - 1].text in "=!<>" and joined(i - 1, i):
                return None
            k = i
            break
        i = match[i] + 1 if i in match else i + 1
    if k is None or k == 0:
        return None
    if body[k - 1].text in "+-*&|^" and joined(k - 1, k):
        rhs, op = cut(k + 1, n), body[k - 1].text
        return (cut(0, k - 1), "+", f"-({rhs})") if op == "-" else (cut(0, k - 1), op, rhs)
    lhs = [t.text for t in body[:k]]
    rest = body[k + 1:]
    m = len(lhs)
    if [t.text for t in rest[:m]] == lhs and len(rest) > m + 1 and rest[m].text in "+-*&|^":
        op, value = rest[m].text, text[rest[m + 1].start:rest[-1].end]
        return (cut(0, k), "+", f"-({value})") if op == "-" else (cut(0, k), op, value)
    if [t.text for t in rest[-m:]] == lhs and len(rest) > m + 1 and rest[-m - 1].text in "+*&|^":
        return cut(0, k), rest[-m - 1].text, text[rest[0].start:rest[-m - 2].end]
    return None


_DIRECTIVE_HEAD = re.compile(r"[ \t]*#[ \t]*(\w*)")


def replace_tokens(text: str, words: dict[str, str], runs: dict[tuple[str, ...], str],
                   protected: list[tuple[int, int]] = (), tokens: list[Token] | None = None) -> str:
    """`text` with every identifier of `words` (outside the `protected` offset spans, members
    too) and every run of tokens of `runs` replaced by its new text, also in each directive's body
    after its `#` and name (read as code), except `#include` lines; comments and literals stay.
    `tokens`: the text's tokens, where the caller has lexed it already."""
    out, last = [], 0
    toks = Spans(text).tokens if tokens is None else tokens
    firsts = {pattern[0] for pattern in runs}
    for k, t in enumerate(toks):
        if t.start < last:  # inside a run already replaced
            continue
        run = next((pattern for pattern in runs if [u.text for u in toks[k:k + len(pattern)]] == list(pattern)),
                   None) if t.text in firsts else None
        if t.kind == TokenKind.WORD and t.text in words and not any(a <= t.start < b for a, b in protected):
            new = words[t.text]
        elif run is not None:
            out += [text[last:t.start], runs[run]]
            last = toks[k + len(run) - 1].end
            continue
        elif t.kind == TokenKind.DIRECTIVE and (head := _DIRECTIVE_HEAD.match(t.text))[1] != "include":
            new = t.text[:head.end()] + replace_tokens(t.text[head.end():], words, runs)
        else:
            continue
        out += [text[last:t.start], new]
        last = t.end
    out.append(text[last:])
    return "".join(out)


def without_comments(text: str) -> str:
    """The text with each comment replaced by a space."""
    return "".join(" " if m.lastgroup == "comment" else m.group() for m in _TOKEN.finditer(text))


def word_tokens(text: str) -> set[str]:
    """Identifiers in a piece of C text (outside comments and strings), as a new set the caller may
    change (`fresh_name` adds to one)."""
    return set(_word_tokens(text))


@lru_cache(maxsize=1 << 14)
def _word_tokens(text: str) -> frozenset[str]:
    """`word_tokens`, kept per text: the passes ask about the same loop bounds and statements
    again and again (whether a loop's variable is read after it asks it of every other node of
    the nest, for each map): over the 30 suite kernels, 18,800 calls ask about 1,200 texts."""
    return frozenset(m.group() for m in _TOKEN.finditer(text) if m.lastgroup == "word")




def parenthesized(text: str) -> bool:
    """The whole text is one parenthesized group: its first token is a `(` that closes at its last."""
    toks = lexed(text).tokens
    return len(toks) > 1 and toks[0].text == "(" and match_brackets(toks).get(0) == len(toks) - 1
