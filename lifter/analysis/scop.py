"""Finding the loop nests that can be modelled and building their polyhedral model.

A region starts at an outermost `for` loop whose header is affine. Inside it,
affine loops and affine `if` conditions shape the iteration domains exactly;
everything else (while loops, data-dependent bounds or conditions, indirect
subscripts, calls) becomes a leaf whose effects are over-approximated: writes
it may do are may-writes, and subscripts that are not affine cover the whole
dimension. Control flow that leaves the nest (return, break, goto) makes the
nest unmodelable, and it is reported as such.
"""
from __future__ import annotations

import copy
import re
from contextlib import contextmanager

import islpy as isl
from pycparser import c_ast

from lifter.analysis.walk import written_names
from lifter.analysis.addressed_scalars import REASON_CODE as ADDRESSED, pointer_may_reach
from lifter.analysis.affine import AffineTranslator, NotAffine, c_text, int_constant, isl_name
from lifter.analysis.delinearize import Reading, buffer_shape
from lifter.analysis.flat_buffers import FlatBuffers
from lifter.analysis.effects import PURE_FUNCTIONS, collect_effects, nested_updates, struct_ref
from lifter.analysis.updates import minmax_update, reduction_target
from lifter.analysis.call_spans import OFFSET
from lifter.analysis.type_apart import type_apart
from lifter.analysis.index_scalars import definition, entry_values, index_views
from lifter.analysis.pointer_aliases import pointer_aliases
from lifter.analysis.points_to import allocation
from lifter.analysis.param_copies import parameter_origins
from lifter.analysis.invariants import StandIns
from lifter.analysis.irregular import irregular_work
from lifter.analysis.rows import row_arrays
from lifter.analysis.struct_fields import field_by_field, flat_fields
from lifter.analysis.model import Access, Condition, Container, Kind, Loop, Region, Statement
from lifter.analysis.symbols import FunctionSymbols, substitute
from lifter.analysis.unknown_types import CODE as UNKNOWN_TYPE, unknown_use
from lifter.analysis.wrapping import loop_wrapping, may_wrap, unsigned_names
from lifter.frontend.walk import walk


# The opaque reason of an inner `for` left by a break or continue of its own (reported: inner_loops.py).
LEAVES_EARLY = "break or continue in the loop body"


class NotModelable(Exception):
    """The nest rooted at a loop cannot be modelled; `node` is where the problem is."""

    def __init__(self, reason: str, node: c_ast.Node | None = None, code: str = "jump"):
        super().__init__(reason)
        self.reason = reason
        self.code = code  # the report's reason_code
        self.node = node


class LoopHeader:
    """The parts of an affine `for` header: variable, bounds (isl text), step and direction, and
    the variable's type as C text where the header declares it ('' where it does not)."""

    def __init__(self, var, lower, upper, step, decreasing, var_type):
        self.var, self.lower, self.upper = var, lower, upper
        self.step, self.decreasing, self.var_type = step, decreasing, var_type
        self.declared = bool(var_type)


def parse_header(node: c_ast.For, translate: AffineTranslator, symbols: FunctionSymbols) -> LoopHeader:
    """Recognise `for (i = lb; i < ub; i += c)` and its variants, or raise NotAffine."""
    init = node.init
    declared = ""
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 and init.decls[0].init is not None:
        var, start = init.decls[0].name, init.decls[0].init
        declared = _declared_type(init.decls[0])
        type_ok = _is_integer_decl(init.decls[0], symbols)
    elif isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
        var, start = init.lvalue.name, init.rvalue
        sym = symbols.lookup(var)
        type_ok = sym is not None and sym.kind == Kind.SCALAR and sym.integer and var not in symbols.ambiguous
    else:
        raise NotAffine("loop initialisation is not 'var = expression'")
    if not type_ok:
        raise NotAffine(f"loop variable '{var}' is not an integer")
    step = _step(node.next, var)
    if step is None:
        raise NotAffine("loop increment is not a constant step of the loop variable")
    if var in written_names(node.stmt):
        raise NotAffine(f"loop variable '{var}' is modified in the loop body")
    wrapping = loop_wrapping(var, init.decls[0] if declared else None, start, node.cond, step, symbols)
    if wrapping == "wraps":
        raise NotAffine(f"loop variable '{var}' may wrap around in unsigned arithmetic")
    start_text = translate.expr(start)
    if wrapping == "start":
        translate.numerators.append(start_text)  # compared as unsigned: must not start below zero
    bound = _bound(node.cond, var, translate)
    if bound is None:
        raise NotAffine("loop condition is not a comparison of the loop variable with an affine bound")
    direction, bound_text = bound
    if step > 0 and direction == "upper":
        return LoopHeader(var, start_text, bound_text, step, False, declared)
    if step < 0 and direction == "lower":
        return LoopHeader(var, bound_text, start_text, -step, True, declared)
    raise NotAffine("loop condition and increment go in different directions")


def _declared_type(decl: c_ast.Decl) -> str:
    """The type a declaration gives its name, as C text (`int`, `unsigned long`): the CUDA
    backend declares the loop variable again in each thread."""
    bare = copy.copy(decl)
    bare.init = None
    return c_text(bare)[:-len(decl.name)].strip()


def _is_integer_decl(decl: c_ast.Decl, symbols: FunctionSymbols) -> bool:
    from lifter.analysis.symbols import classify

    sym = classify(decl.name, decl.type, symbols.table.typedefs, "local")
    return sym.kind == Kind.SCALAR and sym.integer


def _step(node, var) -> int | None:
    if isinstance(node, c_ast.UnaryOp) and isinstance(node.expr, c_ast.ID) and node.expr.name == var:
        return {"p++": 1, "++": 1, "p--": -1, "--": -1}.get(node.op)
    if isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, c_ast.ID) and node.lvalue.name == var:
        if node.op in ("+=", "-="):
            c = int_constant(node.rvalue)
            if c is None or c == 0:
                return None
            return c if node.op == "+=" else -c
        if node.op == "=" and isinstance(node.rvalue, c_ast.BinaryOp) and node.rvalue.op in "+-":
            r = node.rvalue
            if isinstance(r.left, c_ast.ID) and r.left.name == var:
                c = int_constant(r.right)
                if c:
                    return c if r.op == "+" else -c
            if r.op == "+" and isinstance(r.right, c_ast.ID) and r.right.name == var:
                c = int_constant(r.left)
                if c:
                    return c
    return None


def _bound(cond, var, translate: AffineTranslator):
    """('upper', inclusive bound) for i < e / i <= e, ('lower', bound) for i > e / i >= e."""
    if not isinstance(cond, c_ast.BinaryOp):
        return None
    op, left, right = cond.op, cond.left, cond.right
    if op == "&&":
        a, b = _bound(left, var, translate), _bound(right, var, translate)
        if a and b and a[0] == b[0]:
            fn = "min" if a[0] == "upper" else "max"
            return a[0], f"{fn}({a[1]}, {b[1]})"
        return None
    if isinstance(right, c_ast.ID) and right.name == var and not _mentions(left, var):
        op = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op)
        left, right = right, left
    if not (isinstance(left, c_ast.ID) and left.name == var) or _mentions(right, var):
        return None
    if op not in ("<", "<=", ">", ">="):
        return None
    text = translate.expr(right)
    if op == "<":
        return "upper", f"({text}) - 1"
    if op == "<=":
        return "upper", text
    if op == ">":
        return "lower", f"({text}) + 1"
    return "lower", text


def _mentions(node, name) -> bool:
    return any(isinstance(n, c_ast.ID) and n.name == name for n in walk(node))


class RegionBuilder(FlatBuffers):
    """Builds the Region for one outermost affine loop of a function."""

    def __init__(self, region_id: str, function: str, symbols: FunctionSymbols, locate, stand_ins=frozenset()):
        self.region_id = region_id
        self.stand_ins = stand_ins  # names standing for bounds read from memory (inner_loops.py): parameters
        self.function = function
        self.symbols = symbols
        self.locate = locate  # c_ast.For -> character offset of its `for` keyword, or None
        self.loops: dict[str, Loop] = {}
        self.statements: dict[str, Statement] = {}
        self.containers: dict[str, Container] = {}
        self.params: set[str] = set()
        self.written: set[str] = set()
        self._scopes: list[dict[str, str]] = []
        self._stand_ins = None
        self._conditions: list[Condition] = []  # the `if`s around the current item inside its loop
        self._ifs = 0  # `if`s numbered so far (Condition.if_id)

    # -- entry point -------------------------------------------------------------------------
    def build(self, root: c_ast.For, *more: c_ast.For) -> Region:
        """The region of an outermost loop; with `more`, of that loop and the loops that follow
        it directly in its block, in order (`transform/fusion.py` fuses such runs)."""
        whole = c_ast.Compound([root, *more]) if more else root
        unknown = unknown_use(whole, self.symbols.table.unknown_types, self.symbols.unknown_types)
        if unknown is not None:
            raise NotModelable(unknown[0], unknown[1], UNKNOWN_TYPE)
        self.written = written_names(whole)
        reached = pointer_may_reach(whole, self.symbols)
        if reached is not None:
            raise NotModelable(*reached, ADDRESSED)
        self._stand_ins = StandIns(whole, self.symbols, self._is_parameter, self.written)
        for r in (root, *more):
            self._check_control_flow(r)
        self._plan_shapes(whole)
        self._scopes = [{}]
        self._defs: dict[str, c_ast.Node] = dict(entry_values(self.symbols, written_names))
        root_id = self._loop(root, parent=None, outer=[], constraints=[], beta=[0], guarded=[])
        for index, r in enumerate(more, 1):
            self._loop(r, parent=None, outer=[], constraints=[], beta=[index], guarded=[])
        params = sorted(self.params)
        context = isl.Set(f"[{', '.join(isl_name(p) for p in params)}] -> {{ : }}")
        pointers = [c.name for c in self.containers.values() if c.kind == Kind.POINTER and c.storage == "param"]
        from_params = parameter_origins(self.symbols, [c.name for c in self.containers.values()
                                                       if c.kind == Kind.POINTER])
        looping = self.symbols.table.looping
        looping_calls = {sid for sid, st in self.statements.items()
                         if any(isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and n.name.name in looping
                                for n in walk(st.node))}
        irregular = {sid for sid, st in self.statements.items()
                     if irregular_work(st.node, self.symbols.table.irregular)}
        return Region(self.region_id, self.function, root_id, self.loops, self.statements,
                      self.containers, params, context, looping_calls=looping_calls, irregular=irregular,
                      called_in_loop=self.function in self.symbols.table.called_in_loops,
                      call_sizes=self.symbols.table.call_sizes.get(self.function, []),
                      apart=self.symbols.table.points_to.apart(self.function, pointers),
                      type_apart=type_apart(self.symbols,
                                            [c.name for c in self.containers.values() if c.kind == Kind.POINTER]),
                      from_params=from_params)

    def _plan_shapes(self, root: c_ast.For) -> None:
        """Find flat buffers indexed like multi-dimensional arrays (see delinearize.py)."""
        self._loop_vars = {parse_var for n in walk(root) if isinstance(n, c_ast.For)
                           for parse_var in [header_var(n)] if parse_var}
        self.shapes: dict[str, list] = {}
        self._affine_sizes: dict[str, c_ast.Node] = {}
        self._readings: dict[str, Reading] = {}  # per delinearized buffer: how its indices split
        found: dict[str, list[c_ast.Node]] = {}
        # `a[e]`, and `a + e` (a call's argument, read with the callee's span: effects.py)
        views = index_views(root, self.symbols, written_names)
        for _, base, index in views:
            sym = self.symbols.lookup(base.name) if isinstance(base, c_ast.ID) else None
            if sym is None or sym.kind not in (Kind.POINTER, Kind.ARRAY) or sym.ndim != 1 or sym.indirect:
                continue
            found.setdefault(base.name, []).append(self.symbols.table.inline_helpers(index))
        read_as = {id(node): index for node, _, index in views}
        for key, indices in flat_fields(root, self.written, read_as).items():
            found[key] = [self.symbols.table.inline_helpers(i) for i in indices]
        for name, indices in found.items():
            found_shape = buffer_shape(indices, self._is_size, self._affine_sizes, self._loop_vars)
            if found_shape is not None:
                self.shapes[name], self._readings[name] = found_shape
        self.field_sensitive = field_by_field(root, self.symbols)
        self.rows = row_arrays(root, self.symbols, self.written)

    def _check_control_flow(self, root: c_ast.For) -> None:
        """Reject nests that jump out: return, goto, labels, or break/continue of the root loop."""
        def visit(node, breakable: bool, continuable: bool):
            if isinstance(node, (c_ast.Return, c_ast.Goto, c_ast.Label)):
                kind = {c_ast.Return: "return", c_ast.Goto: "goto", c_ast.Label: "a label"}[type(node)]
                raise NotModelable(f"the loop nest contains {kind}", node)
            if isinstance(node, c_ast.Break) and not breakable:
                raise NotModelable("the loop nest contains a break out of a loop", node)
            if isinstance(node, c_ast.Continue) and not continuable:
                raise NotModelable("the loop nest contains a continue", node)
            if isinstance(node, c_ast.Pragma):
                raise NotModelable("the loop nest already contains a #pragma", node, "user-pragma")
            if isinstance(node, (c_ast.While, c_ast.DoWhile)):
                for _, child in node.children():
                    visit(child, True, True)
                return
            if isinstance(node, c_ast.For):
                # A break or continue of an inner loop leaves only that loop, which then is an
                # opaque leaf of the nest (`_item`, `_leaves_early`): only the root's own block it.
                inner_ok = node is not root
                for name, child in node.children():
                    if name == "stmt" and not inner_ok and isinstance(child, c_ast.Compound):
                        # `if (c) continue;` at the top level of an affine loop's body is a guard.
                        for item in child.block_items or []:
                            if not continue_guard(item):
                                visit(item, False, False)
                        continue
                    visit(child, inner_ok, inner_ok)
                return
            if isinstance(node, c_ast.Switch):
                for _, child in node.children():
                    visit(child, True, continuable)
                return
            for _, child in node.children():
                visit(child, breakable, continuable)

        visit(root, False, False)

    # -- names -------------------------------------------------------------------------------
    def _is_parameter(self, name: str) -> bool:
        if name in self.stand_ins:
            return True
        if name in self.written or name in self.symbols.ambiguous or self._scoped(name) != name:
            return False
        sym = self.symbols.lookup(name)
        return sym is not None and sym.kind == Kind.SCALAR and sym.integer

    def _translator(self, iterators) -> AffineTranslator:
        return AffineTranslator(iterators, self._is_parameter, self._stand_ins, self.symbols.table.typedefs)

    def _scoped(self, name: str) -> str:
        """The container key of a name: block-locals of the region get unique keys."""
        for scope in reversed(self._scopes):
            if name in scope:
                return scope[name]
        return name

    def _declare_local(self, decl: c_ast.Decl, loop_id: str | None) -> str:
        key = decl.name
        n = 1
        taken = {k for scope in self._scopes for k in scope.values()} | set(self.containers)
        while key in taken:
            n += 1
            key = f"{decl.name}#{n}"
        self._scopes[-1][decl.name] = key
        from lifter.analysis.symbols import classify

        sym = classify(decl.name, decl.type, self.symbols.table.typedefs, "local", decl)
        kind = sym.kind if sym.kind in (Kind.SCALAR, Kind.ARRAY) else Kind.POINTER
        if decl.name in pointer_aliases(self.symbols):
            kind = Kind.SCALAR  # only the pointer itself: accesses through it are of its pointee's
        c = Container(decl.name, sym.ndim if kind != Kind.SCALAR else 0, sym.element, kind,
                      declared_in=loop_id, indirect=sym.indirect, restrict=sym.restrict)
        if key == decl.name and kind == Kind.POINTER and not sym.indirect:
            self._shape(key, c)  # a row pointer of the nest's own, `double *out = h->r[l];`
        self.containers[key] = c
        return key

    # -- structure ---------------------------------------------------------------------------
    def _loop(self, node: c_ast.For, parent, outer, constraints, beta, guarded) -> str:
        translate = self._translator([l.var for l in outer])
        header = parse_header(self._header_view(node), translate, self.symbols)
        self.params |= translate.parameters
        loop_id = f"{self.region_id}_L{len(self.loops)}"
        var = isl_name(header.var)
        bound = f"{header.lower} <= {var} <= {header.upper}"
        if header.step > 1:
            anchor = header.upper if header.decreasing else header.lower
            bound += f" and exists (e_{loop_id}: {var} = {anchor} {'-' if header.decreasing else '+'} {header.step}*e_{loop_id})"
        self._check_divisions(translate, constraints + [bound], [l.var for l in outer] + [header.var])
        line, column = node.coord.line, node.coord.column
        loop = Loop(loop_id, header.var, node, line, column, len(outer), parent, self.function,
                    header.lower, header.upper, header.step, header.decreasing, header.declared,
                    var_type=header.var_type, offset=self.locate(node), conditions=list(self._conditions), position=beta[-1],
                    header_scalars=self._header_scalars(node))
        self.loops[loop_id] = loop
        if parent is not None:
            self.loops[parent].children.append(loop_id)
        inner = outer + [loop]
        self._scopes.append({})
        if header.declared:
            self._scopes[-1][header.var] = header.var
        around, self._conditions = self._conditions, []  # the body's conditions are relative to the loop
        try:
            self._item(node.stmt, loop_id, inner, constraints + [bound], beta + [0], guarded)
        finally:
            self._conditions = around
        self._scopes.pop()
        return loop_id

    @contextmanager
    def _under(self, condition: str, if_id: int):
        """Items added inside this block are under `condition` (Condition: for the graph only)."""
        self._conditions.append(Condition(condition, if_id))
        try:
            yield
        finally:
            self._conditions.pop()

    def _item(self, item, loop_id, loops, constraints, beta, guarded) -> bool:
        """Adds one statement; returns whether it took a schedule position."""
        if item is None or isinstance(item, c_ast.EmptyStatement):
            return False
        if isinstance(item, c_ast.Decl):
            if isinstance(item.type, c_ast.FuncDecl):
                return False
            key = self._declare_local(item, loop_id)
            if item.init is None:
                return False
            self._leaf(item, loop_id, loops, constraints, beta, guarded, declared_key=key)
            return True
        if isinstance(item, c_ast.Compound):
            self._scopes.append({})
            depth = len(self._conditions)
            assigned = []
            for index, sub in enumerate(item.block_items or []):
                if continue_guard(sub):
                    # The rest of the block runs only where the condition is false.
                    translate = self._translator([l.var for l in loops])
                    try:
                        cond = self._condition(translate, sub.cond)
                        self._check_divisions(translate, constraints, [l.var for l in loops])
                        constraints = constraints + [f"not ({cond})"]
                        self.params |= translate.parameters
                    except NotAffine:
                        # The test itself is a statement of the body: what it reads (a kernel
                        # needs those arrays) and writes (`cnt++ > 3`) counts even when no
                        # statement follows it to carry the guard.
                        self._leaf(sub.cond, loop_id, loops, constraints, beta, guarded)
                        beta[-1] += 1
                        guarded = guarded + [sub.cond]
                    self._conditions.append(Condition(f"!({c_text(sub.cond)})", self._next_if()))
                    continue
                if self._item(sub, loop_id, loops, constraints, beta, guarded):
                    beta[-1] += 1
                found = definition(sub, item.block_items[index + 1:], self.symbols, self._rewrite, written_names)
                if found is not None:
                    self._defs[self._scoped(found[0])] = found[1]
                    assigned.append(self._scoped(found[0]))
            for key in assigned:  # the definitions hold for the rest of this block only
                self._defs.pop(key, None)
            del self._conditions[depth:]
            self._scopes.pop()
            beta[-1] -= 1
            return True
        if isinstance(item, c_ast.For):
            translate = self._translator([l.var for l in loops])
            try:
                parse_header(self._header_view(item), translate, self.symbols)
            except NotAffine as exc:
                self._leaf(item, loop_id, loops, constraints, beta, guarded, opaque=f"loop header: {exc}")
                return True
            if _leaves_early(item.stmt):
                self._leaf(item, loop_id, loops, constraints, beta, guarded, opaque=LEAVES_EARLY)
                return True
            self._loop(item, loop_id, loops, constraints, list(beta), guarded)
            return True
        if isinstance(item, c_ast.If):
            return self._if(item, loop_id, loops, constraints, beta, guarded)
        if isinstance(item, (c_ast.While, c_ast.DoWhile, c_ast.Switch)):
            kind = {c_ast.While: "while loop", c_ast.DoWhile: "do-while loop", c_ast.Switch: "switch"}[type(item)]
            self._leaf(item, loop_id, loops, constraints, beta, guarded, opaque=kind)
            return True
        self._leaf(item, loop_id, loops, constraints, beta, guarded)
        return True

    def _if(self, item: c_ast.If, loop_id, loops, constraints, beta, guarded) -> bool:
        update = minmax_update(item)
        if update is not None and not guarded:
            # `if (e > m) m = e;` is one statement: a max (or min) reduction into m.
            self._leaf(item, loop_id, loops, constraints, beta, [item.cond], reduction_op=update[1])
            return True
        translate = self._translator([l.var for l in loops])
        try:
            cond = self._condition(translate, item.cond)
            self._check_divisions(translate, constraints, [l.var for l in loops])
        except NotAffine:
            cond = None
        if_id, test = self._next_if(), c_text(item.cond)
        if cond is not None:
            self.params |= translate.parameters
            with self._under(test, if_id):
                self._item(item.iftrue, loop_id, loops, constraints + [cond], beta, guarded)
            if item.iffalse is not None:
                beta[-1] += 1
                with self._under(f"!({test})", if_id):
                    self._item(item.iffalse, loop_id, loops, constraints + [f"not ({cond})"], beta, guarded)
            return True
        # A data-dependent condition: both branches may run; their writes become may-writes.
        guard = guarded + [item.cond]
        with self._under(test, if_id):
            self._item(item.iftrue, loop_id, loops, constraints, beta, guard)
        if item.iffalse is not None:
            beta[-1] += 1
            with self._under(f"!({test})", if_id):
                self._item(item.iffalse, loop_id, loops, constraints, beta, guard)
        return True

    def _condition(self, translate, cond: c_ast.Node) -> str:
        """An `if`'s condition as isl constraints, or NotAffine; also where unsigned arithmetic may
        wrap around (wrapping.py: `(unsigned)(i - 1) >= n` holds at i = 0, the model's never)."""
        rewritten = self._rewrite(cond)
        if may_wrap(cond, rewritten, self.symbols, unsigned_names(self.symbols)):
            raise NotAffine("a condition in unsigned arithmetic that may wrap around")
        return translate.condition(rewritten)

    def _next_if(self) -> int:
        self._ifs += 1
        return self._ifs - 1

    # -- index scalars (index_scalars.py) --------------------------------------------------
    def _rewrite(self, node: c_ast.Node) -> c_ast.Node:
        """An expression as the analysis reads it: index helpers inlined, affine scalars replaced."""
        node = self.symbols.table.inline_helpers(node)
        if not self._defs:
            return node
        return substitute(node, lambda name: self._defs.get(self._scoped(name)))

    def _header_view(self, node: c_ast.For) -> c_ast.For:
        """The loop with its initialisation and condition rewritten (body and increment as written)."""
        if not self._defs:
            return node
        return c_ast.For(self._rewrite(node.init) if node.init is not None else None,
                         self._rewrite(node.cond) if node.cond is not None else None,
                         node.next, node.stmt, node.coord)

    def _header_scalars(self, node: c_ast.For) -> frozenset[str]:
        """Scalars the nest sets that the header's text reads and the model reads as their value
        (`m = n - t; for (i = 0; i < m; i++)`): the header's read is in no statement's accesses."""
        if not self._defs:
            return frozenset()
        return frozenset(n.name for part in (node.init, node.cond) if part is not None for n in walk(part)
                         if isinstance(n, c_ast.ID) and self._scoped(n.name) in self._defs and n.name in self.written)

    def _check_divisions(self, translate: AffineTranslator, constraints, iterators) -> None:
        """C's `/` and `%` truncate, isl's round down, and C leaves shifts of negative values to the
        compiler: they agree on non-negative numerators (and shifted or masked values) only. Also
        checked for affine `if` conditions, which shape domains as much as bounds do."""
        if not translate.numerators:
            return
        params = ", ".join(isl_name(p) for p in sorted(self.params | translate.parameters))
        names = ", ".join(isl_name(v) for v in iterators)
        where = " and ".join(constraints) or "true"
        for numerator in translate.numerators:
            negative = isl.Set(f"[{params}] -> {{ [{names}] : {where} and {numerator} < 0 }}")
            if not negative.is_empty():
                raise NotAffine("division, remainder, shift or mask of a value that may be negative")
        translate.numerators.clear()

    # -- leaves ------------------------------------------------------------------------------
    def _leaf(self, node, loop_id, loops, constraints, beta, guarded, opaque=None, declared_key=None,
              reduction_op=None) -> None:
        stmt_id = f"{self.region_id}_S{len(self.statements)}"
        iters = [isl_name(l.var) for l in loops]
        params = ", ".join(isl_name(p) for p in sorted(self.params))
        domain = isl.Set(f"[{params}] -> {{ {stmt_id}[{', '.join(iters)}] : {' and '.join(constraints) or 'true'} }}")
        code = c_text(node) if not isinstance(node, c_ast.Decl) else _decl_text(node)
        stmt = Statement(stmt_id, node, [l.id for l in loops], domain, list(beta), node.coord.line, code,
                         opaque_reason=opaque, conditions=list(self._conditions))
        self.statements[stmt_id] = stmt
        effects = collect_effects(node, self.symbols, self._scoped, guarded=bool(guarded),
                                  field_sensitive=self.field_sensitive,
                                  declared_key=declared_key, rewrite=self._rewrite, rows=self.rows)
        own = len(effects.refs)
        for cond in guarded:
            effects.add_reads_of(cond)
        if effects.unknown_call and opaque is None:
            stmt.opaque_reason = f"call to '{effects.unknown_call}'"
        stmt.reduction = effects.reduction
        if stmt.reduction and any(r.key == stmt.reduction[0] for r in effects.refs[own:]):
            stmt.reduction = None  # `if (x > 0) x += e;` is not a reduction
        if reduction_op is not None:
            writes = {r.key for r in effects.refs if r.is_write}
            stmt.reduction = (writes.pop(), reduction_op) if len(writes) == 1 else None
        translate = self._translator([l.var for l in loops])
        iterators = {l.var for l in loops}
        target = reduction_target(node) if stmt.reduction is not None else None
        if target is None and stmt.opaque_reason:
            stmt.updates = nested_updates(effects.refs)
        for ref in effects.refs:
            if ref.key in iterators and not ref.is_write and not ref.subscripts:
                continue  # reading a loop variable is reading the iteration's coordinate
            self._add_access(stmt, ref, translate, iters)
            stmt.accesses[-1].reduces = ref.key == stmt.reduction[0] and ref.text == target if target \
                else ref.key in stmt.updates and ref.update is not None
        self.params |= translate.parameters
        self._check_divisions(translate, constraints, [l.var for l in loops])
        if self.params and params != ", ".join(isl_name(p) for p in sorted(self.params)):
            stmt.domain = stmt.domain.align_params(isl.Space.create_from_names(
                isl.DEFAULT_CONTEXT, set=[], params=[isl_name(p) for p in sorted(self.params)]))

    def _add_access(self, stmt: Statement, ref, translate: AffineTranslator, iters) -> None:
        container = self._container(ref)
        span = self._span(ref, translate)  # a call's range of elements: (variable, constraint)
        if span is not None:
            translate.iterators.add(ref.span[0])
        subs = []
        exact = True
        assumed = where = None  # the sizes' test under which the access is read exactly, its pieces (`_delinearized`)
        if container.strides:
            subs, exact, assumed, where = self._delinearized(stmt, ref, translate, iters, container, span)
        for k in range(len(subs), container.ndim):
            if k < len(ref.subscripts) and ref.subscripts[k] is not None and (span or not ref.span):
                try:
                    subs.append(translate.expr(ref.subscripts[k]))
                    continue
                except NotAffine:
                    pass
            subs.append(f"o{k}")
            exact = False
        if span is not None:
            translate.iterators.discard(ref.span[0])
        acc_id = f"{stmt.id}_a{len(stmt.accesses)}"
        params = ", ".join(isl_name(p) for p in sorted(self.params | translate.parameters))
        if where is not None:  # in pieces: `subs` are the outputs the condition relates
            rel = isl.Map(f"[{params}] -> {{ {acc_id}[{', '.join(iters)}] -> {_tuple(ref.key)}[{', '.join(subs)}] : "
                          f"{where} }}")
        elif span is None:
            rel = isl.Map(f"[{params}] -> {{ {acc_id}[{', '.join(iters)}] -> {_tuple(ref.key)}[{', '.join(subs)}] }}")
        else:  # the elements at every offset of the range
            outs = [f"o{k}" for k in range(len(subs))]
            equal = [f"o{k} = {sub}" for k, sub in enumerate(subs) if sub != f"o{k}"]
            rel = isl.Map(f"[{params}] -> {{ {acc_id}[{', '.join(iters)}] -> {_tuple(ref.key)}[{', '.join(outs)}] : "
                          f"exists ({span[0]}: {' and '.join([span[1]] + equal)}) }}")
        rel = rel.intersect_domain(stmt.domain.set_tuple_name(acc_id))
        if assumed is not None:
            rel = rel.intersect_params(assumed.align_params(rel.get_space()))
        must = ref.is_write and exact and not ref.may
        stmt.accesses.append(Access(acc_id, stmt.id, ref.key, ref.is_write, must, rel, ref.text, ref.line))

    def _span(self, ref, translate: AffineTranslator) -> tuple[str, str] | None:
        """For a call's access over a range of offsets (effects.py `Ref.span`), the range's
        variable and its constraint in isl, with the call's arguments put in; None where there
        is no range or its bounds are not affine here (then the access is "any element")."""
        if ref.span is None:
            return None
        var, condition, args = ref.span

        def arg(m):
            k = int(m.group(1))
            if k >= len(args):
                raise NotAffine("a call with fewer arguments than its function's parameters")
            return f"({translate.expr(self._rewrite(args[k]))})"

        try:
            condition = re.sub(r"\barg(\d+)\b", arg, condition)
        except NotAffine:
            return None
        t = isl_name(var)
        return t, "(" + re.sub(rf"\b{OFFSET}\b", t, condition) + ")"

    def _container(self, ref) -> Container:
        if ref.key in self.containers:
            return self.containers[ref.key]
        sym = self.symbols.lookup(ref.name)
        if ref.key.startswith("<"):
            c = Container(ref.key, 0, "?", Kind.MEMORY)
        elif sym is None or sym.kind in (Kind.STRUCT, Kind.FUNCTION):
            c = Container(ref.name, len(ref.subscripts), "?", Kind.POINTER if ref.subscripts else Kind.SCALAR)
        elif sym.kind == Kind.SCALAR:
            c = Container(ref.name, 0, sym.element, Kind.SCALAR, storage=sym.storage)
        else:
            c = Container(ref.name, sym.ndim, sym.element, sym.kind, sym.restrict, sym.storage,
                          indirect=sym.indirect, dims=[c_text(d) if d is not None else "" for d in sym.dims],
                          allocated=sym.kind == Kind.POINTER and allocation(getattr(sym.decl, "init", None)),
                          const=sym.const)
        if ref.key in self.rows and not ref.field_path:
            c.kind, c.restrict = Kind.POINTER, False  # rows reached through pointers, tested at run time (rows.py)
        if ref.field_path and ref.field_path.startswith(".") and sym is not None and ref.subscripts \
                and ref.name in self.field_sensitive:
            # One field of an array of structs: its own container, as aliasable as the array.
            field = self.symbols.table.element_field_symbol(ref.name, ref.field_path[1:], self.symbols.lookup) \
                if "." not in ref.field_path[1:] else None
            c = Container(ref.name, 1, "?", sym.kind, sym.restrict, sym.storage, field=ref.field_path,
                          member_element=field.element if field is not None and field.kind == Kind.SCALAR else "")
        elif ref.field_path == "[*]":
            # Memory reached through an array of pointers: rows may overlap, never privatizable.
            c = Container(ref.key, 0, "?", Kind.MEMORY)
        elif ref.field_path:
            field = self.symbols.table.field_symbol(struct_ref(ref.name, ref.field_path), self.symbols.lookup)
            c = Container(ref.key, len(ref.subscripts), "?", Kind.POINTER if ref.subscripts else Kind.SCALAR,
                          member_element=field.element if field is not None else "")
        if ref.key == ref.name or ref.field_path.startswith(("->", ".")):
            self._shape(ref.key, c)
        if sym is not None:
            c.qualifiers = sym.qualifiers
        self.containers[ref.key] = c
        return c


def _leaves_early(body: c_ast.Node) -> bool:
    """A `break` or `continue` of this loop in its body (other than the leading `if (c) continue;`
    guards, which shape the domain): its iterations are then not all run in full."""
    items = (body.block_items or []) if isinstance(body, c_ast.Compound) else [body]

    def visit(node, in_loop: bool, in_switch: bool) -> bool:
        if isinstance(node, c_ast.Break) and not (in_loop or in_switch):
            return True
        if isinstance(node, c_ast.Continue) and not in_loop:
            return True
        loop = isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile))
        switch = isinstance(node, c_ast.Switch)
        return any(visit(child, in_loop or loop, in_switch or switch) for _, child in node.children())

    return any(visit(item, False, False) for item in items if not continue_guard(item))


def continue_guard(node) -> bool:
    """`if (c) continue;` (or `{ continue; }`), with no else."""
    if not isinstance(node, c_ast.If) or node.iffalse is not None:
        return False
    body = node.iftrue
    if isinstance(body, c_ast.Compound) and body.block_items and len(body.block_items) == 1:
        body = body.block_items[0]
    return isinstance(body, c_ast.Continue)


def header_var(node: c_ast.For) -> str | None:
    init = node.init
    if isinstance(init, c_ast.DeclList) and init.decls:
        return init.decls[0].name
    if isinstance(init, c_ast.Assignment) and isinstance(init.lvalue, c_ast.ID):
        return init.lvalue.name
    return None


def _tuple(key: str) -> str:
    """An isl tuple name for a container key (keys may hold '#', '.', '->')."""
    out = []
    for ch in key:
        out.append(ch if ch.isalnum() or ch == "_" else f"_{ord(ch):x}_")
    return "c_" + "".join(out)


def _decl_text(decl: c_ast.Decl) -> str:
    return f"{decl.name} = {c_text(decl.init)};"


__all__ = ["LEAVES_EARLY", "NotModelable", "RegionBuilder", "header_var", "parse_header", "written_names", "PURE_FUNCTIONS"]
