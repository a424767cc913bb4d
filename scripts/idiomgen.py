"""Random C programs built from the idioms that lift's independent testers broke it with.

`generate(seed)` returns one complete C program (a `str`), the same for the same seed.
`generate(seed, skip)` leaves out the idioms named in `skip` (see SKIPPABLE), so that a
campaign can look past bugs already known without every program tripping on them.

`scripts/loopgen.py` draws affine nests, the analysis' home ground; this generator is
written apart from it and aims at what everyday C does around such nests, where the
miscompiles and uncompilable outputs of issue 15 came from: loop variables declared
outside the loops and read after them, time loops around nests that get distributed,
interchanged or tiled, empty bodies, calls between and inside nests (file-local helpers
that write rows or print), `&&`, `||` and `!=` loop conditions, `unsigned`, `size_t` and
`long` counters, counting down, run-time steps, `while` loops, struct and union
temporaries written field by field, `_Atomic` and `volatile` variables, C++ keywords as
names, VLAs and pointers to VLAs, malloc'd flat arrays indexed `a[i*m + j]`, index
scalars, scratch rows reused by every iteration, reductions of several kinds,
`break`/`continue` in nests and early `return`s.

Every program is deterministic and free of undefined behaviour by construction, so any
difference between it and lift's output is lift's: arithmetic is `unsigned` (wrapping),
`double` (sums and scaling by constants, no products of values that grow) or `int` on
loop counters bounded by the array size; every loop variable has a range [lo, bound -
hm) and is only used in subscripts with offsets in [-lo, hm], so every access is in
bounds; every local array is written in full before it is read. The sizes are small (at
most 36 per dimension) so a program runs in milliseconds. `main` fills the arrays with a
fixed sequence, calls the kernel, and prints a checksum of every array and of every
scalar that is live after the kernel's loops.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

# Valid C identifiers that are C++ keywords (or alternative operator spellings): the CUDA
# target must rename or refuse them, the OpenMP target must keep them working.
CXX_KEYWORDS = ("or", "and", "not", "xor", "bitor", "compl", "new", "delete", "class", "this",
                "template", "typename", "private", "public", "namespace", "operator", "virtual",
                "friend", "throw", "catch", "try", "mutable", "explicit", "export", "using")

# Idioms that `skip` can leave out: empty loop bodies, `&&` and `||` loop conditions, struct
# and union temporaries, `_Atomic` counters, C that is not C++ (C++ keywords as names,
# `typedef enum { false, true }`, calls to functions declared without a prototype), VLAs and
# pointers to VLAs.
SKIPPABLE = ("empty", "and", "or", "struct", "atomic", "cxx", "vla")

# Loop counters declared once at the top of the kernel, per type, by nesting depth.
COUNTERS = {"int": ("i", "j", "k"), "unsigned": ("ui", "uj", "uk"), "size_t": ("zi", "zj", "zk"),
            "long": ("li", "lj", "lk")}
SIGNED = ("int", "long")


@dataclass
class Var:
    """A loop variable ranging over [lo, bound - hm) (a subset of it with `&&`, steps, breaks)."""

    name: str
    ctype: str
    bound: str  # "N" (the macro), or "n"/"m" (run-time sizes, at most N)
    lo: int
    hm: int
    outside: bool  # declared at the top of the function, not in the `for`

    def hi(self) -> str:
        return self.bound if self.hm == 0 else f"{self.bound} - {self.hm}"


@dataclass
class Arr:
    """An array the statements read and write. `dims` are bound names ("N", "n", "m");
    `style` is "index" (A[x][y]) or "flat" (A[x * m + y] over a malloc'd block)."""

    name: str
    elem: str  # "double" or "unsigned"
    dims: tuple[str, ...]
    style: str = "index"

    def render(self, subs: list[str]) -> str:
        if self.style == "flat":
            return f"{self.name}[({subs[0]}) * {self.dims[1]} + {subs[1]}]"
        return self.name + "".join(f"[{s}]" for s in subs)


@dataclass
class Scope:
    """What the statements of one function may use."""

    arrays: list[Arr]
    bounds: tuple[str, ...]  # run-time sizes in scope besides N
    locals: list[str] = field(default_factory=list)  # declarations at the top of the function
    live: list[tuple[str, str]] = field(default_factory=list)  # (expression, "u" | "d") read after
    has_step: bool = False


class IdiomGen:
    def __init__(self, seed: int, skip: tuple[str, ...] = ()):
        unknown = set(skip) - set(SKIPPABLE)
        if unknown:
            raise ValueError(f"unknown idioms to skip: {sorted(unknown)} (known: {', '.join(SKIPPABLE)})")
        self.skip = set(skip)
        self.rng = random.Random(seed)
        self.seed = seed
        r = self.rng
        self.N = r.randint(6, 36)
        self.T = r.randint(2, 4)
        self.used: set[str] = set()
        self.cxx = r.random() < 0.5 and "cxx" not in self.skip  # C++ keywords as names in this program
        self.helpers: list[str] = []
        self.late_helpers: list[str] = []  # defined after the kernel, declared before it without a prototype
        self.globals: list[str] = []
        self.live_u: list[str] = []  # global result slots filled at the end of functions
        self.uid = 0
        self.arrays = []
        for n in range(r.randint(3, 5)):
            elem = r.choice(("double", "unsigned"))
            dims = ("N", "N") if r.random() < 0.7 else ("N",)
            self.arrays.append(Arr(self.fresh("A" if elem == "double" else "U"), elem, dims))
        if not any(a.elem == "double" for a in self.arrays):
            self.arrays.append(Arr(self.fresh("A"), "double", ("N", "N")))
        if not any(a.elem == "unsigned" for a in self.arrays):
            self.arrays.append(Arr(self.fresh("U"), "unsigned", ("N", "N")))
        self.struct_declared = False
        self.union_declared = False
        self.atomic = self.fresh("hits")
        self.vol = self.fresh("knob")
        self.uses_atomic = self.uses_volatile = False
        self.results: list[tuple[str, str]] = []  # (global slot, "u" | "d")
        self.made: list[Var] = []  # the loop variables of the nests built since it was last emptied

    # -- names ---------------------------------------------------------------------------
    def fresh(self, base: str) -> str:
        """A new identifier: sometimes a C++ keyword, else base plus a number."""
        if self.cxx and self.rng.random() < 0.35:
            free = [k for k in CXX_KEYWORDS if k not in self.used]
            if free:
                name = self.rng.choice(free)
                self.used.add(name)
                return name
        self.uid += 1
        name = f"{base}{self.uid}"
        self.used.add(name)
        return name

    def result(self, kind: str) -> str:
        slot = f"res_{kind}[{sum(1 for _, k in self.results if k == kind)}]"
        self.results.append((slot, kind))
        return slot

    # -- loop headers ----------------------------------------------------------------------
    def new_var(self, sc: Scope, depth: int, outside: bool, margin: bool = True) -> Var:
        r = self.rng
        ctype = r.choice(("int", "int", "int", "unsigned", "size_t", "long"))
        bound = r.choice(("N",) + sc.bounds + sc.bounds) if sc.bounds else "N"
        lo = r.choice((0, 0, 1)) if margin else 0
        hm = r.choice((0, 0, 1)) if margin else 0
        return Var(COUNTERS[ctype][depth], ctype, bound, lo, hm, outside)

    def header(self, v: Var, sc: Scope, allow_while: bool = True) -> tuple[list[str], str, list[str], bool]:
        """(lines before, the loop head, lines closing the body, is a `for`) for iterating v."""
        r = self.rng
        n, hi, lo = v.name, v.hi(), v.lo
        d = "" if v.outside else f"{v.ctype} "
        forms = ["up", "up", "up", "le", "ne", "down_u"] + [f for f in ("and", "or") if f not in self.skip]
        if v.ctype in SIGNED:
            forms += ["down", "down"]
        if sc.has_step:
            forms.append("step")
        if allow_while and v.outside:
            forms.append("while")
        form = r.choice(forms)
        if form == "le":
            return [], f"for ({d}{n} = {lo}; {n} <= {v.bound} - {v.hm + 1}; ++{n})", [], True
        if form == "ne":
            return [], f"for ({d}{n} = {lo}; {n} != {hi}; {n}++)", [], True
        if form == "and":
            other = r.choice(("n", "N", "m", f"{self.N - 2}", "2 * n")) if sc.bounds else r.choice(("N", "N + 3", "5"))
            if other in ("n", "m", "2 * n") and other.split()[-1] not in sc.bounds:
                other = "N"
            return [], f"for ({d}{n} = {lo}; {n} < {hi} && {n} < {other}; {n}++)", [], True
        if form == "or":
            return [], f"for ({d}{n} = {lo}; {n} < {hi} || {n} < {r.randint(0, 2)}; {n}++)", [], True
        if form == "down":
            return [], f"for ({d}{n} = {hi} - 1; {n} >= {lo}; {n}--)", [], True
        if form == "down_u":
            return [], f"for ({d}{n} = {hi}; {n}-- > {lo};)", [], True
        if form == "step":
            return [], f"for ({d}{n} = {lo}; {n} < {hi}; {n} += step)", [], True
        if form == "while":
            return [f"{n} = {lo};"], f"while ({n} < {hi})", [f"{n}++;"], False
        return [], f"for ({d}{n} = {lo}; {n} < {hi}; {n}++)", [], True

    # -- expressions -----------------------------------------------------------------------
    def sub(self, dim: str, vars_: list[Var], prefer: Var | None = None) -> str:
        """A subscript for a dimension of extent `dim` from a variable that fits it, or a constant."""
        fits = [v for v in vars_ if dim == "N" or v.bound == dim]
        r = self.rng
        if prefer is not None and prefer in fits and r.random() < 0.7:
            v = prefer
        elif fits and r.random() < 0.92:
            v = r.choice(fits)
        else:
            return str(r.randint(0, 3))
        off = r.randint(-v.lo, v.hm)
        return v.name if off == 0 else (f"{v.name} + {off}" if off > 0 else f"{v.name} - {-off}")

    def ref(self, a: Arr, vars_: list[Var]) -> str:
        # mostly the variables in nesting order (row-major), sometimes transposed or mixed
        order = vars_[-len(a.dims):] if len(vars_) >= len(a.dims) else vars_
        if self.rng.random() < 0.25:
            order = list(reversed(vars_))
        subs = [self.sub(dim, vars_, order[i] if i < len(order) else None) for i, dim in enumerate(a.dims)]
        return a.render(subs)

    def expr(self, elem: str, sc: Scope, vars_: list[Var], depth: int, reads: list[Arr]) -> str:
        r = self.rng
        same = [a for a in reads if a.elem == elem or (elem == "double" and r.random() < 0.3)]
        if depth <= 0 or r.random() < 0.3:
            roll = r.random()
            if roll < 0.6 and same:
                a = r.choice(same)
                text = self.ref(a, vars_)
                if a.elem != elem:  # unsigned read into a double: bounded
                    return f"(double)({text} & 255u)"
                return text
            if roll < 0.8 and vars_:
                return f"({elem}){r.choice(vars_).name}"
            if elem == "double":
                return r.choice(("0.5", "1.25", "3.0", "-2.0", "0.125"))
            return f"{r.choice((1, 3, 7, 31, 255, 40503, 2654435761))}u"
        if elem == "double":
            op = r.choice(("+", "-", "+", "*c"))
            if op == "*c":
                return f"({r.choice(('0.5', '0.25', '1.5', '-0.75'))} * {self.expr(elem, sc, vars_, depth - 1, reads)})"
        else:
            op = r.choice(("+", "-", "*", "^", "|", "&", ">>"))
            if op == ">>":
                return f"({self.expr(elem, sc, vars_, depth - 1, reads)} >> {r.randint(1, 7)})"
        return f"({self.expr(elem, sc, vars_, depth - 1, reads)} {op} {self.expr(elem, sc, vars_, depth - 1, reads)})"

    def cond(self, sc: Scope, vars_: list[Var], reads: list[Arr]) -> str:
        r = self.rng
        roll = r.random()
        us = [a for a in reads if a.elem == "unsigned"]
        ds = [a for a in reads if a.elem == "double"]
        if roll < 0.3 and us:
            return f"{self.ref(r.choice(us), vars_)} % {r.choice((3, 5, 7))}u == {r.randint(0, 2)}u"
        if roll < 0.5 and ds:
            return f"{self.ref(r.choice(ds), vars_)} > {r.choice(('4.0', '16.0', '40.0'))}"
        if len(vars_) >= 2 and roll < 0.7:
            a, b = r.sample(vars_, 2)
            return f"{a.name} {r.choice(('<', '!=', '>='))} {b.name}"
        v = r.choice(vars_)
        return f"({v.name} + {r.randint(0, 3)}) % {r.choice((2, 3, 4))} == 0"

    # -- statements ------------------------------------------------------------------------
    def scalar(self, sc: Scope, elem: str, init: str, live: bool = True) -> str:
        name = self.fresh("d" if elem == "double" else "s")
        sc.locals.append(f"{elem} {name} = {init};")
        if live:
            sc.live.append((name, "u" if elem == "unsigned" else "d"))
        return name

    def reduction(self, sc: Scope, vars_: list[Var], reads: list[Arr], ind: str) -> list[str]:
        r = self.rng
        kind = r.choice(("dsum", "usum", "xor", "or", "and", "prod", "max", "min", "count", "dmax"))
        if kind in ("dsum", "dmax") and any(a.elem == "double" for a in reads):
            s = self.scalar(sc, "double", "0.0" if kind == "dsum" else "-1.0e300")
            e = self.expr("double", sc, vars_, 2, reads)
            if kind == "dmax":
                return [ind + f"if ({e} > {s}) {s} = {e};"]
            return [ind + r.choice((f"{s} += {e};", f"{s} = {s} + {e};", f"{s} -= {e};"))]
        if kind == "count":
            c = self.fresh("cnt")
            sc.locals.append(f"int {c} = 0;")
            sc.live.append((c, "u"))
            return [ind + f"{c} += ({self.cond(sc, vars_, reads)});"]
        init = {"and": "~0u", "prod": "1u", "min": "~0u"}.get(kind, "0u")
        s = self.scalar(sc, "unsigned", init)
        e = self.expr("unsigned", sc, vars_, 2, reads)
        if kind == "max":
            return [ind + f"{s} = {e} > {s} ? {e} : {s};"]
        if kind == "min":
            return [ind + f"if ({e} < {s}) {s} = {e};"]
        op = {"usum": "+=", "xor": "^=", "or": "|=", "and": "&=", "prod": "*="}.get(kind, "+=")
        return [ind + f"{s} {op} {'(' + e + ' | 1u)' if kind == 'prod' else e};"]

    def assign(self, sc: Scope, vars_: list[Var], reads: list[Arr], writes: list[Arr], ind: str) -> list[str]:
        r = self.rng
        a = r.choice(writes)
        ops = ("=", "=", "+=", "-=") if a.elem == "double" else ("=", "=", "+=", "^=")
        line = f"{self.ref(a, vars_)} {r.choice(ops)} {self.expr(a.elem, sc, vars_, r.randint(0, 3), reads)};"
        if r.random() < 0.15:
            return [ind + f"if ({self.cond(sc, vars_, reads)})", ind + "    " + line]
        return [ind + line]

    def struct_temp(self, sc: Scope, vars_: list[Var], reads: list[Arr], writes: list[Arr], ind: str) -> list[str]:
        """A struct or union temporary written field by field, declared in the body or outside."""
        r = self.rng
        inside = r.random() < 0.5
        if r.random() < 0.7 and any(a.elem == "double" for a in writes):
            if not self.struct_declared:
                self.globals.append("struct pt { double x, y, z; };")
                self.struct_declared = True
            name = self.fresh("p")
            a = r.choice([w for w in writes if w.elem == "double"])
            decl = [ind + f"struct pt {name};"] if inside else []
            if not inside:
                sc.locals.append(f"struct pt {name};")
            return decl + [
                ind + f"{name}.x = {self.expr('double', sc, vars_, 1, reads)};",
                ind + f"{name}.y = {self.expr('double', sc, vars_, 1, reads)};",
                ind + f"{name}.z = {name}.x - 0.5 * {name}.y;",
                ind + f"{self.ref(a, vars_)} = {name}.x + {name}.y + {name}.z;"]
        if not self.union_declared:
            self.globals.append("union cell { unsigned u; double d; };")
            self.union_declared = True
        name = self.fresh("c")
        a = r.choice(writes)
        decl = [ind + f"union cell {name};"] if inside else []
        if not inside:
            sc.locals.append(f"union cell {name};")
        if a.elem == "unsigned":
            return decl + [ind + f"{name}.u = {self.expr('unsigned', sc, vars_, 1, reads)};",
                           ind + f"{self.ref(a, vars_)} = {name}.u * 3u + 1u;"]
        return decl + [ind + f"{name}.d = {self.expr('double', sc, vars_, 1, reads)};",
                       ind + f"{self.ref(a, vars_)} = {name}.d * 0.5;"]

    def temp(self, sc: Scope, vars_: list[Var], reads: list[Arr], writes: list[Arr], ind: str) -> list[str]:
        """A scalar temporary: declared in the body, or outside the loops (privatizable)."""
        r = self.rng
        a = r.choice(writes)
        if r.random() < 0.5:
            t = self.fresh("t")
            sc.locals.append(f"{a.elem} {t};")
            first = ind + f"{t} = {self.expr(a.elem, sc, vars_, 2, reads)};"
        else:
            t = self.fresh("t")
            first = ind + f"{a.elem} {t} = {self.expr(a.elem, sc, vars_, 2, reads)};"
        return [first, ind + f"{self.ref(a, vars_)} = {t} + {self.expr(a.elem, sc, vars_, 1, reads)};"]

    def index_scalar(self, sc: Scope, vars_: list[Var], reads: list[Arr], writes: list[Arr], ind: str) -> list[str]:
        """`int idx = bound - 1 - i;` then a subscript through it (mirrors, shifted rows)."""
        v = self.rng.choice(vars_)
        name = self.fresh("idx")
        mirror = Var(name, "int", v.bound, v.hm, v.lo, True)  # bound-1-v stays in [hm, bound-1-lo]
        a = self.rng.choice(writes)
        return [ind + f"int {name} = {v.bound} - 1 - (int){v.name};"] + \
            self.assign(sc, vars_ + [mirror], reads, [a], ind)

    def statements(self, sc: Scope, vars_: list[Var], reads, writes, ind: str, in_for: bool) -> list[str]:
        r = self.rng
        out: list[str] = []
        for _ in range(r.choice((1, 1, 2, 3))):
            roll = r.random()
            if roll < 0.5:
                out += self.assign(sc, vars_, reads, writes, ind)
            elif roll < 0.65:
                out += self.reduction(sc, vars_, reads, ind)
            elif roll < 0.73 and "struct" not in self.skip:
                out += self.struct_temp(sc, vars_, reads, writes, ind)
            elif roll < 0.81:
                out += self.temp(sc, vars_, reads, writes, ind)
            elif roll < 0.87:
                out += self.index_scalar(sc, vars_, reads, writes, ind)
            elif roll < 0.92 and in_for:
                out += [ind + f"if ({self.cond(sc, vars_, reads)})", ind + "    " + r.choice(("continue;", "break;"))]
            elif roll < 0.96:
                out += self.atomic_volatile(sc, vars_, reads, writes, ind)
            else:
                out += self.assign(sc, vars_, reads, writes, ind)
        return out

    def atomic_volatile(self, sc: Scope, vars_: list[Var], reads, writes, ind: str) -> list[str]:
        r = self.rng
        if r.random() < 0.5 and "atomic" not in self.skip:
            self.uses_atomic = True
            return [ind + f"{self.atomic} += {self.expr('unsigned', sc, vars_, 1, reads)} & 15u;"]
        self.uses_volatile = True
        a = r.choice(writes)
        if a.elem == "double":
            return [ind + f"{self.ref(a, vars_)} = (double)({self.vol} & 7u) + 0.5;"]
        return [ind + f"{self.ref(a, vars_)} ^= {self.vol};"]

    # -- nests -----------------------------------------------------------------------------
    def nest(self, sc: Scope, depth: int, ind: str, outside: bool, reads=None, writes=None,
             vars_: list[Var] | None = None, level: int = 0) -> list[str]:
        """A loop nest `depth` deep; imperfect sometimes (statements at outer levels)."""
        r = self.rng
        vars_ = vars_ or []
        if reads is None:
            reads, writes = self.pick_arrays(sc)
        v = self.new_var(sc, level, outside)
        self.made.append(v)
        pre, head, post, is_for = self.header(v, sc)
        inner = vars_ + [v]
        body: list[str] = []
        if depth > 1:
            if r.random() < 0.2:
                body += self.statements(sc, inner, reads, writes, ind + "    ", False)
            body += self.nest(sc, depth - 1, ind + "    ", outside, reads, writes, inner, level + 1)
            if r.random() < 0.15:
                body += self.nest(sc, depth - 1, ind + "    ", outside, reads, writes, inner, level + 1)
        elif r.random() < 0.03 and "empty" not in self.skip:
            body = []  # empty body
        else:
            body = self.statements(sc, inner, reads, writes, ind + "    ", is_for)
        return [ind + p for p in pre] + [ind + head + " {"] + body + [ind + "    " + p for p in post] + [ind + "}"]

    def pick_arrays(self, sc: Scope) -> tuple[list[Arr], list[Arr]]:
        r = self.rng
        arrays = sc.arrays
        writes = r.sample(arrays, r.randint(1, min(2, len(arrays))))
        if r.random() < 0.4:
            reads = [a for a in arrays if a not in writes] or writes
        else:
            reads = r.sample(arrays, r.randint(1, len(arrays)))
        return reads, writes

    # -- idioms: each returns the lines of one part of a function body ----------------------
    def idiom_nest(self, sc: Scope, ind: str) -> list[str]:
        return self.nest(sc, self.rng.choice((1, 2, 2, 3)), ind, self.rng.random() < 0.5)

    def idiom_ivar_after(self, sc: Scope, ind: str) -> list[str]:
        """Counters declared outside, a nest, then a statement reading the counters' final values."""
        self.made = []
        lines = self.nest(sc, self.rng.choice((1, 2, 2, 3)), ind, True)
        names = list(dict.fromkeys(v.name for v in self.made))
        iv = self.scalar(sc, "unsigned long", "0", live=False)
        sc.live.append((iv, "u"))
        return lines + [ind + f"{iv} += " + " + ".join(f"(unsigned long){n} * {1000 ** k}ul"
                                                       for k, n in enumerate(names)) + ";"]

    def idiom_time_loop(self, sc: Scope, ind: str) -> list[str]:
        """A time loop around nests (stencils, transposes, products) and ivar reads."""
        r = self.rng
        body: list[str] = []
        for _ in range(r.randint(1, 3)):
            pick = r.choice((self.idiom_nest, self.idiom_ivar_after, self.idiom_product, self.idiom_transpose,
                             self.idiom_calls) + (() if "empty" in self.skip else (self.idiom_empty,)))
            body += pick(sc, ind + "    ")
        bound = r.choice((str(self.T), "tsteps"))
        return [ind + f"for (t = 0; t < {bound}; t++) {{"] + body + [ind + "}"]

    def idiom_product(self, sc: Scope, ind: str) -> list[str]:
        """C[i][j] += A[i][k] * B[k][j] (a tiling candidate), operands read-only in the nest."""
        r = self.rng
        two = [a for a in sc.arrays if len(a.dims) == 2 and a.style == "index" and a.dims == ("N", "N")]
        ds = [a for a in two if a.elem == "double"]
        if len(ds) < 2:
            return self.idiom_nest(sc, ind)
        c, a = r.sample(ds, 2)
        b = r.choice([x for x in ds if x is not c])
        d = "" if r.random() < 0.5 else "int "
        return [ind + f"for ({d}i = 0; i < N; i++)",
                ind + f"    for ({d}j = 0; j < N; j++)",
                ind + f"        for ({d}k = 0; k < N; k++)",
                ind + f"            {c.name}[i][j] += 0.125 * {a.name}[i][k] * {b.name}[k][j];"]

    def idiom_transpose(self, sc: Scope, ind: str) -> list[str]:
        """Column-order traversal or transposed copy: interchange candidates."""
        r = self.rng
        two = [a for a in sc.arrays if a.dims == ("N", "N") and a.style == "index"]
        if len(two) < 2:
            return self.idiom_nest(sc, ind)
        dst, src = r.sample(two, 2)
        rhs = f"{src.name}[i][j]" if src.elem == dst.elem else (
            f"(double)({src.name}[i][j] & 255u)" if dst.elem == "double" else f"(unsigned)i * {r.randint(1, 9)}u")
        d = "" if r.random() < 0.5 else "int "
        return [ind + f"for ({d}j = 0; j < N; j++)",
                ind + f"    for ({d}i = 0; i < N; i++)",
                ind + f"        {dst.name}[j][i] {'+=' if r.random() < 0.3 else '='} {rhs};"]

    def idiom_empty(self, sc: Scope, ind: str) -> list[str]:
        v, w = self.new_var(sc, 0, True, False), self.new_var(sc, 1, True, False)
        body = self.rng.choice(("{\n" + ind + "    }", ";", "{ }"))
        return [ind + f"for ({v.name} = 0; {v.name} < {v.bound}; {v.name}++)",
                ind + f"    for ({w.name} = 0; {w.name} < {w.bound}; {w.name}++) {body}"]

    def idiom_calls(self, sc: Scope, ind: str) -> list[str]:
        """File-local helpers called from loops and between nests: a row writer, a printer, a bumper."""
        r = self.rng
        kind = r.choice(("row", "row", "print", "bump"))
        rows = [a for a in self.arrays if a.dims == ("N", "N")]
        if kind == "row" and rows:
            a = r.choice(rows)
            fn, p, q = self.fresh("fill_row"), self.fresh("row"), self.fresh("len")
            val = "v + (double)c * 0.5" if a.elem == "double" else "v * 2654435761u + (unsigned)c"
            self.helpers.append(f"static void {fn}({a.elem} *{p}, int {q}, {a.elem} v)\n{{\n"
                                f"    for (int c = 0; c < {q}; c++)\n        {p}[c] = {val};\n}}\n")
            cast = "(double)" if a.elem == "double" else "(unsigned)"
            return [ind + f"for (i = 0; i < N; i += {r.choice((1, 1, 2))})",
                    ind + f"    {fn}({a.name}[i], {r.choice(('N', 'N - 1'))}, {cast}i);"]
        if kind == "print":
            a = r.choice(self.arrays)
            fn = self.fresh("show")
            fmt = "%.17g" if a.elem == "double" else "%u"
            self.helpers.append(f"static void {fn}(int at, {a.elem} v)\n{{\n    printf(\"{fn} %d {fmt}\\n\", at, v);\n}}\n")
            sub = "[i]" if len(a.dims) == 1 else "[i][1]"
            return [ind + f"for (i = 0; i < N; i += {r.choice((3, 5))})", ind + f"    {fn}(i, {a.name}{sub});"]
        target = r.choice([a for a in self.arrays if a.elem == "unsigned"])
        fn = self.fresh("bump")
        sub = "[q]" if len(target.dims) == 1 else "[q][0]"
        text = f"static void {fn}(int q)\n{{\n    {target.name}{sub} += (unsigned)q + 1u;\n}}\n"
        if self.cxx and r.random() < 0.5:  # C, not C++: called where only `static void f();` is seen
            self.globals.append(f"static void {fn}();")
            self.late_helpers.append(text)
        else:
            self.helpers.append(text)
        return [ind + "for (i = 0; i < N; i++)", ind + f"    {fn}(i);"]

    def idiom_scratch_row(self, sc: Scope, ind: str) -> list[str]:
        """A row declared once outside the loop, refilled and consumed by every iteration."""
        r = self.rng
        elem = r.choice(("double", "unsigned"))
        row = self.fresh("row")
        sc.locals.append(f"{elem} {row}[N];")
        srcs = [a for a in sc.arrays if a.elem == elem and a.dims == ("N", "N")]
        dsts = [a for a in sc.arrays if a.elem == elem and a.dims == ("N", "N")]
        if not srcs:
            return self.idiom_nest(sc, ind)
        src, dst = r.choice(srcs), r.choice(dsts)
        mix = "0.5 *" if elem == "double" else "3u *"
        lines = [ind + "for (i = 0; i < N; i++) {",
                 ind + "    for (j = 0; j < N; j++)",
                 ind + f"        {row}[j] = {mix} {src.name}[i][j];",
                 ind + "    for (j = 0; j < N; j++)",
                 ind + f"        {dst.name}[i][j] = {row}[j] + {row}[N - 1 - j];",
                 ind + "}"]
        if r.random() < 0.5:
            sc.live.append((f"{row}[{r.randint(0, 3)}]", "d" if elem == "double" else "u"))
        return lines

    def idiom_search(self, sc: Scope, ind: str) -> list[str]:
        """An inner search loop with `break`, its result stored per outer iteration."""
        r = self.rng
        us = [a for a in sc.arrays if a.elem == "unsigned" and a.dims == ("N", "N")]
        outs = [a for a in sc.arrays if a.elem == "unsigned"]
        if not us or not outs:
            return self.idiom_nest(sc, ind)
        src, dst = r.choice(us), r.choice(outs)
        pos = self.fresh("pos")
        sub = "[i]" if len(dst.dims) == 1 else "[i][0]"
        decl = "int " if r.random() < 0.5 else ""
        if not decl:
            sc.locals.append(f"int {pos} = 0;")
            sc.live.append((pos, "u"))
        # C, not C++: an enum whose enumerators are named false and true
        flag = self.fresh("hit") if self.cxx and r.random() < 0.5 else ""
        if flag and "typedef enum { false, true } logical;" not in self.globals:
            self.globals.append("typedef enum { false, true } logical;")
        return [ind + "for (i = 0; i < N; i++) {",
                ind + f"    {decl}{pos} = -1;"] + ([ind + f"    logical {flag} = false;"] if flag else []) + [
                ind + "    for (j = 0; j < N; j++)",
                ind + f"        if ({src.name}[i][j] % {r.choice((5, 7, 11))}u == {r.randint(0, 3)}u) {{",
                ind + f"            {pos} = j;"] + ([ind + f"            {flag} = true;"] if flag else []) + [
                ind + "            break;",
                ind + "        }",
                ind + f"    {dst.name}{sub} = (unsigned)({pos} + 1){f' + (unsigned){flag}' if flag else ''};",
                ind + "}"]

    def idiom_early_exit(self, sc: Scope, ind: str) -> list[str]:
        """An outer loop left early (break), its counter read after; or a helper that returns from a nest."""
        r = self.rng
        us = [a for a in self.arrays if a.elem == "unsigned" and a.dims == ("N", "N")]
        if r.random() < 0.5 and us:
            a = r.choice(us)
            fn = self.fresh("find")
            self.helpers.append(
                f"static int {fn}(unsigned key)\n{{\n    for (int p = 0; p < N; p++)\n"
                f"        for (int q = 0; q < N; q++)\n            if ({a.name}[p][q] % 64u == key)\n"
                f"                return p * N + q;\n    return -1;\n}}\n")
            s = self.scalar(sc, "unsigned", "0u")
            return [ind + f"for (i = 0; i < {r.randint(3, 12)}; i++)", ind + f"    {s} = {s} * 31u + (unsigned){fn}((unsigned)i);"]
        v = self.new_var(sc, 0, True, False)
        reads, writes = self.pick_arrays(sc)
        w = Var("j", "int", "N", 0, 0, False)
        body = self.statements(sc, [v, w], reads, writes, ind + "        ", True)
        cnt = self.scalar(sc, "unsigned long", "0", live=False)
        sc.live.append((cnt, "u"))
        return [ind + f"for ({v.name} = 0; {v.name} < {v.bound}; {v.name}++) {{",
                ind + f"    if ({self.cond(sc, [v], reads)} && {v.name} > 2)", ind + "        break;",
                ind + "    for (int j = 0; j < N; j++) {"] + body + [ind + "    }", ind + "}",
                ind + f"{cnt} += (unsigned long){v.name};"]

    def idiom_vla(self, sc: Scope, ind: str) -> list[str]:
        """A helper with a VLA and a malloc'd pointer to VLA rows or a flat malloc'd block
        (both flat blocks when VLAs are skipped)."""
        r = self.rng
        fn = self.fresh("vla_work")
        no_vla = "vla" in self.skip
        tname, pname = self.fresh("T"), self.fresh("P")
        elem = r.choice(("double", "unsigned"))
        local = Arr(tname, elem, ("n", "m"), "flat" if no_vla else "index")
        heap = Arr(pname, elem, ("n", "m"), "flat" if no_vla or r.random() < 0.4 else "index")
        inner = Scope(arrays=[local, heap] + self.arrays, bounds=("n", "m"))
        src = r.choice([a for a in self.arrays if a.elem == elem and a.dims == ("N", "N")] or [None])
        init = f"{src.name}[i][j]" if src else ("(double)(i + j)" if elem == "double" else "(unsigned)(i * 7 + j)")
        t_ij, p_ij = local.render(["i", "j"]), heap.render(["i", "j"])
        lines = ["    for (int i = 0; i < n; i++)", "        for (int j = 0; j < m; j++) {",
                 f"            {t_ij} = {init};", f"            {p_ij} = {t_ij};", "        }"]
        for _ in range(r.randint(1, 3)):
            reads, writes = inner.arrays, [local, heap] + ([r.choice(self.arrays)] if r.random() < 0.3 else [])
            lines += self.nest(inner, r.choice((1, 2, 2)), "    ", False, reads, writes)
        acc = "double" if elem == "double" else "unsigned"
        lines += [f"    {acc} acc = 0;", "    for (int i = 0; i < n; i++)", "        for (int j = 0; j < m; j++)",
                  f"            acc = acc * {'0.5' if elem == 'double' else '33u'} + {t_ij} + {p_ij};"]
        lines += [f"    {self.result(k)} = {e};" for e, k in inner.live]  # the helper's live scalars
        lines += [f"    free({pname});"] + ([f"    free({tname});"] if no_vla else []) + ["    return acc;"]
        flat_alloc = "    {elem} *{name} = malloc(sizeof *{name} * (size_t)n * (size_t)m);"
        head = [f"static {acc} {fn}(int n, int m)", "{",
                flat_alloc.format(elem=elem, name=tname) if no_vla else f"    {elem} {tname}[n][m];",
                flat_alloc.format(elem=elem, name=pname) if heap.style == "flat"
                else f"    {elem} (*{pname})[m] = malloc(sizeof({elem}[n][m]));"]
        head += ["    " + d for d in inner.locals]
        self.helpers.append("\n".join(head + lines + ["}"]) + "\n")
        s = self.scalar(sc, acc, "0")
        op = "+=" if elem == "double" else "^="
        return [ind + f"{s} {op} {fn}(n, m);"]

    def idiom_vla_param(self, sc: Scope, ind: str) -> list[str]:
        """A helper taking `double Q[n][m]` (a VLA parameter) called with a global array."""
        r = self.rng
        rows = [a for a in self.arrays if a.dims == ("N", "N")]
        if not rows:
            return self.idiom_nest(sc, ind)
        a = r.choice(rows)
        fn, q = self.fresh("vla_param"), self.fresh("Q")
        inner = Scope(arrays=[Arr(q, a.elem, ("n", "N"))], bounds=("n",))
        body = self.nest(inner, 2, "    ", False)
        text = (f"static void {fn}(int n, int w, {a.elem} {q}[n][w])\n{{\n"
                + "".join("    " + d + "\n" for d in inner.locals) + "\n".join(body) + "\n"
                + "".join(f"    {self.result(k)} = {e};\n" for e, k in inner.live) + "}\n")
        self.helpers.append(text)
        return [ind + f"{fn}(n, N, {a.name});"]

    def idiom_print_between(self, sc: Scope, ind: str) -> list[str]:
        a = self.rng.choice(self.arrays)
        sub = "[1]" if len(a.dims) == 1 else "[1][2]"
        fmt = "%.17g" if a.elem == "double" else "%u"
        return [ind + f'printf("mid {a.name} {fmt}\\n", {a.name}{sub});']

    # -- the program -----------------------------------------------------------------------
    def generate(self) -> str:
        r = self.rng
        sc = Scope(arrays=list(self.arrays), bounds=("n", "m"), has_step=True)
        idioms = [(self.idiom_nest, 4), (self.idiom_ivar_after, 4), (self.idiom_time_loop, 4),
                  (self.idiom_product, 1), (self.idiom_transpose, 1), (self.idiom_calls, 2),
                  (self.idiom_scratch_row, 2), (self.idiom_search, 2), (self.idiom_early_exit, 2),
                  (self.idiom_vla, 2), (self.idiom_print_between, 1)]
        if "empty" not in self.skip:
            idioms.append((self.idiom_empty, 1))
        if "vla" not in self.skip:
            idioms.append((self.idiom_vla_param, 1))
        funcs, weights = zip(*idioms)
        body: list[str] = []
        for _ in range(r.randint(2, 5)):
            body += r.choices(funcs, weights)[0](sc, "    ")
        return self.assemble(sc, body)

    def assemble(self, sc: Scope, body: list[str]) -> str:
        r = self.rng
        out = [f"/* lift fuzz: idioms, seed {self.seed} */", "#include <stdio.h>", "#include <stdlib.h>",
               "#include <stddef.h>", "", f"#define N {self.N}", ""]
        out += self.globals
        for a in self.arrays:
            out.append(f"static {a.elem} {a.name}" + "".join(f"[{d}]" for d in a.dims) + ";")
        if self.uses_atomic:
            out.append(f"static _Atomic unsigned {self.atomic};")
        out.append(f"static volatile unsigned {self.vol} = 5u;")
        # result slots: sized after the kernel is built (helpers may have added some)
        kernel_stores = [f"    {self.result(k)} = {e};" for e, k in sc.live]
        nu = sum(1 for _, k in self.results if k == "u")
        nd = sum(1 for _, k in self.results if k == "d")
        out.append(f"static unsigned long res_u[{max(1, nu)}];")
        out.append(f"static double res_d[{max(1, nd)}];")
        out.append("")
        out += self.helpers
        counters = ", ".join(f"{n} = 0" for n in COUNTERS["int"]) + ", t = 0"
        out += ["static void kernel(int n, int m, int step, int tsteps)", "{",
                f"    int {counters};",
                "    unsigned " + ", ".join(f"{n} = 0" for n in COUNTERS["unsigned"]) + ";",
                "    size_t " + ", ".join(f"{n} = 0" for n in COUNTERS["size_t"]) + ";",
                "    long " + ", ".join(f"{n} = 0" for n in COUNTERS["long"]) + ";"]
        out += ["    " + d for d in sc.locals]
        out += body
        out += kernel_stores
        out += ["    (void)i; (void)j; (void)k; (void)t; (void)ui; (void)uj; (void)uk;",
                "    (void)zi; (void)zj; (void)zk; (void)li; (void)lj; (void)lk;", "}", ""]
        out += self.late_helpers
        n = r.randint(4, self.N)
        m = r.randint(4, self.N)
        out += ["int main(void)", "{", "    unsigned x = 12345u;", "    unsigned long h;", "    double d;"]
        for a in self.arrays:
            out += self.sweep(a, f"x = x * 1103515245u + 12345u; {a.render(self.loop_vars(a))} = "
                              + ("(double)((x >> 16) % 64u) * 0.25;" if a.elem == "double" else "(x >> 8) % 1000u;"))
        out.append(f"    kernel({n}, {m}, {r.randint(1, 3)}, {r.randint(1, 3)});")
        for a in self.arrays:
            if a.elem == "double":
                out += ["    d = 0.0;"] + self.sweep(a, f"d = d * 0.5 + {a.render(self.loop_vars(a))};")
                out.append(f'    printf("{a.name} %.17g\\n", d);')
            else:
                out += ["    h = 0;"] + self.sweep(a, f"h = h * 31u + {a.render(self.loop_vars(a))};")
                out.append(f'    printf("{a.name} %lu\\n", h);')
        if self.uses_atomic:
            out.append(f'    printf("{self.atomic} %u\\n", (unsigned){self.atomic});')
        out += [f"    for (int q = 0; q < {max(1, nu)}; q++)", '        printf("u%d %lu\\n", q, res_u[q]);',
                f"    for (int q = 0; q < {max(1, nd)}; q++)", '        printf("d%d %.17g\\n", q, res_d[q]);',
                "    return 0;", "}", ""]
        return "\n".join(out)

    @staticmethod
    def loop_vars(a: Arr) -> list[str]:
        return ["p", "q"][: len(a.dims)]

    @staticmethod
    def sweep(a: Arr, stmt: str) -> list[str]:
        out = []
        for d, v in enumerate(IdiomGen.loop_vars(a)):
            out.append("    " + "    " * d + f"for (int {v} = 0; {v} < N; {v}++)")
        out.append("    " + "    " * len(a.dims) + "{ " + stmt + " }")
        return out


def generate(seed: int, skip: tuple[str, ...] = ()) -> str:
    """One random idiom program, without the idioms in `skip`; the same seed gives the same program."""
    return IdiomGen(seed, tuple(skip)).generate()


if __name__ == "__main__":
    import sys

    sys.stdout.write(generate(int(sys.argv[1]) if len(sys.argv) > 1 else 0, tuple(sys.argv[2:])))
