"""Stand-in parameters: non-affine expressions whose value is fixed for a whole region.

Loop bounds and subscripts such as `k * dim`, `g->n` or `p->nx * p->ny` are not
affine, but where nothing in the region can change them they are one integer
for the region's whole run, so the model may name them as a fresh isl parameter
(a stand-in, see affine.py) and stay exact. `StandIns` decides when that is
sound, conservatively:

- every variable in the expression is an integer the region never assigns, whose
  address it never takes (the region's ordinary parameters; a global also needs the
  region to call no unknown function), or the root of a
  struct field path (`g` of `g->n`, `s` of `s.len`) the region never assigns;
- no write of the region may change a field the expression reads: no unknown
  call (`<world>`), no write through an unknown pointer (`<memory>`, rows of
  `double **`), no write of a field of the same name (another pointer of the same
  type may point to the same struct), no element write through a pointer unless
  it writes floating-point elements (which, by C's aliasing rules, cannot be an
  integer field) or owns its storage (a declared array is not part of a struct
  reached through a pointer).

A product of two ints may overflow in C; the stand-in is whatever value the C
expression has at region entry, which is the value the loop as written uses.
"""
from __future__ import annotations

import re

from pycparser import c_ast

from lifter.analysis.affine import c_text, int_constant
from lifter.analysis.effects import MEMORY, WORLD, collect_effects, struct_ref
from lifter.analysis.model import Kind
from lifter.analysis.param_copies import parameter_origins
from lifter.analysis.symbols import FLOAT_WORDS, INTEGER_WORDS, classify, replace_nodes

_FIELD = re.compile(r"(?:->|\.)(\w+)")
_INTEGER_KINDS = {"short", "int", "long", "long long"}


def _integer_kind(element: str) -> str | None:
    """The integer type `element` spells, without signedness and `int` (`unsigned long int` is
    `long`), or None for anything that may alias another type: a character type, `_Bool`, a
    typedef name (it may be either type), a qualified or non-integer type."""
    words = element.split()
    if not words or not set(words) <= INTEGER_WORDS - {"char", "_Bool", "bool"}:
        return None
    core = " ".join(w for w in words if w not in ("signed", "unsigned"))
    core = core if core in ("int", "") else core.replace(" int", "")
    core = core or "int"
    return core if core in _INTEGER_KINDS else None


class StandIns:
    """`stand_ins(node)`: the C text of `node` if it may be a stand-in parameter, else None."""

    def __init__(self, root: c_ast.Node, symbols, is_parameter, written: set[str]):
        self.root = root
        self.symbols = symbols
        self.is_parameter = is_parameter  # an integer the region never writes
        self.written = written  # names assigned, declared or address-taken in the region
        self._writes = None

    def __call__(self, node: c_ast.Node) -> str | None:
        return c_text(node) if self._invariant(node) else None

    def _invariant(self, node) -> bool:
        if int_constant(node) is not None:
            return True
        if isinstance(node, c_ast.ID):
            # A global may also be changed by an unknown call (a local whose address the region
            # never takes cannot).
            sym = self.symbols.lookup(node.name)
            return self.is_parameter(node.name) and not any(
                (w.key == node.name and not w.subscripts) or (w.key == WORLD and sym.storage == "global")
                for w in self.writes())
        if isinstance(node, c_ast.Cast):
            to = classify("", node.to_type.type, self.symbols.table.typedefs, "local")
            return to.kind == Kind.SCALAR and to.integer and self._invariant(node.expr)
        if isinstance(node, c_ast.UnaryOp) and node.op in "+-":
            return self._invariant(node.expr)
        if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*", "/", "%"):
            return self._invariant(node.left) and self._invariant(node.right)
        if isinstance(node, c_ast.StructRef):
            return self._invariant_field(node)
        if isinstance(node, c_ast.ArrayRef):
            return self._invariant_element(node)
        return False

    def _invariant_element(self, node: c_ast.ArrayRef) -> bool:
        """An integer element at an invariant index of a one-dimensional array or pointer the
        region never assigns (`size[2]`), which no write of the region may change."""
        base = node.name
        if not isinstance(base, c_ast.ID) or base.name in self.symbols.ambiguous or base.name in self.written:
            return False
        sym = self.symbols.lookup(base.name)
        if sym is None or sym.kind not in (Kind.ARRAY, Kind.POINTER) or sym.ndim != 1 or sym.indirect \
                or not set(sym.element.split()) & INTEGER_WORDS or not self._invariant(node.subscript):
            return False
        return all(self._spares_element(w, sym) for w in self.writes())

    def _spares_element(self, write, array) -> bool:
        """The write cannot change an element of `array` (a Symbol): it writes a local variable
        or parameter (whose address the function never takes), or an element of another array
        when both are objects of their own, or through a `restrict` pointer (which no other pointer of the
        region may reach) or, relying on C's aliasing rules, a floating-point element or field."""
        if self._floating_store(write):
            return True
        if write.key.startswith("<") or write.field_path == "[*]" or write.name == array.name:
            return False
        written_fields = _FIELD.findall(write.field_path)
        if not write.subscripts and not written_fields:
            variable = self.symbols.lookup(write.name)  # a global's address may be taken elsewhere
            return variable is not None and variable.storage != "global" \
                and write.name not in self.symbols.addressed
        if written_fields:
            sym = self.symbols.table.field_symbol(struct_ref(write.name, write.field_path), self.symbols.lookup)
        else:
            sym = self.symbols.lookup(write.name)
        if sym is None:
            return False
        if self._typed_apart(sym):
            return True
        if written_fields:
            return False
        return sym.restrict or sym.owns_storage and array.owns_storage

    def _invariant_field(self, node: c_ast.StructRef) -> bool:
        """An integer field reached from a variable the region never assigns, which no write
        of the region may change."""
        sym = self.symbols.table.field_symbol(node, self.symbols.lookup)
        if sym is None or sym.kind != Kind.SCALAR or not sym.integer \
                or self.symbols.table.in_union(node, self.symbols.lookup):
            return False
        base = node
        while isinstance(base, c_ast.StructRef):
            base = base.name
        if not isinstance(base, c_ast.ID) or base.name in self.symbols.ambiguous:
            return False
        root = self.symbols.lookup(base.name)
        if root is None or root.kind not in (Kind.STRUCT, Kind.POINTER) or base.name in self.written:
            return False
        fields = set(_FIELD.findall(c_text(node)))
        # A struct variable of the function (`Inputs in`, passed by value) whose address is
        # never taken: no pointer reaches it, so only writes naming it can change it.
        own = root.kind == Kind.STRUCT and root.storage != "global" and base.name not in self.symbols.addressed
        return all(self._spares(w, base.name, fields, sym.element, own) for w in self.writes())

    def _spares(self, write, root: str, fields: set[str], element: str, own: bool = False) -> bool:
        """The write cannot change a field named in `fields`, of type `element`, of the struct
        reached from `root` (`own`: a struct object no pointer reaches)."""
        if own:  # (not even an unknown call or a write through any pointer)
            return write.name != root
        if self._floating_store(write):
            return True
        if write.key in (WORLD, MEMORY) or write.key.startswith("<") or write.field_path == "[*]":
            return False
        written_fields = _FIELD.findall(write.field_path)
        if self._apart_by_promise(write, root):
            return True
        if not write.subscripts:
            if not written_fields:
                return write.name != root  # a scalar variable: another object
            return written_fields[-1] not in fields
        if written_fields:
            sym = self.symbols.table.field_symbol(struct_ref(write.name, write.field_path), self.symbols.lookup)
        else:
            sym = self.symbols.lookup(write.name)
        if sym is None or sym.kind not in (Kind.ARRAY, Kind.POINTER):
            return False
        words = set(sym.element.split())
        if self._typed_apart(sym) or self._integers_apart(sym.element, element):
            return True
        return sym.owns_storage and not written_fields and bool(words) and words <= INTEGER_WORDS

    def _apart_by_promise(self, write, root: str) -> bool:
        """The write goes through a pointer the caller handed in (`o`, `o->bin`) other than
        pointer parameter `root`: by the user's --assume-no-alias (memory reached through two of
        the caller's pointers never overlaps, as `Region.from_params` reads the promise) it cannot
        change the struct behind `root`. cellmd's `for (i < s->natoms) cl->cell_of[i] = ...`,
        whose `int` store could otherwise be `s->natoms`. A pointer the function itself set (or
        handed to a call that may set it) holds no caller's pointer (`param_copies`)."""
        if not self.symbols.table.assume_no_alias or write.name == root \
                or not re.fullmatch(r"(->\w+)?", write.field_path):
            return False  # (a deeper path may run through a pointer the caller did not hand in)
        pointer = write.name
        if write.field_path and write.subscripts:
            member = self.symbols.table.field_symbol(struct_ref(write.name, write.field_path), self.symbols.lookup)
            if member is None or member.kind not in (Kind.POINTER, Kind.ARRAY):
                return False
            pointer += write.field_path if member.kind == Kind.POINTER else ""  # an array member is in the struct
        elif not write.field_path and not write.subscripts:
            return False  # a variable of its own, not memory behind a pointer
        params = [self.symbols.lookup(n) for n in (write.name, root)]
        if any(p is None or p.storage != "param" or p.kind != Kind.POINTER for p in params):
            return False
        held = parameter_origins(self.symbols, [pointer, root])
        return held.get(pointer) == pointer and held.get(root) == root

    def _typed_apart(self, sym) -> bool:
        """`sym` holds floating-point elements: by C's aliasing rules, as gcc -O2 assumes, a store
        through it changes no integer; not under -fno-strict-aliasing (a `double *` may be pointed
        at a struct whose `long` bounds the loop, and its store then rewrites the bound)."""
        return self.symbols.table.strict_aliasing and bool(set(sym.element.split()) & FLOAT_WORDS)

    def _integers_apart(self, stored: str, field: str) -> bool:
        """A store of one integer type cannot change a field of another (`int` elements against a
        `long` bound: isort's `buf[fill[b]++] = keys[i]` under `i < s->nkeys`): C's aliasing rules
        let an object be reached only through its own type, its signed or unsigned variant or a
        character type. Not under -fno-strict-aliasing (`_typed_apart`)."""
        kinds = [_integer_kind(stored), _integer_kind(field)]
        return self.symbols.table.strict_aliasing and None not in kinds and kinds[0] != kinds[1]

    def _floating_store(self, write) -> bool:
        """A write to memory no name bounds through a pointer declared to floating-point elements
        (`double *out = h->r[l]; ... out[j] = ...`): kept off integers as in `_typed_apart`."""
        return write.key == MEMORY and self._typed_apart(write)

    def writes(self):
        """The region's writes, leaving out calls to functions that write no memory the caller
        sees (read_only.py): only their arguments are evaluated (and may write, `f(k++)`)."""
        if self._writes is None:
            read_only = self.symbols.table.read_only

            def arguments(n):
                if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and n.name.name in read_only:
                    args = [replace_nodes(a, arguments) for a in n.args.exprs] if n.args else []
                    return c_ast.ExprList(args, n.coord) if args else c_ast.Constant("int", "0", n.coord)
                return None

            root = replace_nodes(self.root, arguments)
            effects = collect_effects(root, self.symbols, lambda name: name)
            self._writes = [r for r in effects.refs if r.is_write]
        return self._writes


