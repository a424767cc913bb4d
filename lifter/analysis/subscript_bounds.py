"""Bounds of a subscript over a statement's iterations, from its text: `subscript_interval` reads
the first subscript of an access (`A[i * m + j][k]`) with the frontend's tokens, as interval
arithmetic over C integer expressions (`_Interval`, a small recursive-descent reader), the loop
variables bounded by the statement's domain (isl). The CUDA backend copies only the rows a nest
touches: where the polyhedral model has no range for an access (a subscript through an index
helper like `at(i, j, n)`, a flat buffer), these bounds are the C text it evaluates at run time.
The bounds use the CUDA prelude's `lift_imin`/`lift_imax` helpers.
"""
from __future__ import annotations

import re

from lifter.frontend.spans import KEYWORDS, CExpr, Spans, Token, TokenKind, Unparsable, c_expr, match_brackets, split
from lifter.analysis.ranges import bound_c, readable


def isl_c(text: str) -> str:
    """isl's printed expressions as C: its min/max/floord become the prelude's helpers."""
    return re.sub(r"\b(min|max|floord)\s*\(", lambda m: {"min": "lift_imin(", "max": "lift_imax(",
                                                         "floord": "lift_floord("}[m.group(1)], text)


CAST_WORDS = {"int", "long", "unsigned", "signed", "short", "size_t", "ptrdiff_t", "ssize_t", "char",
              "int64_t", "uint64_t", "int32_t", "uint32_t", "intptr_t", "uintptr_t", "const"}


def subscript_interval(access: str, name: str, stmt, scop, functions, written: set[str]) -> tuple[CExpr, CExpr] | None:
    """(lo, hi) C text bounding the first subscript of `access` (`A[i * m + j][k]`) over the
    statement's iterations, or None when an operand is unknown (a load, a call, a changing name);
    with their words (the CUDA backend asks whether the host can evaluate them before the nest)."""
    spans = Spans(access)
    toks = spans.tokens
    pat = Spans(name).tokens
    n = len(pat)
    if [t.text for t in toks[:n]] != [t.text for t in pat] or len(toks) <= n or toks[n].text != "[":
        return None
    try:
        j = spans.closing(n, "[", "]") - 1
    except Unparsable:
        return None
    loop_vars = {scop.loops[l].var: pos for pos, l in enumerate(stmt.loops) if l in scop.loops}
    parser = _Interval(toks[n + 1:j], stmt.domain, loop_vars, written, functions)
    try:
        iv = parser.expr()
        if parser.k != len(parser.toks):
            return None
    except _NoInterval:
        return None
    return c_expr(iv[0]), c_expr(iv[1])


def bound_expr(rng, upper: bool, dim: int = 0, strict: bool = False) -> CExpr | None:
    """The first or last index of a dimension of an isl range, with its words: strict C (`bound_c`),
    else isl's printed form as C (not where `strict`), else None."""
    text = bound_c(rng, dim, upper)
    if text is None and not strict:
        try:
            pw = rng.dim_max(dim) if upper else rng.dim_min(dim)
            if pw.is_cst() and pw.is_nan() if hasattr(pw, "is_nan") else False:
                return None
            text = "(long)(" + isl_c(readable(pw)) + ")"
        except Exception:
            return None
    return None if text is None else c_expr(text)


class _NoInterval(Exception):
    pass


class _Interval:
    """Interval arithmetic over C integer expressions, producing C text for the bounds."""

    def __init__(self, toks, domain, loop_vars: dict[str, int], written: set[str], functions, depth: int = 0):
        self.toks, self.k = toks, 0
        self.brackets = match_brackets(toks)
        self.domain, self.loop_vars, self.written = domain, loop_vars, written
        self.functions, self.depth = functions, depth  # name -> (parameters, expression) of index helpers

    def call(self, name: str):
        """The interval of `name(args)` where the function returns an expression of its parameters."""
        fn = self.functions(name) if self.depth < 8 else None
        if fn is None:
            raise _NoInterval()
        params, expr = fn
        close = self.brackets.get(self.k)
        if close is None:
            raise _NoInterval()
        parts = split(self.toks, self.brackets, self.k + 1, close)
        args = [] if parts == [(close, close)] else [[t.text for t in self.toks[a:b]] for a, b in parts]
        self.k = close + 1
        if len(args) != len(params):
            raise _NoInterval()
        body = Spans(expr).tokens
        others = {t.text for t in body if t.kind == TokenKind.WORD} - set(params)
        if others & (set(self.loop_vars) | self.written):
            raise _NoInterval()  # a global the expression reads looks like a changing name here
        by_param = dict(zip(params, args))
        text = " ".join("( " + " ".join(by_param[t.text]) + " )" if t.kind == TokenKind.WORD and t.text in by_param else t.text
                        for t in body)
        sub = _Interval(Spans(text).tokens, self.domain, self.loop_vars, self.written, self.functions, self.depth + 1)
        iv = sub.expr()
        if sub.k != len(sub.toks):
            raise _NoInterval()
        return iv

    def peek(self, ahead: int = 0) -> str:
        return self.toks[self.k + ahead].text if self.k + ahead < len(self.toks) else ""

    def take(self) -> Token:
        if self.k >= len(self.toks):
            raise _NoInterval()
        self.k += 1
        return self.toks[self.k - 1]

    def expr(self):
        a = self.term()
        while self.peek() in ("+", "-") and self.peek(1) not in ("+", "-", "="):
            op = self.take().text
            b = self.term()
            a = (f"({a[0]} + {b[0]})", f"({a[1]} + {b[1]})", None) if op == "+" else \
                (f"({a[0]} - {b[1]})", f"({a[1]} - {b[0]})", None)
        return a

    def term(self):
        a = self.unary()
        while self.peek() in ("*", "/", "%") and self.peek(1) != "=":
            op = self.take().text
            b = self.unary()
            if op == "*":
                if b[2] is not None or a[2] is not None:
                    c, x = (b[2], a) if b[2] is not None else (a[2], b)
                    a = (f"({c}L * {x[0]})", f"({c}L * {x[1]})", None) if c >= 0 else \
                        (f"({c}L * {x[1]})", f"({c}L * {x[0]})", None)
                else:
                    p = [f"({a[i]} * {b[j]})" for i in (0, 1) for j in (0, 1)]
                    a = (f"lift_imin(lift_imin({p[0]}, {p[1]}), lift_imin({p[2]}, {p[3]}))",
                         f"lift_imax(lift_imax({p[0]}, {p[1]}), lift_imax({p[2]}, {p[3]}))", None)
            elif op == "/":
                if b[2] is None or b[2] <= 0:
                    raise _NoInterval()
                a = (f"({a[0]} / {b[2]}L)", f"({a[1]} / {b[2]}L)", None)
            else:
                if b[2] is None or b[2] <= 0:
                    raise _NoInterval()
                a = (f"(({a[0]}) >= 0 ? 0L : {1 - b[2]}L)", f"{b[2] - 1}L", None)
        return a

    def unary(self):
        t = self.peek()
        if t == "-":
            self.take()
            a = self.unary()
            return (f"(-{a[1]})", f"(-{a[0]})", None if a[2] is None else -a[2])
        if t == "+":
            self.take()
            return self.unary()
        if t == "(":
            # a cast to an integer type keeps the interval (values of subscripts are in range)
            j = self.k + 1
            while j < len(self.toks) and self.toks[j].text in CAST_WORDS:
                j += 1
            if j > self.k + 1 and j < len(self.toks) and self.toks[j].text == ")":
                self.k = j + 1
                return self.unary()
            self.take()
            a = self.expr()
            if self.take().text != ")":
                raise _NoInterval()
            return a
        return self.primary()

    def primary(self):
        t = self.take()
        if t.kind == TokenKind.NUMBER:
            digits = t.text.rstrip("uUlL")
            try:
                v = int(digits, 0)
            except ValueError:
                raise _NoInterval() from None
            return (f"{v}L", f"{v}L", v)
        if t.kind != TokenKind.WORD or t.text in KEYWORDS:
            raise _NoInterval()
        path = [t.text]
        while self.peek() == "." or (self.peek() == "-" and self.peek(1) == ">"):
            self.take()
            if path and self.toks[self.k - 1].text == "-":
                self.take()
            w = self.take()
            if w.kind != TokenKind.WORD:
                raise _NoInterval()
            path.append(("." if self.toks[self.k - 2].text == "." else "->") + w.text)
        if self.peek() == "(" and len(path) == 1:
            return self.call(t.text)
        if self.peek() in ("(", "["):
            raise _NoInterval()  # a load: unknown value
        if len(path) == 1 and t.text in self.loop_vars:
            pos = self.loop_vars[t.text]
            lo, hi = _domain_bound(self.domain, pos, False), _domain_bound(self.domain, pos, True)
            if lo is None or hi is None:
                raise _NoInterval()
            return (f"(long)({lo})", f"(long)({hi})", None)
        text = "".join(path)
        if path[0] in self.written or text in self.written:
            raise _NoInterval()
        return (f"(long)({text})", f"(long)({text})", None)


def _domain_bound(domain, pos: int, upper: bool) -> str | None:
    try:
        text = bound_c(domain, pos, upper)
        if text is not None:
            return text
        pw = domain.dim_max(pos) if upper else domain.dim_min(pos)
        return isl_c(readable(pw))
    except Exception:
        return None
