"""What each name in a function is: integer or floating scalar, array, pointer, struct.

The polyhedral model needs to know which names may be symbolic parameters
(integer scalars), which are arrays with how many dimensions, and which are
pointers that may alias one another.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from lifter.analysis.call_constants import call_sizes
from lifter.analysis.call_summaries import CallSummaries
from lifter.analysis.model import Kind
from lifter.analysis.read_only import read_only_functions
from lifter.analysis.irregular import irregular_functions
from lifter.analysis.unknown_types import UnknownTypes, typeof_functions
from lifter.analysis.walk import functions_where, local_decls, replace_child, replace_nodes, shallow_copy
from lifter.analysis.qualifiers import const_object, shared_qualifiers
from lifter.analysis.points_to import PointsTo
from lifter.frontend.walk import walk

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
        self.strict_aliasing = True  # C's type rules keep a double store off integers (analyze())
        self.assume_no_alias = False  # memory reached through two pointer parameters never overlaps (analyze())
        self.globals: dict[str, Symbol] = {}
        self.pure_functions: set[str] = set()
        self.defined: set[str] = set()  # functions the file defines
        for ext in ast.ext:
            if isinstance(ext, c_ast.Decl) and ext.name:
                self.globals[ext.name] = classify(ext.name, ext.type, typedefs, "global", ext)
            elif isinstance(ext, c_ast.FuncDef):
                name = ext.decl.name
                self.globals[name] = Symbol(name, Kind.FUNCTION, storage="global", decl=ext.decl)
                self.defined.add(name)

        self.unknown_types = UnknownTypes(ast)
        self.structs = self.unknown_types.definitions  # {(Struct or Union, tag): member declarations}
        self.unknown_globals = {n for n, s in self.globals.items() if self.unknown_types.unknown(s.decl.type)}
        # Functions that use a type lift does not know are summarised as unknown calls.
        typeof_using = typeof_functions(ast, self.unknown_types, self.unknown_globals)
        known = c_ast.FileAST([e for e in ast.ext if not (isinstance(e, c_ast.FuncDef) and e.decl.name in typeof_using)])
        self.pure_functions = _pure_functions(known, typedefs)
        self.call_effects = CallSummaries(known, typedefs, self.pure_functions, classify)  # on demand
        self.called_in_loops = _called_in_loops(ast)
        # {function: one {parameter: integer constant} per call} (call_constants.py)
        self.call_sizes = call_sizes(ast, lambda p: classify(p.name, p.type, typedefs, "param", p).integer)
        self.looping = _looping_functions(ast)
        self.irregular = irregular_functions(ast)
        self.index_helpers = _index_helpers(known, typedefs, self.pure_functions)
        self.read_only = read_only_functions(known, typedefs, self.pure_functions, classify)
        self.points_to = PointsTo(ast)
        # Globals whose address the file takes (`int *gp = &g;`, `f(&g)`): a pointer may reach them.
        self.addressed = {root for n in walk(ast) if isinstance(n, c_ast.UnaryOp) and n.op == "&"
                          for root in [_addressed_variable(n.expr)] if root in self.globals}

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
                copy = copy or shallow_copy(node)
                replace_child(copy, name, new)
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
        for decl in local_decls(func.body):
            self._add(classify(decl.name, decl.type, table.typedefs, "local", decl))
        self.body = func.body
        self.unknown_types = table.unknown_globals | table.unknown_types.declared(func)  # unknown_types.py
        # Variables some pointer may point to: a write through it could change them anywhere
        # (`&x`, and a struct variable a member of which has its address taken, `&in.count`).
        self.addressed = {root for n in walk(func.body) if isinstance(n, c_ast.UnaryOp) and n.op == "&"
                          for root in [_addressed_variable(n.expr)] if root is not None}

    def _add(self, sym: Symbol) -> None:
        old = self.locals.get(sym.name)
        if old is not None and (old.kind, old.ndim, old.integer) != (sym.kind, sym.ndim, sym.integer):
            self.ambiguous.add(sym.name)
        self.locals[sym.name] = sym

    def lookup(self, name: str) -> Symbol | None:
        return self.locals.get(name) or self.table.globals.get(name)


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
    for decl in local_decls(func.body):
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


def _addressed_variable(node: c_ast.Node) -> str | None:
    """The variable whose storage `&node` points into: `x` of `&x`, `s` of `&s.f`, `&s.a[i]`
    or `&s.f.g` (members reached with `.` from a struct variable); None for an element of an
    array variable or of a pointer's target (`&a[i]`, `&a[i].f`, `&p->f`: no pointer reaches the
    variable itself)."""
    above = None
    while isinstance(node, (c_ast.StructRef, c_ast.ArrayRef)):
        if isinstance(node, c_ast.StructRef) and node.type != ".":
            return None
        above, node = node, node.name
    if not isinstance(node, c_ast.ID):
        return None
    return node.name if above is None or isinstance(above, c_ast.StructRef) else None
