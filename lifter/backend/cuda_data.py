"""Data placement of the CUDA backend: device buffers and host<->device copies, shared by
consecutive offloaded loop nests of one function and across the iterations of loops around them.

A *data scope* covers one offloaded nest, or several that are statements of the same block
with only host code between them (`group_nests`); a sequential loop (while, do, or a for lift
did not lift) whose body is nests and such host code is one item of a scope, like a nest
(`LoopData`, `_loop_data`), so its arrays stay on the device across its iterations. In a scope
every array the nests touch gets one device buffer (the hull of the rows the nests touch), and
copies follow the data, not the nests (`_Moves`): an array is copied to the device right before
the first nest that needs it (skipped when that nest overwrites every row it moves), stays there
across the following nests, and comes back once, at the end, if a nest wrote it. Host code
between two nests is read conservatively from its tokens (`gap_effects`): every array it may
read is copied back right before it (if a nest made the device copy newer), every array it may
write is copied to the device again before the next nest that uses it; code whose effects cannot
be bounded (calls of unknown functions, writes through pointers lift cannot name, declarations
that a data scope would hide, jumps out of the scope, reassigned array pointers) ends the scope,
so the next nest opens its own; an exact rotation of array pointers in a loop the scope holds
(`t = u; u = v; v = t;`) rotates their device buffers with them instead. A loop decides per array where it is at the top of every
iteration, and puts copies before the loop, at the end of its body and in front of its own
`break` and `continue` so that this holds on every path.

Across calls: a loop outside every scope that calls the file's functions with data scopes is a
*call region* (`find_regions`); while it runs, those functions' scopes keep their buffers in a
run-time table (cuda_prelude.py) instead of copying out and freeing them, and the next call finds
them there; the table says where each range's values are, so those scopes' copies check it.

Every copy goes through LIFT_TO_DEVICE / LIFT_TO_HOST, which count bytes; with -DLIFT_PROFILE
each data scope prints at exit the bytes it moved against the minimum (each array the nests
read copied in once, each array they write copied out once): `lift-bytes: ...`.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from lifter.backend.edits import line_start
from lifter.frontend.spans import Spans, Token, Unparsable
from lifter.graph.nodes import AccessNode


@dataclass
class ArrayUse:
    """One device array of one offloaded nest: which rows it touches, writes and must read."""

    host: str  # the C expression of the array on the host (`A`, `g->u`)
    suffix: str  # of its host-side variables: lift_lo_<suffix>, lift_d_<suffix>, ...
    row: str  # C expression: bytes of one row (`sizeof((A)[0])`)
    node: AccessNode
    lo: str  # first and last row the nest touches (C expressions, evaluated before the scope)
    hi: str
    wlo: str | None = None  # first and last row it writes (None: read only)
    whi: str | None = None
    covers: str | None = None  # no copy in needed: '' always, a C condition, None never
    tracked: bool = False  # the nest keeps lift_dirty_lo/hi_<suffix>: rows newer on the GPU (host code inside)


@dataclass
class NestData:
    """One offloaded nest, everything its data scope needs to know."""

    function: str
    start: int  # span of the nest in the source text
    end: int
    nest: str  # the nest with kernel launches in place of the parallel loops
    arrays: list[ArrayUse]
    condition: str  # the planner's run-time condition, parenthesized ('' when none)
    reduction_slots: int
    kernels: list[str]
    written: set[str]  # names the nest may assign (scalars, loop variables)
    host_only: set[str] = field(default_factory=set)  # arrays only its host code touches ('<...>': unknown)

    def head_words(self) -> set[str]:
        """Names the scope's head evaluates for this nest (row bounds, conditions)."""
        texts = [self.condition] + [x for a in self.arrays for x in (a.lo, a.hi, a.wlo, a.whi, a.covers) if x]
        return {t.text for x in texts for t in Spans(x).tokens if t.kind == "word"}

    def value_words(self) -> set[str]:
        """The head's names whose values matter, not only their addresses: a name the condition uses
        only as `&name[...]` (the planner's overlap checks) is left out. Pointers rotated with their
        device buffers may appear there: rotating them rotates the same set of arrays, which the
        scope's own overlap check (on the hull of all rotated buffers) keeps apart."""
        texts = [x for a in self.arrays for x in (a.lo, a.hi, a.wlo, a.whi, a.covers) if x]
        words = {t.text for x in texts for t in Spans(x).tokens if t.kind == "word"}
        toks = Spans(self.condition).tokens if self.condition else []
        return words | {t.text for n, t in enumerate(toks) if t.kind == "word" and not (
            n > 0 and toks[n - 1].text == "&" and n + 1 < len(toks) and toks[n + 1].text == "[")}


@dataclass
class LoopData:
    """A sequential loop statement (`while`, `do`, or a `for` lift did not lift) whose body is offloaded
    nests and host code a data scope can span: a scope holds it whole, so its arrays stay on the
    device across iterations. To the scope around it, it is one item, like a nest."""

    function: str
    start: int  # span of the loop statement in the source text
    end: int
    kind: str  # 'while', 'for' or 'do'
    before: str  # the text before the body's statements (the header, and `{` when braced)
    after: str  # the text after them (`}`, `} while (c);`; braces are added around a lone statement)
    items: list  # NestData | LoopData, in text order
    gaps: list["GapEffects"]  # host code before, between and after the items (len(items) + 1)
    head: "GapEffects"  # the condition (while, for): evaluated before every iteration
    tail: "GapEffects"  # the increment (for) or the condition (do): after every iteration's body
    assigned: set[str]  # names the loop's header or host code may assign or declare

    @property
    def nests(self) -> list[NestData]:
        return [n for item in self.items for n in (item.nests if isinstance(item, LoopData) else [item])]

    @property
    def arrays(self) -> list[ArrayUse]:
        return [a for n in self.nests for a in n.arrays]

    @property
    def kernels(self) -> list[str]:
        return [k for n in self.nests for k in n.kernels]

    @property
    def written(self) -> set[str]:
        return set(self.assigned).union(*(n.written for n in self.nests))

    @property
    def host_only(self) -> set[str]:
        return set().union(*(n.host_only for n in self.nests))

    def head_words(self) -> set[str]:
        return set().union(*(n.head_words() for n in self.nests))

    def value_words(self) -> set[str]:
        return set().union(*(n.value_words() for n in self.nests))

    @property
    def swapped(self) -> set[str]:
        """Array pointers its host code rotates (the scope rotates their device buffers with them)."""
        return set().union(*(g.swapped for g in self.gaps),
                           *(m.swapped for m in self.items if isinstance(m, LoopData)))


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


# Calls host code between nests may make: they touch no array but through their arguments.
PURE_CALLS = {
    "sqrt", "sqrtf", "cbrt", "fabs", "fabsf", "abs", "labs", "llabs", "exp", "expf", "exp2", "log", "logf",
    "log2", "log10", "pow", "powf", "sin", "cos", "tan", "atan", "atan2", "sinh", "cosh", "tanh", "floor",
    "ceil", "round", "trunc", "fmod", "fmin", "fmax", "fma", "hypot", "erf", "lround", "rint", "copysign",
    "isnan", "isinf", "isfinite",
}
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
            if first.kind == "word" and nxt is not None and nxt.text == ":":
                return None  # a label
            nk = spans.statement_end(k)
            statements.append((k, nk))
            if first.kind == "word" and (first.text in DECL_WORDS or nxt is not None and (
                    nxt.kind == "word" or nxt.text == "*" and first.text not in macros
                    and k + 2 < j and toks[k + 2].kind == "word" and k + 3 < j and toks[k + 3].text in ("=", ";", ",", "["))):
                if not in_loop:
                    return None
                eff.assigned |= _declared(toks[k:nk])
                declarators |= {x - i for x in _pointer_declarators(toks, k, nk)}
            k = nk
    except Unparsable:
        return None
    if k != j:
        return None
    # `break` and `continue` inside loops and switches of the host code itself jump within it
    inner: set[int] = set()
    try:
        for k in range(i, j):
            if toks[k].kind == "word" and toks[k].text in ("for", "while", "do", "switch") and k - i not in inner:
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


def _rotations(toks: list[Token], statements: list[tuple[int, int]], hosts: set[str]):
    """Runs of whole statements `T = A1; A1 = A2; ...; An = T;` (the first may declare T: `double *T =
    A1;`) where the A's are distinct device arrays named by plain pointer variables and T is not one:
    yields (first token, end token, [A1, ..., An], T). The data scope swaps the device pointers the
    same way right after them, so each name's device buffer stays the one of the array it points to."""
    simple = []
    for a, b in statements:
        st = toks[a:b]
        if len(st) >= 4 and st[-1].text == ";" and st[-3].text == "=" and st[-2].kind == "word" and \
                st[-4].kind == "word" and (len(st) == 4 or st[-5].text == "*" and st[0].kind == "word" and
                                           all(t.kind == "word" or t.text == "*" for t in st[:-4])):
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
    match = _brackets(gap)
    for n, t in enumerate(gap):
        if t.kind == "word" and t.text in ("break", "continue"):
            if n in inner:
                continue
            if not exits or n + 1 >= len(gap) or gap[n + 1].text != ";":
                return False
            eff.exits.append((t.text, t.start, gap[n + 1].end))
        elif t.kind == "directive" or t.kind == "word" and t.text in JUMPS:
            return False
        if t.kind == "word" and n + 1 < len(gap) and gap[n + 1].text == "(" and t.text not in NOT_CALLS:
            if t.text in PRINT_CALLS:
                fmt = next((x.text for x in gap[n + 2:match.get(n + 1, n + 2)] if x.kind == "string"), "")
                if "%s" in fmt or "%n" in fmt:
                    eff.reads_all = eff.reads_unnamed = True
            elif t.text not in PURE_CALLS and t.text not in calls:
                return False  # an unknown function may touch anything
        if t.kind == "word" and t.text in macros and t.text not in hosts:
            body = Spans(macros[t.text]).tokens
            if any(x.text in "[*&(=" or x.text == ">" for x in body if x.kind == "punct"):
                return False  # a macro that may hide an access or a call
        if t.text == "*" and t.kind == "punct" and n not in declarators and (_unary(gap, n) or _after_cast(gap, n, match)):
            return False  # a dereference of a pointer lift cannot name
    n = 0
    while n < len(gap):
        t = gap[n]
        if t.kind != "word" or _after_member(gap, n) or (n + 1 < len(gap) and gap[n + 1].text == "("):
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
            elif gap[m].text == "." and m + 1 < len(gap) and gap[m + 1].kind == "word":
                member = True
                if plain_path:
                    path += "." + gap[m + 1].text
                m += 2
            elif gap[m].text == "-" and m + 2 < len(gap) and gap[m + 1].text == ">" and \
                    gap[m].end == gap[m + 1].start and gap[m + 2].kind == "word":
                member = True
                if plain_path:
                    path += "->" + gap[m + 2].text
                m += 3
            else:
                break
        written = _assigned_after(gap, m) or _incremented_before(gap, n) or _address_of(gap, n - 1)
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
        n = m
    return True


def _declared(decl: list[Token]) -> set[str]:
    """Names a declaration may declare (a superset: outside initializers, every word a declarator
    could end with)."""
    names, depth, initializer = set(), 0, False
    for t, u in zip(decl, decl[1:]):
        if t.kind == "punct" and t.text in "([{":
            depth += 1
        elif t.kind == "punct" and t.text in ")]}":
            depth -= 1
        elif depth == 0 and t.text in ("=", ","):
            initializer = t.text == "="
        elif t.kind == "word" and not initializer and u.text in ("=", ",", ";", "[", ")"):
            names.add(t.text)
    return names


def _pointer_declarators(toks: list[Token], k: int, end: int) -> list[int]:
    """The `*` of a declaration (tokens k..end) that begin a declarator after a comma (`const double
    *a = g->u, *b = h->u;`): not dereferences (a `*` after `=`, or inside brackets, still is one)."""
    depth, out = 0, []
    for x in range(k, end):
        t = toks[x]
        if t.kind == "punct" and t.text in "([{":
            depth += 1
        elif t.kind == "punct" and t.text in ")]}":
            depth -= 1
        elif depth == 0 and t.text == "*" and x > k and toks[x - 1].text == ",":
            out.append(x)
    return out


def _host_of(path: str, hosts: set[str]) -> str | None:
    """The device array a postfix chain's base names (`A` for `A[i][j]`, `g->u` for `g->u[i]`)."""
    best = None
    for h in hosts:
        if path == h or path.startswith(h + ".") or path.startswith(h + "->"):
            if best is None or len(h) > len(best):
                best = h
    return best


def _brackets(toks: list[Token]) -> dict[int, int]:
    stack, match = [], {}
    for n, t in enumerate(toks):
        if t.kind == "punct" and t.text in "([{":
            stack.append(n)
        elif t.kind == "punct" and t.text in ")]}" and stack:
            match[stack.pop()] = n
    return match


def _unary(toks: list[Token], n: int) -> bool:
    """The operator at n is a prefix operator (no operand ends right before it)."""
    if n == 0:
        return True
    p = toks[n - 1]
    return not (p.kind in ("word", "number", "string") and p.text not in ("return", "sizeof", "case")
                or p.text in (")", "]"))


def _address_of(toks: list[Token], n: int) -> bool:
    """Token n is a unary `&` (not half of `&&`)."""
    if n < 0 or toks[n].text != "&" or not _unary(toks, n):
        return False
    return not (n > 0 and toks[n - 1].text == "&" and toks[n - 1].end == toks[n].start)


def _after_cast(toks: list[Token], n: int, match: dict[int, int]) -> bool:
    """`(double)*p`: the `*` follows a parenthesized type (or what may be one)."""
    if n == 0 or toks[n - 1].text != ")":
        return False
    opening = next((o for o, c in match.items() if c == n - 1), None)
    return opening is not None and all(t.kind == "word" or t.text == "*" for t in toks[opening + 1:n - 1])


def _after_member(toks: list[Token], n: int) -> bool:
    if n == 0:
        return False
    p = toks[n - 1]
    return p.text == "." or p.text == ">" and n >= 2 and toks[n - 2].text == "-" and toks[n - 2].end == p.start


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


# --------------------------------------------------------------------------------------
# Which nests share a data scope.


def group_nests(spans: Spans, text: str, nests: list[NestData], macros: dict[str, str],
                barriers: list[int]) -> list[tuple[list, list[GapEffects]]]:
    """Consecutive nests of one function (in text order) with host code between them that a data
    scope can span, as (nests, gaps between them); a loop statement whose body is such nests and
    host code is one item (`LoopData`) of it. `barriers` are offsets of nests lift did not
    offload (with a remark in front): a scope never spans one."""
    groups: list[tuple[list, list[GapEffects]]] = []
    for nest in _loops(spans, text, sorted(nests, key=lambda x: x.start), macros, barriers):
        if groups:
            members, gaps = groups[-1]
            prev = members[-1]
            eff = None
            if prev.function == nest.function and not any(prev.end <= b < nest.start for b in barriers):
                hosts = {a.host for m in members + [nest] for a in m.arrays}
                eff = gap_effects(spans, prev.end, nest.start, hosts, macros)
            if eff is not None and _can_join(members, gaps + [eff], nest):
                members.append(nest)
                gaps.append(eff)
                continue
        groups.append(([nest], []))
    return groups


@dataclass
class _LoopTokens:
    """Where a loop statement's parts are, as token indices."""

    kind: str
    keyword: int
    paren: int  # the header's `(`
    close: int  # just after its `)`
    body: int  # the body's first token (after `{` when braced)
    body_end: int  # the body's `}` when braced, else just after its statement
    end: int  # just after the statement
    braced: bool


def _loops(spans: Spans, text: str, items: list, macros: dict[str, str], barriers: list[int]) -> list:
    """`items` (nests in text order) where every loop statement whose body a data scope can hold
    whole (`_loop_data`) replaces the items in it, innermost loops first."""
    starts = [t.start for t in spans.tokens]
    tried: set[int] = set()
    while True:
        for item in items:
            where = _enclosing_loop(spans, starts, item.start, item.end)
            if where is None or where.keyword in tried:
                continue
            tried.add(where.keyword)
            loop = _loop_data(spans, text, where, items, macros, barriers)
            if loop is not None:  # an outer loop refused before it may now be held
                tried.clear()
                items = sorted([x for x in items if not (loop.start <= x.start and x.end <= loop.end)] + [loop],
                               key=lambda x: x.start)
                break
        else:
            return items


def _enclosing_loop(spans: Spans, starts: list[int], start: int, end: int) -> _LoopTokens | None:
    """The `while`, `do` or `for` statement whose body holds the statement at [start, end) directly."""
    toks = spans.tokens
    i = bisect.bisect_left(starts, start)
    if not 0 < i < len(toks) or toks[i].start != start:
        return None
    try:
        p = i - 1
        if toks[p].text in (")", "do"):  # the statement is the whole body
            body, body_end, braced = i, spans.statement_end(i), False
            if toks[body_end - 1].end != end:
                return None
        else:  # the innermost block around it
            depth, o = 0, p
            while o >= 0 and not (toks[o].text == "{" and depth == 0):
                depth += {"}": 1, "{": -1}.get(toks[o].text, 0) if toks[o].kind == "punct" else 0
                o -= 1
            if o < 1:
                return None
            body, body_end, braced, p = o + 1, spans._match(o, "{", "}") - 1, True, o - 1
        after = body_end + 1 if braced else body_end
        if toks[p].text == "do":
            spans._expect(after, "while")
            spans._expect(after + 1, "(")
            close = spans._match(after + 1, "(", ")")
            spans._expect(close, ";")
            return _LoopTokens("do", p, after + 1, close, body, body_end, close + 1, braced)
        if toks[p].text != ")":
            return None
        depth, q = 0, p
        while q >= 0:
            depth += {")": 1, "(": -1}.get(toks[q].text, 0) if toks[q].kind == "punct" else 0
            if depth == 0:
                break
            q -= 1
        if q < 1 or toks[q - 1].text not in ("while", "for"):
            return None
        return _LoopTokens(toks[q - 1].text, q - 1, q, p + 1, body, body_end, after, braced)
    except Unparsable:
        return None


def _loop_data(spans: Spans, text: str, where: _LoopTokens, items: list, macros: dict[str, str],
               barriers: list[int]) -> LoopData | None:
    """The loop at `where` as one item of a data scope, or None when a scope cannot hold it whole:
    host code in it that cannot be bounded (calls of unknown functions, jumps other than the loop's own
    `break` and `continue`: `return` would leave the scope past its copies out), a header that writes
    device arrays, nests
    whose row bounds or conditions (evaluated once, before the loop) the loop may change, or host
    code inside a nest (its run-time row tracking is not carried across iterations)."""
    toks = spans.tokens
    start, end = toks[where.keyword].start, toks[where.end - 1].end
    lo = toks[where.body - 1].end if where.braced else toks[where.body].start
    hi = toks[where.body_end].start if where.braced else toks[where.body_end - 1].end
    members = [x for x in items if lo <= x.start and x.end <= hi]
    if not members or any(m.function != members[0].function for m in members) or \
            any(lo <= b < hi for b in barriers):
        return None
    nests = [n for m in members for n in (m.nests if isinstance(m, LoopData) else [m])]
    if any(a.tracked for n in nests for a in n.arrays):
        return None
    hosts = {a.host for n in nests for a in n.arrays}
    gaps, prev = [], lo
    for m in members + [None]:
        gap = gap_effects(spans, prev, m.start if m else hi, hosts, macros, in_loop=True)
        if gap is None:
            return None
        gaps.append(gap)
        prev = m.end if m else hi
    header = toks[where.paren + 1:where.close - 1]
    parts = [[]]
    depth = 0
    for t in header:
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(t.text, 0) if t.kind == "punct" else 0
        if t.text == ";" and depth == 0:
            parts.append([])
        else:
            parts[-1].append(t)
    if where.kind == "for" and len(parts) != 3 or where.kind != "for" and len(parts) != 1:
        return None
    effects = []
    for part in parts:
        eff = GapEffects(start, start)
        if not token_effects(part, hosts, macros, eff) or eff.writes:
            return None
        effects.append(eff)
    if where.kind == "for":
        init, head, tail = effects
        if init.reads or init.reads_all:
            return None  # its copies back could not go between it and the loop
    else:
        init, head, tail = GapEffects(start, start), effects[0], GapEffects(start, start)
        if where.kind == "do":
            head, tail = tail, head
    assigned = set().union(init.assigned, head.assigned, tail.assigned, *(g.assigned for g in gaps),
                           *(m.assigned for m in members if isinstance(m, LoopData)))
    changed = assigned.union(*(n.written for n in nests))
    words = set().union(*(n.head_words() | {w for a in n.arrays for w in _words(a.host)} for n in nests))
    host_only = set().union(*(n.host_only for n in nests))
    if words & changed or any(h.startswith("<") for h in host_only) or host_only & hosts:
        return None
    swapped = set().union(*(g.swapped for g in gaps), *(m.swapped for m in members if isinstance(m, LoopData)))
    if swapped & set().union(*(n.value_words() for n in nests)):
        return None  # a row bound or condition, evaluated once before the loop, reads a rotated pointer
    before, after = text[start:lo], text[hi:end]
    if not where.braced:  # the copies at the end of the body need braces
        before, after = before.rstrip() + " {", "}" + after
    return LoopData(members[0].function, start, end, where.kind, before, after, members, gaps, head, tail, assigned)


def _can_join(members: list[NestData], gaps: list[GapEffects], nest: NestData) -> bool:
    """The scope's head is evaluated before its first nest: what the nest's row bounds and condition
    use must not change before it runs, nor the pointers of the arrays it touches."""
    changed = set().union(*(m.written for m in members), *(g.assigned for g in gaps))
    words = nest.head_words() | {w for a in nest.arrays for w in _words(a.host)}
    earlier = {w for m in members for a in m.arrays for w in _words(a.host)}
    # Host code inside a nest sees the host's copy of the arrays it touches that the nest's own
    # buffers do not cover: no other nest of the scope may hold them on the device.
    host_only = set().union(nest.host_only, *(m.host_only for m in members))
    devices = {a.host for m in members + [nest] for a in m.arrays}
    if any(h.startswith("<") for h in host_only) or host_only & devices:
        return False
    swapped = set().union(*(m.swapped for m in members if isinstance(m, LoopData)))
    if swapped & nest.value_words():
        return False
    return not (words & changed) and not (earlier & nest.written)


def _words(text: str) -> set[str]:
    return {t.text for t in Spans(text).tokens if t.kind == "word"}


# --------------------------------------------------------------------------------------
# The text of a data scope.


@dataclass
class _Buffer:
    host: str
    suffix: str
    row: str
    node: AccessNode
    uses: list[tuple[int, ArrayUse]] = field(default_factory=list)
    # the pointers it is rotated with (host code swaps them): all hold the hull of all their rows, and
    # count as written (after a rotation any of them may hold rows a nest wrote through another name)
    rotated: list[str] = field(default_factory=list)

    @property
    def written(self) -> bool:
        return bool(self.rotated) or any(u.wlo is not None for _, u in self.uses)

    def covers(self, use: ArrayUse) -> str | None:
        """When the nest of `use` overwrites everything it moves, no copy in is needed before it:
        '' always, a C condition, None never. The buffer holds the hull of all nests' rows: with
        several nests, only when the hull is this nest's rows (checked at run time)."""
        if self.rotated:
            return None
        if use.covers is None or len(self.uses) == 1:
            return use.covers
        s = self.suffix
        same = f"lift_lo_{s} == ({use.lo}) && lift_lo_{s}_end == ({use.hi})"
        return f"{use.covers} && {same}" if use.covers else same


def emit_scope(text: str, items: list, gaps: list[GapEffects], indent: str, present: bool = False) -> str:
    """The replacement of the text from the first item's start to the last item's end (items: nests
    and loops, `gaps`: the host code between them). With `present` (a scope of a function that
    regions call) the buffers may be entries of the run-time table (cuda_prelude.py): where their
    values are is then known at run time only, so every copy checks it (and keeps it up to date)."""
    i1, i2 = indent + "    ", indent + "        "
    nests = flat_nests(items)
    buffers: dict[str, _Buffer] = {}
    for k, nest in enumerate(nests):
        for a in nest.arrays:
            b = buffers.setdefault(a.host, _Buffer(a.host, a.suffix, a.row, a.node))
            b.uses.append((k, a))
    for group in _rotation_groups(items, gaps):
        for h in group:
            buffers[h].rotated = group
    head, sizes = [], []
    for b in buffers.values():
        if b.rotated:
            same = [buffers[h] for h in b.rotated]
            head += _hull(b.suffix, "lo", "rows", [(u.lo, u.hi) for x in same for _, u in x.uses])
            s = b.suffix
            head.append(f"const long lift_olo_{s} = lift_lo_{s}, lift_orows_{s} = lift_rows_{s};")
            if b is not same[0]:
                sizes.append(f"{same[0].row} == {b.row}")
            continue
        head += _hull(b.suffix, "lo", "rows", [(u.lo, u.hi) for _, u in b.uses])
        if b.written:
            head += _hull(b.suffix, "olo", "orows", [(u.wlo, u.whi) for _, u in b.uses if u.wlo is not None])
    spans = {h: (f"(const char *)({h}) + lift_lo_{b.suffix} * {b.row}",
                 f"(const char *)({h}) + (lift_lo_{b.suffix} + lift_rows_{b.suffix}) * {b.row}")
             for h, b in buffers.items()}
    conds = []
    for n in nests:
        if n.condition and n.condition not in conds:
            conds.append(n.condition)
    cond = " && ".join(conds + sizes + [x for x in [_alias_condition(list(buffers.values()), spans)] if x])

    body = ["LIFT_BYTES_START;"]
    for b in buffers.values():
        s = b.suffix
        body.append(f"char *lift_r_{s} = 0;")
        if present:
            body.append(f"lift_present_entry *lift_e_{s} = 0;")
            body.append(f"int lift_own_at_{s}, *lift_at_{s} = 0;")
            body.append(f"LIFT_CHECK(lift_present_acquire(&lift_r_{s}, (const char *)({b.host}) + lift_lo_{s} * {b.row}, "
                        f"(size_t)lift_rows_{s} * {b.row}, &lift_e_{s}, &lift_own_at_{s}, &lift_at_{s}));")
        else:
            body.append(f"LIFT_CHECK(lift_malloc(&lift_r_{s}, (size_t)lift_imax(1L, lift_rows_{s}) * {b.row}));")
        body.append(f"char *lift_d_{s} = lift_r_{s} - lift_lo_{s} * (long){b.row};")
    for b in buffers.values():
        uses = [u for _, u in b.uses]
        tracked = [i for i, u in enumerate(uses) if u.tracked]
        if not tracked:
            continue
        s = b.suffix
        if any(u.wlo is not None and not u.tracked for u in uses[:tracked[-1]]):
            # A nest without tracking writes it before one with: its rows are not counted, so all count.
            body.append(f"long lift_dirty_lo_{s} = lift_lo_{s}, lift_dirty_hi_{s} = lift_lo_{s} + lift_rows_{s} - 1; "
                        "/* earlier nests wrote it: any row may be newer on the GPU */")
        else:
            body.append(f"long lift_dirty_lo_{s} = 0, lift_dirty_hi_{s} = -1; /* none newer on the GPU */")
    slots = max(n.reduction_slots for n in nests)
    if slots:
        body.append("char *lift_dred = 0;")
        body.append(f"LIFT_CHECK(lift_malloc(&lift_dred, 16 * {slots}));")
    moves = _Moves(text, buffers, emit=True, present=present)
    state = moves.sequence(items, [None] + gaps + [None], {h: UNKNOWN if present else HOST for h in buffers}, 1,
                           body)
    for h, b in buffers.items():
        if state[h] == DEVICE and not present:
            body.append(_to_host(b))
            moves.moved_out.append(h)
    # the minimum: an input unless the scope's first use of it is a nest that overwrites it
    first = {h: next((b.covers(next(a for a in it.arrays if a.host == h)) if isinstance(it, NestData) else None
                      for it in items if any(a.host == h for a in it.arrays)), None)
             for h, b in buffers.items()}
    min_in = " + ".join(f"(size_t)lift_rows_{b.suffix} * {b.row}" if first[h] is None else
                        f"(({first[h]}) ? (size_t)0 : (size_t)lift_rows_{b.suffix} * {b.row})"
                        for h, b in buffers.items() if first[h] != "") or "(size_t)0"
    min_out = " + ".join(f"(size_t)lift_orows_{b.suffix} * {b.row}" for b in buffers.values() if b.written) \
        or "(size_t)0"
    site = " ".join(x for n in nests for x in n.kernels)
    body.append(f'LIFT_BYTES("{site}", lift_bytes_in, lift_bytes_out, {min_in}, {min_out});')
    for b in buffers.values():
        s, free = b.suffix, f"LIFT_CHECK(lift_free(lift_r_{b.suffix}, (size_t)lift_imax(1L, lift_rows_{b.suffix}) * {b.row}));"
        if not present:
            body.append(free)
            continue
        free = f"LIFT_CHECK(lift_free(lift_r_{s}, lift_rows_{s} > 0 ? (size_t)lift_rows_{s} * {b.row} : (size_t)1));"
        # an entry keeps the values (the next call, or the region's end, moves them); an own buffer
        # copies out what the device made newer
        out = f"if (*lift_at_{s} == LIFT_AT_DEVICE) {_to_host(b)} " if b.written else ""
        body.append(f"if (lift_e_{s}) lift_e_{s}->busy--; else {{ {out}{free} }}")
        if b.written:
            moves.moved_out.append(f"{b.host} (unless kept for the next call)")
    if slots:
        body.append(f"LIFT_CHECK(lift_free(lift_dred, 16 * {slots}));")
    body.append("LIFT_CHECK(cudaDeviceSynchronize());")

    what = f"in: {', '.join(_once(moves.moved_in)) or 'nothing'}; out: {', '.join(_once(moves.moved_out)) or 'nothing'}"
    if moves.synced:
        what += f"; back to the host for host code: {', '.join(_once(moves.synced))}"
    loops = sum(isinstance(it, LoopData) for it in items)
    shared = f"{len(nests)} loop nests share their device data" if len(nests) > 1 else "loop nest offloaded to the GPU"
    if loops:
        shared += ", kept on the device across the iterations of the loop around them"
    lines = [f"{{ /* lift: {shared} ({', '.join(site.split())}); copies {comment_text(what)} */"]
    lines += [i1 + x for x in head]
    inner = i2 if cond else i1
    if cond:
        lines.append(f"{i1}if ({cond}) {{")
    lines += [reindent(x, inner) for x in body]
    if cond:
        lines.append(f"{i1}}} else {{ /* too little work, or the arrays overlap: the original code, on the host */")
        if present:
            lines.append(f"{i2}lift_present_host(0, 0, 1); /* device data kept across calls comes back first */")
        lines.append(i2 + text[items[0].start:items[-1].end])
        lines.append(f"{i1}}}")
    lines.append(indent + "}")
    return "\n".join(lines)


def _rotation_groups(items: list, gaps: list) -> list[list[str]]:
    """The sets of array pointers host code in the scope's loops rotates among themselves (a name
    in two rotations joins their sets), each sorted."""
    rotations = [names for it in items if isinstance(it, LoopData) for g in _all_gaps(it) for _, names in g.swaps]
    rotations += [names for g in gaps if g is not None for _, names in g.swaps]
    groups: list[set[str]] = []
    for names in rotations:
        joined = set(names).union(*(g for g in groups if g & set(names)))
        groups = [g for g in groups if not g & joined] + [joined]
    return [sorted(g) for g in groups]


def _all_gaps(loop: LoopData) -> list[GapEffects]:
    return loop.gaps + [g for it in loop.items if isinstance(it, LoopData) for g in _all_gaps(it)]


def flat_nests(items: list) -> list[NestData]:
    return [n for it in items for n in (it.nests if isinstance(it, LoopData) else [it])]


def _once(names: list[str]) -> list[str]:
    return list(dict.fromkeys(names))


# Where an array's current values are, at a point of a data scope (known when the code is emitted):
HOST = "host"  # on the host only (the device copy is stale, or was never made)
BOTH = "both"  # on both (the host's and the device's copies are equal)
UNKNOWN = "unknown"  # known at run time only (a buffer that may be an entry of the table of a region)
DEVICE = "device"  # on the device; the host's copy may be older
# A claim may be weakened without moving data where it is true: BOTH holds where HOST or DEVICE is
# claimed (a copy back, or in, of equal data is merely wasted). Any other change is one copy.
LOOP_WEIGHT = 1000  # a copy in a loop's body counts as this many copies around it


def _copies(frm: str, to: str) -> int:
    return 0 if frm == to and frm != UNKNOWN or frm == BOTH else 1


class _Moves:
    """Walks a data scope's items in program order, keeping for every array where its current values
    are, and emits the copies host code and nests need: a nest needs its arrays on the device (copied
    in unless it overwrites every row the buffer holds), host code needs on the host the arrays it
    may read or write, and what it writes is then on the host only. Copies are counted (weighted by
    the loops around them), which lets a loop choose where its arrays are at the top of every
    iteration (`loop`)."""

    def __init__(self, text: str, buffers: dict[str, "_Buffer"], emit: bool, present: bool = False):
        self.text, self.buffers, self.emit, self.present = text, buffers, emit, present
        self.cost = {h: 0 for h in buffers}
        self.moved_in: list[str] = []
        self.moved_out: list[str] = []
        self.synced: list[str] = []
        # per loop being emitted, innermost last: where `break` and `continue` must leave the arrays
        self.targets: list[dict[str, dict[str, str]]] = []

    def sequence(self, items: list, gaps: list, state: dict[str, str], weight: int, out: list[str]) -> dict[str, str]:
        """Host code gaps[0], items[0], gaps[1], ...; gaps[k] is None where there is no host code."""
        state = dict(state)
        for k, item in enumerate(items + [None]):
            if gaps[k] is not None:
                self.gap(gaps[k], state, weight, out)
            if isinstance(item, LoopData):
                self.loop(item, state, weight, out)
            elif item is not None:
                self.nest(item, state, weight, out)
        return state

    def move(self, h: str, frm: str, to: str, weight: int, out: list[str], covers: str | None = None) -> str:
        """Makes the claim `to` true where `frm` is (with a copy, unless it can be weakened to it)."""
        if _copies(frm, to) == 0:
            return to
        b = self.buffers[h]
        if self.present:  # copies that check where the values are (and say where they are now)
            self.cost[h] += weight
            s = b.suffix
            if frm in (HOST, UNKNOWN) and to != HOST:
                copy = f"LIFT_PRESENT_IN(lift_e_{s}, lift_at_{s}, {_to_device(b)[:-1]});"
                if covers is not None:  # an own buffer the nest overwrites needs no copy; an entry moves whole
                    copy = f"if (lift_e_{s}{f' || !({covers})' if covers else ''}) {copy}"
                out.append(copy)
                self.moved_in.append(h)
            if frm in (DEVICE, UNKNOWN) and to != DEVICE:
                out.append(f"LIFT_PRESENT_OUT(lift_e_{s}, lift_at_{s}, {_to_host(b)[:-1]});")
                self.synced.append(h)
            return to
        if frm == DEVICE:
            self.cost[h] += weight
            out.append(_to_host(b))
            self.synced.append(h)
        elif covers is None:
            self.cost[h] += weight
            out.append(_to_device(b))
            self.moved_in.append(h)
        elif covers:
            self.cost[h] += weight
            out += [f"if (!({covers})) /* unless every element is overwritten */", "    " + _to_device(b)]
            self.moved_in.append(f"{h} (unless overwritten)")
        return to

    def nest(self, nest: NestData, state: dict[str, str], weight: int, out: list[str]) -> None:
        for a in nest.arrays:
            if state[a.host] in (HOST, UNKNOWN):
                state[a.host] = self.move(a.host, state[a.host], DEVICE if state[a.host] == UNKNOWN else BOTH,
                                          weight, out, self.buffers[a.host].covers(a))
        out.append(nest.nest)
        for a in nest.arrays:
            if a.wlo is not None:
                state[a.host] = DEVICE
                if self.present:
                    out.append(f"*lift_at_{a.suffix} = LIFT_AT_DEVICE;")

    def gap(self, gap: GapEffects, state: dict[str, str], weight: int, out: list[str]) -> None:
        back = [h for h in self.buffers if state[h] in (DEVICE, UNKNOWN) and _touches(gap, h)]
        if back:
            out.append(f"/* lift: the host code below may read {', '.join(back)}: back to the host first */")
        for h in back:
            state[h] = self.move(h, state[h], BOTH if state[h] == DEVICE else HOST, weight, out)
        swaps = []
        for at, names in gap.swaps:  # the device pointers (and where the values are) rotate with the host's
            moved = [state[h] for h in names]
            for h, frm in zip(names, moved[1:] + moved[:1]):
                state[h] = frm
            swaps.append((at, at, " " + _rotate(names, [b.suffix for b in map(self.buffers.get, names)],
                                                self.present)))
        for h in gap.writes:
            if h in state:
                state[h] = HOST  # copied again before the next nest that uses it
        if self.present:  # said before it runs: its own `break` and `continue` leave with it said
            out += [f"*lift_at_{self.buffers[h].suffix} = LIFT_AT_HOST;" for h in sorted(gap.writes) if h in state]
        # `break` and `continue` leave with the arrays where the code they jump to expects them (the
        # state after the whole host code holds anywhere in it: what it reads is on the host)
        jumps = []
        for kind, start, end in gap.exits if self.emit else []:
            copies: list[str] = []
            for h, to in self.targets[-1][kind].items():
                self.move(h, state[h], to, weight, copies)
            if copies:
                jumps.append((start, end, "{ " + " ".join(copies + [f"{kind};"]) + " }"))
        piece = _gap_text(self.text, gap, jumps + swaps)
        if piece:
            out.append(piece)

    def loop(self, loop: LoopData, state: dict[str, str], weight: int, out: list[str]) -> None:
        """The state at the top of every iteration is chosen per array, among the three, for the
        fewest copies in the body (then before the loop): copies before the loop make it true on
        entry, copies at the end of the body make it true again for the next iteration. The loop's
        condition sees the host's copies (it must be able to read them): where it reads an array,
        that array is not on the device only at the top (while, for) or after the body (do)."""
        inner = weight * LOOP_WEIGHT
        keys: dict[str, dict[str, tuple]] = {h: {} for h in state}
        for top in (BOTH, DEVICE, HOST):
            sim = _Moves(self.text, self.buffers, emit=False)
            end = sim.sequence(loop.items, loop.gaps, {h: top for h in state}, inner, [])
            for h in state:
                if top == DEVICE and _touches(loop.head, h):
                    continue
                back = _back_edge(end[h], top, loop.tail, h)
                keys[h][top] = (sim.cost[h] + _copies(end[h], back) * inner, _copies(state[h], top))
        # pointers rotated among themselves trade places: they take the same place at the top
        top = {}
        for h in state:
            group = self.buffers[h].rotated or [h]
            choices = [t for t in (BOTH, DEVICE, HOST) if all(t in keys[g] for g in group)]
            top[h] = min(choices, key=lambda t: tuple(map(sum, zip(*(keys[g][t] for g in group)))))
        if any(_copies(state[h], top[h]) for h in state):
            out.append("/* lift: where the loop below expects its arrays at the top of every iteration */")
        for h in state:
            state[h] = self.move(h, state[h], top[h], weight, out)
        end = _Moves(self.text, self.buffers, emit=False).sequence(loop.items, loop.gaps, top, inner, [])
        tail = {h: _back_edge(end[h], top[h], loop.tail, h) for h in state}
        self.targets.append({"continue": tail, "break": tail if loop.kind == "do" else top})
        body: list[str] = []
        self.sequence(loop.items, loop.gaps, top, inner, body)
        self.targets.pop()
        if any(_copies(end[h], tail[h]) for h in state):
            body.append("/* lift: back where the next iteration expects them */")
        for h in state:
            self.move(h, end[h], tail[h], inner, body)
        out.append("\n".join([loop.before.rstrip()] + [reindent(x, "    ") for x in body] +
                             [loop.after.lstrip(" \t")]))
        state.update(tail if loop.kind == "do" else top)


def _rotate(names: list[str], suffixes: list[str], present: bool) -> str:
    """C statements doing to the device-side variables of `names` what `t = n0; n0 = n1; ...; nk = t;`
    did to the host pointers."""
    kinds = [("char *", "r"), ("char *", "d")] + ([("lift_present_entry *", "e"), ("int *", "at")] if present else [])
    out = []
    for ctype, v in kinds:
        chain = [f"lift_{v}_{s}" for s in suffixes]
        steps = [f"{a} = {b};" for a, b in zip(chain, chain[1:])]
        out.append(f"{{ {ctype}lift_t = {chain[0]}; {' '.join(steps)} {chain[-1]} = lift_t; }}")
    return f"/* lift: the device buffers rotate with them */ {' '.join(out)}"


def _back_edge(end: str, top: str, tail: GapEffects, h: str) -> str:
    """Where array h must be at the end of a loop's body: `top`, or BOTH where the increment (for) or
    the condition (do) after the body reads it on the host, or where that needs fewer copies."""
    if top == DEVICE and _touches(tail, h):
        return BOTH
    return top if _copies(end, top) <= _copies(end, BOTH) else BOTH


def _touches(gap: GapEffects, h: str) -> bool:
    return gap.reads_all or h in gap.reads or h in gap.writes


def _hull(s: str, lo: str, rows: str, ranges: list[tuple[str, str]]) -> list[str]:
    """Head lines defining lift_<lo>_<s> and lift_<rows>_<s>: the rows of one range, or the hull of the
    non-empty ones among several."""
    if len(ranges) == 1:
        a, b = ranges[0]
        return [f"const long lift_{lo}_{s} = {a}, lift_{rows}_{s} = lift_imax(0L, ({b}) - lift_{lo}_{s} + 1L);"]
    lines = [f"long lift_{lo}_{s} = 0, lift_{lo}_{s}_end = -1; /* the hull of the nests' rows */"]
    lines += [f"lift_hull(&lift_{lo}_{s}, &lift_{lo}_{s}_end, {a}, {b});" for a, b in ranges]
    lines.append(f"const long lift_{rows}_{s} = lift_imax(0L, lift_{lo}_{s}_end - lift_{lo}_{s} + 1L);")
    return lines


def _to_device(b: _Buffer) -> str:
    s, h = b.suffix, b.host
    return (f"LIFT_TO_DEVICE(lift_r_{s}, (const char *)({h}) + lift_lo_{s} * {b.row}, "
            f"(size_t)lift_rows_{s} * {b.row});")


def _to_host(b: _Buffer) -> str:
    """The copy back of the rows the scope writes (of all it holds where it writes none: only an
    entry of the table, which another scope may have written, can then be newer on the device)."""
    s, h = b.suffix, b.host
    lo, rows = ("olo", "orows") if b.written else ("lo", "rows")
    return (f"LIFT_TO_HOST((char *)({h}) + lift_{lo}_{s} * {b.row}, lift_d_{s} + lift_{lo}_{s} * {b.row}, "
            f"(size_t)lift_{rows}_{s} * {b.row});")


def _gap_text(text: str, gap: GapEffects, edits: list[tuple[int, int, str]] = ()) -> str:
    piece = text[gap.start:gap.end]
    for start, end, new in sorted(edits, reverse=True):
        piece = piece[:start - gap.start] + new + piece[end - gap.start:]
    piece = piece.strip("\n")
    lines = piece.split("\n")
    rest = [l for l in lines if l.strip()]
    common = min((len(l) - len(l.lstrip(" \t")) for l in rest), default=0)
    return "\n".join(l[common:] if l.strip() else "" for l in lines).strip("\n")


def _alias_condition(buffers: list[_Buffer], spans: dict[str, tuple[str, str]]) -> str:
    """Run-time check that device arrays reached through pointers do not overlap where one is written
    (each gets its own buffer: overlapping ones would see stale copies)."""
    checks = []
    for i, a in enumerate(buffers):
        for b in buffers[i + 1:]:
            if not (a.written or b.written):
                continue
            if not (_may_alias(a.node) or _may_alias(b.node)):
                continue
            if a.node.restrict or b.node.restrict:
                continue
            if a.node.kind == "array" and b.node.kind == "array":
                continue  # two objects of their own
            if any(x.kind == "array" and x.storage == "local" for x in (a.node, b.node)):
                continue  # a local array is not reached through a pointer parameter
            (plo, phi), (qlo, qhi) = spans[a.host], spans[b.host]
            checks.append(f"({phi} <= {qlo} || {qhi} <= {plo})")
    return " && ".join(checks)


def _may_alias(node: AccessNode) -> bool:
    return node.kind in ("pointer", "memory") or node.storage == "param"


def comment_text(text: str) -> str:
    return text.replace("*/", "* /")


def reindent(text: str, indent: str) -> str:
    lines = text.split("\n")
    return "\n".join([indent + lines[0].lstrip() if lines[0].strip() else lines[0]] +
                     [(indent + l if l.strip() else l) for l in lines[1:]])


# --------------------------------------------------------------------------------------
# Call regions: loops that call the file's functions with data scopes keep the device data of those
# calls (cuda_prelude.py's table) from one call to the next, until the loop ends.


@dataclass
class CallRegion:
    """A loop statement (outside every data scope) whose body calls functions that keep their data
    in the table while it runs (`calls`). Host code in it that may read memory gets the table's newer
    device values back first (`edits` put the calls that do it before its statements, or around
    its header's expressions); it writes no memory but named scalars (else no region)."""

    function: str
    start: int
    end: int
    calls: list[str]
    edits: list[tuple[int, int, str]]  # within [start, end): the syncs


def aware_functions(spans: Spans, bodies: dict[str, tuple[int, int]], scopes: dict[str, list[tuple[int, int]]],
                    trusted: dict[str, bool], macros: dict[str, str]) -> dict[str, list[tuple[int, int, str]]]:
    """Functions whose data scopes may keep their data in the table: every statement of the body
    outside the scopes writes no memory but named variables and calls no unknown function; one that
    reads memory (`g->u`, `src->nx`: the table may hold those bytes on the device) gets the table's
    newer values of it back first. Returns function -> those syncs (edits to make where regions
    call it). `bodies`: function -> ('{', '}') token indices; `scopes`: function -> data scope
    spans; `trusted`: function -> its scopes may be entries (no host code inside nests, not called
    from GPU code)."""
    toks = spans.tokens
    aware: dict[str, list[tuple[int, int, str]]] = {}
    for name, spans_ in scopes.items():
        if name not in bodies or not trusted.get(name):
            continue
        try:
            items = spans.block_items(toks[bodies[name][0]].start)
        except Unparsable:
            continue
        clean, edits = True, []
        for a, b in items:
            if any(s <= a and b <= e for s, e in spans_):
                continue
            if any(a < e and s < b for s, e in spans_):
                clean = False  # a statement holding a scope
                break
            eff = GapEffects(a, b)
            k = bisect.bisect_left([t.start for t in toks], a)
            if toks[k].text == "return":
                expr = [t for t in toks[k + 1:] if t.start < b][:-1]
                ok = token_effects(expr, set(), macros, eff)
            else:
                got = gap_effects(spans, a, b, set(), macros, in_loop=True)
                ok, eff = got is not None, got or eff
            if not ok or eff.reads or eff.writes or eff.exits:
                clean = False
                break
            if eff.reads_all:
                indent = spans.text[line_start(spans.text, a):a]
                edits.append((a, a, f"{_sync(eff)}; /* lift: device data kept across calls comes back first */\n"
                                    f"{indent if not indent.strip() else ''}"))
        if clean:
            aware[name] = edits
    return aware


def find_regions(spans: Spans, text: str, function: str, body: tuple[int, int], aware: set[str],
                 macros: dict[str, str], occupied: list[tuple[int, int]]) -> list[CallRegion]:
    """The outermost loops of a function body (token indices of '{' and '}') that can be regions:
    they call an `aware` function, hold no data scope or other edited text (`occupied`), and every
    statement and header part in them is host code whose memory effects can be bounded: reads (the
    table's newer values come back before them), no writes but of named scalars, no jumps out (a
    `return` would skip the region's end; the loop's own `break` and `continue` do not)."""
    toks = spans.tokens
    starts = [t.start for t in toks]
    regions: list[CallRegion] = []
    tails: set[int] = set()  # the `while` of do statements
    k = body[0] + 1
    while k < body[1]:
        t = toks[k]
        if t.kind == "word" and t.text in ("while", "for", "do") and k not in tails:
            try:
                end = spans.statement_end(k)
                if t.text == "do":
                    tails.add(spans.statement_end(k + 1))
            except Unparsable:
                k += 1
                continue
            region = _region(spans, text, function, k, end, aware, macros, occupied, starts)
            if region is not None:
                regions.append(region)
                k = end
                continue
        k += 1
    return regions


def _region(spans: Spans, text: str, function: str, k: int, end: int, aware: set[str], macros: dict[str, str],
            occupied: list[tuple[int, int]], starts: list[int]) -> CallRegion | None:
    toks = spans.tokens
    start, stop = toks[k].start, toks[end - 1].end
    if any(a < stop and start < b for a, b in occupied):
        return None
    words = {t.text for t in toks[k:end] if t.kind == "word"}
    called = sorted(w for w in aware & words
                    if any(toks[j].text == w and toks[j + 1].text == "(" for j in range(k, end - 1)))
    if not called:
        return None
    inside = toks[k:end]
    if any(x.text == "&" and _address_of(inside, n) for n, x in enumerate(inside)):
        return None  # an address taken may reach a callee's device data behind a plain name
    kind = toks[k].text
    try:
        if kind == "do":
            body_end = spans.statement_end(k + 1)
            paren, close = body_end + 1, spans._match(body_end + 1, "(", ")")
            body = (k + 1, body_end)
        else:
            paren, close = k + 1, spans._match(k + 1, "(", ")")
            body = (close, end)
    except Unparsable:
        return None
    edits: list[tuple[int, int, str]] = []
    # the header: each part evaluated by the loop; what it reads comes back first
    parts, depth, part = [], 0, [paren + 1]
    for j in range(paren + 1, close - 1):
        x = toks[j]
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(x.text, 0) if x.kind == "punct" else 0
        if x.text == ";" and depth == 0:
            parts.append((part[0], j))
            part = [j + 1]
    parts.append((part[0], close - 1))
    for n, (a, b) in enumerate(parts):
        eff = GapEffects(start, start)
        if not token_effects(toks[a:b], set(), macros, eff, calls=aware):
            return None
        if eff.reads_all:
            if any(toks[j].text in aware for j in range(a, b)):
                return None
            sync = _sync(eff)
            if kind == "for" and n == 0:
                return None  # the initialization runs once, before the loop: keep it simple
            lo, hi = toks[a].start, toks[b - 1].end
            edits.append((lo, hi, f"({sync}, ({text[lo:hi]}))"))
    # the body: its statements, one by one
    b0, b1 = body
    braced = toks[b0].text == "{"
    try:
        items = spans.block_items(toks[b0].start) if braced else [(toks[b0].start, toks[b1 - 1].end)]
    except Unparsable:
        return None
    for a, b in items:
        eff = gap_effects(spans, a, b, set(), macros, in_loop=True, calls=aware)
        if eff is None:
            sync = _pointed_copy(toks[bisect.bisect_left(starts, a):bisect.bisect_left(starts, b)], macros)
            if sync is None:
                return None
            edits.append((a, a, f"{sync}; /* lift: the bytes it copies through pointers, back from the device first */ "
                          if braced else "{ " + sync + "; "))
            if not braced:
                edits.append((b, b, " }"))
            continue
        if eff.reads_all:
            j = bisect.bisect_left(starts, a)
            if any(toks[x].text in aware for x in range(j, bisect.bisect_left(starts, b))):
                return None  # the calls could leave on the device what the statement reads
            sync = _sync(eff) + ";"
            if braced:
                indent = text[line_start(text, a):a]
                edits.append((a, a, f"{sync} /* lift: device data kept across calls comes back first */\n"
                                    f"{indent if not indent.strip() else ''}"))
            else:
                edits.append((a, a, "{ " + sync + " "))
                edits.append((b, b, " }"))
    return CallRegion(function, start, stop, called, edits)


def _pointed_copy(st: list[Token], macros: dict[str, str]) -> str | None:
    """A statement `x = y;` (or a declaration `T x = y;`) where x and y are plain names or `*p`, at
    least one of them through a pointer (heat2d_app's swap of two grid structs: `tmp = *cur; *cur =
    *next; *next = tmp;`): the syncs with the table that make it safe (the bytes it reads come back
    from the device first, and the bytes it writes are marked newer on the host), else None. It
    copies only the bytes `*p` spans: a struct of pointers moves no array a data scope holds."""
    if len(st) < 4 or st[-1].text != ";" or any(t.kind == "word" and t.text in macros for t in st):
        return None
    eq = [n for n, t in enumerate(st) if t.text == "="]
    if len(eq) != 1:
        return None
    lhs, rhs = st[:eq[0]], st[eq[0] + 1:-1]
    declared = len(lhs) >= 2 and all(t.kind == "word" and t.text not in NOT_CALLS | JUMPS for t in lhs) and \
        lhs[0].text not in ("static", "extern", "typedef")
    if declared:
        lhs = lhs[-1:]  # a declaration of a plain variable: a fresh one, in no table entry
    syncs, through = [], False
    for side, writes in ((rhs, 0), (lhs, 1)):
        if len(side) == 1 and side[0].kind == "word":
            if not (writes and declared):  # a named struct may hold an array a data scope holds
                syncs.append(f"lift_present_host(&({side[0].text}), sizeof({side[0].text}), {writes})")
            continue
        if len(side) != 2 or side[0].text != "*" or side[1].kind != "word":
            return None
        p, through = side[1].text, True
        syncs.append(f"lift_present_host({p}, sizeof(*{p}), {writes})")
    return ", ".join(syncs) if through else None


def _sync(eff: GapEffects) -> str:
    """What host code that reads memory (`eff`) needs first: the table's newer values of it."""
    if eff.reads_unnamed or not eff.paths:
        return "lift_present_host(0, 0, 0)"
    return ", ".join(f"lift_present_host(&({p}), sizeof({p}), 0)" for p in sorted(eff.paths))


def emit_region(text: str, region: CallRegion, mark: str, indent: str) -> str:
    """The loop of `region` with its syncs, between the region's begin and end."""
    piece = text[region.start:region.end]
    for a, b, new in sorted(region.edits, reverse=True):
        piece = piece[:a - region.start] + new + piece[b - region.start:]
    site = f"region_{region.function}_L{text.count(chr(10), 0, region.start) + 1}"
    return "\n".join([
        f"{{ /* lift: the calls of {', '.join(region.calls)} in this loop keep their device data from one call "
        "to the next */",
        f"{indent}    const lift_region_mark {mark} = lift_region_begin();",
        f"{indent}    " + "\n".join([piece.split("\n")[0]] + ["    " + x if x.strip() else x
                                                               for x in piece.split("\n")[1:]]),
        f'{indent}    lift_region_end({mark}, "{site}");',
        f"{indent}}}"])
