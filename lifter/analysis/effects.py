"""What one statement reads and writes, conservatively.

Each reference becomes a `Ref`: the container it touches and its subscripts
(None where a subscript cannot be expressed, meaning "any index"). Writes
under a data-dependent condition, through unknown pointers or by calls are
may-writes. Calls to functions that are not known to be pure write the
pseudo-container `<world>`, which keeps every loop around them sequential.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from pycparser import c_ast

from lifter.analysis.model import Kind

from lifter.analysis.affine import c_text, int_constant
from lifter.analysis.call_spans import argument_offset, pointer_sum, within
from lifter.analysis.declared_types import may_point, pointee_words
from lifter.analysis.block_calls import BLOCK_FUNCTIONS, SPAN, element_count
from lifter.analysis.field_pointers import field_pointers
from lifter.analysis.pointer_aliases import pointer_aliases, through_aliases
from lifter.analysis.pure_functions import NORETURN_FUNCTIONS, PURE_FUNCTIONS
from lifter.analysis.updates import REDUCTION_OPS, array_base, reduction_target, rest_spares_target, root_name, select
from lifter.frontend.walk import walk



WORLD = "<world>"
GENERIC = "_Generic"  # the name a `_Generic` selection has in remarks (see _generic)
# pycparser parses `_Generic` from 3.11 on (the version pyproject.toml asks for); run from a source
# tree with an older one, a file using it is a syntax error, and nothing else changes.
GENERIC_SELECTION = getattr(c_ast, "GenericSelection", ())
MEMORY = "<memory>"


@dataclass
class Ref:
    key: str  # container key
    name: str  # the C name it starts from
    subscripts: list  # c_ast nodes, None for "any index"
    is_write: bool
    may: bool
    text: str
    line: int
    field_path: str = ""
    # A call's access over a range (call_spans.py): (variable, condition, call arguments); the
    # variable, in the subscripts, takes the offsets `OFFSET` of the isl condition over `arg<k>`.
    span: tuple | None = None
    # The operator of the reduction update (`x op= e`, `x = x op e`, `x++`) whose target this
    # reference is, wherever it stands in the statement: inside an opaque statement (a loop whose
    # header reads memory) the updates are marked one by one, for the loop verdict to see them.
    update: str | None = None
    # For an access to memory no name bounds (`<memory>`) through a pointer whose declaration
    # gives its element type in basic words (`double *out = h->r[l];`): that type, so that C's
    # aliasing rules can still keep such a write off an integer (invariants.py).
    element: str = ""


@dataclass
class Effects:
    refs: list[Ref] = field(default_factory=list)
    reduction: tuple[str, str] | None = None
    unknown_call: str | None = None
    _collector: "_Collector | None" = None

    def add_reads_of(self, node: c_ast.Node) -> None:
        self._collector.reads(node)


class _Collector:
    def __init__(self, symbols, scoped, guarded: bool, effects: Effects, field_sensitive=frozenset(), rewrite=None,
                 rows=frozenset()):
        self.symbols = symbols
        self.rows = rows  # row arrays read as 2-D arrays (rows.py)
        self.rewrite = rewrite or symbols.table.inline_helpers  # subscripts as the analysis reads them
        self.scoped = scoped
        self.guarded = guarded
        self.effects = effects
        self.field_sensitive = field_sensitive
        self.aliases = pointer_aliases(symbols)  # pointer locals read as the address they hold

    # -- references ---------------------------------------------------------------
    def _ref(self, node, is_write, may=False):
        """Record an lvalue-like reference (ID, ArrayRef, StructRef, *p)."""
        line = node.coord.line if node.coord else 0
        may = may or self.guarded
        if isinstance(node, c_ast.ID):
            sym = self.symbols.lookup(node.name)
            if sym is not None and sym.kind == Kind.FUNCTION:
                return
            if sym is not None and sym.kind in (Kind.ARRAY, Kind.POINTER) and not is_write:
                # The bare name of an array is its address, not a read of its elements.
                return
            key = self.scoped(node.name)
            self.effects.refs.append(Ref(key, node.name, [], is_write, may, node.name, line))
            return
        if isinstance(node, c_ast.ArrayRef):
            base, subs = node, []
            while isinstance(base, c_ast.ArrayRef):
                subs.insert(0, base.subscript)
                base = base.name
            for s in subs:
                self.reads(s)
            subs = [self.rewrite(s) for s in subs]
            if isinstance(base, c_ast.ID):
                sym = self.symbols.lookup(base.name)
                if sym is not None and sym.kind == Kind.SCALAR:
                    self._memory(is_write, line, node)
                    return
                if sym is not None and sym.indirect and base.name in self.rows and len(subs) == sym.ndim:
                    key = self.scoped(base.name)
                    self.effects.refs.append(Ref(key, base.name, subs, is_write, may, c_text(node), line))
                    return
                if sym is not None and sym.indirect:
                    # Rows reached through loaded pointers may overlap: any element, may-access.
                    key = self.scoped(base.name)
                    self.effects.refs.append(Ref(key, base.name, [subs[0]] + [None] * (len(subs) - 1), False,
                                                 False, c_text(node), line))
                    self.effects.refs.append(Ref(f"{key}[*]", base.name, [], is_write, True,
                                                 c_text(node), line, field_path="[*]"))
                    return
                key = self.scoped(base.name)
                self.effects.refs.append(Ref(key, base.name, subs, is_write, may, c_text(node), line))
                return
            if isinstance(base, c_ast.StructRef):
                path = self._struct_path(base)
                if path is not None:
                    root, fields = path
                    field = self.symbols.table.field_symbol(base, self.symbols.lookup)
                    if field is not None and field.indirect and len(subs) > 1:
                        # `a->rows[i][j]`: rows reached through a field's loaded row pointers
                        # may overlap, as a variable's do (above): any element, may-access.
                        self.effects.refs.append(Ref(f"{root}{fields}", root, [subs[0]] + [None] * (len(subs) - 1),
                                                     False, False, c_text(node), line, field_path=fields))
                        self.effects.refs.append(Ref(f"{root}{fields}[*]", root, [], is_write, True,
                                                     c_text(node), line, field_path=f"{fields}[*]"))
                        return
                    self.effects.refs.append(Ref(f"{root}{fields}", root, subs, is_write, may,
                                                 c_text(node), line, field_path=fields))
                    return
            self.reads(base)
            self._memory(is_write, line, node)
            return
        if isinstance(node, c_ast.StructRef):
            path = self._struct_path(node)
            if path is not None:
                root, fields = path
                self.effects.refs.append(Ref(f"{root}{fields}", root, [], is_write, may, c_text(node), line,
                                             field_path=fields))
                return
            self.reads(node.name)
            self._memory(is_write, line, node)
            return
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            if isinstance(node.expr, c_ast.ID):
                sym = self.symbols.lookup(node.expr.name)
                if sym is not None and sym.kind in (Kind.ARRAY, Kind.POINTER) and not sym.indirect:
                    zero = c_ast.Constant("int", "0")
                    key = self.scoped(node.expr.name)
                    self.effects.refs.append(Ref(key, node.expr.name, [zero] + [None] * (sym.ndim - 1),
                                                 is_write, may, c_text(node), line))
                    return
            self.reads(node.expr)
            self._memory(is_write, line, node)
            return
        if isinstance(node, c_ast.Cast):
            self._ref(node.expr, is_write, may)
            return
        self.reads(node)
        self._memory(is_write, line, node)

    def _struct_path(self, node: c_ast.StructRef):
        """`s.f`, `p->f`, `s.a.b`: (root name, field path); None for other shapes."""
        fields = ""
        while isinstance(node, c_ast.StructRef):
            fields = f"{node.type}{node.field.name}{fields}"
            node = node.name
        if isinstance(node, c_ast.ID):
            return self.scoped(node.name), fields
        if isinstance(node, c_ast.ArrayRef) and isinstance(node.name, c_ast.ID):
            # a[i].f: the element a[i] (field-insensitive, so conservative).
            return None
        return None

    def _memory(self, is_write, line, node):
        """An access through an expression we cannot name: any memory."""
        self.effects.refs.append(Ref(MEMORY, MEMORY, [], is_write, True, c_text(node), line))

    # -- expressions --------------------------------------------------------------
    def reads(self, node):
        if node is None:
            return
        parts = _conditional_parts(node)
        if parts is not None:
            always, maybe = parts
            for child in always:
                self.reads(child)
            guarded, self.guarded = self.guarded, True
            for child in maybe:
                self.reads(child)
            self.guarded = guarded
            return
        if isinstance(node, (c_ast.ID, c_ast.ArrayRef, c_ast.StructRef)):
            if isinstance(node, c_ast.StructRef) and isinstance(node.name, c_ast.ArrayRef):
                self._struct_array_ref(node, False)
                return
            self._ref(node, False)
            return
        if isinstance(node, c_ast.Constant):
            return
        if isinstance(node, c_ast.UnaryOp):
            if node.op == "sizeof":
                return
            if node.op == "*":
                self._ref(node, False)
                return
            if node.op == "&":
                self._address_taken(node.expr)
                return
            if node.op in ("++", "--", "p++", "p--"):
                start = len(self.effects.refs)
                self._ref(node.expr, False)
                self._write(node.expr)
                self._mark_update(node, start)
                return
            self.reads(node.expr)
            return
        if isinstance(node, c_ast.Assignment):
            start = len(self.effects.refs)
            if node.op != "=":
                self.reads(node.lvalue)
            self.reads(node.rvalue)
            self._write(node.lvalue)
            self._mark_update(node, start)
            return
        if isinstance(node, c_ast.FuncCall):
            self._call(node)
            return
        if isinstance(node, GENERIC_SELECTION):
            self._generic(node)
            return
        if isinstance(node, c_ast.Typename):
            return
        if isinstance(node, c_ast.Decl) and self._alias_declared(node):
            return
        for _, child in node.children():
            self.reads(child)

    def _alias_declared(self, decl: c_ast.Decl) -> bool:
        """The declaration of a pointer alias (pointer_aliases.py) reads its offset and writes no
        element: every access through the pointer is one of the element it names."""
        alias = self.aliases.get(decl.name)
        if alias is None or decl.init is None:
            return False
        self.reads(alias.offset)
        return True

    def _mark_update(self, node, start: int) -> None:
        """Mark the references to the target of `node`, recorded from `start` on, if `node` is a
        reduction update (its other operand does not read the target: `_reduction`)."""
        found = _reduction(node, self)
        if found is None:
            return
        target = reduction_target(node)
        for ref in self.effects.refs[start:]:
            if ref.key == found[0] and ref.text == target:
                ref.update = found[1]

    def _write(self, node):
        if isinstance(node, c_ast.StructRef) and _field_of_element(node):
            self._struct_array_ref(node, True)
        else:
            self._ref(node, True)

    def _struct_array_ref(self, node, is_write):
        """`a[i].f` (or `a[i].f.g`): field-sensitively when the region only ever touches
        a's elements field by field (then fields are separate containers), else the whole a[i]."""
        base, fields = node, ""
        while isinstance(base, c_ast.StructRef) and base.type == ".":
            fields = f".{base.field.name}{fields}"
            base = base.name
        if isinstance(base, c_ast.ArrayRef) and isinstance(base.name, c_ast.ID) \
                and base.name.name in self.field_sensitive and fields:
            self.reads(base.subscript)
            name = base.name.name
            line = node.coord.line if node.coord else 0
            self.effects.refs.append(Ref(f"{self.scoped(name)}{fields}", name, [base.subscript], is_write,
                                         self.guarded, c_text(node), line, field_path=fields))
            return
        base = node
        while isinstance(base, c_ast.StructRef):
            base = base.name
        if isinstance(base, c_ast.ArrayRef):
            self._ref(base, is_write, may=is_write)
            if is_write:
                # Writing one field leaves the others: the element is not wholly overwritten.
                self.effects.refs[-1].may = True
        else:
            self._ref(node, is_write)

    def _address_taken(self, node):
        """`&x` or `&a[i]`: the pointer may be used to read or write it later."""
        self._ref(node, False)
        self._ref(node, True, may=True)

    def _call(self, node: c_ast.FuncCall):
        name = node.name.name if isinstance(node.name, c_ast.ID) else None
        args = node.args.exprs if node.args else []
        if name in PURE_FUNCTIONS or name in self.symbols.table.pure_functions:
            for a in args:
                self.reads(a)
            return
        if name in NORETURN_FUNCTIONS and name not in self.symbols.table.defined:
            return  # (a function of that name the file defines is the user's own)
        if name in BLOCK_FUNCTIONS and name not in self.symbols.table.defined and self._block_call(node, name):
            return
        summary = self.symbols.table.call_effects.get(name)
        if summary is not None and self._summarized_call(node, summary):
            return
        self.effects.unknown_call = self.effects.unknown_call or (name or c_text(node.name))
        line = node.coord.line if node.coord else 0
        self.effects.refs.append(Ref(WORLD, WORLD, [], True, True, c_text(node), line))
        self.effects.refs.append(Ref(WORLD, WORLD, [], False, False, c_text(node), line))
        for a in args:
            self.reads(a)
            target = a
            while isinstance(target, c_ast.Cast):
                target = target.expr
            if isinstance(target, c_ast.ID):
                sym = self.symbols.lookup(target.name)
                if sym is not None and sym.kind in (Kind.ARRAY, Kind.POINTER):
                    key = self.scoped(target.name)
                    any_index = [None] * sym.ndim
                    self.effects.refs.append(Ref(key, target.name, any_index, False, False, target.name, line))
                    self.effects.refs.append(Ref(key, target.name, any_index, True, True, target.name, line))
            elif not isinstance(target, (c_ast.Constant, c_ast.BinaryOp)) or _has_pointer_ops(target):
                self._memory(True, line, target)

    def _block_call(self, node: c_ast.FuncCall, name: str) -> bool:
        """`memset`/`memcpy`/`memmove` of K elements of a one-dimensional array (block_calls.py)
        as accesses over offsets 0 .. K - 1 from the pointer; False (nothing recorded) for any
        other form."""
        args = node.args.exprs if node.args else []
        if len(args) != 3:
            return False
        line = node.coord.line if node.coord else 0
        refs, to_read = [], [a for k, a in enumerate(args) if k not in BLOCK_FUNCTIONS[name]]
        for k, is_write in zip(BLOCK_FUNCTIONS[name], (True, False)):
            if k is None:
                continue
            target, offset = self._pointer_target(args[k]), argument_offset(args[k])
            if target is None or offset is None or target[2] != 1 or target[4]:
                return False
            key, base, _, subscripts, _ = target
            to_read.extend(subscripts)
            element = self._element(args[k])
            if is_write:  # (the size counts the destination's elements; a source of another type is refused)
                count, counted = element_count(args[2], element or "", base), element
            if count is None or element != counted:
                return False
            var = f"__lift_block{k}"
            index = self.rewrite(c_ast.BinaryOp("+", offset, c_ast.ID(var)))
            refs.append(Ref(key, base, [index], is_write, is_write, c_text(args[k]), line,
                            span=(var, SPAN, (count,))))
        for a in to_read:
            self.reads(a)
        self.effects.refs.extend(refs)
        return True

    def _generic(self, node):
        """`_Generic(c, T: e, ...)` evaluates one `e`, chosen by types the analysis does not know:
        every `e` is a guarded (may) access, and the selection counts as an unknown call, so the
        loops around it stay sequential with a remark naming it."""
        line = node.coord.line if node.coord else 0
        self.effects.unknown_call = self.effects.unknown_call or GENERIC
        self.effects.refs.append(Ref(WORLD, WORLD, [], True, True, GENERIC, line))
        self.effects.refs.append(Ref(WORLD, WORLD, [], False, False, GENERIC, line))
        guarded, self.guarded = self.guarded, True
        for association in node.associations or []:
            self.reads(association.expr)
        self.guarded = guarded

    def _summarized_call(self, node: c_ast.FuncCall, summary) -> bool:
        """A call to a summarized file-local function: its effects through pointer arguments and
        globals, as reads and may-writes of any element. False (nothing recorded) when an
        argument or global cannot be named here; the call is then unknown."""
        args = node.args.exprs if node.args else []
        line = node.coord.line if node.coord else 0
        refs, to_read = [], []
        # Offsets count the callee's elements: only arguments of that very type, not cast, use them.
        spans = {k: condition for k, condition, element in summary.spans
                 if k < len(args) and not isinstance(args[k], c_ast.Cast) and self._element(args[k]) == element}
        for k, a in enumerate(args):
            if k not in summary.reads and k not in summary.writes:
                to_read.append(a)
                continue
            if k in spans and isinstance(a, c_ast.ArrayRef) and isinstance(a.name, c_ast.ID) \
                    and a.name.name in self.rows:
                # A row of a `double **` read as 2-D (rows.py): the call touches its span of row e.
                var, row = f"__lift_span{k}", self.rewrite(a.subscript)
                to_read.append(a.subscript)
                for is_write in (False, True):
                    if k in (summary.writes if is_write else summary.reads):
                        refs.append(Ref(self.scoped(a.name.name), a.name.name, [row, c_ast.ID(var)], is_write,
                                        is_write, c_text(a), line, span=(var, spans[k], tuple(args))))
                continue
            row = self._row_argument(a, spans.get(k))
            if row is not None:  # a row of a multi-dimensional array, touched within the row
                key, name, index, start = row
                var = f"__lift_span{k}"
                to_read.extend(index)
                last = self.rewrite(c_ast.BinaryOp("+", c_ast.Constant("int", str(start)), c_ast.ID(var)))
                for is_write in (False, True):
                    if k in (summary.writes if is_write else summary.reads):
                        refs.append(Ref(key, name, [self.rewrite(e) for e in index] + [last], is_write, is_write,
                                        c_text(a), line, span=(var, spans[k], tuple(args))))
                continue
            target = self._pointer_target(a)
            if target is None:
                return False
            key, name, ndim, subscripts, path = target
            to_read.extend(subscripts)
            fields = self._field_refs(k, a, summary, key, name, path, line)
            if fields is None:
                return False
            refs.extend(fields)
            if k in summary.through_fields and isinstance(a, c_ast.ID) and a.name in field_pointers(self.symbols):
                continue  # (the callee touches the block only through the fields above, as the function does)
            span = spans.get(k)
            offset = argument_offset(a) if span is not None and ndim == 1 else None
            for is_write in (False, True):
                if k not in (summary.writes if is_write else summary.reads):
                    continue
                if offset is None:
                    refs.append(Ref(key, name, [None] * ndim, is_write, is_write, c_text(a), line, field_path=path))
                    continue
                var = f"__lift_span{k}"  # the callee's offset: the subscript is `offset + var`
                index = self.rewrite(c_ast.BinaryOp("+", offset, c_ast.ID(var)))
                refs.append(Ref(key, name, [index], is_write, is_write, c_text(a), line,
                                span=(var, span, tuple(args)), field_path=path))
        for name in sorted(summary.global_reads | summary.global_writes):
            sym = self.symbols.lookup(name)
            if sym is None or sym is not self.symbols.table.globals.get(name) or self.scoped(name) != name:
                return False  # shadowed by a local of the caller
            for is_write in (False, True):
                if name in (summary.global_writes if is_write else summary.global_reads):
                    refs.append(Ref(name, name, [None] * sym.ndim, is_write, is_write, c_text(node), line))
        for a in to_read:
            self.reads(a)
        self.effects.refs.extend(refs)
        return True

    def _field_refs(self, k: int, arg, summary, key: str, name: str, path: str, line: int) -> list | None:
        """The callee's field accesses through parameter k (`p->f`, `p->f[e]`: CallEffects.fields)
        as the caller keys them, `x->f` and any element of `x->f`: this caller's own `x->f` and
        `x->f[e]` are a container apart from x's elements. None (the call stays unknown) where a
        path cannot be mapped: an argument of another element type or cast, a field in a union,
        a scalar path to a field that is not a scalar, or an element path to a field that is not
        an array or a pointer to plain elements."""
        accesses = sorted(access for access in summary.fields if access.position == k)
        if not accesses:
            return []
        base = arg.left if isinstance(arg, c_ast.BinaryOp) else arg.expr.name \
            if isinstance(arg, c_ast.UnaryOp) and isinstance(arg.expr, c_ast.ArrayRef) else arg
        if isinstance(base, c_ast.StructRef):
            element = self.symbols.table.field_symbol(base, self.symbols.lookup).element
        else:  # (`&a[e].g`, `&a[i][j]`: the callee's paths start inside an element)
            element = self._element(arg) if isinstance(base, c_ast.ID) else None
        if isinstance(arg, c_ast.Cast) or {access.element for access in accesses} != {element}:
            return None
        refs = []
        for access in accesses:
            node = struct_ref(name, path + access.path)
            sym = self.symbols.table.field_symbol(node, self.symbols.lookup)
            if sym is None or self.symbols.table.in_union(node, self.symbols.lookup):
                return None
            if access.elements and (sym.kind not in (Kind.ARRAY, Kind.POINTER) or sym.indirect) \
                    or not access.elements and sym.kind != Kind.SCALAR:
                return None
            subscripts = [None] * sym.ndim if access.elements else []
            refs.append(Ref(f"{key}{access.path}", name, subscripts, access.written, True, c_text(arg), line,
                            field_path=path + access.path))
        return refs

    def _row_argument(self, arg, span: str | None):
        """(key, name, outer subscripts, first column) for an argument that points into one row
        of a multi-dimensional array, `f[i]` or `&f[i][c]` (c a constant), when the callee's span
        keeps every offset inside that row (its constant extent): then the call touches
        f[i][c + offset] only, not any element of f."""
        if span is None:
            return None
        start, node = 0, arg
        if isinstance(node, c_ast.UnaryOp) and node.op == "&":
            if not isinstance(node.expr, c_ast.ArrayRef):
                return None
            start, node = int_constant(node.expr.subscript), node.expr.name
            if start is None:
                return None
        index = []
        while isinstance(node, c_ast.ArrayRef):
            index.insert(0, node.subscript)
            node = node.name
        if not isinstance(node, c_ast.ID) or not index:
            return None
        sym = self.symbols.lookup(node.name)
        if sym is None or sym.kind not in (Kind.ARRAY, Kind.POINTER) or sym.indirect or node.name in self.rows \
                or node.name in self.symbols.ambiguous or sym.ndim != len(index) + 1:
            return None
        extent = int_constant(sym.dims[-1]) if sym.dims and sym.dims[-1] is not None else None
        if extent is None or not within(span, -start, extent - 1 - start):
            return None
        return self.scoped(node.name), node.name, index, start

    def _element(self, arg) -> str | None:
        """The element type of the array or pointer an argument (`a`, `a + e`, `&a[e]`, `A[e]`, `&s->f[e]`)
        starts from, as its declaration spells it."""
        while isinstance(arg, (c_ast.BinaryOp, c_ast.UnaryOp, c_ast.ArrayRef)):
            arg = arg.left if isinstance(arg, c_ast.BinaryOp) else arg.expr if isinstance(arg, c_ast.UnaryOp) \
                else arg.name
        if isinstance(arg, c_ast.StructRef):  # a pointer or array field, `&s->f[e]`
            sym = self.symbols.table.field_symbol(arg, self.symbols.lookup)
        else:
            sym = self.symbols.lookup(arg.name) if isinstance(arg, c_ast.ID) else None
        return sym.element if sym is not None else None

    def _pointer_target(self, arg):
        """(key, name, dimensions, subscript expressions read, field path) of the block a pointer
        argument points into: `a`, `a + e`, `&a[e]`, `&a[e].f`, `&x` for arrays, pointers and
        scalars, and a pointer field `s.f`, `p->a.f` (keyed by its path, as the caller's
        `s.f[e]` is)."""
        while isinstance(arg, c_ast.Cast):
            arg = arg.expr
        read, addressed = [], False
        if isinstance(arg, c_ast.BinaryOp) and arg.op in "+-":
            arg, added = pointer_sum(arg)
            read.extend(term for _, term in added)
        elif isinstance(arg, c_ast.UnaryOp) and arg.op == "&":
            arg, addressed = arg.expr, True
            while isinstance(arg, c_ast.StructRef) and arg.type == ".":
                arg = arg.name
            while isinstance(arg, c_ast.ArrayRef):
                read.append(arg.subscript)
                arg = arg.name
        if isinstance(arg, c_ast.StructRef):
            target = self._field_target(arg)
            return target[:3] + (read, target[4]) if target is not None else None
        if not isinstance(arg, c_ast.ID):
            return None
        sym = self.symbols.lookup(arg.name)
        if sym is None or sym.indirect or sym.name in self.symbols.ambiguous:
            return None
        if sym.kind == Kind.SCALAR and addressed and not read:
            return self.scoped(arg.name), arg.name, 0, read, ""
        if sym.kind in (Kind.ARRAY, Kind.POINTER):
            return self.scoped(arg.name), arg.name, sym.ndim, read, ""
        return None

    def _field_target(self, arg: c_ast.StructRef):
        """`_pointer_target` of a field `s.f` or `p->a.f` that is an array or a pointer (not one
        loaded through another field, `p->q->f`, nor in a union)."""
        path = self._struct_path(arg)
        sym = self.symbols.table.field_symbol(arg, self.symbols.lookup)
        if path is None or sym is None or sym.kind not in (Kind.ARRAY, Kind.POINTER) or sym.indirect \
                or "->" in path[1][1:] or self.symbols.table.in_union(arg, self.symbols.lookup):
            return None
        root = root_name(arg)
        variable = self.symbols.lookup(root)
        if variable is None or variable.indirect or root in self.symbols.ambiguous:
            return None
        return f"{path[0]}{path[1]}", root, sym.ndim, [], path[1]


def struct_ref(root: str, path: str) -> c_ast.StructRef:
    """The StructRef chain of a field path as effects.py keys it: ('g', '->a.b') -> g->a.b."""
    node = c_ast.ID(root)
    for op, name in re.findall(r"(->|\.)(\w+)", path):
        node = c_ast.StructRef(node, op, c_ast.ID(name))
    return node


def _conditional_parts(node):
    """(parts that always run, parts that may not) of a control construct inside a
    statement (an opaque loop's body, a branch, a short-circuit operand), else None.

    What the second part writes is a may-write: an opaque loop may run no
    iteration, so it must not kill an earlier value (`t` before
    `for (k = a[i]; k < a[i+1]; k++) t = x[k];` may still be read after it).
    """
    if isinstance(node, c_ast.For):
        return [node.init], [node.cond, node.next, node.stmt]
    if isinstance(node, (c_ast.If, c_ast.TernaryOp)):
        return [node.cond], [node.iftrue, node.iffalse]
    if isinstance(node, (c_ast.While, c_ast.DoWhile, c_ast.Switch)):
        return [node.cond], [node.stmt]
    if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
        return [node.left], [node.right]
    return None


def _has_pointer_ops(node) -> bool:
    return any(isinstance(n, c_ast.UnaryOp) and n.op in ("&", "*") for n in walk(node))


def collect_effects(node, symbols, scoped, guarded=False, declared_key=None, field_sensitive=frozenset(),
                    rewrite=None, rows=frozenset()) -> Effects:
    effects = Effects()
    collector = _Collector(symbols, scoped, guarded, effects, field_sensitive, rewrite, rows)
    effects._collector = collector
    node = through_aliases(node, collector.aliases)
    if isinstance(node, c_ast.For) and _init_target(node) is not None:
        # An opaque loop sets its variable before any use: the reads inside see that value.
        var = _init_target(node)
        collector.reads(node)
        effects.refs = [r for r in effects.refs if r.is_write or r.key != collector.scoped(var)]
    elif isinstance(node, c_ast.Decl):
        if not collector._alias_declared(node):
            collector.reads(node.init)
        line = node.coord.line if node.coord else 0
        effects.refs.append(Ref(declared_key, node.name, [], True, guarded, node.name, line))
    else:
        collector.reads(node)
    internal = _declared_first(node) if not isinstance(node, c_ast.Decl) else {}
    if internal:
        # Variables declared inside an opaque statement before any use are its own business,
        # but not what a pointer among them points to (`double *q = f; q[atoms[k]] = 0;`
        # writes f): an access through one is an access to memory no name bounds.
        kept = []
        for r in effects.refs:
            if r.name not in internal or r.field_path:
                kept.append(r)
            elif r.subscripts and may_point(internal[r.name], symbols.table.typedefs):
                kept.append(_pointee_ref(r, internal[r.name], node, collector))
        effects.refs = kept
    # Under a data-dependent condition too: a skipped update adds the identity.
    # The caller drops the reduction if a condition reads the reduced variable.
    effects.reduction = _reduction(node, collector)
    return effects


def _reduction(node, collector) -> tuple[str, str] | None:
    """`x op= e`, `x = x op e`, `x = e op x`, `x = fmax(x, e)` with e not touching x; `x++`."""
    if isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--"):
        key = _key_of(node.expr, collector)
        return (key, "+") if key is not None else None
    if not isinstance(node, c_ast.Assignment):
        return None
    target = c_text(node.lvalue)
    key = _key_of(node.lvalue, collector)
    if key is None:
        return None
    if node.op in REDUCTION_OPS:
        op, rest = REDUCTION_OPS[node.op], [node.rvalue]
    elif node.op == "=" and isinstance(node.rvalue, c_ast.BinaryOp) and node.rvalue.op in "+*&|^-":
        r = node.rvalue
        if c_text(r.left) == target:
            op, rest = ("+" if r.op == "-" else r.op), [r.right]
        elif c_text(r.right) == target and r.op != "-":
            op, rest = r.op, [r.left]
        else:
            return None
    elif node.op == "=" and isinstance(node.rvalue, c_ast.FuncCall) and isinstance(node.rvalue.name, c_ast.ID) \
            and node.rvalue.name.name in ("fmax", "fmin", "fmaxf", "fminf") and node.rvalue.args \
            and len(node.rvalue.args.exprs) == 2:
        a, b = node.rvalue.args.exprs
        op = "max" if "max" in node.rvalue.name.name else "min"
        if c_text(a) == target:
            rest = [b]
        elif c_text(b) == target:
            rest = [a]
        else:
            return None
    elif node.op == "=" and isinstance(node.rvalue, c_ast.TernaryOp):
        found = select(node.rvalue.cond, node.rvalue.iftrue, node.rvalue.iffalse, target)
        if found is None:
            return None
        op, rest = found[0], [found[1]]
    else:
        return None
    if not rest_spares_target(node.lvalue, rest):
        return None
    return key, op


def nested_updates(refs: list[Ref]) -> dict[str, str]:
    """{container: operator} for the containers that an opaque statement touches only through
    reduction updates of one operator family (`f[i] += d; f[j] -= d;`): inside the statement
    the order of such updates does not matter, so the loop around it may reduce into them."""
    ops: dict[str, set] = {}
    for ref in refs:
        ops.setdefault(ref.key, set()).add(ref.update)
    return {key: found.pop() for key, found in ops.items() if len(found) == 1 and None not in found}


def _field_of_element(node: c_ast.StructRef) -> bool:
    """`a[i].f` or `a[i].f.g`."""
    while isinstance(node, c_ast.StructRef) and node.type == ".":
        node = node.name
    return isinstance(node, c_ast.ArrayRef)


def _declared_first(node) -> dict[str, c_ast.Decl]:
    """Names whose first appearance under `node` (in preorder) is their declaration, with it."""
    seen: set[str] = set()
    declared: dict[str, c_ast.Decl] = {}

    def visit(n):
        if isinstance(n, c_ast.Decl) and n.name:
            if n.name not in seen:
                declared[n.name] = n
            seen.add(n.name)
        elif isinstance(n, c_ast.ID):
            seen.add(n.name)
        for _, c in n.children():
            visit(c)

    visit(node)
    return declared


def _pointee_ref(r: Ref, decl: c_ast.Decl, node, collector: "_Collector") -> Ref:
    """`r`, an access through a pointer declared inside `node`, as a may-access to any element
    of what its initializer points into (`q = f`, `q = f + e`, `q = &f[e]`, `q = s->f`), or to any
    memory where the pointer is assigned again or its initializer is another shape."""
    init = decl.init
    while isinstance(init, c_ast.Cast):
        init = init.expr
    if isinstance(init, c_ast.BinaryOp) and init.op == "+":
        init = init.left
    elif isinstance(init, c_ast.UnaryOp) and init.op == "&" and isinstance(init.expr, c_ast.ArrayRef):
        init = init.expr.name
    reassigned = any(_names(n.lvalue, decl.name) if isinstance(n, c_ast.Assignment) else
                     isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "&")
                     and _names(n.expr, decl.name) for n in walk(node))
    if not reassigned and isinstance(init, c_ast.ID):
        sym = collector.symbols.lookup(init.name)
        if sym is not None and sym.kind in (Kind.ARRAY, Kind.POINTER) and not sym.indirect:
            return Ref(collector.scoped(init.name), init.name, [None] * max(sym.ndim, 1), r.is_write, True,
                       r.text, r.line)
    if not reassigned and isinstance(init, c_ast.StructRef):
        path = collector._struct_path(init)
        if path is not None:
            root, fields = path
            return Ref(f"{root}{fields}", root, [None], r.is_write, True, r.text, r.line, field_path=fields)
    return Ref(MEMORY, MEMORY, [], r.is_write, True, r.text, r.line, element=pointee_words(decl))


def _names(node, name: str) -> bool:
    return isinstance(node, c_ast.ID) and node.name == name


def _init_target(node: c_ast.For) -> str | None:
    init = node.init
    if isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
        if not any(isinstance(n, c_ast.ID) and n.name == init.lvalue.name for n in walk(init.rvalue)):
            return init.lvalue.name
    return None


def _key_of(lvalue, collector) -> str | None:
    if isinstance(lvalue, c_ast.ID):
        return collector.scoped(lvalue.name)
    if isinstance(lvalue, c_ast.StructRef):
        fields, base = "", lvalue
        while isinstance(base, c_ast.StructRef) and base.type == ".":
            fields = f".{base.field.name}{fields}"
            base = base.name
        if isinstance(base, c_ast.ArrayRef) and isinstance(base.name, c_ast.ID) \
                and base.name.name in collector.field_sensitive:
            return f"{collector.scoped(base.name.name)}{fields}"
        return None
    if isinstance(lvalue, c_ast.ArrayRef):
        base = array_base(lvalue)
        if isinstance(base, c_ast.ID):
            return collector.scoped(base.name)
    if isinstance(lvalue, c_ast.UnaryOp) and lvalue.op == "*" and isinstance(lvalue.expr, c_ast.ID):
        # `*result += e`: the element `_ref` records as result[0] (an output pointer's target).
        sym = collector.symbols.lookup(lvalue.expr.name)
        if sym is not None and sym.kind in (Kind.ARRAY, Kind.POINTER) and not sym.indirect:
            return collector.scoped(lvalue.expr.name)
    return None
