"""A C file's top level, read from the frontend's tokens (spans.py): its declarations, function
definitions and their parameters, macros, includes and `extern "C"` blocks. The CUDA backend reads
the file through it (what to make C++, where kernels go, which functions a kernel may call).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from lifter.frontend.spans import KEYWORDS, Spans, Token, TokenKind, called_names


@dataclass
class Decl:
    """A top-level declaration: token range, the declarator groups, and a body for functions."""

    start: int
    end: int  # index of the last token
    groups: list[tuple[int, int, int]]  # (name token, '(' token, ')' token) at depth 0
    body: tuple[int, int] | None = None  # '{' and '}' token indices of a function definition
    name: str = ""  # the function's name, for definitions and prototypes


class CFile:
    """The file's top level read from its tokens: declarations (`decls`), function definitions
    (`definition`, `function_at`), macros, includes and `extern "C"` blocks."""

    def __init__(self, text: str, spans: Spans | None = None):
        self.text = text
        self.spans = spans or Spans(text)
        self.tokens: list[Token] = self.spans.tokens
        self.decls: list[Decl] = []
        self.macros: dict[str, str] = {}
        self.words = {t.text for t in self.tokens if t.kind == TokenKind.WORD}
        self.system_headers: list[str] = []  # <...> included outside any #if
        self.includes: list[tuple[Token, str, bool]] = []  # (directive, header, quoted) of every #include
        self.c_linkage: list[tuple[int, int]] = []  # offsets inside each `extern "C" {` ... `}` (C++ only)
        self._if_depth = 0
        self._scan()

    @classmethod
    def read(cls, path: str) -> CFile | None:
        """The top level of the file at `path` (a project header the CUDA output inlines), None where
        it cannot be read."""
        try:
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                return cls(f.read())
        except OSError:
            return None

    def close(self, i: int) -> int:
        """The token closing the bracket at token `i` (the frontend's matches), or the last token."""
        return self.spans.brackets.get(i, len(self.tokens) - 1)

    def _scan(self) -> None:
        toks, i, n = self.tokens, 0, len(self.tokens)
        while i < n:
            t = toks[i]
            if t.kind == TokenKind.DIRECTIVE:
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
                if t.kind == TokenKind.DIRECTIVE:
                    j += 1
                    continue
                if t.kind == TokenKind.PUNCT and t.text in "([":
                    close = self.close(j)
                    if t.text == "(" and j > start and toks[j - 1].kind == TokenKind.WORD and toks[j - 1].text not in KEYWORDS:
                        groups.append((j - 1, j, close))
                    j = close + 1
                    continue
                if t.kind == TokenKind.PUNCT and t.text == "{":
                    close = self.close(j)
                    prev = toks[j - 1] if j > start else None
                    if prev is not None and prev.text == ")" and groups:
                        decl = Decl(start, close, groups, (j, close))
                        j = close + 1
                        break
                    j = close + 1
                    continue
                if t.kind == TokenKind.PUNCT and t.text == ";":
                    decl = Decl(start, j, groups)
                    j += 1
                    break
                if t.kind == TokenKind.PUNCT and t.text == "}":  # stray: unbalanced text
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
                self.includes.append((self.tokens[index], (h or q).group(1), q is not None))
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
                if toks[k].kind == TokenKind.WORD and toks[k + 1].text in ("[", "=", ";", ","):
                    out.add(toks[k].text)
        return out

    def function_at(self, offset: int) -> Decl | None:
        for d in self.decls:
            if d.body and self.tokens[d.body[0]].start <= offset < self.tokens[d.body[1]].end:
                return d
        return None

    def calls_in(self, name: str) -> set[str] | None:
        """What the file's macro `name` (first) or function `name` calls by name (`f(`); None where
        the file defines neither. The CUDA backend follows a kernel's calls with it."""
        if name in self.macros:
            return called_names(self.macros[name])
        d = self.definition(name)
        if d is None:
            return None
        a, b = d.body
        return called_names(self.text[self.tokens[a].start:self.tokens[b].end])

    def objects_named_in(self, d: Decl) -> list[str]:
        """The file's variables (`object_names`) that a function definition's body names, sorted."""
        a, b = d.body
        return sorted({t.text for t in self.tokens[a:b]} & self.object_names())

    def start_offset(self, d: Decl) -> int:
        """The offset where a declaration or definition begins."""
        return self.tokens[d.start].start

    def holding(self, offset: int) -> Decl | None:
        """The top-level declaration or definition whose text holds `offset` (its first token's
        start to its last token's end), if any."""
        return next((d for d in self.decls
                     if self.tokens[d.start].start <= offset <= self.tokens[d.end].end), None)

    def parameters_text(self, d: Decl) -> str:
        """The text between the parentheses of a declaration's last parameter list (a definition's own)."""
        _, open_, close = d.groups[-1]
        return self.text[self.tokens[open_].end:self.tokens[close].start]

    def head_text(self, d: Decl) -> str:
        """A definition's text up to the `)` of its parameter list: its prototype, without the `;`."""
        _, _, close = d.groups[-1]
        return self.text[self.tokens[d.start].start:self.tokens[close].end]

    def body_offsets(self, d: Decl) -> tuple[int, int]:
        """The offsets of the `{` and the `}` of a function definition's body."""
        return self.tokens[d.body[0]].start, self.tokens[d.body[1]].start

    def definition(self, name: str) -> Decl | None:
        for d in self.decls:
            if d.body and d.name == name:
                return d
        return None

    def returned_expression(self, name: str) -> tuple[list[str], str] | None:
        """(parameter names, expression text) of a function of the file whose body is only
        `return EXPR;`, else None."""
        d = self.definition(name)
        if d is None:
            return None
        inner = self.tokens[d.body[0] + 1:d.body[1]]
        if len(inner) < 3 or inner[0].text != "return" or inner[-1].text != ";" or \
                any(t.text == ";" or t.kind == TokenKind.DIRECTIVE for t in inner[:-1]):
            return None
        _, open_, close = d.groups[-1]
        params = [self.param_name(p) for p in self.params(open_, close)]
        if None in params:
            return None
        return params, self.text[inner[1].start:inner[-2].end]

    def params(self, open_: int, close: int) -> list[list[int]]:
        """The token indices of each parameter between the `(` at `open_` and the `)` at `close`
        (none for `()`)."""
        parts = [list(range(a, b)) for a, b in self.spans.split(open_ + 1, close)]
        return parts[:-1] if not parts[-1] else parts

    def param_name(self, p: list[int]) -> str | None:
        """The name a parameter (token indices) declares, if any."""
        shape = self.param_shape(p)
        if shape:
            return shape[0]
        toks = self.tokens
        names = [k for k in p if toks[k].kind == TokenKind.WORD and toks[k].text not in KEYWORDS]
        return toks[names[-1]].text if names else None

    def param_shape(self, p: list[int]):
        """(name, base type tokens, [(open, close) of each [dim]], pointer form) of an array parameter."""
        toks = self.tokens
        if not p:
            return None
        # double (*A)[n][m]
        for idx, k in enumerate(p):
            if toks[k].text == "(" and idx + 3 < len(p) and toks[p[idx + 1]].text == "*" and \
                    toks[p[idx + 2]].kind == TokenKind.WORD and toks[p[idx + 3]].text == ")":
                dims = self._dims(p, idx + 4)
                if dims:
                    return toks[p[idx + 2]].text, p[:idx], dims, True
                return None
        # double A[n][m]
        for idx, k in enumerate(p):
            if toks[k].text == "[":
                if idx == 0 or toks[p[idx - 1]].kind != TokenKind.WORD:
                    return None
                dims = self._dims(p, idx)
                if not dims:
                    return None
                return toks[p[idx - 1]].text, p[:idx - 1], dims, False
            if toks[k].text == "(":
                return None
        return None

    def _dims(self, p: list[int], idx: int) -> list[tuple[int, int]]:
        """The (`[`, `]`) of each bracket pair from p[idx] to the parameter's end, or [] when
        something else follows them."""
        dims = []
        while idx < len(p) and self.tokens[p[idx]].text == "[":
            close = self.spans.brackets.get(p[idx])
            if close is None or close > p[-1]:
                return []
            dims.append((p[idx], close))
            idx += close - p[idx] + 1
        return dims if idx == len(p) else []
