"""The host code of a file, read once from the frontend's tokens into typed records before any
backend runs (`host_code`, a pass of the CUDA pipeline: transform/passes.HostCodeFacts): every
statement of every block of every function body (`StatementFacts`), every loop's header clauses
(`LoopFacts`). A record says what its code does whatever arrays end up on the device: the
postfix chains it reads and writes (`Chain`), the functions it calls, its jumps, the macros that
may hide an access. host_effects.py answers the CUDA backend's questions (what may the code
between two offloaded nests do to these device arrays?) from the records alone.

It reads tokens, not the AST, because the backend asks about spans of text (the code between two
nests, a loop's header clause), and the answer must cover that text exactly, macros as written
included; effects.py's AST analysis of statements is the one the passes use.
"""
from __future__ import annotations

import bisect
from functools import lru_cache

from lifter.analysis.host_effects import (GapEffects, Chain, CodeFacts, HostCode, LoopFacts, Simple, StatementFacts,
                                          apply_facts)
from lifter.analysis.pure_functions import PURE_FUNCTIONS
from lifter.frontend.source import SourceFile
from lifter.frontend.spans import LoopStatement, Spans, Token, TokenKind, Unparsable, after_member, match_brackets

PRINT_CALLS = {"printf", "fprintf", "puts", "putchar", "fputs", "fputc", "putc", "fflush"}
NOT_CALLS = {"if", "for", "while", "switch", "sizeof", "return", "_Alignof", "alignof", "__alignof__",
             "typeof", "__typeof__"}
JUMPS = {"return", "goto", "break", "continue", "case", "default", "asm", "__asm__", "__asm"}
DECL_WORDS = {"int", "long", "short", "char", "float", "double", "void", "unsigned", "signed", "const",
              "volatile", "static", "extern", "struct", "union", "enum", "typedef", "register", "auto", "_Bool",
              "bool", "inline", "_Static_assert", "__extension__"}
ASSIGN_OPS = set("+-*/%&|^")


def host_code(source: SourceFile) -> HostCode:
    """The records of every function body's host code in `source` (module doc)."""
    cfile = source.cfile
    spans, macros = cfile.spans, cfile.macros
    code = HostCode(list(spans.starts), frozenset(k for k, t in enumerate(spans.tokens) if t.text == ";"))
    for d in cfile.decls:
        if not d.body:
            continue
        lo, hi = cfile.body_offsets(d)
        first, last = bisect.bisect_left(code.starts, lo), bisect.bisect_left(code.starts, hi)
        for k in range(first, last + 1):  # every block in the body, the body's own included
            if spans.tokens[k].text == "{":
                _block(spans, k, macros, code)
        for where in spans.loops(lo + 1, hi):
            code.loops[where.start] = _loop(spans, where, macros)
            if not where.braced:
                _statement(spans, spans.index[where.body_start], macros, code)
    return code


def _block(spans: Spans, k: int, macros: dict[str, str], code: HostCode) -> None:
    """The records of the statements of the block whose `{` is token k (none where it is no block:
    an initializer's braces)."""
    try:
        close = spans.closing(k, "{", "}") - 1
    except Unparsable:
        return
    j = k + 1
    while j < close:
        if spans.tokens[j].text == ";":
            j += 1
            continue
        st = _statement(spans, j, macros, code)
        if st is None:
            return
        j = st.stop


def _statement(spans: Spans, k: int, macros: dict[str, str], code: HostCode) -> StatementFacts | None:
    """The record of the statement starting at token k (kept in `code`), or None when it cannot be
    read (`Unparsable`)."""
    if k in code.statements:
        return code.statements[k]
    toks = spans.tokens
    first = toks[k]
    nxt = toks[k + 1] if k + 1 < len(toks) else None
    if first.kind == TokenKind.WORD and nxt is not None and nxt.text == ":":
        st = StatementFacts(first.start, first.end, k + 1, label=True)
        code.statements[k] = st
        return st
    try:
        nk = spans.statement_end(k)
    except Unparsable:
        return None
    declaration = first.kind == TokenKind.WORD and (first.text in DECL_WORDS or nxt is not None and (
        nxt.kind == TokenKind.WORD or nxt.text == "*" and first.text not in macros
        and k + 2 < nk and toks[k + 2].kind == TokenKind.WORD and k + 3 < nk and toks[k + 3].text in ("=", ";", ",", "[")))
    declared: frozenset[str] = frozenset()
    declarators: set[int] = set()
    facts = None
    try:
        if declaration:
            declared = frozenset(_declared(spans, k, nk))
            declarators = {x - k for x in _pointer_declarators(spans, k, nk)}
        inner: set[int] = set()
        for n in range(k, nk):  # `break` and `continue` of loops and switches inside the statement
            if toks[n].kind == TokenKind.WORD and toks[n].text in ("for", "while", "do", "switch") and n - k not in inner:
                inner.update(range(n + 1 - k, spans.statement_end(n) - k))
        facts = scan(toks[k:nk], macros, inner, declarators)
    except Unparsable:
        pass
    words = [t.text for t in toks[k:nk] if t.kind == TokenKind.WORD]
    returned = None
    if words[:1] == ["return"]:  # its expression, between `return` and `;`
        returned = scan(spans.between(first.start + len("return"), toks[nk - 1].end - 1), macros)
    st = StatementFacts(first.start, toks[nk - 1].end, nk, declaration=declaration, declared=declared, facts=facts,
                        simple=_simple(toks[k:nk]), copy=pointer_copy(spans.text, toks[k:nk], macros),
                        element=element_write(spans.text, toks[k:nk], macros), returned=returned,
                        words=frozenset(words))
    code.statements[k] = st
    return st


def _loop(spans: Spans, where: LoopStatement, macros: dict[str, str]) -> LoopFacts:
    """The record of a loop statement: its clauses' code, the words it calls, whether it takes an address."""
    toks = spans.between(where.start, where.end)
    return LoopFacts(
        where,
        tuple(scan(spans.between(a, b), macros) for a, b in where.clauses),
        tuple(frozenset(spans.words_between(a, b)) for a, b in where.clauses),
        frozenset(t.text for t, nxt in zip(toks, toks[1:]) if nxt.text == "("),
        any(t.text == "&" and address_of(toks, n) for n, t in enumerate(toks)))


def _simple(st: list[Token]) -> Simple | None:
    """`T = A;` or a declaration `double *T = A;`: one step of a rotation of pointers (host_effects.rotations)."""
    if len(st) >= 4 and st[-1].text == ";" and st[-3].text == "=" and st[-2].kind == TokenKind.WORD and \
            st[-4].kind == TokenKind.WORD and (len(st) == 4 or st[-5].text == "*" and st[0].kind == TokenKind.WORD and
                                               all(t.kind == TokenKind.WORD or t.text == "*" for t in st[:-4])):
        return Simple(st[-4].text, st[-2].text, len(st) > 4)
    return None


def scan(gap: list[Token], macros: dict[str, str], inner: set[int] = frozenset(),
         declarators: set[int] = frozenset()) -> CodeFacts:
    """What the host code `gap` (tokens of statements or of an expression, like a loop's condition)
    does, whatever the device arrays: `break` and `continue` at positions `inner` jump within it,
    others leave it; the `*` at positions `declarators` declare pointers."""
    match = match_brackets(gap)
    bounded, loose = True, False
    exits, calls, hiding = [], set(), set()
    reads_unnamed = False
    for n, t in enumerate(gap):
        if t.kind == TokenKind.WORD and t.text in ("break", "continue"):
            if n in inner:
                continue
            if n + 1 >= len(gap) or gap[n + 1].text != ";":
                loose = True
            else:
                exits.append((t.text, t.start, gap[n + 1].end))
        elif t.kind == TokenKind.DIRECTIVE or t.kind == TokenKind.WORD and t.text in JUMPS:
            bounded = False
        if t.kind == TokenKind.WORD and n + 1 < len(gap) and gap[n + 1].text == "(" and t.text not in NOT_CALLS:
            if t.text in PRINT_CALLS:
                fmt = next((x.text for x in gap[n + 2:match.get(n + 1, n + 2)] if x.kind == TokenKind.STRING), "")
                if "%s" in fmt or "%n" in fmt:
                    reads_unnamed = True
            elif t.text not in PURE_FUNCTIONS:
                calls.add(t.text)
        if t.kind == TokenKind.WORD and t.text in macros and _hides(macros[t.text]):
            hiding.add(t.text)
        if t.text == "*" and t.kind == TokenKind.PUNCT and n not in declarators and (_unary(gap, n) or _after_cast(gap, n, match)):
            bounded = False
    chains = []
    n = 0
    while n < len(gap):
        t = gap[n]
        if t.kind != TokenKind.WORD or after_member(gap, n) or (n + 1 < len(gap) and gap[n + 1].text == "("):
            n += 1
            continue
        # a postfix chain: name ( .f | ->f | [..] )*
        path, m, subscripted, member = t.text, n + 1, False, False
        plain_path = True
        while m < len(gap):
            if gap[m].text == "[":
                subscripted = True
                plain_path = False
                m = match.get(m, len(gap) - 1) + 1
            elif gap[m].text == "." and m + 1 < len(gap) and gap[m + 1].kind == TokenKind.WORD:
                member = True
                if plain_path:
                    path += "." + gap[m + 1].text
                m += 2
            elif gap[m].text == "-" and m + 2 < len(gap) and gap[m + 1].text == ">" and \
                    gap[m].end == gap[m + 1].start and gap[m + 2].kind == TokenKind.WORD:
                member = True
                if plain_path:
                    path += "->" + gap[m + 2].text
                m += 3
            else:
                break
        reassigned = _assigned_after(gap, m) or _incremented_before(gap, n)
        named = plain_path and not (n > 0 and gap[n - 1].text in ("&", "*") and _unary(gap, n - 1))
        chains.append(Chain(t.text, path, subscripted, member, named, reassigned or address_of(gap, n - 1), reassigned))
        # on inside the chain's subscripts: they read (and may write) arrays of their own
        # (`keys[fill[b]++] = v` writes `fill`, `x = a[idx[i]]` reads `idx`)
        n = n + 1 if subscripted else m
    return CodeFacts(bounded and not loose, tuple(exits), frozenset(calls), frozenset(hiding), reads_unnamed,
                     tuple(chains))


@lru_cache(maxsize=None)
def _hides(body: str) -> bool:
    """A macro's body may hide an access or a call (lexed once per body, not at every use)."""
    return any(x.text in "[*&(=" or x.text == ">" for x in Spans(body).tokens if x.kind == TokenKind.PUNCT)


def pointer_copy(text: str, st: list[Token], macros: dict[str, str]) -> tuple[tuple[str, bool, int], ...] | None:
    """The statement `st`, if it is `x = y;` (or a declaration `T x = y;`) where x and y are plain
    names or `*p`, at least one of them through a pointer: what it reads and writes, as (name,
    through the pointer `name`, 1 where written), the read first; a declared plain variable, a
    fresh one, is left out. None for any other statement."""
    if len(st) < 4 or st[-1].text != ";" or any(t.kind == TokenKind.WORD and t.text in macros for t in st):
        return None
    eq = [n for n, t in enumerate(st) if t.text == "="]
    if len(eq) != 1:
        return None
    lhs, rhs = st[:eq[0]], st[eq[0] + 1:-1]
    declared = len(lhs) >= 2 and all(t.kind == TokenKind.WORD and t.text not in NOT_CALLS | JUMPS for t in lhs) and \
        lhs[0].text not in ("static", "extern", "typedef")
    if declared:
        lhs = lhs[-1:]
    sides, through = [], False
    for side, writes in ((rhs, 0), (lhs, 1)):
        if len(side) == 1 and side[0].kind == TokenKind.WORD:
            if not (writes and declared):  # a named struct may hold an array a data scope holds
                sides.append((side[0].text, False, writes))
            continue
        if len(side) != 2 or side[0].text != "*" or side[1].kind != TokenKind.WORD:
            return None
        through = True
        sides.append((side[1].text, True, writes))
    return tuple(sides) if through else None


def element_write(text: str, st: list[Token], macros: dict[str, str]) -> tuple[str, GapEffects] | None:
    """The statement `st`, if it writes one element of a named array and nothing else (`x[r % n] +=
    1.0;`, `h[k]++;`): the element's text, and what its subscript and value read (they assign nothing
    and write no memory; `reads` holds the array's name where they read it). None for any other
    statement."""
    if len(st) < 5 or st[0].kind != TokenKind.WORD or st[0].text in macros or st[1].text != "[" or \
            st[-1].text != ";":
        return None
    close = match_brackets(st).get(1)
    if close is None or close + 2 >= len(st) or not _assigned_after(st, close + 1):
        return None
    op, nxt = st[close + 1], st[close + 2]
    joined = op.end == nxt.start
    size = 1 if op.text == "=" else 3 if op.text in "<>" else 2  # =, <<= and >>=, op= and ++
    if op.text in "+-" and joined and nxt.text == op.text and close + 3 != len(st) - 1:
        return None  # `x[i]++ + 1;`
    name, eff = st[0].text, GapEffects(st[0].start, st[-1].end)
    for part in (st[2:close], st[close + 1 + size:-1]):
        if part and not apply_facts(scan(part, macros), {name}, eff):
            return None
    if eff.writes or eff.assigned or eff.exits:
        return None
    return text[st[0].start:st[close].end], eff


def _declared(spans: Spans, k: int, end: int) -> set[str]:
    """Names the declaration at tokens k..end may declare (a superset: outside initializers, every
    word a declarator could end with)."""
    toks, names = spans.tokens, set()
    for a, b in spans.split(k, end):
        initializer = next((x for x in spans.top_level(a, b) if toks[x].text == "="), b)
        names |= {toks[x].text for x in range(a, min(initializer, end - 1))
                  if toks[x].kind == TokenKind.WORD and toks[x + 1].text in ("=", ",", ";", "[", ")")}
    return names


def _pointer_declarators(spans: Spans, k: int, end: int) -> list[int]:
    """The `*` of a declaration (tokens k..end) that begin a declarator after a comma (`const double
    *a = g->u, *b = h->u;`): not dereferences (a `*` after `=`, or inside brackets, still is one)."""
    return [a for a, b in spans.split(k, end)[1:] if a < b and spans.tokens[a].text == "*"]


def _unary(toks: list[Token], n: int) -> bool:
    """The operator at n is a prefix operator (no operand ends right before it)."""
    if n == 0:
        return True
    p = toks[n - 1]
    return not (p.kind in (TokenKind.WORD, TokenKind.NUMBER, TokenKind.STRING) and p.text not in ("return", "sizeof", "case")
                or p.text in (")", "]"))


def address_of(toks: list[Token], n: int) -> bool:
    """Token n is a unary `&` (not half of `&&`)."""
    if n < 0 or toks[n].text != "&" or not _unary(toks, n):
        return False
    return not (n > 0 and toks[n - 1].text == "&" and toks[n - 1].end == toks[n].start)


def _after_cast(toks: list[Token], n: int, match: dict[int, int]) -> bool:
    """`(double)*p`: the `*` follows a parenthesized type (or what may be one)."""
    if n == 0 or toks[n - 1].text != ")":
        return False
    opening = next((o for o, c in match.items() if c == n - 1), None)
    return opening is not None and all(t.kind == TokenKind.WORD or t.text == "*" for t in toks[opening + 1:n - 1])


def _assigned_after(toks: list[Token], m: int) -> bool:
    """An assignment operator or ++/-- follows the operand ending before token m."""
    if m >= len(toks):
        return False
    a = toks[m]
    b = toks[m + 1] if m + 1 < len(toks) else None
    joined = b is not None and a.end == b.start
    if a.text == "=":
        return not (joined and b.text == "=")
    if a.text in ASSIGN_OPS and joined and b.text == "=":
        return True
    if a.text in "+-" and joined and b.text == a.text:
        return True
    if a.text in "<>" and joined and b.text == a.text:
        c = toks[m + 2] if m + 2 < len(toks) else None
        return c is not None and c.text == "=" and b.end == c.start
    return False


def _incremented_before(toks: list[Token], n: int) -> bool:
    return n >= 2 and toks[n - 1].text == toks[n - 2].text and toks[n - 1].text in "+-" and \
        toks[n - 2].end == toks[n - 1].start
