"""Which scalars a region's code still needs after it has run.

Privatizing a scalar or a loop variable leaves its value after the loop
unspecified, which is only safe when nothing reads that value. This is a
textual, conservative approximation over the paths control can take from the
end of the region: on to the end of the innermost enclosing loop's body, then
either round that loop again (from its top to the region) or out of it, and so
on outwards to the end of the function. A path stops being a worry at an
assignment that does not read the name and runs whenever the region has run
(every `if` branch, loop body or `&&`/`||` operand around it also holds the
region); it is a read if it meets a use first, or a jump (`break`, `continue`,
`goto`) that may skip such an assignment.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from pycparser import c_ast

from lifter.analysis.model import Kind
from lifter.analysis.symbols import FunctionSymbols
from lifter.frontend.walk import walk

Position = tuple[int, int]
USE, KILL, JUMP = "use", "kill", "jump"


@dataclass(frozen=True)
class _Event:
    kind: str  # USE, KILL or JUMP
    branches: tuple[int, ...]  # ids of the code parts (branches, loop bodies) it may not run with
    target: int | None = None  # a jump's loop or switch (None: goto, anywhere)


@dataclass(frozen=True)
class _Jump:
    position: Position
    goto: bool  # may land anywhere (a break or continue only leaves a loop around the region)


def _position(node) -> Position:
    return node.coord.line, node.coord.column or 0


def _span(node) -> tuple[Position, Position]:
    lo = hi = _position(node)
    for n in walk(node):
        if n.coord is not None and n.coord.file == node.coord.file:
            lo, hi = min(lo, _position(n)), max(hi, _position(n))
    return lo, (hi[0], 10**9)


def _conditional_parts(node) -> list:
    """The children of `node` that may not run when `node` runs."""
    if isinstance(node, c_ast.If):
        return [node.iftrue, node.iffalse]
    if isinstance(node, c_ast.For):
        return [node.next, node.stmt]
    if isinstance(node, (c_ast.While, c_ast.Switch)):
        return [node.stmt]
    if isinstance(node, c_ast.TernaryOp):
        return [node.iftrue, node.iffalse]
    if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
        return [node.right]
    return []


class Liveness:
    """The name references of one function, indexed once, so that asking about each of its
    regions costs a few binary searches per name instead of a walk over the whole function
    (which made functions with many loops quadratic)."""

    def __init__(self, func: c_ast.FuncDef, symbols: FunctionSymbols):
        self.symbols = symbols
        self.spans: dict[int, tuple[Position, Position]] = {}
        self.by_name: dict[str, tuple[list[Position], list[_Event]]] = {}
        self.jumps: tuple[list[Position], list[_Event]] = ([], [])
        self.places: dict[int, tuple[tuple[int, ...], frozenset[int]]] = {}  # loop -> (branches, loops around)
        self._index(func.body)

    def _index(self, body) -> None:
        """Record every reference and jump with the branches it sits in (no recursion: deep
        nests must not overflow)."""
        events: list[tuple[Position, str | None, _Event]] = []
        stack = [(body, (), ())]  # node, branches around it, loops and switches around it (innermost last)
        while stack:
            n, branches, loops = stack.pop()
            if n is None:
                continue
            if isinstance(n, (c_ast.For, c_ast.While, c_ast.DoWhile)):
                self.places[id(n)] = (branches, frozenset(loop_id for loop_id, _ in loops))
            if isinstance(n, c_ast.Assignment) and n.op == "=" and isinstance(n.lvalue, c_ast.ID):
                name = n.lvalue.name
                reads_itself = any(isinstance(m, c_ast.ID) and m.name == name for m in walk(n.rvalue))
                events.append((_position(n.lvalue), name, _Event(USE if reads_itself else KILL, branches)))
                stack.append((n.rvalue, branches, loops))
                continue
            if isinstance(n, c_ast.Decl) and n.name and n.coord is not None:
                events.append((_position(n), n.name, _Event(KILL, branches)))
                stack.append((n.init, branches, loops))
                continue
            if isinstance(n, c_ast.ID) and n.coord is not None:
                events.append((_position(n), n.name, _Event(USE, branches)))
            elif isinstance(n, (c_ast.Break, c_ast.Continue, c_ast.Goto)) and n.coord is not None:
                target = None
                if not isinstance(n, c_ast.Goto):
                    targets = [loop_id for loop_id, is_switch in loops if not (is_switch and isinstance(n, c_ast.Continue))]
                    target = targets[-1] if targets else None
                events.append((_position(n), None, _Event(JUMP, branches, target)))
            inner = loops + ((id(n), isinstance(n, c_ast.Switch)),) \
                if isinstance(n, (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch)) else loops
            conditional = {id(c) for c in _conditional_parts(n) if c is not None}
            for _, child in reversed(n.children()):
                stack.append((child, branches + (id(child),) if id(child) in conditional else branches, inner))
        events.sort(key=lambda e: e[0])
        for pos, name, event in events:
            positions, kinds = self.jumps if name is None else self.by_name.setdefault(name, ([], []))
            positions.append(pos)
            kinds.append(event)

    def _span(self, node):
        if id(node) not in self.spans:
            self.spans[id(node)] = _span(node)
        return self.spans[id(node)]

    def _top(self, loop) -> Position:
        """Where a loop's next iteration starts reading: its header without a `for`'s init."""
        if isinstance(loop, c_ast.For):
            rest = [self._span(c)[0] for c in (loop.cond, loop.next, loop.stmt) if c is not None]
            return min(rest) if rest else self._span(loop)[0]
        return self._span(loop)[0]

    def live_after(self, roots: list[c_ast.For], enclosing: list) -> set[str]:
        """Scalar names whose value at the end of the region may be read later.

        `roots` are the region's outermost loops (consecutive items of one block), `enclosing`
        the loops around it, outermost first. References inside the region never count."""
        region_start, region_end = self._span(roots[0])[0], self._span(roots[-1])[1]
        branches, loops_around = self.places[id(roots[0])]

        def runs_with_region(event: _Event) -> bool:
            return event.branches == branches[:len(event.branches)]

        def first(positions, events, lo: Position, hi: Position, forward: bool) -> str | None:
            """What decides in [lo, hi): USE, KILL, JUMP (a jump out of a loop around the region
            came first, so what follows it may be skipped) or None (nothing)."""
            jump = self._first_jump(lo, hi, loops_around) if forward else None
            covered: list[tuple[int, ...]] = []  # code parts entered only through an assignment
            for k in range(bisect_right(positions, lo), bisect_left(positions, hi)):
                event = events[k]
                if jump is not None and positions[k] > jump.position and jump.goto:
                    return USE  # a goto may land anywhere, on a read too
                if any(event.branches[:len(part)] == part for part in covered):
                    continue  # later in the branch or loop body of an assignment: it has run
                if event.kind == USE:
                    return USE
                if runs_with_region(event) and (jump is None or positions[k] < jump.position):
                    return KILL
                covered.append(event.branches)
            if jump is not None:
                return USE if jump.goto else JUMP
            return None

        # Ranges in path order: on from the region to the end of each loop around it, then
        # round that loop again (from its top to the region), then on out of it.
        paths = []
        end = region_end
        for loop in reversed(enclosing):
            loop_end = self._span(loop)[1]
            paths += [(end, loop_end, True), (self._top(loop), region_start, False)]
            end = loop_end
        paths.append((end, (10**9, 10**9), True))

        live = set()
        for name, (positions, events) in self.by_name.items():
            jumped = False  # a jump may have skipped an assignment met later on
            for lo, hi, forward in paths:
                verdict = first(positions, events, lo, hi, forward)
                if verdict == USE:
                    live.add(name)
                    break
                jumped = jumped or verdict == JUMP
                if verdict == KILL and forward and not jumped:
                    break  # every way on from here passes the assignment
        for name, sym in list(self.symbols.table.globals.items()):
            if sym.kind == Kind.SCALAR and name not in self.symbols.locals:
                live.add(name)
        return live

    def _first_jump(self, lo: Position, hi: Position, loops_around: frozenset[int]) -> _Jump | None:
        """The first jump in [lo, hi) that may leave a loop around the region (or go anywhere)."""
        positions, events = self.jumps
        for k in range(bisect_right(positions, lo), bisect_left(positions, hi)):
            if events[k].target is None or events[k].target in loops_around:
                return _Jump(positions[k], events[k].target is None)
        return None
