"""C text helpers of the CUDA backend: calls and names in a piece of C, substitution of
container expressions, atomic updates, indentation, and bounds of subscripts (`_Interval`, a
small parser over a subscript's tokens, evaluated with isl over the statement's domain).

Token-level readers of C that the kernels (cuda_kernels.py) and the regions (cuda.py) share;
issue 17 plans to replace them by facts the graph carries.
"""
from __future__ import annotations

import re

from lifter.backend.cuda_cxx import KEYWORDS
from lifter.backend.edits import apply
from lifter.frontend.spans import Spans, Token, Unparsable
from lifter.graph.nodes import AccessNode
from lifter.graph.ranges import bound_c, readable


def _calls(text: str) -> set[str]:
    toks = Spans(text).tokens
    out = set()
    for k, t in enumerate(toks):
        if t.kind == "word" and k + 1 < len(toks) and toks[k + 1].text == "(" and not _member(toks, k):
            out.add(t.text)
    return out - KEYWORDS


def _member(toks, k: int) -> bool:
    """Token k follows `.` or `->`."""
    if k == 0:
        return False
    p = toks[k - 1]
    if p.text == ".":
        return True
    return p.text == ">" and k >= 2 and toks[k - 2].text == "-" and toks[k - 2].end == p.start


def _base(function: str) -> str:
    return function if function.startswith("kernel") else f"kernel_{function}"


def _sanitize(name: str) -> str:
    return re.sub(r"\W+", "_", name).strip("_") or "x"


def _int(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text.rstrip("L"))
    except ValueError:
        return None


def _isl_c(text: str) -> str:
    """isl's printed expressions as C: its min/max/floord become the prelude's helpers."""
    return re.sub(r"\b(min|max|floord)\s*\(", lambda m: {"min": "lift_imin(", "max": "lift_imax(",
                                                         "floord": "lift_floord("}[m.group(1)], text)


def _words(text: str) -> list[str]:
    return [t.text for t in Spans(text).tokens if t.kind == "word"]


def _free_words(text: str) -> set[str]:
    """Names used in C text, leaving out struct members (after `.` or `->`)."""
    toks = Spans(text).tokens
    return {t.text for k, t in enumerate(toks) if t.kind == "word" and not _member(toks, k)}


def _substitute(text: str, subst: dict[str, str]) -> str:
    """Replace container expressions like `g->u` by the kernel's names for them."""
    if not subst:
        return text
    toks = Spans(text).tokens
    edits = []
    patterns = sorted(((Spans(name).tokens, new) for name, new in subst.items()), key=lambda p: -len(p[0]))
    k = 0
    while k < len(toks):
        for pat, new in patterns:
            n = len(pat)
            if [t.text for t in toks[k:k + n]] == [t.text for t in pat] and not _member(toks, k):
                edits.append((toks[k].start, toks[k + n - 1].end, new))
                k += n
                break
        else:
            k += 1
    return apply(text, [], edits)


def _atomic_update(text: str, op_struct: str, op: str) -> str | None:
    """`y[j] += e;`, `y[j] = y[j] + e;` or `h[k]++;` as `lift_atomic_update(op, &(y[j]), value);`."""
    toks = Spans(text).tokens
    if not toks or toks[-1].text != ";" or any(t.kind == "directive" for t in toks):
        return None
    body = toks[:-1]
    n = len(body)

    def joined(a: int, b: int) -> bool:
        return body[a].end == body[b].start

    def cut(a: int, b: int) -> str:
        return text[body[a].start:body[b - 1].end] if a < b else ""

    sign = {"+": "1", "-": "-1"}
    if n >= 3 and body[0].text == body[1].text and body[0].text in sign and joined(0, 1):
        lhs, value, cop = cut(2, n), sign[body[0].text], "+"
    elif n >= 3 and body[-1].text == body[-2].text and body[-1].text in sign and joined(n - 2, n - 1):
        lhs, value, cop = cut(0, n - 2), sign[body[-1].text], "+"
    else:
        depth, k = 0, None
        for i, t in enumerate(body):
            if t.text in "([{":
                depth += 1
            elif t.text in ")]}":
                depth -= 1
            elif t.text == "=" and depth == 0:
                if i + 1 < n and body[i + 1].text == "=" and joined(i, i + 1):
                    return None
                if i > 0 and body[i - 1].text in "=!<>" and joined(i - 1, i):
                    return None
                k = i
                break
        if k is None or k == 0:
            return None
        if body[k - 1].text in "+-*&|^" and joined(k - 1, k):
            lhs, rhs, cop = cut(0, k - 1), cut(k + 1, n), body[k - 1].text
            value = f"-({rhs})" if cop == "-" else rhs
            cop = "+" if cop == "-" else cop
        else:
            lhs_toks = [t.text for t in body[:k]]
            rest = body[k + 1:]
            m = len(lhs_toks)
            if [t.text for t in rest[:m]] == lhs_toks and len(rest) > m + 1 and rest[m].text in "+-*&|^":
                cop = rest[m].text
                value = text[rest[m + 1].start:rest[-1].end]
                if cop == "-":
                    value, cop = f"-({value})", "+"
            elif [t.text for t in rest[-m:]] == lhs_toks and len(rest) > m + 1 and rest[-m - 1].text in "+*&|^":
                cop = rest[-m - 1].text
                value = text[rest[0].start:rest[-m - 2].end]
            else:
                return None
            lhs = cut(0, k)
    if cop != op:
        return None
    return f"lift_atomic_update({op_struct}(), &({lhs}), {value});"


def _dedent(text: str) -> str:
    """A statement cut from the source: its first line starts at the statement, the others keep
    their columns; shift those left by their common indentation."""
    lines = text.split("\n")
    rest = [l for l in lines[1:] if l.strip()]
    if not rest:
        return text
    common = min(len(l) - len(l.lstrip(" \t")) for l in rest)
    last = lines[-1].lstrip(" \t")
    if last.startswith("}"):  # a block: its closing brace shows where the statement started
        common = min(common, len(lines[-1]) - len(last))
    return "\n".join([lines[0]] + [l[common:] if l.strip() else l for l in lines[1:]])


def _indent(text: str, indent: str) -> str:
    return "\n".join(indent + l if l.strip() else l for l in text.split("\n"))


def _union(a, b, ok: bool):
    if not ok:
        return False
    if a is False or b is False:
        return False
    if a is None:
        return b
    if b is None:
        return a
    try:
        return a.union(b).coalesce()
    except Exception:  # isl: spaces that cannot be aligned
        try:
            return a.align_params(b.get_space()).union(b.align_params(a.get_space())).coalesce()
        except Exception:
            return False


def _c_ndim(node: AccessNode) -> int:
    """Dimensions of the C object: a delinearized flat buffer (`strides`) is one-dimensional in C."""
    return 1 if getattr(node, "strides", None) else node.ndim


def _bound(rng, upper: bool, dim: int = 0) -> str | None:
    """Strict C for the first or last index of a dimension, else isl's printed form, else None."""
    text = bound_c(rng, dim, upper)
    if text is not None:
        return text
    try:
        pw = rng.dim_max(dim) if upper else rng.dim_min(dim)
        if pw.is_cst() and pw.is_nan() if hasattr(pw, "is_nan") else False:
            return None
        return "(long)(" + _isl_c(readable(pw)) + ")"
    except Exception:
        return None


CAST_WORDS = {"int", "long", "unsigned", "signed", "short", "size_t", "ptrdiff_t", "ssize_t", "char",
              "int64_t", "uint64_t", "int32_t", "uint32_t", "intptr_t", "uintptr_t", "const"}


def _subscript_interval(access: str, name: str, stmt, region, functions, written: set[str]) -> tuple[str, str] | None:
    """(lo, hi) C text bounding the first subscript of `access` (`A[i * m + j][k]`) over the
    statement's iterations, or None when an operand is unknown (a load, a call, a changing name)."""
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
    loop_vars = {region.loops[l].var: pos for pos, l in enumerate(stmt.loops) if l in region.loops}
    parser = _Interval(toks[n + 1:j], stmt.domain, loop_vars, written, functions)
    try:
        iv = parser.expr()
        if parser.k != len(parser.toks):
            return None
    except _NoInterval:
        return None
    return iv[0], iv[1]


class _NoInterval(Exception):
    pass


class _Interval:
    """Interval arithmetic over C integer expressions, producing C text for the bounds."""

    def __init__(self, toks, domain, loop_vars: dict[str, int], written: set[str], functions, depth: int = 0):
        self.toks, self.k = toks, 0
        self.domain, self.loop_vars, self.written = domain, loop_vars, written
        self.functions, self.depth = functions, depth  # name -> (parameters, expression) of index helpers

    def call(self, name: str):
        """The interval of `name(args)` where the function returns an expression of its parameters."""
        fn = self.functions(name) if self.depth < 8 else None
        if fn is None:
            raise _NoInterval()
        params, expr = fn
        self.take()  # (
        args, cur, depth = [], [], 0
        while True:
            t = self.take()
            if t.text in "([" and t.kind == "punct":
                depth += 1
            elif t.text in ")]" and t.kind == "punct":
                if depth == 0 and t.text == ")":
                    break
                depth -= 1
            if t.text == "," and depth == 0:
                args.append(cur)
                cur = []
                continue
            cur.append(t.text)
        if cur or args:
            args.append(cur)
        if len(args) != len(params):
            raise _NoInterval()
        body = Spans(expr).tokens
        others = {t.text for t in body if t.kind == "word"} - set(params)
        if others & (set(self.loop_vars) | self.written):
            raise _NoInterval()  # a global the expression reads looks like a changing name here
        by_param = dict(zip(params, args))
        text = " ".join("( " + " ".join(by_param[t.text]) + " )" if t.kind == "word" and t.text in by_param else t.text
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
        if t.kind == "number":
            digits = t.text.rstrip("uUlL")
            try:
                v = int(digits, 0)
            except ValueError:
                raise _NoInterval() from None
            return (f"{v}L", f"{v}L", v)
        if t.kind != "word" or t.text in KEYWORDS:
            raise _NoInterval()
        path = [t.text]
        while self.peek() == "." or (self.peek() == "-" and self.peek(1) == ">"):
            self.take()
            if path and self.toks[self.k - 1].text == "-":
                self.take()
            w = self.take()
            if w.kind != "word":
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
        return _isl_c(readable(pw))
    except Exception:
        return None
