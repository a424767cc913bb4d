"""What each name in a function is: integer or floating scalar, array, pointer, struct.

The polyhedral model needs to know which names may be symbolic parameters
(integer scalars), which are arrays with how many dimensions, and which are
pointers that may alias one another.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from lifter.analysis.call_spans import SpanRecorder
from lifter.analysis.model import Kind
from lifter.analysis.read_only import read_only_functions
from lifter.analysis.irregular import irregular_functions
from lifter.analysis.unknown_types import UnknownTypes, typeof_functions
from lifter.analysis.walk import functions_where, walk
from lifter.analysis.qualifiers import const_object, shared_qualifiers
from lifter.analysis.points_to import PointsTo

INTEGER_WORDS = {"int", "long", "short", "char", "unsigned", "signed", "_Bool", "bool"}
FLOAT_WORDS = {"float", "double"}


@dataclass
class Symbol:
    """One declared name. `kind` is SCALAR, ARRAY, POINTER, STRUCT or FUNCTION."""

    name: str
    kind: Kind
    integer: bool = False  # an integer scalar (a candidate symbolic parameter)
    ndim: int = 0  # array dimensions, or pointer depth (pointers to arrays add theirs)
    restrict: bool = False
    indirect: bool = False  # rows reached through loaded pointers (double **A)
    storage: str = "local"  # 'global', 'param' or 'local'
    element: str = "double"  # C spelling of the element (or scalar) type
    decl: c_ast.Node | None = None
    dims: list = field(default_factory=list)  # declared extents (c_ast nodes or None)
    qualifiers: frozenset = frozenset()  # `volatile` and `_Atomic` anywhere in its type (SHARED_QUALIFIERS)
    const: bool = False  # the declared object itself is const (a pointer: `double *const p`, not `const double *p`)

    @property
    def owns_storage(self) -> bool:
        """True for arrays that are objects of their own: they cannot alias another name."""
        return self.kind == Kind.ARRAY and self.storage != "param"


class Typedefs:
    """Resolves typedef names to the type they stand for."""

    def __init__(self, ast: c_ast.FileAST):
        self.table: dict[str, c_ast.Node] = {}
        for ext in ast.ext:
            if isinstance(ext, c_ast.Typedef):
                self.table[ext.name] = ext.type

    def resolve(self, node: c_ast.Node, depth: int = 0) -> c_ast.Node:
        """Follow typedef names in a TypeDecl chain (bounded, so cycles cannot hang us)."""
        while depth < 50 and isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.IdentifierType):
            names = node.type.names
            if len(names) == 1 and names[0] in self.table:
                node = self.table[names[0]]
                depth += 1
                continue
            break
        return node


def classify(name: str, type_node: c_ast.Node, typedefs: Typedefs, storage: str, decl=None) -> Symbol:
    sym = _classify(name, type_node, typedefs, storage, decl)
    sym.qualifiers = shared_qualifiers(type_node, typedefs.table)
    sym.const = const_object(type_node, typedefs.table)
    return sym


def _classify(name: str, type_node: c_ast.Node, typedefs: Typedefs, storage: str, decl=None) -> Symbol:
    node = typedefs.resolve(type_node)
    if isinstance(node, c_ast.FuncDecl):
        return Symbol(name, Kind.FUNCTION, storage=storage, decl=decl)
    if isinstance(node, (c_ast.ArrayDecl, c_ast.PtrDecl)):
        ndim, restrict, dims, levels = 0, False, [], []
        base = node
        while True:
            base = typedefs.resolve(base)
            if isinstance(base, c_ast.ArrayDecl):
                levels.append(Kind.ARRAY)
                dims.append(base.dim)
                restrict = restrict or "restrict" in (base.dim_quals or [])
                base = base.type
            elif isinstance(base, c_ast.PtrDecl):
                levels.append(Kind.POINTER)
                dims.append(None)
                restrict = restrict or "restrict" in (base.quals or [])
                base = base.type
            else:
                break
        element = _element_name(typedefs.resolve(base))
        # Only the outermost level may be a pointer (or an adjusted array parameter)
        # for the data to be one contiguous block; deeper pointers make rows separate objects.
        indirect = Kind.POINTER in levels[1:]
        owns = storage != "param" and Kind.POINTER not in levels
        return Symbol(name, Kind.ARRAY if owns else Kind.POINTER, ndim=len(levels), restrict=restrict,
                      storage=storage, element=element, decl=decl, dims=dims, indirect=indirect)
    if isinstance(node, c_ast.TypeDecl):
        inner = node.type
        if isinstance(inner, (c_ast.Struct, c_ast.Union)):
            return Symbol(name, Kind.STRUCT, storage=storage, decl=decl)
        if isinstance(inner, c_ast.Enum):
            return Symbol(name, Kind.SCALAR, integer=True, storage=storage, element="int", decl=decl)
        if isinstance(inner, c_ast.IdentifierType):
            words = set(inner.names)
            if words & FLOAT_WORDS:
                return Symbol(name, Kind.SCALAR, storage=storage, element=" ".join(inner.names), decl=decl)
            if words <= INTEGER_WORDS | {"const", "volatile"} or _looks_integer(inner.names):
                return Symbol(name, Kind.SCALAR, integer=True, storage=storage, element=" ".join(inner.names), decl=decl)
            return Symbol(name, Kind.SCALAR, storage=storage, element=" ".join(inner.names), decl=decl)
    return Symbol(name, Kind.SCALAR, storage=storage, element="?", decl=decl)


def _looks_integer(names: list[str]) -> bool:
    """Standard integer typedefs that survived resolution (size_t and friends from headers)."""
    return len(names) == 1 and (names[0] in {"size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t"}
                                or (names[0].startswith(("int", "uint")) and names[0].endswith("_t")))


def _element_name(node: c_ast.Node) -> str:
    if isinstance(node, c_ast.TypeDecl):
        inner = node.type
        if isinstance(inner, c_ast.IdentifierType):
            return " ".join(inner.names)
        if isinstance(inner, (c_ast.Struct, c_ast.Union)):
            return f"struct {inner.name}"
    return "?"


class SymbolTable:
    """Globals of the file plus the parameters and locals of one function.

    A name declared twice in the function with different kinds is marked
    `ambiguous`; the analysis then treats every use of it conservatively.
    """

    def __init__(self, ast: c_ast.FileAST, typedefs: Typedefs):
        self.typedefs = typedefs
        self.globals: dict[str, Symbol] = {}
        self.pure_functions: set[str] = set()
        self.call_effects: dict[str, CallEffects] = {}
        self.defined: set[str] = set()  # functions the file defines
        for ext in ast.ext:
            if isinstance(ext, c_ast.Decl) and ext.name:
                self.globals[ext.name] = classify(ext.name, ext.type, typedefs, "global", ext)
            elif isinstance(ext, c_ast.FuncDef):
                name = ext.decl.name
                self.globals[name] = Symbol(name, Kind.FUNCTION, storage="global", decl=ext.decl)
                self.defined.add(name)

        self.structs = _struct_definitions(ast)
        self.unknown_types = UnknownTypes(ast)
        self.unknown_globals = {n for n, s in self.globals.items() if self.unknown_types.unknown(s.decl.type)}
        # Functions that use a type lift does not know are summarised as unknown calls.
        typeof_using = typeof_functions(ast, self.unknown_types, self.unknown_globals)
        known = c_ast.FileAST([e for e in ast.ext if not (isinstance(e, c_ast.FuncDef) and e.decl.name in typeof_using)])
        self.pure_functions = _pure_functions(known, typedefs)
        self.call_effects = call_effects(known, typedefs, self.pure_functions)
        self.called_in_loops = _called_in_loops(ast)
        self.looping = _looping_functions(ast)
        self.irregular = irregular_functions(ast)
        self.index_helpers = _index_helpers(known, typedefs, self.pure_functions)
        self.read_only = read_only_functions(known, typedefs, self.pure_functions, classify)
        self.points_to = PointsTo(ast)

    def inline_helpers(self, node: c_ast.Node, depth: int = 0) -> c_ast.Node:
        """`node` with every call of an index helper replaced by its return expression.

        `at(i + 1, j, n)` with `at` returning `(size_t)i * n + j` becomes
        `(size_t)(i + 1) * n + j`, which the affine translator and the
        delinearizer can read. The original node is left as it is.
        """
        if depth > 8:
            return node
        if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) \
                and node.name.name in self.index_helpers:
            params, body = self.index_helpers[node.name.name]
            args = node.args.exprs if node.args else []
            if len(args) == len(params):
                actual = {p: self.inline_helpers(a, depth + 1) for p, a in zip(params, args)}
                return self.inline_helpers(substitute(body, actual.get), depth + 1)
            return node
        copy = None
        for name, child in node.children():
            new = self.inline_helpers(child, depth)
            if new is not child:
                copy = copy or _shallow_copy(node)
                _replace_child(copy, name, new)
        return copy or node

    def field_symbol(self, node: c_ast.StructRef, lookup) -> Symbol | None:
        """What the field `s.f`, `p->f` or `p->a.b` is (its declared type, classified), or None
        where the struct's definition cannot be found; `lookup` resolves the root name."""
        type_node = self.field_type(node, lookup)
        return classify(node.field.name, type_node, self.typedefs, "field") if type_node is not None else None

    def in_union(self, node: c_ast.StructRef, lookup) -> bool:
        """Some field on the path `p->a.b` is a member of a union (or the path is unknown):
        then other members share its storage."""
        while isinstance(node, c_ast.StructRef):
            owner = self._owner(node, lookup)
            if owner is None or isinstance(owner, c_ast.Union):
                return True
            node = node.name
        return False

    def element_field_symbol(self, name: str, field: str, lookup) -> Symbol | None:
        """What the field `f` of the elements of the array or pointer `name` is (`p[i].f`, a container of
        its own in scop.py), or None where the struct cannot be found."""
        sym = lookup(name)
        t = self.typedefs.resolve(sym.decl.type) if sym is not None and isinstance(sym.decl, c_ast.Decl) else None
        t = self.typedefs.resolve(t.type) if isinstance(t, (c_ast.PtrDecl, c_ast.ArrayDecl)) else None
        struct = t.type if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.Struct) else None
        type_node = self._member_type(struct, field)
        return classify(field, type_node, self.typedefs, "field") if type_node is not None else None

    def field_type(self, node: c_ast.StructRef, lookup) -> c_ast.Node | None:
        return self._member_type(self._owner(node, lookup), node.field.name)

    def _member_type(self, struct: c_ast.Struct | c_ast.Union | None, field: str) -> c_ast.Node | None:
        """The declared type of the member `field` of a struct or union (its definition where `struct` only
        names it)."""
        if struct is None:
            return None
        decls = struct.decls if struct.decls is not None else self.structs.get((type(struct), struct.name))
        return next((decl.type for decl in decls or [] if decl.name == field), None)

    def _owner(self, node: c_ast.StructRef, lookup) -> c_ast.Struct | c_ast.Union | None:
        """The struct or union `node`'s field belongs to."""
        base = node.name
        if isinstance(base, c_ast.ID):
            sym = lookup(base.name)
            owner = sym.decl.type if sym is not None and isinstance(sym.decl, c_ast.Decl) else None
        elif isinstance(base, c_ast.StructRef):
            owner = self.field_type(base, lookup)
        else:
            return None
        owner = self.typedefs.resolve(owner) if owner is not None else None
        if node.type == "->":
            owner = self.typedefs.resolve(owner.type) if isinstance(owner, c_ast.PtrDecl) else None
        if not (isinstance(owner, c_ast.TypeDecl) and isinstance(owner.type, (c_ast.Struct, c_ast.Union))):
            return None
        return owner.type

    def for_function(self, func: c_ast.FuncDef) -> "FunctionSymbols":
        return FunctionSymbols(self, func)


def _struct_definitions(ast: c_ast.FileAST) -> dict:
    """{(Struct or Union, tag): member declarations} of every tagged definition in the file."""
    found = {}
    stack = [ast]
    while stack:
        node = stack.pop()
        if isinstance(node, (c_ast.Struct, c_ast.Union)) and node.name and node.decls is not None:
            found[(type(node), node.name)] = node.decls
        stack.extend(child for _, child in node.children())
    return found


def _looping_functions(ast: c_ast.FileAST) -> set[str]:
    """Names of the file's functions that run a loop, themselves or through a call of another
    such function: a call of one is a loop's worth of work, not one statement's (parallelize.py)."""
    return functions_where(ast, lambda body: any(isinstance(n, (c_ast.For, c_ast.While, c_ast.DoWhile))
                                                 for n in walk(body)))


def _called_in_loops(ast: c_ast.FileAST) -> set[str]:
    """Names of functions called inside a loop anywhere in the file (directly)."""
    names: set[str] = set()

    def visit(node, in_loop: bool):
        if isinstance(node, c_ast.FuncCall) and in_loop and isinstance(node.name, c_ast.ID):
            names.add(node.name.name)
        inner = in_loop or isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile))
        for _, child in node.children():
            visit(child, inner)

    for ext in ast.ext:  # loops are only in function bodies: the headers' declarations are not walked
        if isinstance(ext, c_ast.FuncDef):
            visit(ext, False)
    return names


class FunctionSymbols:
    def __init__(self, table: SymbolTable, func: c_ast.FuncDef):
        self.table = table
        self.locals: dict[str, Symbol] = {}
        self.ambiguous: set[str] = set()
        params = func.decl.type.args.params if func.decl.type.args else []
        for p in params:
            if isinstance(p, c_ast.Decl) and p.name:
                self._add(classify(p.name, p.type, table.typedefs, "param", p))
        for decl in _local_decls(func.body):
            self._add(classify(decl.name, decl.type, table.typedefs, "local", decl))
        self.body = func.body
        self.unknown_types = table.unknown_globals | table.unknown_types.declared(func)  # unknown_types.py
        # Variables some pointer may point to: a write through it could change them anywhere.
        self.addressed = {n.expr.name for n in walk(func.body)
                          if isinstance(n, c_ast.UnaryOp) and n.op == "&" and isinstance(n.expr, c_ast.ID)}

    def _add(self, sym: Symbol) -> None:
        old = self.locals.get(sym.name)
        if old is not None and (old.kind, old.ndim, old.integer) != (sym.kind, sym.ndim, sym.integer):
            self.ambiguous.add(sym.name)
        self.locals[sym.name] = sym

    def lookup(self, name: str) -> Symbol | None:
        return self.locals.get(name) or self.table.globals.get(name)


def _local_decls(node: c_ast.Node):
    stack = [node]
    while stack:
        n = stack.pop()
        if n is None:
            continue
        if isinstance(n, c_ast.Decl) and n.name and not isinstance(n.type, c_ast.FuncDecl):
            yield n
        stack.extend(child for _, child in n.children())


def _pure_functions(ast: c_ast.FileAST, typedefs: Typedefs) -> set[str]:
    """The file's functions that compute a value from scalar arguments only.

    Such a function (a `static inline` index or math helper, say) reads no
    memory but its parameters and locals and writes none but its locals, so a
    call to it is a computation. Functions calling each other are resolved to a
    fixed point; anything else (pointers, globals, unknown calls) is not pure.
    """
    from lifter.analysis.effects import PURE_FUNCTIONS

    candidates = {}
    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef):
            candidates[ext.decl.name] = ext
    pure: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, func in candidates.items():
            if name not in pure and _is_pure(func, typedefs, PURE_FUNCTIONS | pure):
                pure.add(name)
                changed = True
    return pure


def _is_pure(func: c_ast.FuncDef, typedefs: Typedefs, callable_names: set[str]) -> bool:
    params = func.decl.type.args.params if func.decl.type.args else []
    known: set[str] = set()
    for p in params:
        if isinstance(p, c_ast.Typename):
            continue
        if not isinstance(p, c_ast.Decl) or classify(p.name, p.type, typedefs, "param").kind != Kind.SCALAR:
            return False
        known.add(p.name)
    for decl in _local_decls(func.body):
        sym = classify(decl.name, decl.type, typedefs, "local")
        if sym.kind != Kind.SCALAR or "static" in (decl.storage or []):
            return False
        known.add(decl.name)
    stack = [func.body]
    while stack:
        n = stack.pop()
        if n is None:
            continue
        if isinstance(n, c_ast.FuncCall):
            if not (isinstance(n.name, c_ast.ID) and n.name.name in callable_names):
                return False
            stack.extend(c for _, c in n.children() if c is not n.name)
            continue
        if isinstance(n, (c_ast.ArrayRef, c_ast.StructRef)) or (isinstance(n, c_ast.UnaryOp) and n.op in "*&"):
            return False
        if isinstance(n, c_ast.ID) and n.name not in known:
            return False
        stack.extend(c for _, c in n.children())
    return True


def _index_helpers(ast: c_ast.FileAST, typedefs: Typedefs, pure: set[str]) -> dict:
    """Pure functions whose body is `return e;` over integer parameters: {name: (parameters, e)}.

    These are index helpers (`at(i, j, n)` returning `i*n + j`); a call to one
    is, for the analysis, the expression it returns.
    """
    out = {}
    for ext in ast.ext:
        if not isinstance(ext, c_ast.FuncDef) or ext.decl.name not in pure:
            continue
        items = ext.body.block_items or []
        if len(items) != 1 or not isinstance(items[0], c_ast.Return) or items[0].expr is None:
            continue
        params = ext.decl.type.args.params if ext.decl.type.args else []
        decls = [p for p in params if isinstance(p, c_ast.Decl)]
        types = [ext.decl.type.type] + [p.type for p in decls]
        if len(decls) != len(params) or not all(wide_integer(t, typedefs) for t in types):
            continue
        out[ext.decl.name] = ([p.name for p in decls], items[0].expr)
    return out


def wide_integer(type_node: c_ast.Node, typedefs: Typedefs) -> bool:
    """An integer type at least as wide as int: passing an index through it changes no value
    the analysis cares about (it assumes, as everywhere, that index arithmetic does not overflow)."""
    sym = classify("", type_node, typedefs, "local")
    return sym.integer and not set(sym.element.split()) & {"char", "short", "_Bool", "bool"}


def substitute(node: c_ast.Node, lookup) -> c_ast.Node:
    """A copy of `node` where each name `lookup(name)` gives an expression for is replaced by it."""
    return replace_nodes(node, lambda n: lookup(n.name) if isinstance(n, c_ast.ID) else None)


def replace_nodes(node: c_ast.Node, replacement) -> c_ast.Node:
    """A copy of `node` where each node `replacement(n)` gives a node for is replaced by it."""
    found = replacement(node)
    if found is not None:
        return found
    if isinstance(node, c_ast.ID):
        return node
    copy = _shallow_copy(node)
    if isinstance(node, c_ast.StructRef):  # `s.f`: the field is a name, not a variable
        copy.name = replace_nodes(node.name, replacement)
        return copy
    for name, child in node.children():
        _replace_child(copy, name, replace_nodes(child, replacement))
    return copy


def _shallow_copy(node: c_ast.Node) -> c_ast.Node:
    copy = object.__new__(type(node))
    for attr in node.__slots__:
        if attr != "__weakref__":
            setattr(copy, attr, getattr(node, attr))
    return copy


def _replace_child(node: c_ast.Node, name: str, new: c_ast.Node) -> None:
    """Set the child that `children()` names `name` (`args`, `exprs[1]`)."""
    if "[" in name:
        attr, index = name[:-1].split("[")
        items = list(getattr(node, attr))
        items[int(index)] = new
        setattr(node, attr, items)
    else:
        setattr(node, name, new)


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


def call_effects(ast: c_ast.FileAST, typedefs: Typedefs, pure: set[str]) -> dict[str, CallEffects]:
    """Summaries of the file's functions, resolved to a fixed point (recursion stays unsummarized).
    Calls that end the program (`abort`, `exit`, a failed `assert`) add nothing to a summary."""
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
            summary = _Summarizer(func, typedefs, globals_, PURE_FUNCTIONS | pure, found,
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

    def __init__(self, func, typedefs, globals_, pure, summaries, noreturn=frozenset()):
        self.func, self.typedefs, self.globals = func, typedefs, globals_
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
            sym = classify(p.name, p.type, self.typedefs, "param")
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
        classified = [(decl, classify(decl.name, decl.type, self.typedefs, "local"))
                      for decl in _local_decls(self.func.body)]
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
