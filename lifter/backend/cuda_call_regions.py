"""Call regions of the CUDA backend: loops that call the file's functions with data scopes keep the
device data of those calls (cuda_prelude.py's table) from one call to the next, until the loop ends
(`find_regions`, `emit_region`; the data scopes themselves are cuda_data.py's).
"""
from __future__ import annotations

from dataclasses import dataclass

from lifter.analysis.host_effects import GapEffects, HostCode, LoopFacts, StatementFacts, clause_effects, gap_effects
from lifter.backend.edits import line_start
from lifter.frontend.spans import LoopKind


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


def aware_functions(code: HostCode, text: str, bodies: dict[str, tuple[int, int]],
                    scopes: dict[str, list[tuple[int, int]]],
                    trusted: dict[str, bool]) -> dict[str, list[tuple[int, int, str]]]:
    """Functions whose data scopes may keep their data in the table: every statement of the body
    outside the scopes writes no memory but named variables and calls no unknown function; one that
    reads memory (`g->u`, `src->nx`: the table may hold those bytes on the device) gets the table's
    newer values of it back first. Returns function -> those syncs (edits to make where regions
    call it). `bodies`: function -> offsets of its body's '{' and '}'; `scopes`: function -> data scope
    spans; `trusted`: function -> its scopes may be entries (no host code inside nests, not called
    from GPU code)."""
    aware: dict[str, list[tuple[int, int, str]]] = {}
    for name, spans_ in scopes.items():
        if name not in bodies or not trusted.get(name):
            continue
        items = code.items(bodies[name][0] + 1, bodies[name][1])
        if items is None:
            continue
        clean, edits = True, []
        for st in items:
            a, b = st.start, st.end
            if any(s <= a and b <= e for s, e in spans_):
                continue
            if any(a < e and s < b for s, e in spans_):
                clean = False  # a statement holding a scope
                break
            if st.returned is not None:  # its expression, between `return` and `;`
                eff = clause_effects(st.returned, set(), start=a + len("return"), end=b - 1)
            else:
                eff = gap_effects(code, a, b, set(), in_loop=True)
            if eff is None or eff.reads or eff.writes or eff.exits:
                clean = False
                break
            if eff.reads_all:
                indent = text[line_start(text, a):a]
                edits.append((a, a, f"{_sync(eff)}; /* lift: device data kept across calls comes back first */\n"
                                    f"{indent if not indent.strip() else ''}"))
        if clean:
            aware[name] = edits
    return aware


def find_regions(code: HostCode, text: str, function: str, body: tuple[int, int], aware: set[str],
                 occupied: list[tuple[int, int]]) -> list[CallRegion]:
    """The outermost loops of a function body (offsets of its '{' and '}') that can be regions:
    they call an `aware` function, hold no data scope or other edited text (`occupied`), and every
    statement and header part in them is host code whose memory effects can be bounded: reads (the
    table's newer values come back before them), no writes but of named scalars, no jumps out (a
    `return` would skip the region's end; the loop's own `break` and `continue` do not)."""
    regions: list[CallRegion] = []
    last = -1  # the end of the last region: the loops inside it are in it
    for loop in code.loops_between(body[0] + 1, body[1]):
        where = loop.where
        if where.start < last:
            continue
        region = _region(code, text, function, loop, aware, occupied)
        if region is not None:
            regions.append(region)
            last = where.end
    return regions


def _region(code: HostCode, text: str, function: str, loop: LoopFacts, aware: set[str],
            occupied: list[tuple[int, int]]) -> CallRegion | None:
    where = loop.where
    start, stop = where.start, where.end
    if any(a < stop and start < b for a, b in occupied):
        return None
    called = sorted(loop.called & aware)
    if not called:
        return None
    if loop.takes_address:
        return None  # an address taken may reach a callee's device data behind a plain name
    edits: list[tuple[int, int, str]] = []
    # the header: each part evaluated by the loop; what it reads comes back first
    for n, (lo, hi) in enumerate(where.clauses):
        eff = clause_effects(loop.clauses[n], set(), aware, lo, hi)
        if eff is None:
            return None
        if eff.reads_all:
            if aware & loop.clause_words[n]:
                return None
            sync = _sync(eff)
            if where.kind == LoopKind.FOR and n == 0:
                return None  # the initialization runs once, before the loop: keep it simple
            edits.append((lo, hi, f"({sync}, ({text[lo:hi]}))"))
    # the body: its statements, one by one
    braced = where.braced
    items = code.items(where.body_start, where.body_end)
    if items is None or not braced and len(items) != 1:
        return None
    for st in items:
        a, b = st.start, st.end
        eff = gap_effects(code, a, b, set(), in_loop=True, calls=aware)
        if eff is None:
            sync = _pointed_copy(st)
            if sync is not None:
                edits.append((a, a, f"{sync}; /* lift: the bytes it copies through pointers, back from the device "
                                    "first */ " if braced else "{ " + sync + "; "))
                if not braced:
                    edits.append((b, b, " }"))
                continue
            element = _element_syncs(st, aware)
            if element is None:
                return None
            before, after = element
            indent = text[line_start(text, a):a] if braced else ""
            edits.append((a, a, f"{before}; /* lift: an element written between calls: the device copy gets it too */\n"
                                f"{indent if not indent.strip() else ''}" if braced else "{ " + before + "; "))
            edits.append((b, b, f"\n{indent if not indent.strip() else ''}{after};" if braced else f" {after}; }}"))
            continue
        if eff.reads_all:
            if aware & st.words:
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


def _pointed_copy(st: StatementFacts) -> str | None:
    """The syncs with the table that make a copy through pointers safe (`host_code.pointer_copy`,
    heat2d_app's swap of two grid structs: `tmp = *cur; *cur = *next; *next = tmp;`): the bytes it
    reads come back from the device first, and the bytes it writes are marked newer on the host;
    None for any other statement. It copies only the bytes `*p` spans: a struct of pointers moves
    no array a data scope holds."""
    sides = st.copy
    if sides is None:
        return None
    return ", ".join(f"lift_present_host({name}, sizeof(*{name}), {writes})" if through else
                     f"lift_present_host(&({name}), sizeof({name}), {writes})" for name, through, writes in sides)


def _element_syncs(st: StatementFacts, aware: set[str]) -> tuple[str, str] | None:
    """The syncs with the table around a statement that writes one element of a named array
    (`host_code.element_write`): before it, what it reads and the element come back from the
    device; after it, the element goes to the device copy that holds it (`lift_present_wrote`)."""
    found = st.element
    if found is None or aware & st.words:
        return None
    element, eff = found
    reads = [] if not (eff.reads or eff.reads_all) else \
        ["lift_present_host(0, 0, 0)" if eff.reads else _sync(eff)]  # (other elements of the array: all)
    where = f"&({element}), sizeof({element})"
    return ", ".join(reads + [f"lift_present_host({where}, 0)"]), f"lift_present_wrote({where})"


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
