"""Call-effect summaries of the file's functions: what a call does to memory outside the callee.

A call in a loop nest is an opaque statement; where the callee is a function of the file whose
every access can be attributed to a pointer parameter, a global array or its own locals, the
statement reads and may-writes only what the `CallEffects` summary names (effects.py), instead
of any memory (`<world>`). symbols.py builds the summaries for its `SymbolTable`.
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from lifter.analysis.call_spans import SpanRecorder
from lifter.analysis.model import Kind
from lifter.analysis.walk import local_decls, walk


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
    parameters (`p->f`, `p[e].a.b`): (position, path as `->f` or `->a.b`); such an access
    counts in `reads`/`writes` as one of the block, and a caller, which keys `x->f` apart
    from `x[e]`, also sees it under each path.
    """

    reads: frozenset
    writes: frozenset
    global_reads: frozenset
    global_writes: frozenset
    spans: tuple = ()
    fields: frozenset = frozenset()


def call_effects(ast: c_ast.FileAST, typedefs, pure: set[str], classify) -> dict[str, CallEffects]:
    """Summaries of the file's functions, resolved to a fixed point (recursion stays unsummarized).
    Calls that end the program (`abort`, `exit`, a failed `assert`) add nothing to a summary.
    `classify` is symbols.classify, passed in by symbols.py, which imports this module."""
    from lifter.analysis.effects import NORETURN_FUNCTIONS, PURE_FUNCTIONS

    candidates = {ext.decl.name: ext for ext in ast.ext if isinstance(ext, c_ast.FuncDef)}
    globals_ = {ext.name: classify(ext.name, ext.type, typedefs, "global", ext)
                for ext in ast.ext if isinstance(ext, c_ast.Decl) and ext.name}
    # A summary depends on the file only through the summaries of the names the body uses, so a
    # function that failed is tried again only once one of those gained a summary since: a header
    # of thousands of inline functions that cannot be summarized (<immintrin.h>) is walked once.
    uses = {name: {n.name for n in walk(func) if isinstance(n, c_ast.ID)} & set(candidates)
            for name, func in candidates.items()}
    found: dict[str, CallEffects] = {}
    found_at: dict[str, int] = {}  # when each summary was found (a count of summaries)
    tried_at: dict[str, int] = {}  # when each function last failed
    changed = True
    while changed:
        changed = False
        for name, func in candidates.items():
            if name in found or name in pure:
                continue
            if name in tried_at and not any(found_at.get(u, -1) >= tried_at[name] for u in uses[name]):
                continue
            tried_at[name] = len(found)
            summary = _Summarizer(func, typedefs, classify, globals_, PURE_FUNCTIONS | pure, found,
                                  NORETURN_FUNCTIONS - set(candidates)).run()
            if summary is not None:
                found_at[name] = len(found)
                found[name] = summary
                changed = True
    return found


class _NoSummary(Exception):
    pass


class _Summarizer:
    """Walks one function body, attributing every memory access to a root: a pointer
    parameter (by position), a global, or the function's own locals."""

    def __init__(self, func, typedefs, classify, globals_, pure, summaries, noreturn=frozenset()):
        self.func, self.typedefs, self.classify, self.globals = func, typedefs, classify, globals_
        self.pure, self.summaries, self.noreturn = pure, summaries, noreturn
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
        self.fields: set = set()  # (position, field path, element type) of `p->f`, see CallEffects

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
        return CallEffects(pos(self.reads), pos(self.writes), glob(self.reads), glob(self.writes), spans,
                           frozenset(self.fields))

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
                root = self._root_of_address(decl.init)
                if not isinstance(root, int):
                    raise _NoSummary
                self.derived[decl.name] = root
                self.derived_elements[decl.name] = sym.element
            else:
                raise _NoSummary

    def _root_of_address(self, node):
        """The root of a pointer expression: `p`, `p + e`, `&p[e]`, `&p[e].f`, `&x` (x local)."""
        while isinstance(node, c_ast.Cast):
            node = node.expr
        if isinstance(node, c_ast.BinaryOp) and node.op in "+-":
            self._visit(node.right)
            return self._root_of_address(node.left)
        if isinstance(node, c_ast.UnaryOp) and node.op == "&":
            return self._root(node.expr, read_subscripts=True)
        if isinstance(node, c_ast.ID):
            return self._root(node, read_subscripts=True)
        raise _NoSummary

    def _root(self, node, read_subscripts: bool):
        """The root of an lvalue: `x`, `p[e]`, `p[e][f]`, `p[e].f`, `*p`, `p->f`, `g[e]`."""
        path = ""
        while isinstance(node, c_ast.StructRef) and node.type == ".":
            path = f".{node.field.name}{path}"
            node = node.name
        if isinstance(node, c_ast.StructRef):
            # p->f (p a parameter or derived from one): an access of p's block at field path
            # `->f`; the field of a loaded pointer (`p->q->f`, `p[e]->f`) stays unsummarized.
            if not isinstance(node.name, c_ast.ID):
                raise _NoSummary
            return self._field_root(node.name.name, f"->{node.field.name}{path}")
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            node = node.expr
            if not isinstance(node, c_ast.ID):
                raise _NoSummary
        while isinstance(node, c_ast.ArrayRef):
            if read_subscripts:
                self._visit(node.subscript)
            node = node.name
        if not isinstance(node, c_ast.ID):
            raise _NoSummary
        name = node.name
        if path:  # `p[e].f`, `(*p).f`: the caller sees it as `x->f` too
            return self._field_root(name, "->" + path[1:])
        if name in self.params:
            return self.params[name]
        if name in self.derived:
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

    def _field_root(self, name: str, path: str):
        """The root of a field access `name->path` (`name` a parameter or derived from one, of
        the parameter's own element type, so that the path means the same at the call site);
        None for a local struct array's element. Anything else is not summarized."""
        if name in self.locals and name not in self.params and name not in self.derived:
            return None
        position = self.params.get(name, self.derived.get(name))
        if position is None or self.derived_elements.get(name, self.elements[position]) != self.elements[position]:
            raise _NoSummary  # a global or a cast pointer: its fields are not followed
        self.fields.add((position, path, self.elements[position]))
        return position

    def _access(self, node, is_write: bool, also_read: bool = False) -> None:
        root = self._root(node, read_subscripts=True)
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
        callee = self.summaries.get(name)
        if callee is None:
            raise _NoSummary
        for k, a in enumerate(args):
            if k in callee.reads or k in callee.writes:
                root = self._root_of_address(a)
                if isinstance(root, tuple):
                    raise _NoSummary
                if isinstance(root, int):
                    self.spans.lose(root)  # passed on: its callee's span is not composed
                if root is not None and k in callee.reads:
                    self.reads.add(root)
                if root is not None and k in callee.writes:
                    self.writes.add(root)
                paths = {(path, element) for position, path, element in callee.fields if position == k}
                if paths and isinstance(root, int):
                    if not _same_elements(a) or {element for _, element in paths} != {self.elements[root]}:
                        raise _NoSummary  # `&p[e].g`, a cast: the callee's paths start elsewhere
                    self.fields |= {(root, path, element) for path, element in paths}
            else:
                self._visit(a)
        self.reads |= callee.global_reads
        self.writes |= callee.global_writes


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
