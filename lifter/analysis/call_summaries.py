"""Call-effect summaries of the file's functions: what a call does to memory outside the callee.

A call in a loop nest is an opaque statement; where the callee is a function of the file whose
every access can be attributed to a pointer parameter, a global array or its own locals, the
statement reads and may-writes only what the `CallEffects` summary names (effects.py), instead
of any memory (`<world>`). symbols.py builds the summaries for its `SymbolTable`.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

from pycparser import c_ast

from lifter.analysis.affine import int_constant
from lifter.analysis.call_spans import SpanRecorder
from lifter.analysis.effects import NORETURN_FUNCTIONS, PURE_FUNCTIONS
from lifter.analysis.model import Kind
from lifter.analysis.walk import local_decls
from lifter.frontend.walk import walk


class FieldAccess(NamedTuple):
    """An access through a field of the block a pointer parameter points to: the scalar field
    `p->f` (or `p[e].a.b`, path `->a.b`), or, with `elements`, any element of the array that the
    pointer or array field `p->f` holds (`p->f[e]`). `element` is the parameter's element type,
    where the path starts."""

    position: int
    path: str
    element: str
    written: bool
    elements: bool = False


class Gather(NamedTuple):
    """Every element of the array that field `path` of pointer parameter `position` holds which
    the function touches, it reads at `q[e] + shift` (a shift of `shifts`), q the pointer parameter
    at `index`, which the function never writes and reads at every offset of its span wherever it
    runs (no branch, early exit or other loop than affine `for`s). A caller bounds those elements
    by one pass over what the call reads of its index argument (affine_gathers.py)."""

    position: int
    path: str
    index: int
    shifts: tuple


@dataclass(frozen=True)
class CallEffects:
    """What a call to a file-local function does to memory outside its own locals.

    `reads`/`writes` are the positions of pointer parameters through which it
    may read/write (any element of the pointed-to block); `global_reads`/
    `global_writes` the global arrays it may touch. A function with such a
    summary touches no global scalar (the caller may use it as a loop bound or
    privatize it, and the callee would not see the private copy), returns no
    pointer, and calls only pure or summarized functions. `spans` narrow "any
    element" for some parameters: (position, isl condition on the offsets touched,
    `OFFSET`, over the call's arguments `arg2`, element type: offsets count these),
    see call_spans.py. `fields` names the struct fields reached through pointer
    parameters, read or written (`FieldAccess`: `p->f`, `p[e].a.b`, and the elements of an array
    a field points to, `p->f[e]`); such an access counts in `reads`/`writes` as one of the block,
    and a caller, which keys `x->f` and `x->f[e]` apart from `x[e]`, also sees it under each
    path. `through_fields` holds the positions of `reads`/`writes` that the function touches only
    through fields: a caller that itself reaches the block only through fields needs no access
    of the whole block for them (field_pointers.py). `gathers` says which
    field arrays it reads only through an index parameter (`Gather`).
    """

    reads: frozenset
    writes: frozenset
    global_reads: frozenset
    global_writes: frozenset
    spans: tuple = ()
    fields: frozenset = frozenset()
    through_fields: frozenset = frozenset()
    gathers: tuple = ()


class CallSummaries(Mapping):
    """The summaries of the file's functions (name -> CallEffects; a function with none is not a
    key), each computed the first time it is asked for and kept.

    Only the functions a loop nest calls, and what they call, are ever asked for; a file that
    includes <immintrin.h> defines thousands of inline functions that no nest calls. The results
    are those of the fixed point over the whole file that computed them all before:

    - a summary is found only when the walk of the body found one for every callee it met, and
      then depends on those summaries alone; none changes once found, so each function has
      one result, whichever order they are computed in;
    - a walk that meets a callee not decided yet stops (`_Undecided`), the callee is decided
      first, and the walk starts over: it meets the same calls in the same order up to there;
    - a callee whose own walk is waiting (f calls g, which calls f) has no summary, as in the
      fixed point, where each of them needed the other's first; so the caller fails, and would
      have failed there too. Every failure is final: the fixed point's rule of trying a failed
      function again once a name it uses gained a summary has nothing left to do.

    Iterating decides every function (tests; the analysis asks by name, through `get`).
    `classify` is symbols.classify, passed in by symbols.py, which imports this module.
    Calls that end the program (`abort`, `exit`, a failed `assert`) add nothing to a summary.
    """

    def __init__(self, ast: c_ast.FileAST, typedefs, pure: set[str], classify):
        self._ast, self._typedefs, self._classify = ast, typedefs, classify
        self._functions = {ext.decl.name: ext for ext in ast.ext if isinstance(ext, c_ast.FuncDef)}
        self._pure = pure  # the file's pure functions: calls of them are computations, not summarized
        self._callable = PURE_FUNCTIONS | pure
        self._noreturn = NORETURN_FUNCTIONS - set(self._functions)  # (one the file defines is its own)
        self._decided: dict[str, CallEffects | None] = {}

    @cached_property
    def _globals(self) -> dict:
        """The file's global declarations, classified (once, when a first summary is asked for)."""
        return {ext.name: self._classify(ext.name, ext.type, self._typedefs, "global", ext)
                for ext in self._ast.ext if isinstance(ext, c_ast.Decl) and ext.name}

    def get(self, name, default=None):
        summary = self._summary(name)
        return default if summary is None else summary

    def __getitem__(self, name: str) -> CallEffects:
        summary = self._summary(name)
        if summary is None:
            raise KeyError(name)
        return summary

    def __iter__(self):
        return (name for name in self._functions if self._summary(name) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def _summary(self, name) -> CallEffects | None:
        """`name`'s summary, deciding it and the callees it waits on (depth first, without
        recursion: `waiting` holds the functions whose walk stopped at the next one's call)."""
        if name in self._decided or name not in self._functions or name in self._pure:
            return self._decided.get(name)
        waiting = [name]
        while waiting:
            try:
                summary = self._summarize(waiting[-1], waiting)
            except _Undecided as undecided:
                waiting.append(undecided.name)
                continue
            self._decided[waiting.pop()] = summary
        return self._decided[name]

    def _summarize(self, name: str, waiting: list[str]) -> CallEffects | None:
        def callee(other):
            """What the walk sees of a callee: its summary, or None (none, or its walk is
            waiting: a call cycle); `_Undecided` stops the walk where it is not decided yet."""
            if other in self._decided:
                return self._decided[other]
            if other in self._functions and other not in self._pure and other not in waiting:
                raise _Undecided(other)
            return None

        return _Summarizer(self._functions[name], self._typedefs, self._classify, self._globals,
                           self._callable, callee, self._noreturn).run()


BOTH = (False, True)  # read and written (`_root`'s modes)


class _Undecided(Exception):
    """A summary's walk met a call of `name`, whose summary is not decided yet."""

    def __init__(self, name: str):
        super().__init__(name)
        self.name = name


class _NoSummary(Exception):
    pass


class _Summarizer:
    """Walks one function body, attributing every memory access to a root: a pointer
    parameter (by position), a global, or the function's own locals."""

    def __init__(self, func, typedefs, classify, globals_, pure, callee, noreturn=frozenset()):
        self.func, self.typedefs, self.classify, self.globals = func, typedefs, classify, globals_
        self.pure, self.callee, self.noreturn = pure, callee, noreturn  # callee: name -> its summary or None
        self.params: dict[str, int] = {}  # pointer parameter -> position
        self.derived: dict[str, int] = {}  # local pointer initialised into a parameter's block
        self.derived_elements: dict[str, str] = {}  # its element type
        self.locals: set[str] = set()  # scalar parameters, local scalars and arrays
        self.reads: set = set()
        self.writes: set = set()
        self.integer_params: dict[str, int] = {}  # integer parameter -> position
        self.elements: dict[int, str] = {}  # pointer parameter's position -> its element type
        self.spans: SpanRecorder | None = None
        # parameters read in a local pointer's initializer (`double *p = &f[idx[k]];`), seen
        # before the span recorder exists: their spans are lost (the whole block)
        self.declared_accesses: list[int] = []
        self.fields: set[FieldAccess] = set()
        self.plain: set[int] = set()  # positions accessed other than through a field
        self.element_roots: list = []  # (position, path) of each access of a field's elements
        self.gather_forms: list = []  # ((position, path), (index position, shift) or None) of `_access`es

    def run(self) -> CallEffects | None:
        try:
            self._declare()
            self.spans = SpanRecorder(self.integer_params, _assigned_names(self.func.body), self.func.body)
            for position in self.declared_accesses:
                self.spans.lose(position)
            self._visit(self.func.body)
        except _NoSummary:
            return None
        pos = lambda s: frozenset(r for r in s if isinstance(r, int))
        glob = lambda s: frozenset(r for r in s if isinstance(r, str))
        spans = tuple((k, condition, self.elements[k]) for k, condition in self.spans.spans())
        through = pos(self.reads | self.writes) - self.plain
        return CallEffects(pos(self.reads), pos(self.writes), glob(self.reads), glob(self.writes), spans,
                           frozenset(self.fields), through, self._gathers(spans))

    def _gathers(self, spans: tuple) -> tuple:
        """The `Gather`s: field arrays every access of which is a read `p->f[q[e] + d]` of one index
        parameter q that has a span and is never written, in a body without branches."""
        if not _straight(self.func.body):
            return ()
        ranged = {k for k, _, _ in spans} - self.writes
        out = []
        for key in sorted(set(self.element_roots)):
            forms = [form for where, form in self.gather_forms if where == key]
            if len(forms) != self.element_roots.count(key) or None in forms \
                    or len({index for index, _ in forms}) != 1 or forms[0][0] not in ranged:
                continue
            out.append(Gather(key[0], key[1], forms[0][0], tuple(sorted({shift for _, shift in forms}))))
        return tuple(out)

    def _declare(self) -> None:
        ret = self.typedefs.resolve(self.func.decl.type.type)
        if isinstance(ret, c_ast.PtrDecl):
            raise _NoSummary
        params = self.func.decl.type.args.params if self.func.decl.type.args else []
        for k, p in enumerate(params):
            if isinstance(p, c_ast.Typename):
                continue
            if not isinstance(p, c_ast.Decl) or not p.name:
                raise _NoSummary
            sym = self.classify(p.name, p.type, self.typedefs, "param")
            if sym.kind == Kind.SCALAR:
                self.locals.add(p.name)
                if sym.integer:
                    self.integer_params[p.name] = k
            elif sym.kind == Kind.POINTER and not sym.indirect:
                self.params[p.name] = k
                self.elements[k] = sym.element
            else:
                raise _NoSummary
        assigned = _assigned_names(self.func.body)
        if assigned & set(self.params):
            raise _NoSummary  # the parameter points elsewhere afterwards
        classified = [(decl, self.classify(decl.name, decl.type, self.typedefs, "local"))
                      for decl in local_decls(self.func.body)]
        # Scalars first, then pointers in source order: a pointer's initialiser may index with
        # a scalar declared anywhere before it, or start from a pointer declared before it.
        classified.sort(key=lambda d: (d[1].kind == Kind.POINTER, d[0].coord.line if d[0].coord else 0,
                                       d[0].coord.column if d[0].coord else 0))
        for decl, sym in classified:
            if decl.name in self.params or decl.name in self.derived or decl.name in self.globals:
                raise _NoSummary  # shadowing: keep the walk name-based and simple
            if "static" in (decl.storage or []) and "const" not in (decl.quals or []):
                raise _NoSummary
            if sym.kind == Kind.SCALAR or (sym.kind == Kind.ARRAY and not sym.indirect):
                self.locals.add(decl.name)
            elif sym.kind == Kind.POINTER and decl.name not in assigned and decl.init is not None \
                    and decl.name not in self.locals:
                root = self._root_of_address(decl.init, BOTH, elements=False)
                if not isinstance(root, int):
                    raise _NoSummary
                self.derived[decl.name] = root
                self.derived_elements[decl.name] = sym.element
            else:
                raise _NoSummary

    def _root_of_address(self, node, modes: tuple = (), elements: bool = True):
        """The root of a pointer expression: `p`, `p + e`, `&p[e]`, `&p[e].f`, `&p->f[e]`, `&x` (x
        local); `modes` and `elements` as for `_root`."""
        while isinstance(node, c_ast.Cast):
            node = node.expr
        if isinstance(node, c_ast.BinaryOp) and node.op in "+-":
            self._visit(node.right)
            return self._root_of_address(node.left, modes, elements)
        if isinstance(node, c_ast.UnaryOp) and node.op == "&":
            return self._root(node.expr, True, modes, elements)
        if isinstance(node, c_ast.ID):
            return self._root(node, True, modes, elements)
        raise _NoSummary

    def _root(self, node, read_subscripts: bool, modes: tuple = (), elements: bool = True):
        """The root of an lvalue: `x`, `p[e]`, `p[e][f]`, `p[e].f`, `*p`, `p->f`, `p->f[e]`, `g[e]`.
        A field access is recorded read and/or written as `modes` (written flags) say; `elements`
        False refuses the elements of a field (a pointer derived from them would not be followed)."""
        path = ""
        while isinstance(node, c_ast.StructRef) and node.type == ".":
            path = f".{node.field.name}{path}"
            node = node.name
        if isinstance(node, c_ast.StructRef):
            # p->f (p a parameter or derived from one): an access of p's block at field path
            # `->f`; the field of a loaded pointer (`p->q->f`, `p[e]->f`) stays unsummarized.
            if not isinstance(node.name, c_ast.ID):
                raise _NoSummary
            return self._field_root(node.name.name, f"->{node.field.name}{path}", modes)
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            node = node.expr
            if not isinstance(node, c_ast.ID):
                raise _NoSummary
        while isinstance(node, c_ast.ArrayRef):
            if read_subscripts:
                self._visit(node.subscript)
            node = node.name
        if isinstance(node, c_ast.StructRef) and not path:
            # `p->f[e]`, `p->a.f[e]`: any element of the array field f holds
            if not elements:
                raise _NoSummary
            while isinstance(node, c_ast.StructRef) and node.type == ".":
                path = f".{node.field.name}{path}"
                node = node.name
            if not isinstance(node, c_ast.StructRef) or not isinstance(node.name, c_ast.ID):
                raise _NoSummary
            return self._field_root(node.name.name, f"->{node.field.name}{path}", modes, elements=True)
        if not isinstance(node, c_ast.ID):
            raise _NoSummary
        name = node.name
        if path:  # `p[e].f`, `(*p).f`: the caller sees it as `x->f` too
            return self._field_root(name, "->" + path[1:], modes)
        if name in self.params:
            self.plain.add(self.params[name])
            return self.params[name]
        if name in self.derived:
            self.plain.add(self.derived[name])
            return self.derived[name]
        if name in self.locals:
            return None
        sym = self.globals.get(name)
        if sym is not None and sym.kind in (Kind.ARRAY, Kind.POINTER) and not sym.indirect \
                and not sym.element.startswith(("struct", "?")):
            return name  # (arrays of structs may be field-sensitive in the caller: not summarized)
        if sym is not None and sym.kind == Kind.SCALAR:
            return ("scalar", name)
        raise _NoSummary

    def _field_root(self, name: str, path: str, modes: tuple, elements: bool = False):
        """The root of a field access `name->path` (`name` a parameter or derived from one, of
        the parameter's own element type, so that the path means the same at the call site),
        recorded as `modes` say; None for a local struct array's element. Anything else is not
        summarized."""
        if name in self.locals and name not in self.params and name not in self.derived:
            return None
        position = self.params.get(name, self.derived.get(name))
        if position is None or self.derived_elements.get(name, self.elements[position]) != self.elements[position]:
            raise _NoSummary  # a global or a cast pointer: its fields are not followed
        self.fields |= {FieldAccess(position, path, self.elements[position], written, elements) for written in modes}
        if elements:
            self.element_roots.append((position, path))
        return position

    def _access(self, node, is_write: bool, also_read: bool = False) -> None:
        modes = ((True,) if is_write else ()) + ((False,) if also_read or not is_write else ())
        gather = self._gather_form(node)
        if gather is not None:
            self.gather_forms.append((gather[0], None if is_write else gather[1]))
        root = self._root(node, True, modes)
        if isinstance(root, tuple):
            # A global scalar: the caller may privatize it or use it as a loop bound.
            raise _NoSummary
        if root is None:
            return
        if isinstance(root, int):
            self._span(node, root)
        if is_write:
            self.writes.add(root)
        if also_read or not is_write:
            self.reads.add(root)

    def _gather_form(self, node):
        """((position, path), (index position, shift)) for `p->path[q[e] + shift]`, p and q pointer
        parameters (shift an integer literal, 0 if none), else None."""
        if not isinstance(node, c_ast.ArrayRef) or isinstance(node.name, c_ast.ArrayRef):
            return None
        base, path = node.name, ""
        while isinstance(base, c_ast.StructRef) and base.type == ".":
            base, path = base.name, f".{base.field.name}{path}"
        if not isinstance(base, c_ast.StructRef) or not isinstance(base.name, c_ast.ID) \
                or base.name.name not in self.params:
            return None
        index, shift = node.subscript, 0
        if isinstance(index, c_ast.BinaryOp) and index.op in "+-" and int_constant(index.right) is not None:
            index, shift = index.left, int_constant(index.right) * (1 if index.op == "+" else -1)
        if not isinstance(index, c_ast.ArrayRef) or not isinstance(index.name, c_ast.ID) \
                or index.name.name not in self.params:
            return None
        return (self.params[base.name.name], f"->{base.field.name}{path}"), (self.params[index.name.name], shift)

    def _span(self, node, position: int) -> None:
        """Record `p[e]` or `*p` on a pointer parameter for its span; anything else loses it."""
        if self.spans is None:
            self.declared_accesses.append(position)
            return
        if isinstance(node, c_ast.ArrayRef) and isinstance(node.name, c_ast.ID) and node.name.name in self.params:
            self.spans.access(position, node.subscript)
        elif isinstance(node, c_ast.UnaryOp) and node.op == "*" and isinstance(node.expr, c_ast.ID) \
                and node.expr.name in self.params:
            self.spans.access(position, None)
        else:
            self.spans.lose(position)

    def _visit(self, node) -> None:
        if node is None:
            return
        if isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile)):
            self.spans.enter_loop(node)
            for _, child in node.children():
                self._visit(child)
            self.spans.leave_loop()
            return
        if isinstance(node, c_ast.Assignment):
            self._visit(node.rvalue)
            self._access(node.lvalue, True, also_read=node.op != "=")
            return
        if isinstance(node, c_ast.UnaryOp):
            if node.op in ("++", "--", "p++", "p--"):
                self._access(node.expr, True, also_read=True)
            elif node.op == "&":
                raise _NoSummary  # an address escaping other than as a call argument
            elif node.op == "*":
                self._access(node, False)
            elif node.op != "sizeof":
                self._visit(node.expr)
            return
        if isinstance(node, (c_ast.ArrayRef, c_ast.StructRef)):
            self._access(node, False)
            return
        if isinstance(node, c_ast.ID):
            if node.name in self.params or node.name in self.derived:
                raise _NoSummary  # the pointer itself used as a value
            if isinstance(self._root(node, read_subscripts=False), tuple):
                raise _NoSummary  # a global scalar (see _access)
            return
        if isinstance(node, c_ast.Decl):
            if node.name in self.derived:
                return
            self._visit(node.init)
            return
        if isinstance(node, c_ast.FuncCall):
            self._call(node)
            return
        if isinstance(node, (c_ast.Typename, c_ast.Pragma)):
            return
        if isinstance(node, (c_ast.Goto, c_ast.Label)):
            raise _NoSummary
        for _, child in node.children():
            self._visit(child)

    def _call(self, node: c_ast.FuncCall) -> None:
        name = node.name.name if isinstance(node.name, c_ast.ID) else None
        args = node.args.exprs if node.args else []
        if name in self.pure:
            for a in args:
                self._visit(a)
            return
        if name in self.noreturn:
            return
        callee = self.callee(name)
        if callee is None:
            raise _NoSummary
        for k, a in enumerate(args):
            if k in callee.reads or k in callee.writes:
                modes = ((False,) if k in callee.reads else ()) + ((True,) if k in callee.writes else ())
                plain = set(self.plain)
                root = self._root_of_address(a, modes)
                if k in callee.through_fields:
                    self.plain = plain  # (the callee's own field accesses are recorded below)
                if isinstance(root, tuple):
                    raise _NoSummary
                if isinstance(root, int):
                    self.spans.lose(root)  # passed on: its callee's span is not composed
                if root is not None and k in callee.reads:
                    self.reads.add(root)
                if root is not None and k in callee.writes:
                    self.writes.add(root)
                accesses = {access for access in callee.fields if access.position == k}
                if accesses and isinstance(root, int):
                    if not _same_elements(a) or {access.element for access in accesses} != {self.elements[root]}:
                        raise _NoSummary  # `&p[e].g`, a cast: the callee's paths start elsewhere
                    self.fields |= {access._replace(position=root) for access in accesses}
                    self.element_roots += [(root, access.path) for access in accesses if access.elements]
            else:
                self._visit(a)
        self.reads |= callee.global_reads
        self.writes |= callee.global_writes


def _straight(body) -> bool:
    """No branch, early exit or loop but `for` in `body`: each access runs wherever its loops do."""
    return not any(isinstance(n, (c_ast.If, c_ast.Switch, c_ast.TernaryOp, c_ast.While, c_ast.DoWhile, c_ast.Break,
                                  c_ast.Continue, c_ast.Return, c_ast.Goto, c_ast.Label))
                   or isinstance(n, c_ast.BinaryOp) and n.op in ("&&", "||") for n in walk(body))


def _same_elements(arg) -> bool:
    """`p`, `p + e`, `p - e`, `&p[e]`: a pointer argument to elements of p's own type, so the
    callee's field paths are paths from p's elements too."""
    if isinstance(arg, c_ast.BinaryOp) and arg.op in "+-":
        arg = arg.left
    elif isinstance(arg, c_ast.UnaryOp) and arg.op == "&" and isinstance(arg.expr, c_ast.ArrayRef):
        arg = arg.expr.name
    return isinstance(arg, c_ast.ID)


def _assigned_names(node) -> set[str]:
    """Names assigned or incremented anywhere under node (not their declarations)."""
    names = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if n is None:
            continue
        target = None
        if isinstance(n, c_ast.Assignment):
            target = n.lvalue
        elif isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "&"):
            target = n.expr
        if isinstance(target, c_ast.ID):
            names.add(target.name)
        stack.extend(c for _, c in n.children())
    return names
