"""Random affine loop nests that print a checksum of everything they compute.

`generate(seed)` returns one complete C program (a `str`), the same for the same
seed. It is built to expose wrong dependence verdicts: several arrays of 1 to 3
dimensions shared between statements, subscripts `c*v + d` (and `v1 + v2`,
`v1 - v2`) with offsets in both directions, rectangular, shifted, reversed,
strided and triangular loop bounds, imperfect nests, several statements in a
random order, affine and data-dependent `if`s, scalar reductions, privatizable
and carried temporaries, and live-out scalars. Sizes come from `#define`s.

Every program is free of undefined behaviour by construction: elements are
`unsigned` (wrapping arithmetic) or `double` (only `+`, `-` and scaling by
constants), and every subscript is in bounds: the range of each subscript is
computed by interval arithmetic over the loop variables' ranges, and the array
dimension is made large enough (subscripts are shifted by a constant where they
can go negative). Arrays are global, or passed to the kernel as pointer
parameters, sometimes `restrict` and sometimes the same array twice (then
lift must check the overlap at run time or stay sequential).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

SIZE_NAMES = ("N", "M", "K")
VAR_NAMES = ("i", "j", "k", "l")
PARAM_NAMES = {"N": "n", "M": "m", "K": "p"}


@dataclass
class Var:
    name: str
    lo: int  # smallest value it can take (interval over-approximation)
    hi: int  # largest value


@dataclass
class Subscript:
    """sum(coef * var) + offset, plus a shift chosen once the array's extent is known."""

    terms: list[tuple[int, str]]
    offset: int

    def bounds(self, env: dict[str, Var]) -> tuple[int, int]:
        lo = hi = self.offset
        for c, v in self.terms:
            a, b = c * env[v].lo, c * env[v].hi
            lo += min(a, b)
            hi += max(a, b)
        return lo, hi


@dataclass
class Array:
    name: str
    rank: int
    lo: list[int] = field(default_factory=list)
    hi: list[int] = field(default_factory=list)
    slack: list[int] = field(default_factory=list)

    def note(self, dim: int, lo: int, hi: int) -> None:
        self.lo[dim] = min(self.lo[dim], lo)
        self.hi[dim] = max(self.hi[dim], hi)

    def shift(self, dim: int) -> int:
        return -self.lo[dim] if self.lo[dim] < 0 else 0

    def extent(self, dim: int) -> int:
        return self.hi[dim] + self.shift(dim) + 1 + self.slack[dim]


class Ref:
    """An array element in the generated text; rendered after all extents are known."""

    def __init__(self, array: Array, subs: list[Subscript]):
        self.array, self.subs = array, subs

    def render(self, gen: "Generator") -> str:
        parts = []
        for d, s in enumerate(self.subs):
            parts.append("[" + _affine(s.terms, s.offset + self.array.shift(d)) + "]")
        return gen.actual(self.array) + "".join(parts)


def _affine(terms: list[tuple[int, str]], offset: int) -> str:
    out = ""
    for c, v in terms:
        if c == 1:
            t = v
        elif c == -1:
            t = f"-{v}"
        else:
            t = f"{c} * {v}"
        if not out:
            out = t
        elif t.startswith("-"):
            out += f" - {t[1:]}"
        else:
            out += f" + {t}"
    if not out:
        return str(offset)
    if offset > 0:
        out += f" + {offset}"
    elif offset < 0:
        out += f" - {-offset}"
    return out


class Generator:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.seed = seed
        r = self.rng
        self.double = r.random() < 0.3
        self.elem = "double" if self.double else "unsigned"
        self.sizes = {name: r.randint(3, 24) for name in SIZE_NAMES[: r.randint(1, 3)]}
        self.arrays = []
        for n in range(r.randint(2, 5)):
            rank = r.choice((1, 1, 2, 2, 2, 3))
            self.arrays.append(Array(f"A{n}", rank, [0] * rank, [0] * rank, [r.choice((0, 0, 1, 3)) for _ in range(rank)]))
        self.style = r.choice(("global", "global", "params", "params_restrict"))
        # With pointer parameters, two arrays of the same shape may be passed as one.
        self.alias: dict[str, str] = {}
        self.scalars: list[str] = []  # reduction / temporary scalars of the kernel
        self.decl_in_for = r.random() < 0.5
        self.body: list[str] = []

    # -- pieces ------------------------------------------------------------------
    def actual(self, array: Array) -> str:
        return array.name

    def const(self) -> str:
        if self.double:
            return self.rng.choice(("0.5", "0.25", "1.0", "2.0", "3.0", "-1.5"))
        return f"{self.rng.choice((1, 2, 3, 5, 7, 11, 13, 255, 1021))}u"

    def subscript(self, env: dict[str, Var], vars_: list[str]) -> Subscript:
        r = self.rng
        roll = r.random()
        if not vars_ or roll < 0.08:
            terms = []
        elif roll < 0.75 or len(vars_) < 2:
            terms = [(r.choice((1, 1, 1, 1, -1, 2)), r.choice(vars_))]
        else:
            a, b = r.sample(vars_, 2)
            terms = [(1, a), (r.choice((1, -1)), b)]
        return Subscript(terms, r.choice((0, 0, 0, 0, 1, -1, 2, -2, 3)))

    def ref(self, env: dict[str, Var], vars_: list[str], array: Array | None = None) -> Ref:
        array = array or self.rng.choice(self.arrays)
        # Mostly use the innermost variables in order (row-major friendly), sometimes any.
        subs = []
        for d in range(array.rank):
            s = self.subscript(env, vars_)
            lo, hi = s.bounds(env)
            array.note(d, lo, hi)
            subs.append(s)
        return Ref(array, subs)

    def expr(self, env, vars_, depth: int, reads: list[Array]) -> list:
        """An expression as a list of text pieces and Refs."""
        r = self.rng
        if depth <= 0 or r.random() < 0.3:
            roll = r.random()
            if roll < 0.65 and reads:
                return [self.ref(env, vars_, r.choice(reads))]
            if roll < 0.8 and vars_:
                v = r.choice(vars_)
                return [f"({self.elem}){v}"]
            if roll < 0.88 and self.scalars:
                return [r.choice(self.scalars)]
            return [self.const()]
        if self.double:
            op = r.choice(("+", "-", "+", "*c"))
        else:
            op = r.choice(("+", "-", "*", "^", "|", "&", "+", ">>"))
        if op == "*c":
            return ["(", self.const(), " * "] + self.expr(env, vars_, depth - 1, reads) + [")"]
        if op == ">>":
            return ["("] + self.expr(env, vars_, depth - 1, reads) + [f" >> {r.randint(1, 5)})"]
        return ["("] + self.expr(env, vars_, depth - 1, reads) + [f" {op} "] + self.expr(env, vars_, depth - 1, reads) + [")"]

    # -- statements ----------------------------------------------------------------
    def statement(self, env, vars_, reads: list[Array], writes: list[Array], indent: str) -> list:
        r = self.rng
        roll = r.random()
        if roll < 0.12 and vars_:
            # scalar reduction into a kernel-level accumulator
            s = f"s{len(self.scalars)}"
            self.scalars.append(s)
            self.reductions.append(s)
            ops = ("+=", "-=") if self.double else ("+=", "^=", "|=", "+=", "*=", "&=")
            op = r.choice(ops)
            e = self.expr(env, vars_, 2, reads)
            if op == "*=":
                e = ["("] + e + [" | 1u)"]
            if r.random() < 0.2:
                return [indent, f"{s} = {s} {op[0]} "] + e + [";\n"]
            return [indent, f"{s} {op} "] + e + [";\n"]
        if roll < 0.22 and vars_:
            # a temporary: written then read in the same iteration (privatizable),
            # or read before it is written (a carried dependence)
            t = f"t{len(self.temps)}"
            self.temps.append(t)
            target = self.ref(env, vars_, r.choice(writes))
            first = [indent, f"{t} = "] + self.expr(env, vars_, 2, reads) + [";\n"]
            second = [indent, target, " = "] + self.expr(env, vars_, 1, reads) + [f" + {t};\n"]
            return second + first if r.random() < 0.25 else first + second
        target = self.ref(env, vars_, r.choice(writes))
        op = r.choice(("=", "=", "=", "+=", "-=")) if self.double else r.choice(("=", "=", "+=", "^=", "-="))
        stmt = [indent, target, f" {op} "] + self.expr(env, vars_, r.randint(0, 3), reads) + [";\n"]
        if r.random() < 0.15 and vars_:
            if r.random() < 0.6 or not reads:
                cond = self.affine_condition(vars_)
            else:
                cond = [self.ref(env, vars_, r.choice(reads)), " > " + ("1.0" if self.double else "100u")]
            stmt = [indent, "if ("] + cond + [")\n", "    "] + stmt
        return stmt

    def affine_condition(self, vars_) -> list:
        r = self.rng
        v = r.choice(vars_)
        roll = r.random()
        if roll < 0.4:
            return [f"{v} % 2 == {r.randint(0, 1)}"]
        if roll < 0.7 and len(vars_) > 1:
            a, b = r.sample(vars_, 2)
            return [f"{a} {r.choice(('<', '<=', '>', '!='))} {b}"]
        return [f"{v} {r.choice(('<', '>=', '!='))} {r.randint(1, 6)}"]

    def header(self, env: dict[str, Var], vars_: list[str], depth: int) -> tuple[str, Var]:
        r = self.rng
        v = VAR_NAMES[depth]
        size = r.choice(list(self.sizes))
        n = self.sizes[size]
        bound = self.bound_name(size)
        decl = "int " if self.decl_in_for else ""
        outer = [env[o] for o in vars_]
        roll = r.random()
        if outer and roll < 0.35:
            o = r.choice(outer)
            kind = r.randint(0, 3)
            if kind == 0:
                return f"for ({decl}{v} = {o.name}; {v} < {bound}; {v}++)", Var(v, o.lo, max(o.lo, n - 1))
            if kind == 1:
                return f"for ({decl}{v} = 0; {v} <= {o.name}; {v}++)", Var(v, 0, max(0, o.hi))
            if kind == 2:
                return f"for ({decl}{v} = {o.name} + 1; {v} < {bound}; {v}++)", Var(v, o.lo + 1, max(o.lo + 1, n - 1))
            return f"for ({decl}{v} = 0; {v} < {o.name}; {v}++)", Var(v, 0, max(0, o.hi - 1))
        kind = r.choice((0, 0, 0, 1, 2, 3, 4))
        if kind == 1 and n >= 3:
            return f"for ({decl}{v} = 1; {v} < {bound} - 1; {v}++)", Var(v, 1, n - 2)
        if kind == 2:
            return f"for ({decl}{v} = {bound} - 1; {v} >= 0; {v}--)", Var(v, 0, n - 1)
        if kind == 3:
            return f"for ({decl}{v} = 0; {v} < {bound}; {v} += {r.choice((2, 3))})", Var(v, 0, n - 1)
        if kind == 4:
            return f"for ({decl}{v} = 0; {v} <= {bound} - 1; ++{v})", Var(v, 0, n - 1)
        return f"for ({decl}{v} = 0; {v} < {bound}; {v}++)", Var(v, 0, n - 1)

    def bound_name(self, size: str) -> str:
        if self.style != "global" and self.rng.random() < 0.5:
            return PARAM_NAMES[size]  # the kernel's int parameter
        return size

    def loop(self, env, vars_, depth: int, max_depth: int, reads, writes, indent: str) -> list:
        text, var = self.header(env, vars_, depth)
        env = dict(env)
        env[var.name] = var
        vars_ = vars_ + [var.name]
        items = []
        n_items = self.rng.choice((1, 1, 1, 2, 2, 3))
        single = True
        for _ in range(n_items):
            if depth + 1 < max_depth and self.rng.random() < 0.55:
                items.append(self.loop(env, vars_, depth + 1, max_depth, reads, writes, indent + "    "))
            else:
                n_temps = len(self.temps)
                items.append(self.statement(env, vars_, reads, writes, indent + "    "))
                single = single and len(self.temps) == n_temps  # a temporary is two statements
        self.rng.shuffle(items)
        body = [p for item in items for p in item]
        if len(items) == 1 and single and self.rng.random() < 0.5:
            return [indent, text, "\n"] + body
        return [indent, text, " {\n"] + body + [indent, "}\n"]

    # -- the program -----------------------------------------------------------------
    def generate(self) -> str:
        r = self.rng
        self.reductions: list[str] = []
        self.temps: list[str] = []
        pieces: list = []
        for _ in range(r.randint(1, 4)):
            if r.random() < 0.3:
                # no real dependence through memory: read-only and write-only arrays apart
                k = r.randint(1, len(self.arrays) - 1)
                shuffled = self.arrays[:]
                r.shuffle(shuffled)
                reads, writes = shuffled[:k], shuffled[k:]
            else:
                reads = r.sample(self.arrays, r.randint(1, len(self.arrays)))
                writes = r.sample(self.arrays, r.randint(1, min(2, len(self.arrays))))
            pieces += self.loop({}, [], 0, r.randint(1, 3), reads, writes, "    ")
            if self.scalars and r.random() < 0.3:
                # a scalar's value feeds the next nest
                pieces.append(f"    {self.ref({}, [], r.choice(writes)).render(self)} += {r.choice(self.scalars)};\n")
        self.pick_aliases()
        body = "".join(p.render(self) if isinstance(p, Ref) else p for p in pieces)
        return self.assemble(body)

    def pick_aliases(self) -> None:
        if self.style != "params" or self.rng.random() < 0.6:
            return
        by_shape: dict[tuple, list[Array]] = {}
        for a in self.arrays:
            by_shape.setdefault((a.rank, tuple(a.extent(d) for d in range(1, a.rank))), []).append(a)
        for group in by_shape.values():
            if len(group) >= 2:
                a, b = self.rng.sample(group, 2)
                self.alias[b.name] = a.name

    def assemble(self, body: str) -> str:
        r = self.rng
        out = [f"/* lift fuzz: random loop nest, seed {self.seed} */\n", "#include <stdio.h>\n\n"]
        for name, n in self.sizes.items():
            if r.random() < 0.3:
                out.append(f"#ifndef {name}\n#define {name} {n}\n#endif\n")
            else:
                out.append(f"#define {name} {n}\n")
        out.append("\n")
        dims = {}
        for a in self.arrays:
            dims[a.name] = [a.extent(d) for d in range(a.rank)]
        # With aliasing, the aliased name is not a separate global: give the shared one the larger extent.
        for b, a in self.alias.items():
            dims[a][0] = max(dims[a][0], dims[b][0])
        real = [a for a in self.arrays if a.name not in self.alias]
        for a in real:
            out.append(f"static {self.elem} {a.name}" + "".join(f"[{n}]" for n in dims[a.name]) + ";\n")
        scalars = self.reductions + self.temps
        for s in scalars:
            out.append(f"static {self.elem} g_{s};\n")
        out.append("\n")
        if self.style == "global":
            out.append("static void kernel(void)\n{\n")
        else:
            restrict = " restrict" if self.style == "params_restrict" else ""
            params = [f"int {PARAM_NAMES[n]}" for n in self.sizes]
            for a in self.arrays:
                rest = "".join(f"[{n}]" for n in dims[a.name][1:])
                if a.rank == 1:
                    params.append(f"{self.elem} *{restrict} {a.name}")
                elif r.random() < 0.5:
                    params.append(f"{self.elem} (*{restrict} {a.name}){rest}")
                else:
                    params.append(f"{self.elem} {a.name}[{restrict.strip() + ' ' if restrict else ''}{dims[a.name][0]}]{rest}")
            out.append("static void kernel(" + ", ".join(params) + ")\n{\n")
        if not self.decl_in_for:
            out.append("    int " + ", ".join(VAR_NAMES) + ";\n")
        for s in self.reductions:
            init = ("1.0" if self.double else "1u") if r.random() < 0.3 else ("0.0" if self.double else "0u")
            out.append(f"    {self.elem} {s} = {init};\n")
        for t in self.temps:
            out.append(f"    {self.elem} {t} = {'0.0' if self.double else '0u'};\n")
        if not self.decl_in_for:
            out.append("    (void)i; (void)j; (void)k; (void)l;\n")
        out.append(body)
        for s in scalars:
            out.append(f"    g_{s} = {s};\n")
        out.append("}\n\n")
        out.append("int main(void)\n{\n")
        out.append("    unsigned long h;\n    double d;\n    unsigned x = 12345u;\n")
        for a in real:
            idx = "".join(f"[{VAR_NAMES[d]}]" for d in range(a.rank))
            out += self.nest(a, dims[a.name], f"x = x * 1103515245u + 12345u; {a.name}{idx} = "
                             + ("(double)((x >> 16) % 64u) * 0.25;" if self.double else "(x >> 8) % 1000u;"))
        if self.style == "global":
            out.append("    kernel();\n")
        else:
            args = list(self.sizes) + [self.alias.get(a.name, a.name) for a in self.arrays]
            out.append("    kernel(" + ", ".join(args) + ");\n")
        for a in real:
            idx = "".join(f"[{VAR_NAMES[d]}]" for d in range(a.rank))
            if self.double:
                out.append("    d = 0.0;\n")
                out += self.nest(a, dims[a.name], f"d = d * 0.5 + {a.name}{idx};")
                out.append(f'    printf("{a.name} %.17g\\n", d);\n')
            else:
                out.append("    h = 0;\n")
                out += self.nest(a, dims[a.name], f"h = h * 31u + {a.name}{idx};")
                out.append(f'    printf("{a.name} %lu\\n", h);\n')
        for s in scalars:
            fmt = "%.17g" if self.double else "%u"
            out.append(f'    printf("{s} {fmt}\\n", g_{s});\n')
        out.append("    return 0;\n}\n")
        return "".join(out)

    def nest(self, a: Array, dims: list[int], stmt: str) -> list[str]:
        out = []
        for d, n in enumerate(dims):
            v = VAR_NAMES[d]
            out.append("    " + "    " * d + f"for (int {v} = 0; {v} < {n}; {v}++)\n")
        out.append("    " + "    " * len(dims) + "{ " + stmt + " }\n")
        return out


def generate(seed: int) -> str:
    """One random loop-nest program; the same seed gives the same program."""
    return Generator(seed).generate()


if __name__ == "__main__":
    import sys

    sys.stdout.write(generate(int(sys.argv[1]) if len(sys.argv) > 1 else 0))
