"""Which pointer parameters of a file-local function never point into the same object.

A loop that writes through one unannotated pointer parameter and reads through another
needs a run-time test that the ranges they touch are disjoint, and where a range cannot be
bounded (`x[col[p]]` in a CSR product, a binary search over a table) no test can be formed
and the loop stays sequential. When the function is `static` and the file never takes its
address, every call to it is in the file, and the arguments of each call can be followed
to the objects they point into:

- a local array of the caller that is not `static` (`double tab[64]`), a global array;
- a local pointer of the caller whose one and only value is an allocation (`double *y =
  malloc(...)`, or one `y = calloc(...)`; never assigned otherwise, incremented or
  address-taken): that allocation;
- a parameter of the caller: what the caller's own callers pass (the same question, one
  level up).

Two parameters are *distinct* when at every call the two arguments are different objects,
or one is a fresh object of the caller (its local array or its allocation, which nothing
the caller was given can point into) and the other one of the caller's parameters, or both
are parameters of the caller that are themselves distinct. Anything else (a global
pointer, a struct field, pointer arithmetic on a parameter, an unresolvable argument, a
call through a function pointer) proves nothing.
"""
from __future__ import annotations

from pycparser import c_ast

from lifter.frontend.walk import walk

ALLOCATORS = {"malloc", "calloc", "aligned_alloc"}  # fresh objects (not realloc: it may return its argument)


class PointsTo:
    """Answers `distinct(function, p, q)` for the file's functions (memoized)."""

    def __init__(self, ast: c_ast.FileAST):
        self.functions = {e.decl.name: e for e in ast.ext if isinstance(e, c_ast.FuncDef)}
        self.global_arrays = {e.name for e in ast.ext if isinstance(e, c_ast.Decl) and e.name
                              and isinstance(e.type, c_ast.ArrayDecl)}
        self.calls: dict[str, list[tuple[str, c_ast.FuncCall]]] = {}
        taken: set[str] = set()
        self._objects: dict[str, dict[str, str]] = {}
        self._params: dict[str, list[str]] = {}
        for name, func in self.functions.items():
            callee_ids = set()
            for n in walk(func.body):
                if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID):
                    callee_ids.add(id(n.name))
                    if n.name.name in self.functions:
                        self.calls.setdefault(n.name.name, []).append((name, n))
            for n in walk(func.body):
                if isinstance(n, c_ast.ID) and n.name in self.functions and id(n) not in callee_ids:
                    taken.add(n.name)
        for e in ast.ext:  # initializers of globals (function pointer tables)
            if isinstance(e, c_ast.Decl) and e.init is not None:
                taken |= {n.name for n in walk(e.init) if isinstance(n, c_ast.ID) and n.name in self.functions}
        self.closed = {name for name, f in self.functions.items()
                       if "static" in (f.decl.storage or []) and name not in taken}
        self._memo: dict[tuple[str, str, str], bool] = {}

    def distinct(self, function: str, p: str, q: str, _open: frozenset = frozenset()) -> bool:
        key = (function, *sorted((p, q)))
        if key in self._memo:
            return self._memo[key]
        if p == q or key in _open or function not in self.closed or function not in self.calls:
            return False
        params = self.params(function)
        if p not in params or q not in params or {p, q} & self._changed(function):
            return False
        ip, iq = params.index(p), params.index(q)
        result = True
        for caller, call in self.calls[function]:
            args = call.args.exprs if call.args else []
            if max(ip, iq) >= len(args) or not self._apart(caller, args[ip], args[iq], _open | {key}):
                result = False
                break
        self._memo[key] = result
        return result

    def apart(self, function: str, names) -> set[frozenset]:
        """The pairs among the function's parameters `names` that are distinct."""
        names = sorted(set(names))[:32]
        return {frozenset((p, q)) for i, p in enumerate(names) for q in names[i + 1:]
                if self.distinct(function, p, q)}

    def _changed(self, function: str) -> set[str]:
        """Names the function assigns, increments or takes the address of (a parameter that
        may point elsewhere later)."""
        out = set()
        for n in walk(self.functions[function].body):
            target = n.lvalue if isinstance(n, c_ast.Assignment) else \
                n.expr if isinstance(n, c_ast.UnaryOp) and n.op in ("&", "++", "--", "p++", "p--") else None
            if isinstance(target, c_ast.ID):
                out.add(target.name)
        return out

    def params(self, function: str) -> list[str]:
        if function not in self._params:
            decl = self.functions[function].decl.type
            plist = decl.args.params if getattr(decl, "args", None) else []
            self._params[function] = [p.name if isinstance(p, c_ast.Decl) else "" for p in plist]
        return self._params[function]

    def _apart(self, caller: str, a, b, open_: frozenset) -> bool:
        """The two argument expressions of one call point into different objects."""
        x, y = self._resolve(caller, a), self._resolve(caller, b)
        if x is None or y is None:
            return False
        (kx, vx), (ky, vy) = x, y
        if kx == ky == "object":
            return vx != vy
        if kx == ky == "param":
            return self.distinct(caller, vx, vy, open_)
        fresh = vy if kx == "param" else vx
        return not fresh.startswith("global:")

    def _resolve(self, caller: str, expr):
        """('object', id) or ('param', name) for the object an argument points into, or None."""
        while isinstance(expr, c_ast.Cast):
            expr = expr.expr
        if isinstance(expr, c_ast.BinaryOp) and expr.op in ("+", "-"):
            expr = expr.left
        elif isinstance(expr, c_ast.UnaryOp) and expr.op == "&":
            expr = expr.expr
            while isinstance(expr, c_ast.ArrayRef):
                expr = expr.name
        while isinstance(expr, c_ast.ArrayRef):  # a row of a multi-dimensional array
            expr = expr.name
        if not isinstance(expr, c_ast.ID):
            return None
        objects = self._local_objects(caller)
        if expr.name in objects:
            return ("object", objects[expr.name]) if objects[expr.name] else None
        if expr.name in self.params(caller):
            return "param", expr.name
        if expr.name in self.global_arrays:
            return "object", f"global:{expr.name}"
        return None

    def _local_objects(self, function: str) -> dict[str, str]:
        """Each local name of the function -> its object id, or '' where it proves nothing."""
        if function in self._objects:
            return self._objects[function]
        body = self.functions[function].body
        assigned: dict[str, list] = {}
        escaped = set()
        for n in walk(body):
            if isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID):
                assigned.setdefault(n.lvalue.name, []).append(n.rvalue if n.op == "=" else None)
            elif isinstance(n, c_ast.UnaryOp) and n.op in ("&", "++", "--", "p++", "p--") \
                    and isinstance(n.expr, c_ast.ID):
                escaped.add(n.expr.name)
        out: dict[str, str] = {}
        for n in walk(body):
            if not isinstance(n, c_ast.Decl) or not n.name:
                continue
            if n.name in out or n.name in self.params(function):
                out[n.name] = ""  # declared twice (shadowing): names do not tell objects apart
                continue
            static = "static" in (n.storage or [])
            if isinstance(n.type, c_ast.ArrayDecl):
                out[n.name] = "" if static else f"array:{function}:{n.name}:{n.coord}"
            elif isinstance(n.type, c_ast.PtrDecl):
                values = ([n.init] if n.init is not None else []) + assigned.get(n.name, [])
                single = len(values) == 1 and allocation(values[0]) and n.name not in escaped
                out[n.name] = f"malloc:{function}:{n.name}:{n.coord}" if single and not static else ""
            else:
                out[n.name] = ""
        self._objects[function] = out
        return out


def allocation(expr) -> bool:
    """`malloc(...)`, `calloc(...)` or `aligned_alloc(...)`, perhaps cast: a fresh object."""
    while isinstance(expr, c_ast.Cast):
        expr = expr.expr
    return isinstance(expr, c_ast.FuncCall) and isinstance(expr.name, c_ast.ID) and expr.name.name in ALLOCATORS


__all__ = ["PointsTo", "allocation"]
