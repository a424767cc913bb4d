"""Which elements a summarized function touches through each pointer parameter.

A call summary (call_summaries.py `CallEffects`) says through which pointer parameters
a function reads and writes. For a per-row helper, `row_update(double *p, int m)`
writing `p[0] .. p[m-1]`, that is not enough to parallelize
`for (i...) row_update(&a[i*n], n);`: each call writes "any element" of `a`. A
*span* is the range of offsets the function touches through one parameter, as
affine bounds over its integer parameters: (0, m - 1) here, so that the call
touches `a[i*n + 0 .. i*n + m - 1]`, row i (effects.py turns that into an access
over a range, scop.py into an isl relation).

A parameter gets a span only when every access through it is `p[e]` or `*p`, with
`e` affine in the enclosing loops' variables and in integer parameters the function
never assigns, inside `for` loops with affine headers only; a pointer passed on to
another function, copied into a local pointer, or accessed inside any other loop
has none (any element). Conditions inside the function are ignored: the span
covers every element the accesses may touch.
"""
from __future__ import annotations

import re

import islpy as isl
from pycparser import c_ast

from lifter.analysis.affine import AffineTranslator, NotAffine, int_constant

ARG = "arg"  # spans name the call's arguments by position: arg1 is the second argument
OFFSET = "OFFSET"  # and the offset from the pointer argument
MAX_DEPTH = 20  # loops around an access, as the region builder's limit (budget.py)


class SpanRecorder:
    """Collects the accesses through pointer parameters while a function body is walked."""

    def __init__(self, integer_params: dict[str, int], assigned: set[str], body: c_ast.Node):
        self.integer_params = integer_params  # integer parameter -> position
        self.assigned = assigned
        self.assigned_in_bodies = _assigned_outside_headers(body)
        self.loops: list[tuple[str, str] | None] = []  # (variable, isl constraint), None: opaque
        self.opaque = 0  # how many of `loops` are None
        self.accesses: dict[int, list[str]] = {}  # position -> isl conditions on the offset, one per access
        self.unranged: set[int] = set()

    # -- loops ---------------------------------------------------------------------------
    def enter_loop(self, node) -> None:
        """A loop around the accesses that follow, until `leave_loop`."""
        header = self._header(node) if isinstance(node, c_ast.For) else None
        self.loops.append(header)
        self.opaque += header is None

    def leave_loop(self) -> None:
        self.opaque -= self.loops.pop() is None

    def _header(self, node: c_ast.For) -> tuple[str, str] | None:
        if self.opaque or len(self.loops) >= MAX_DEPTH:
            return None  # inside an opaque loop nothing has a span anyway; deeper, isl would not cope
        init, cond, step = node.init, node.cond, node.next
        if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 and init.decls[0].init is not None:
            var, start = init.decls[0].name, init.decls[0].init
        elif isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
            var, start = init.lvalue.name, init.rvalue
        else:
            return None
        unit = (isinstance(step, c_ast.UnaryOp) and step.op in ("++", "p++") and _is(step.expr, var)) or \
            (isinstance(step, c_ast.Assignment) and step.op == "+=" and _is(step.lvalue, var)
             and int_constant(step.rvalue) == 1)
        outer = {v for v, _ in self.loops}
        if not unit or var in self.integer_params or f"v_{var}" in outer or not isinstance(cond, c_ast.BinaryOp) \
                or cond.op not in ("<", "<=") or not _is(cond.left, var) or var in self.assigned_in_bodies:
            return None
        try:
            translate = self._translator()
            lower, upper = translate.expr(start), translate.expr(cond.right)
        except NotAffine:
            return None
        if translate.numerators:
            return None
        v = f"v_{var}"
        return v, f"{lower} <= {v} {cond.op} {upper}"

    # -- accesses --------------------------------------------------------------------------
    def access(self, position: int, subscript) -> None:
        """`p[subscript]` (or `*p` with subscript None) through the parameter at `position`."""
        if position in self.unranged:
            return
        if self.opaque:
            self.unranged.add(position)
            return
        try:
            translate = self._translator()
            offset = "0" if subscript is None else translate.expr(subscript)
        except NotAffine:
            self.unranged.add(position)
            return
        if translate.numerators:
            self.unranged.add(position)
            return
        names = ", ".join(v for v, _ in self.loops)
        where = " and ".join([c for _, c in self.loops] + [f"{OFFSET} = {offset}"])
        self.accesses.setdefault(position, []).append(f"exists ({names}: {where})" if names else where)

    def lose(self, position: int) -> None:
        """The parameter is used in a way whose elements cannot be bounded."""
        self.unranged.add(position)

    def _translator(self) -> AffineTranslator:
        loop_vars = [v[2:] for v, _ in self.loops]
        return AffineTranslator(loop_vars, lambda name: name in self.integer_params and name not in self.assigned)

    # -- result ----------------------------------------------------------------------------
    def spans(self) -> tuple[tuple[int, str], ...]:
        """(position, condition) per parameter with a span: the offsets `OFFSET` touched, as an isl
        condition over `arg<k>` (the call's k-th argument); the callee's loop variables, bound
        inside it, are renamed `q_<name>` so that they cannot capture the caller's names."""
        out = []
        for position, conditions in sorted(self.accesses.items()):
            if position in self.unranged:
                continue
            def rename(m):
                name = m.group(1)
                return f"{ARG}{self.integer_params[name]}" if name in self.integer_params else f"q_{name}"
            text = " or ".join(f"({c})" for c in sorted(set(conditions)))
            out.append((position, re.sub(r"\bv_(\w+)", rename, text)))
        return tuple(out)


def within(condition: str, first: int, last: int) -> bool:
    """Every offset a span's condition allows lies in [first, last], whatever the call's
    arguments (`reset3(f[i])` writing v[0..2] stays in a row of 3): isl proves it."""
    args = sorted(set(re.findall(rf"\b{ARG}\d+\b", condition)))
    params = f"[{', '.join(args)}] -> " if args else ""
    try:
        touched = isl.Set(f"{params}{{ [{OFFSET}] : {condition} }}")
        allowed = isl.Set(f"{params}{{ [{OFFSET}] : {first} <= {OFFSET} <= {last} }}")
        return touched.is_subset(allowed)
    except isl.Error:
        return False


def _is(node, name: str) -> bool:
    return isinstance(node, c_ast.ID) and node.name == name


def _assigned_outside_headers(body: c_ast.Node) -> set[str]:
    """Names assigned, incremented, address-taken or initialised anywhere in the function except in
    a `for` header's initialisation and increment: a loop variable not among them keeps, in the
    loop's body, the value its header gives it (one walk, so deep nests stay linear)."""
    names, stack = set(), [body]
    while stack:
        n = stack.pop()
        if n is None:
            continue
        target = n.lvalue if isinstance(n, c_ast.Assignment) else \
            n.expr if isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "&") else None
        if isinstance(target, c_ast.ID):
            names.add(target.name)
        if isinstance(n, c_ast.Decl) and n.name and n.init is not None:
            names.add(n.name)  # (`int j;` before `for (j = 0; ...)` sets nothing)
        if isinstance(n, c_ast.For):
            stack.extend([n.cond, n.stmt])
        else:
            stack.extend(child for _, child in n.children())
    return names


def argument_offset(arg) -> c_ast.Node | None:
    """The element a pointer argument points to, as an index into its block (a call's span is
    counted from it): 0 for `a`, `e` for `a + e`, `&a[e]` and `&s->f[e]`, `-e` for `a - e`,
    `e1 + e2` for `a + e1 + e2` (`pointer_sum`); None for other forms (`&a[e].f`)."""
    while isinstance(arg, c_ast.Cast):
        arg = arg.expr
    if isinstance(arg, c_ast.ID):
        return c_ast.Constant("int", "0")
    if isinstance(arg, c_ast.BinaryOp) and arg.op in "+-":
        _, added = pointer_sum(arg)
        offset = None
        for op, term in added:
            term = term if op == "+" else c_ast.UnaryOp("-", term)
            offset = term if offset is None else c_ast.BinaryOp("+", offset, term)
        return offset
    if isinstance(arg, c_ast.UnaryOp) and arg.op == "&" and isinstance(arg.expr, c_ast.ArrayRef) \
            and isinstance(arg.expr.name, (c_ast.ID, c_ast.StructRef)):
        return arg.expr.subscript
    return None


def pointer_sum(arg) -> tuple[c_ast.Node, list[tuple[str, c_ast.Node]]]:
    """The pointer a chain `a + e1 + e2 - e3` starts from (C reads it `((a + e1) + e2) - e3`, each
    step pointer arithmetic), its casts dropped, and the integers added (`+`) or taken (`-`), in
    order."""
    added = []
    while isinstance(arg, c_ast.BinaryOp) and arg.op in "+-":
        added.append((arg.op, arg.right))
        arg = arg.left
        while isinstance(arg, c_ast.Cast):
            arg = arg.expr
    return arg, added[::-1]
