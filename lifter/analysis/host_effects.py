"""What host code between offloaded nests may do to the device arrays (`gap_effects`, `GapEffects`):
the arrays it may read and write, the names it assigns, its jumps, exact rotations of array
pointers (`t = u; u = v; v = t;`), and the sides of a copy through pointers (`*cur = *next;`). The
CUDA backend's data placement (backend/cuda_data.py) and call regions
(backend/cuda_call_regions.py) decide their copies from it.

The answers come from typed records of the file's host code (`HostCode`), made from the tokens
before the backend runs (host_code.py, a pass of the CUDA pipeline) and kept on the graphs
(`NestAttributes.host_code`): a record says what a statement or a loop's clause does whatever
arrays end up on the device, and which arrays those are is the backend's question, answered here
from the records alone.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from lifter.frontend.spans import LoopStatement


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


@dataclass(frozen=True)
class Chain:
    """A postfix chain the code reads or writes: `name ( .f | ->f | [..] )*`."""

    word: str  # its first name
    path: str  # the name with the members before the first subscript (`g->u` of `g->u[i].x`)
    subscripted: bool
    member: bool
    named: bool  # the path names what it reads (no subscript, not behind a unary `&` or `*`)
    written: bool  # assigned, incremented or its address taken
    reassigned: bool  # assigned or incremented (the pointer itself, where the chain is a plain name)


@dataclass(frozen=True)
class CodeFacts:
    """What a piece of host code (statements, or an expression) does, whatever the device arrays."""

    bounded: bool  # False: its effects cannot be bounded at all (jumps, directives, unnamed dereferences)
    exits: tuple[tuple[str, int, int], ...]  # `break` and `continue` that leave it: (keyword, start, end of `;`)
    calls: frozenset[str]  # the functions it calls that are neither pure nor printing
    hiding: frozenset[str]  # macros it uses that may hide an access or a call
    reads_unnamed: bool  # a print with `%s` or `%n`: reads memory lift cannot name
    chains: tuple[Chain, ...]


@dataclass(frozen=True)
class Simple:
    """`T = A;` (or `double *T = A;`, `declares`): a step of a rotation of pointers."""

    target: str
    value: str
    declares: bool


@dataclass(frozen=True)
class StatementFacts:
    """One statement of a block, from its first token to the one after its end (`stop`)."""

    start: int  # offsets
    end: int
    stop: int  # the token index after it
    label: bool = False  # `name:` (then nothing else is known)
    declaration: bool = False
    declared: frozenset[str] = frozenset()  # the names it may declare
    facts: CodeFacts | None = None  # None: it cannot be read
    simple: Simple | None = None
    copy: tuple[tuple[str, bool, int], ...] | None = None  # host_code.pointer_copy
    element: tuple[str, GapEffects] | None = None  # host_code.element_write
    returned: CodeFacts | None = None  # a `return`'s expression
    words: frozenset[str] = frozenset()


@dataclass(frozen=True)
class LoopFacts:
    """One loop statement: where it is, its header clauses' code and words, what it calls by name
    (any word before `(`), whether it takes an address (a unary `&`)."""

    where: LoopStatement
    clauses: tuple[CodeFacts, ...]
    clause_words: tuple[frozenset[str], ...]
    called: frozenset[str]
    takes_address: bool


@dataclass
class HostCode:
    """The records of a file's host code: its statements by first token, its loops by offset."""

    starts: list[int]  # every token's offset
    empty: frozenset[int]  # the tokens that are `;`
    statements: dict[int, StatementFacts] = field(default_factory=dict)
    loops: dict[int, LoopFacts] = field(default_factory=dict)
    known: bool = True  # False: no records were made (every question about host code gets None)

    @classmethod
    def unknown(cls) -> HostCode:
        """No records: no data scope spans host code, no loop is a call region."""
        return cls([], frozenset(), known=False)

    def items(self, start: int, end: int) -> list[StatementFacts] | None:
        """The statements that make up the text between offsets `start` and `end` (empty statements
        left out), or None when it is not a run of whole statements with records."""
        if not self.known:
            return None
        i, j = bisect.bisect_left(self.starts, start), bisect.bisect_left(self.starts, end)
        out, k = [], i
        while k < j:
            if k in self.empty:
                k += 1
                continue
            st = self.statements.get(k)
            if st is None:
                return None
            out.append(st)
            k = st.stop
        return out if k == j else None

    def loops_between(self, start: int, end: int) -> list[LoopFacts]:
        """The loops whose keyword lies between offsets `start` and `end`, nested ones too, in text order."""
        return [self.loops[k] for k in sorted(self.loops) if start <= k < end]


def gap_effects(code: HostCode, start: int, end: int, hosts: set[str], in_loop: bool = False,
                calls: set[str] = frozenset()) -> GapEffects | None:
    """The effects of the statements between offsets `start` and `end` (host code between two nests)
    on the device arrays `hosts`, or None when a data scope cannot span them: they are not whole
    statements of one block, one is a label, or a declaration that the scope's braces would hide.
    With `in_loop` (host code in the body of a loop the scope holds whole) a declaration is host
    code like any other (the loop's braces keep its names visible), its names counted as assigned,
    and the loop's own `break` and `continue` statements are kept in `exits` (the scope puts copies
    in front of them). Functions `calls` touch no memory the caller must see (their data scopes keep
    it coherent: see cuda_call_regions.py)."""
    items = code.items(start, end)
    if items is None:
        return None
    eff = GapEffects(start, end)
    for st in items:
        if st.label:
            return None
        if st.declaration:
            if not in_loop:
                return None
            eff.assigned |= st.declared
    if any(st.facts is None for st in items):
        return None
    skip: set[int] = set()
    if in_loop:
        for a, b, names, tmp in _rotations(items, hosts):
            eff.swaps.append((items[b - 1].end, names))
            eff.assigned.add(tmp)
            skip.update(range(a, b))
    for n, st in enumerate(items):
        if n not in skip and not apply_facts(st.facts, hosts, eff, in_loop, calls):
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


def clause_effects(facts: CodeFacts | None, hosts: set[str], calls: set[str] = frozenset(),
                   start: int = 0, end: int = 0) -> GapEffects | None:
    """The effects of an expression (a loop header's clause, a `return`'s value, at offsets `start`
    to `end`) on the device arrays `hosts`, or None when they cannot be bounded."""
    eff = GapEffects(start, end)
    return eff if facts is not None and apply_facts(facts, hosts, eff, calls=calls) else None


def _rotations(statements: list[StatementFacts], hosts: set[str]):
    """Runs of whole statements `T = A1; A1 = A2; ...; An = T;` (the first may declare T: `double *T =
    A1;`) where the A's are distinct device arrays named by plain pointer variables and T is not one:
    yields (first statement, end statement, [A1, ..., An], T). The data scope swaps the device
    pointers the same way right after them, so each name's device buffer stays the one of the array
    it points to."""
    simple = [st.simple for st in statements]
    n = 0
    while n < len(simple):
        s0 = simple[n]
        if s0 is None or s0.target in hosts or s0.value not in hosts:
            n += 1
            continue
        tmp, names, m = s0.target, [s0.value], n + 1
        while m < len(simple) and simple[m] is not None and not simple[m].declares \
                and simple[m].target == names[-1] and simple[m].value in hosts and simple[m].value not in names:
            names.append(simple[m].value)
            m += 1
        last = simple[m] if m < len(simple) else None
        if len(names) >= 2 and last is not None and not last.declares and last.target == names[-1] and last.value == tmp:
            yield n, m + 1, names, tmp
            n = m + 1
        else:
            n += 1


def apply_facts(facts: CodeFacts, hosts: set[str], eff: GapEffects, exits: bool = False,
                calls: set[str] = frozenset()) -> bool:
    """Add to `eff` what the code of `facts` may do to the device arrays `hosts`; False when that
    cannot be bounded. Its `break` and `continue` are kept in `eff.exits` if `exits`, else it cannot
    be bounded; functions `calls` touch no memory the caller must see."""
    if not facts.bounded or facts.exits and not exits or facts.calls - set(calls) or facts.hiding - hosts:
        return False
    eff.exits.extend(facts.exits)
    if facts.reads_unnamed:
        eff.reads_all = eff.reads_unnamed = True
    for c in facts.chains:
        host = _host_of(c.path, hosts)
        if host is not None:
            if host == c.path and not c.subscripted and c.reassigned:
                return False  # the pointer itself is reassigned: its device buffer would be stale
            eff.reads.add(host)
            if c.written or host == c.path and not c.subscripted:
                eff.writes.add(host)  # the array escapes or is written: conservatively both
        elif c.subscripted or c.member:
            if c.written:
                return False  # a write through a name lift cannot tell apart from the device arrays
            eff.reads_all = True
            if c.named:
                eff.paths.add(c.path)
            else:
                eff.reads_unnamed = True
        elif c.written:
            eff.assigned.add(c.word)
    return True


def _host_of(path: str, hosts: set[str]) -> str | None:
    """The device array a postfix chain's base names (`A` for `A[i][j]`, `g->u` for `g->u[i]`)."""
    best = None
    for h in hosts:
        if path == h or path.startswith(h + ".") or path.startswith(h + "->"):
            if best is None or len(h) > len(best):
                best = h
    return best
