"""Pointers that step a fixed number of times per iteration, written as indices before the file
is analysed.

C code walks arrays with pointers: `double *p = a + off; for (i = 0; i < n; i++) *p++ = f(i);`,
copies `for (i = 0; i < n; i++) *dst++ = *src++;`, `while (n--) *d++ = *s++ * k;`, pairs
`*p++ = re; *p++ = im;`, and fills from the end with `*--p = x`. Read as written, the pointer is a
value each iteration hands to the next, a dependence that keeps the loop sequential; yet in
iteration i it is only its value at the loop's entry plus m*(i - L) for m steps an iteration.
Where nothing else can tell the two apart, `rewritten` writes the loop so: the j-th of the
iteration's m `*p++` (or `*(p++)`) as `p[m*(i - L) + j]` (`p[i]` for one step from 0), `*p--`
as `p[-m*(i - L) - j]`, `*++p` and `*--p` one further; a `while (n--)` or `while (n-- > 0)` as
`for (T lift_k = 0; lift_k < n; lift_k++)`, with `p[lift_k]` (the report names that loop by
`n`, `Stepped.named`). The rest of the pipeline then sees an indexed loop. This is an edit of
the text the user gave, made only where it computes the same; a function whose body the
pipeline then leaves as it is gets its body back as the user wrote it (`Stepped.bodies`,
`driver.lift_source`), so only what lift transforms shows the indexed form:

- the loop is `for (i = L; i < U or i <= U; i++, ++i or i += 1)` with L a constant or a local
  or parameter the loop does not assign (not a global: a call in the loop may change it), and i
  not assigned in it; or one of those two `while` forms, with n
  an integer of a plain type named nowhere in the loop but its header;
- the loop contains no `break`, `continue`, `return` or `goto` (every iteration steps every
  pointer the same number of times), and the function no `goto` or label;
- each pointer is a parameter or a local declared once in the function, a pointer to an object
  type (not `void`, not a pointer), whose address is never taken; it appears in the loop only
  in its steps, all one way (`*p++` and `*++p`, or `*p--` and `*--p`), each in a statement of
  its own directly in the body (not under `&&`, `||`, `?:` or `sizeof`), so that the
  statements' order is the steps' order;
- the value the loop leaves in the counter n is never read: nothing after the loop in the
  function names it, and the innermost loop around this one, if any, declares it; where the
  value left in a pointer is read so, the loop is a statement of a block and its trip count can
  be told after it (U, like L, a constant or a local the loop does not assign), and the pointer
  is stepped past the loop there: `p += m*count`.

Every edit stays on its line, so that remarks and line markers keep their lines.
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from lifter.frontend.names import fresh_name
from lifter.frontend.source import SourceFile
from lifter.frontend.tokens import keyword_offsets
from lifter.frontend.walk import walk

_JUMPS = (c_ast.Break, c_ast.Continue, c_ast.Return, c_ast.Goto)
# A step's operator: (its direction, whether the access sees the stepped value: `*++p`, `*--p`)
_STEPS = {"p++": (1, False), "p--": (-1, False), "++": (1, True), "--": (-1, True)}
_LOOPS = (c_ast.For, c_ast.While, c_ast.DoWhile)


@dataclass(frozen=True, eq=False)
class Stepped:
    """The file with its stepping loops indexed, and per function edited (its body as written, its
    body as edited): where the output holds the edited body once, verbatim, nothing of that function
    was transformed, and the body as written goes back (the rest passes through byte for byte)."""

    text: str
    bodies: tuple[tuple[str, str], ...]
    # (function, the index a `while (n--)` loop was given, n): the loop's name in the report
    counters: tuple[tuple[str, str, str], ...] = ()

    def named(self, entries: list[dict]) -> list[dict]:
        """The report's entries with each rewritten `while` loop named by its counter, as the
        user wrote it (`while (n--)` is the loop over 'n', not over 'lift_k'): its variable, and
        the name quoted in its reason and remark."""
        names = {(function, index): counter for function, index, counter in self.counters}
        out = []
        for e in entries:
            counter = names.get((e.get("function"), e.get("var")))
            if counter is not None:
                e = dict(e, var=counter, **{key: e[key].replace(f"'{e['var']}'", f"'{counter}'")
                                           for key in ("reason", "remark") if isinstance(e.get(key), str)})
            out.append(e)
        return out

    def restored(self, output: str) -> str:
        """`output` with each function body the pipeline left as edited put back as written."""
        for written, edited in self.bodies:
            if output.count(edited) == 1:
                output = output.replace(edited, written)
        return output


def rewritten(source: SourceFile, ast: c_ast.FileAST) -> Stepped | None:
    """The text with every loop that qualifies written with indices, or None where none does."""
    places: dict = {}  # the loop keywords' offsets in the text, read once a function steps a pointer
    edits, bodies, counters = [], [], []
    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef) and ext.coord is not None and ext.coord.file == source.path:
            function = _Function(source, ext, places)
            found = function.edits()
            counters += [(ext.decl.name, index, counter) for index, counter in function.counters]
            body = _body_span(source, ext.body) if found else None
            if body is not None:
                bodies.append((body, found))
            edits += found
    if not edits:
        return None
    return Stepped(_edited(source.text, edits, 0),
                   tuple((source.text[a:b], _edited(source.text[a:b], found, a)) for (a, b), found in bodies),
                   tuple(counters))


def _edited(text: str, edits: list[tuple[int, int, str]], base: int) -> str:
    """`text` (which starts at offset `base` of the file) with the file's `edits` made."""
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start - base] + new + text[end - base:]
    return text


def _body_span(source: SourceFile, body: c_ast.Compound) -> tuple[int, int] | None:
    """The offsets of a function body's text, braces included (None where its `{` is not in the
    text as written: from a macro)."""
    if body.coord is None or body.coord.file != source.path or not body.coord.column:
        return None
    start = source.offset(body.coord.line, body.coord.column)
    spans = source.spans
    k = spans.index.get(start)
    if k is None or spans.tokens[k].text != "{" or k not in spans.brackets:
        return None
    return start, spans.tokens[spans.brackets[k]].end


class _Function:
    def __init__(self, source: SourceFile, func: c_ast.FuncDef, places: dict):
        self.source, self.func, self.places = source, func, places
        self.parent: dict[int, c_ast.Node] = {}
        self.decls: dict[str, list[c_ast.Decl]] = {}
        self.addressed: set[str] = set()
        self.taken: set[str] = set()
        self.jumps = False
        self.counters: list[tuple[str, str]] = []  # (index, counter) of each `while (n--)` rewritten
        self.derefs: list[c_ast.UnaryOp] = []  # every `*p++`, `*--p`, ... (and `*(p++)`), in source order
        for n in walk(func):  # one walk gathers every fact the tests below read
            for child in n:
                self.parent[id(child)] = n
            if isinstance(n, c_ast.Decl) and n.name and n is not func.decl:
                self.decls.setdefault(n.name, []).append(n)
            elif isinstance(n, c_ast.ID):
                self.taken.add(n.name)
            elif isinstance(n, (c_ast.Goto, c_ast.Label)):
                self.jumps = True
            elif isinstance(n, c_ast.UnaryOp) and isinstance(n.expr, c_ast.UnaryOp) and n.op == "*" \
                    and n.expr.op in _STEPS and isinstance(n.expr.expr, c_ast.ID):
                self.derefs.append(n)
            elif isinstance(n, c_ast.UnaryOp) and n.op == "&" and isinstance(n.expr, c_ast.ID):
                self.addressed.add(n.expr.name)

    def edits(self) -> list[tuple[int, int, str]]:
        if self.jumps:
            return []
        loops = self._stepping_loops()
        if loops and not self.places:
            self.places.update({kind: keyword_offsets(self.source.text, kind) for kind in ("for", "while")})
        out = []
        for loop in loops:
            if isinstance(loop, (c_ast.For, c_ast.While)):
                out += self._loop_edits(loop)
        return out

    def _stepping_loops(self) -> list[c_ast.Node]:
        """The innermost loop around each `*p++` of the body, once each, in the body's order: the
        only loops that can qualify (each test on a loop walks it, so none is made on the rest)."""
        found: dict[int, c_ast.Node] = {}
        for n in self.derefs:
            up = self.parent.get(id(n))
            while up is not None and not isinstance(up, _LOOPS) and up is not self.func:
                up = self.parent.get(id(up))
            if isinstance(up, _LOOPS):
                found.setdefault(id(up), up)
        return list(found.values())

    def _loop_edits(self, loop) -> list[tuple[int, int, str]]:
        found = self._counted(loop)
        if found is None or any(isinstance(n, _JUMPS) for n in walk(loop.stmt)):
            return []
        index, header, counter, count = found
        where = self._place(loop)
        if where is None:
            return []
        edits = self._steps(loop, where, index, count)
        if not edits or counter is not None and not self._dead_after(counter, loop, where):
            return []
        if header is not None:
            self.counters.append((index, counter))
            spans = self.source.spans
            paren = spans.index[where.start] + 1
            edits.append((where.start, spans.tokens[spans.brackets[paren]].end, header))
        return edits

    def _counted(self, loop):
        """(the index of iteration i in C, the new header or None, the `while` counter or None, the
        loop's trip count in C after it, or None where it cannot be told there)."""
        if isinstance(loop, c_ast.While):
            cond = loop.cond
            if isinstance(cond, c_ast.BinaryOp) and cond.op == ">" and _zero(cond.right):
                cond = cond.left
            if not (isinstance(cond, c_ast.UnaryOp) and cond.op == "p--" and isinstance(cond.expr, c_ast.ID)):
                return None
            n = cond.expr.name
            decl = self._single(n)
            if decl is None or not _plain_integer(decl) or n in self.addressed or _names(loop.stmt, n):
                return None
            k = fresh_name("lift_k", self.taken, first=1)
            return k, f"for ({' '.join(decl.type.type.names)} {k} = 0; {k} < {n}; {k}++)", n, f"({n} > 0 ? {n} : 0)"
        init, cond, step = loop.init, loop.cond, loop.next
        if isinstance(init, c_ast.DeclList) and len(init.decls) == 1:
            var, lower = init.decls[0].name, init.decls[0].init
        elif isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
            var, lower = init.lvalue.name, init.rvalue
        else:
            return None
        if not (isinstance(cond, c_ast.BinaryOp) and cond.op in ("<", "<=") and _is(cond.left, var)):
            return None
        if not (isinstance(step, c_ast.UnaryOp) and step.op in ("p++", "++") and _is(step.expr, var)
                or isinstance(step, c_ast.Assignment) and step.op == "+=" and _is(step.lvalue, var)
                and isinstance(step.rvalue, c_ast.Constant) and step.rvalue.value == "1"):
            return None
        assigned = _assigned(loop.stmt)
        if var in assigned:
            return None
        first, last = self._fixed(lower, assigned), self._fixed(cond.right, assigned)
        if first is None:
            return None
        count = None
        if last is not None and (not isinstance(cond.right, c_ast.ID) or _plain_integer(self._single(last))):
            # (an integer: a `double` bound would make `p += count` no C)
            end = last if cond.op == "<" else f"{last} + 1"
            count = f"({end} > {first} ? {end} - {first} : 0)" if first != "0" else f"({end} > 0 ? {end} : 0)"
        return (var if first == "0" else f"{var} - {first}"), None, None, count

    def _fixed(self, node, assigned: set[str]) -> str | None:
        """The text of a loop bound that keeps its value through the loop and after it: a decimal
        constant, or a local or parameter the loop does not assign and whose address is not taken
        (not a global: a call in the loop may change it); else None."""
        if isinstance(node, c_ast.Constant) and node.type == "int" and node.value.isdigit():
            return "0" if int(node.value) == 0 else node.value  # (as written: `010` is eight)
        if isinstance(node, c_ast.ID) and node.name not in assigned and node.name not in self.addressed \
                and self._single(node.name) is not None:
            return node.name
        return None

    def _place(self, loop):
        """The loop in the exact text (`Spans.loop_at`), where its keyword can be told apart."""
        kind = "for" if isinstance(loop, c_ast.For) else "while"
        if loop.coord is None or loop.coord.file != self.source.path:
            return None
        line = loop.coord.line
        same = sorted((n for n in walk(self.func.body) if type(n) is type(loop) and n.coord is not None
                       and n.coord.file == self.source.path and n.coord.line == line), key=lambda n: n.coord.column)
        offsets = self.places[kind].get(line, [])
        if len(same) != len(offsets):
            return None
        where = self.source.spans.loop_at(offsets[[id(n) for n in same].index(id(loop))])
        return where if where is not None and where.kind == kind else None

    def _steps(self, loop, where, index: str, count: str | None) -> list[tuple[int, int, str]]:
        """The edits that index the pointers the loop steps (each `*p++` as `p[index]`; a pointer
        stepped m times as `p[m*index + j]` for its j-th step, backwards for `*p--`, and one
        further for `*++p` or `*--p`), with `p += m*count` after the loop where its value is read
        there; [] if one of them does not qualify."""
        found: dict[str, list[c_ast.UnaryOp]] = {}
        for n in walk(loop.stmt):
            if isinstance(n, c_ast.UnaryOp) and n.op in _STEPS and isinstance(n.expr, c_ast.ID):
                found.setdefault(n.expr.name, []).append(n)
        edits = []
        for p, steps in found.items():
            decl = self._single(p)
            derefs = [self.parent.get(id(n)) for n in steps]
            if decl is None or not _object_pointer(decl) or p in self.addressed or _names(loop, p) != len(steps) \
                    or len({_STEPS[n.op][0] for n in steps}) != 1 \
                    or any(not isinstance(d, c_ast.UnaryOp) or d.op != "*" for d in derefs):
                return []
            places = [self._position(d, loop) for d in derefs]
            if None in places or len(set(places)) != len(places):
                return []  # each step once in every iteration, in a statement of its own
            spelled = self._text_of(p, where)
            order = sorted(range(len(steps)), key=lambda k: places[k])
            if spelled is None or [pre for _, _, pre in spelled] != [_STEPS[steps[k].op][1] for k in order]:
                return []
            direction = _STEPS[steps[0].op][0]
            m = len(steps)
            for j, (start, end, pre) in enumerate(spelled):
                edits.append((start, end, f"{p}[{_stepped(index, direction * m, direction * (j + pre))}]"))
            if not self._dead_after(p, loop, where):
                after = self._after(loop, where, p, direction * m, count)
                if after is None:
                    return []
                edits.append(after)
        return edits

    def _position(self, node, loop) -> int | None:
        """The place in the loop's body of the statement that holds `node`, if it runs once in
        every iteration: in a statement directly in the body, not under `&&`, `||` or `?:`."""
        while True:
            up = self.parent.get(id(node))
            if up is None:
                return None
            if up is loop:
                return 0 if node is loop.stmt else None
            if isinstance(up, c_ast.Compound):
                if self.parent.get(id(up)) is not loop:
                    return None
                return next(k for k, item in enumerate(up.block_items) if item is node)
            if isinstance(up, (c_ast.TernaryOp, c_ast.If, c_ast.Switch) + _LOOPS) \
                    or isinstance(up, c_ast.BinaryOp) and up.op in ("&&", "||") \
                    or isinstance(up, c_ast.UnaryOp) and up.op in ("sizeof", "_Alignof"):
                return None  # (the operand of sizeof is not evaluated)
            node = up

    def _after(self, loop, where, p: str, scale: int, count: str | None) -> tuple[int, int, str] | None:
        """The edit that leaves in `p`, after the loop, the value the steps would have: `p +=
        scale*count` just after the loop on its last line; None where the trip count cannot be
        told after the loop or the loop is not a statement of a block (`if (c) for ...`)."""
        if count is None or not isinstance(self.parent.get(id(loop)), c_ast.Compound):
            return None
        op = "+=" if scale > 0 else "-="
        amount = count if abs(scale) == 1 else f"{abs(scale)} * {count}"
        return where.end, where.end, f" {p} {op} {amount};"

    def _dead_after(self, name: str, loop, where) -> bool:
        """The value the loop leaves in `name` is never read (the module's docstring)."""
        around = self._innermost_loop_around(loop)
        decl = self._single(name)
        if around is not None and (decl is None or not any(n is decl for n in walk(around))):
            return False
        end_line = self.source.text.count("\n", 0, where.end) + 1
        inside = {id(n) for n in walk(loop)}
        return not any(isinstance(n, c_ast.ID) and n.name == name and id(n) not in inside
                       and (n.coord is None or n.coord.line >= end_line) for n in walk(self.func.body))

    def _innermost_loop_around(self, loop):
        up = self.parent.get(id(loop))
        while up is not None and up is not self.func:
            if isinstance(up, _LOOPS):
                return up
            up = self.parent.get(id(up))
        return None

    def _text_of(self, p: str, where) -> list[tuple[int, int, bool]] | None:
        """The offsets of every `*p++`, `*p--`, `*++p`, `*--p` (or `*(p++)`, ...) in the loop's
        text, in order, and whether each steps before its access; None if `p` is named there
        otherwise (behind a macro)."""
        toks = self.source.spans.between(where.start, where.end)
        texts = [t.text for t in toks]
        out = []
        for k, t in enumerate(toks):
            if t.text != p:
                continue
            # (the file's tokens are single punctuation characters: `++` is two, written together)
            after = k + 2 < len(toks) and texts[k + 1] == texts[k + 2] in "+-" and toks[k + 1].end == toks[k + 2].start
            before = k >= 2 and texts[k - 1] == texts[k - 2] in "+-" and toks[k - 2].end == toks[k - 1].start
            if after == before:
                return None
            first, last = (k - 2, k) if before else (k, k + 2)  # the step's tokens
            if first >= 1 and texts[first - 1] == "*":
                out.append((toks[first - 1].start, toks[last].end, before))
            elif first >= 2 and texts[first - 2:first] == ["*", "("] and texts[last + 1:last + 2] == [")"]:
                out.append((toks[first - 2].start, toks[last + 1].end, before))
            else:
                return None
        return out

    def _single(self, name: str) -> c_ast.Decl | None:
        decls = self.decls.get(name, [])
        return decls[0] if len(decls) == 1 else None


def _stepped(index: str, scale: int, offset: int) -> str:
    """`scale*index + offset` in C, as the user would write it (`i`, `2 * i + 1`, `-(i - 1) - 1`)."""
    term = index if " " not in index or abs(scale) == 1 and scale > 0 else f"({index})"
    text = term if scale == 1 else f"-{term}" if scale == -1 else f"{scale} * {term}"
    return text if offset == 0 else f"{text} {'+' if offset > 0 else '-'} {abs(offset)}"


def _is(node, name: str) -> bool:
    return isinstance(node, c_ast.ID) and node.name == name


def _zero(node) -> bool:
    return isinstance(node, c_ast.Constant) and node.value == "0"


def _names(node: c_ast.Node, name: str) -> int:
    return sum(1 for n in walk(node) if _is(n, name))


def _assigned(node: c_ast.Node) -> set[str]:
    out = set()
    for n in walk(node):
        if isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID):
            out.add(n.lvalue.name)
        elif isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--") and isinstance(n.expr, c_ast.ID):
            out.add(n.expr.name)
        elif isinstance(n, c_ast.Decl) and n.name:
            out.add(n.name)
    return out


def _object_pointer(decl: c_ast.Decl) -> bool:
    """`T *p` with T an arithmetic, struct or typedef'd type (not void, not a pointer)."""
    t = decl.type
    if not isinstance(t, c_ast.PtrDecl) or not isinstance(t.type, c_ast.TypeDecl):
        return False
    inner = t.type.type
    return isinstance(inner, c_ast.Struct) or isinstance(inner, c_ast.IdentifierType) and inner.names != ["void"]


_INTEGER_WORDS = {"char", "short", "int", "long", "signed", "unsigned", "size_t", "ssize_t", "ptrdiff_t",
                  "int32_t", "int64_t", "uint32_t", "uint64_t", "intptr_t", "uintptr_t"}


def _plain_integer(decl: c_ast.Decl) -> bool:
    """An integer variable of a type named by words (`int`, `size_t`, `unsigned long`), not const."""
    t = decl.type
    return isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) \
        and set(t.type.names) <= _INTEGER_WORDS and "const" not in (t.quals or [])
