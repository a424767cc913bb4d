"""What host code between offloaded nests may do to the device arrays, read from the frontend's
tokens (`gap_effects`, `GapEffects`): the arrays it may read and write, the names it assigns, its
jumps, exact rotations of array pointers (`t = u; u = v; v = t;`), and the sides of a copy
through pointers (`pointer_copy`: `*cur = *next;`). The CUDA backend's data
placement (backend/cuda_data.py) and call regions (backend/cuda_call_regions.py) decide their
copies from it.

It reads tokens, not the AST, because what it is asked about is a span of text the backend picks
(the code between two nests it offloads, a loop's header clause), named by offsets, and its answer
must cover that text exactly, macros as written included; effects.py's AST analysis of statements
is the one the passes use.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from lifter.analysis.pure_functions import PURE_FUNCTIONS
from lifter.frontend.spans import Spans, Token, TokenKind, Unparsable, after_member, match_brackets


@dataclass
class GapEffects:
    """What host code between two nests may do to the device arrays."""

    start: int
    end: int
    reads: set[str] = field(default_factory=set)  # host names of arrays it may read
    writes: set[str] = field(default_factory=set)
    reads_all: bool = False  # it reads memory through names lift cannot tell apart
    assigned: set[str] = field(default_factory=set)  # names it may assign
    # `break` and `continue` statements of the loop whose body it is in: (keyword, start, end of `;`)
    exits: list[tuple[str, int, int]] = field(default_factory=list)
    # what `reads_all` stands for: plain member paths it reads (`prm->maxit`), and reads lift cannot
    # name at all (subscripts of unknown names, `%s` in a format)
    paths: set[str] = field(default_factory=set)
    reads_unnamed: bool = False
    # exact rotations of device array pointers (`t = u; u = v; v = t;`): (offset just after the last
    # statement, [u, v]: each name gets the next one's pointer, the last the first's)
    swaps: list[tuple[int, list[str]]] = field(default_factory=list)

    @property
    def swapped(self) -> set[str]:
        return {h for _, names in self.swaps for h in names}


PRINT_CALLS = {"printf", "fprintf", "puts", "putchar", "fputs", "fputc", "putc", "fflush"}
NOT_CALLS = {"if", "for", "while", "switch", "sizeof", "return", "_Alignof", "alignof", "__alignof__",
             "typeof", "__typeof__"}
JUMPS = {"return", "goto", "break", "continue", "case", "default", "asm", "__asm__", "__asm"}
DECL_WORDS = {"int", "long", "short", "char", "float", "double", "void", "unsigned", "signed", "const",
              "volatile", "static", "extern", "struct", "union", "enum", "typedef", "register", "auto", "_Bool",
              "bool", "inline", "_Static_assert", "__extension__"}
ASSIGN_OPS = set("+-*/%&|^")


def gap_effects(spans: Spans, start: int, end: int, hosts: set[str], macros: dict[str, str],
                in_loop: bool = False, calls: set[str] = frozenset()) -> GapEffects | None:
    """The effects of the statements between offsets `start` and `end` (host code between two nests)
    on the device arrays `hosts`, or None when a data scope cannot span them. With `in_loop` (host
    code in the body of a loop the scope holds whole) a declaration is host code like any other (the
    loop's braces keep its names visible), its names counted as assigned, and the loop's own `break`
    and `continue` statements are kept in `exits` (the scope puts copies in front of them)."""
    toks = spans.tokens
    starts = [t.start for t in toks]
    i, j = bisect.bisect_left(starts, start), bisect.bisect_left(starts, end)
    gap = toks[i:j]
    eff = GapEffects(start, end)
    if not gap:
        return eff
    # Whole statements of the same block, none of them a label, nor a declaration that the scope's
    # braces would hide.
    k = i
    statements, declarators = [], set()
    try:
        while k < j:
            if toks[k].text == ";":
                k += 1
                continue
            first, nxt = toks[k], toks[k + 1] if k + 1 < j else None
            if first.kind == TokenKind.WORD and nxt is not None and nxt.text == ":":
                return None  # a label
            nk = spans.statement_end(k)
            statements.append((k, nk))
            if first.kind == TokenKind.WORD and (first.text in DECL_WORDS or nxt is not None and (
                    nxt.kind == TokenKind.WORD or nxt.text == "*" and first.text not in macros
                    and k + 2 < j and toks[k + 2].kind == TokenKind.WORD and k + 3 < j and toks[k + 3].text in ("=", ";", ",", "["))):
                if not in_loop:
                    return None
                eff.assigned |= _declared(spans, k, nk)
                declarators |= {x - i for x in _pointer_declarators(spans, k, nk)}
            k = nk
    except Unparsable:
        return None
    if k != j:
        return None
    # `break` and `continue` inside loops and switches of the host code itself jump within it
    inner: set[int] = set()
    try:
        for k in range(i, j):
            if toks[k].kind == TokenKind.WORD and toks[k].text in ("for", "while", "do", "switch") and k - i not in inner:
                inner.update(range(k + 1 - i, spans.statement_end(k) - i))
    except Unparsable:
        return None
    skip: set[int] = set()
    if in_loop:
        for a, b, names, tmp in _rotations(toks, statements, hosts):
            eff.swaps.append((toks[b - 1].end, names))
            eff.assigned.add(tmp)
            skip.update(range(a - i, b - i))
    kept = [n for n in range(len(gap)) if n not in skip]
    renumber = {n: m for m, n in enumerate(kept)}
    if not token_effects([gap[n] for n in kept], hosts, macros, eff, {renumber[n] for n in inner if n in renumber},
                         in_loop, calls, {renumber[n] for n in declarators if n in renumber}):
        return None
    if eff.swaps:
        if eff.exits:
            return None  # a `break` or `continue` before the swap would leave with the arrays' places swapped
        for h in eff.swapped:  # host code touching one name of a rotation is taken to touch all of them
            if h in eff.reads or h in eff.writes:
                eff.reads |= eff.swapped
            if h in eff.writes:
                eff.writes |= eff.swapped
    return eff


def clause_effects(spans: Spans, start: int, end: int, hosts: set[str], macros: dict[str, str],
                   calls: set[str] = frozenset()) -> GapEffects | None:
    """The effects of the expression between offsets `start` and `end` (a loop header's clause) on
    the device arrays `hosts`, or None when they cannot be bounded (`token_effects`)."""
    eff = GapEffects(start, end)
    return eff if token_effects(spans.between(start, end), hosts, macros, eff, calls=calls) else None


def called_by_name(spans: Spans, start: int, end: int, functions: set[str]) -> list[str]:
    """The functions of `functions` that the code between offsets `start` and `end` calls by name
    (`f(`), in alphabetical order."""
    toks = spans.between(start, end)
    return sorted({t.text for t, nxt in zip(toks, toks[1:]) if t.text in functions and nxt.text == "("})


def takes_address(spans: Spans, start: int, end: int) -> bool:
    """The code between offsets `start` and `end` takes an address (a unary `&`)."""
    toks = spans.between(start, end)
    return any(t.text == "&" and address_of(toks, n) for n, t in enumerate(toks))


def _rotations(toks: list[Token], statements: list[tuple[int, int]], hosts: set[str]):
    """Runs of whole statements `T = A1; A1 = A2; ...; An = T;` (the first may declare T: `double *T =
    A1;`) where the A's are distinct device arrays named by plain pointer variables and T is not one:
    yields (first token, end token, [A1, ..., An], T). The data scope swaps the device pointers the
    same way right after them, so each name's device buffer stays the one of the array it points to."""
    simple = []
    for a, b in statements:
        st = toks[a:b]
        if len(st) >= 4 and st[-1].text == ";" and st[-3].text == "=" and st[-2].kind == TokenKind.WORD and \
                st[-4].kind == TokenKind.WORD and (len(st) == 4 or st[-5].text == "*" and st[0].kind == TokenKind.WORD and
                                           all(t.kind == TokenKind.WORD or t.text == "*" for t in st[:-4])):
            simple.append((a, b, st[-4].text, st[-2].text, len(st) > 4))
        else:
            simple.append(None)
    n = 0
    while n < len(simple):
        s0 = simple[n]
        if s0 is None or s0[2] in hosts or s0[3] not in hosts:
            n += 1
            continue
        tmp, names, m = s0[2], [s0[3]], n + 1
        while m < len(simple) and simple[m] is not None and not simple[m][4] and simple[m][2] == names[-1] \
                and simple[m][3] in hosts and simple[m][3] not in names:
            names.append(simple[m][3])
            m += 1
        last = simple[m] if m < len(simple) else None
        if len(names) >= 2 and last is not None and not last[4] and last[2] == names[-1] and last[3] == tmp:
            yield s0[0], last[1], names, tmp
            n = m + 1
        else:
            n += 1


def token_effects(gap: list[Token], hosts: set[str], macros: dict[str, str], eff: GapEffects,
                  inner: set[int] = frozenset(), exits: bool = False, calls: set[str] = frozenset(),
                  declarators: set[int] = frozenset()) -> bool:
    """Add to `eff` what the host code `gap` (tokens of statements or of an expression, like a loop's
    condition) may do to the device arrays `hosts`; False when that cannot be bounded. `break` and
    `continue` at positions `inner` jump within it; others leave it: kept in `eff.exits` if
    `exits`, else it cannot be bounded. Functions `calls` touch no memory the caller must see (their
    data scopes keep it coherent: see regions). The `*` at positions `declarators` declare pointers."""
    match = match_brackets(gap)
    for n, t in enumerate(gap):
        if t.kind == TokenKind.WORD and t.text in ("break", "continue"):
            if n in inner:
                continue
            if not exits or n + 1 >= len(gap) or gap[n + 1].text != ";":
                return False
            eff.exits.append((t.text, t.start, gap[n + 1].end))
        elif t.kind == TokenKind.DIRECTIVE or t.kind == TokenKind.WORD and t.text in JUMPS:
            return False
        if t.kind == TokenKind.WORD and n + 1 < len(gap) and gap[n + 1].text == "(" and t.text not in NOT_CALLS:
            if t.text in PRINT_CALLS:
                fmt = next((x.text for x in gap[n + 2:match.get(n + 1, n + 2)] if x.kind == TokenKind.STRING), "")
                if "%s" in fmt or "%n" in fmt:
                    eff.reads_all = eff.reads_unnamed = True
            elif t.text not in PURE_FUNCTIONS and t.text not in calls:
                return False  # an unknown function may touch anything
        if t.kind == TokenKind.WORD and t.text in macros and t.text not in hosts:
            body = Spans(macros[t.text]).tokens
            if any(x.text in "[*&(=" or x.text == ">" for x in body if x.kind == TokenKind.PUNCT):
                return False  # a macro that may hide an access or a call
        if t.text == "*" and t.kind == TokenKind.PUNCT and n not in declarators and (_unary(gap, n) or _after_cast(gap, n, match)):
            return False  # a dereference of a pointer lift cannot name
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
        written = _assigned_after(gap, m) or _incremented_before(gap, n) or address_of(gap, n - 1)
        host = _host_of(path, hosts)
        if host is not None:
            if host == path and not subscripted and (_assigned_after(gap, m) or _incremented_before(gap, n)):
                return False  # the pointer itself is reassigned: its device buffer would be stale
            eff.reads.add(host)
            if written or host == path and not subscripted:
                eff.writes.add(host)  # the array escapes or is written: conservatively both
        elif subscripted or member:
            if written:
                return False  # a write through a name lift cannot tell apart from the device arrays
            eff.reads_all = True
            if plain_path and not (n > 0 and gap[n - 1].text in ("&", "*") and _unary(gap, n - 1)):
                eff.paths.add(path)
            else:
                eff.reads_unnamed = True
        elif written:
            eff.assigned.add(t.text)
        # on inside the chain's subscripts: they read (and may write) arrays of their own
        # (`keys[fill[b]++] = v` writes `fill`, `x = a[idx[i]]` reads `idx`)
        n = n + 1 if subscripted else m
    return True


def pointer_copy(spans: Spans, start: int, end: int, macros: dict[str, str]) -> list[tuple[str, bool, int]] | None:
    """The statement between offsets `start` and `end`, if it is `x = y;` (or a declaration `T x =
    y;`) where x and y are plain names or `*p`, at least one of them through a pointer: what it reads
    and writes, as (name, through the pointer `name`, 1 where written), the read first; a declared
    plain variable, a fresh one, is left out. None for any other statement."""
    st = spans.between(start, end)
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
    return sides if through else None


def element_write(spans: Spans, start: int, end: int, macros: dict[str, str]) -> tuple[str, GapEffects] | None:
    """The statement between offsets `start` and `end`, if it writes one element of a named array and
    nothing else (`x[r % n] += 1.0;`, `h[k]++;`): the element's text, and what its subscript and
    value read (they assign nothing and write no memory; `reads` holds the array's name where they
    read it). None for any other statement."""
    st = spans.between(start, end)
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
    name, eff = st[0].text, GapEffects(start, end)
    for part in (st[2:close], st[close + 1 + size:-1]):
        if part and not token_effects(part, {name}, macros, eff):
            return None
    if eff.writes or eff.assigned or eff.exits:
        return None
    return spans.text[st[0].start:st[close].end], eff


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


def _host_of(path: str, hosts: set[str]) -> str | None:
    """The device array a postfix chain's base names (`A` for `A[i][j]`, `g->u` for `g->u[i]`)."""
    best = None
    for h in hosts:
        if path == h or path.startswith(h + ".") or path.startswith(h + "->"):
            if best is None or len(h) > len(best):
                best = h
    return best


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
