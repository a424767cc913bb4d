"""Random C programs made of the C semantics that an affine model reads wrong: the traps.

`generate(seed)` returns one complete C program (a `str`), the same for the same seed.

The other generators draw what lift's analyses are built for, a step off their shape
(`loopgen.py` affine nests, `idiomgen.py` the everyday C around them, `reachgen.py`,
`brinkgen.py` and `brink16.py` the application idioms on the brink of a precondition,
`mutantgen.py` the suite's kernels moved). Session 17's brief asked for a generator with other
habits, aimed at what the analysis finds hard rather than at what it handles. Each kernel here
is a family of one such trap, drawn on both sides of what makes it one:

- `narrow`: index scalars of narrow types (`unsigned char k = i * S + O;`, `short`, `signed
  char`, a `k += S` that wraps), loop counters of narrow types that wrap (`unsigned char c`
  from 250 past 255 to 3 under `c != hi`), and `size_t i = n - 1; i < n; i--`;
- `signs`: an `int` counter against an `unsigned`, `size_t`, `unsigned short`, `unsigned
  char` or `long` bound, starting below zero (converted to unsigned: no iteration; promoted to
  int: every one), and the counter and a scalar read after the loop;
- `steps`: `!=` conditions with steps of -3..3, `do { } while`, `while (i-- > 0)`, loops of no
  iteration, counting down by strides, bodies that carry a dependence or do not;
- `bounds`: bounds from `a < b ? a : b`, a bound the body decrements (directly, through a
  pointer, or a global a helper changes), an early exit on data (`&&` in the condition);
- `effects`: comma expressions (`a[i] = (c++, b[i] + c)`), an index set inside a comma in the
  subscript, a condition with a side effect (`b[i] > 0 && ++cnt > L`), `break` on a counter;
- `scalars`: `k += (x > t)` compaction, conditional last values (`if (..) last = i;`),
  privatizable temporaries read after the loop, scalars read before written in some iterations;
- `minmax`: argmax / argmin with ties (`>` or `>=`, the first or the last index), min/max by
  ternary, on `int`, `unsigned` and `double`;
- `elemred`: reductions into an array element the loop also reads (`s[0] += b[i]; a[i] =
  s[0];`, `a[0] += a[i]` from 0 or from 1), histograms, `acc[i % 4]`, reductions under a condition;
- `alias`: a helper called with one array twice (`f(a, a + d, n)`, d from -2 to 2 or apart), 2-D
  rows through `double (*)[M]` moved by a row, VLA parameters, struct arrays whose field is
  updated from a neighbour's;
- `calls`: helpers with a `static` local, helpers writing a global, function pointers,
  recursion, a helper called from two loops with different arguments;
- `helpers`: helpers that write or read through a pointer argument (`put(&a[i + d], v)`,
  `p[k] += v; p[k + 1] -= v;` at `2 * i + d`), a swap of `a[i]` and `a[n - 1 - i]` over half,
  more or all of the range, an early-return search over a window;
- `addressed`: a local, the loop variable, a struct's member or a global whose address a pointer
  holds, written beside `*p` or through a helper (found the miscompile of
  tests/reliability/cases/addressed_variable_through_pointer.c), or a parameter that reaches
  nothing;
- `moving`: a pointer advanced inside the loop (by 1, by 2, or under a condition);
- `control`: `goto` out of a nest, `switch` with fall-through, `continue`, `break` in an inner
  loop, compound literals;
- `lastval`: flat `a[i * m + j]` nests with `m` of type `long`, `size_t` or `unsigned`, inner
  loops of no iteration (`m == 0`), a temporary written in the inner loop (under a condition, or
  before a `continue`) and read after it or after the nest, the inner counter read after;
- `nest`: two-deep nests with a time loop around, counters of `size_t`, `unsigned`, `short` or
  `long`, inner loops counting down by the idiom each type allows (`j-- > 0`, `j < m` after a
  wrap), triangular and `min` bounds, stencil reads, the counters read after the nest;
- `strides`: `a[(long)i * S + j]` with large strides over `unsigned char` buffers, the column
  running one past the row (`j <= S`) or not.

Every program is deterministic and free of undefined behaviour by construction: every index's
range is worked out here from the values the program runs with (sizes are literals or come
through `size_of(argc, v)`, which lift cannot see through), arrays are padded on both sides,
`int` values stay small and sums grow only in `unsigned`, and `double` values are multiples of
1/8 summed a few hundred at a time, so every sum is exact in any order and the lifted program
must print the same bits. Narrow conversions of out-of-range values are implementation-defined
(gcc wraps), not undefined. Campaigns check samples under `-fsanitize=address,undefined`
(scripts/FUZZ_RESULTS.md). `main` fills every array, calls the kernels and prints, per kernel,
an FNV hash of every array it wrote and the scalars it returns.
"""
from __future__ import annotations

import random

KERNELS = ("narrow", "signs", "steps", "bounds", "effects", "scalars", "minmax", "elemred", "alias",
           "calls", "helpers", "addressed", "moving", "control", "lastval", "nest", "strides")
PRELUDE = """#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long lift_h;
static void mix_bytes(const void *p, long bytes)
{
    const unsigned char *c = (const unsigned char *)p;
    for (long k = 0; k < bytes; k++)
        lift_h = (lift_h ^ c[k]) * 1099511628211ULL;
}
static void mix_doubles(const double *p, long n)
{
    for (long k = 0; k < n; k++) {
        long long v = (long long)(p[k] * 64.0);
        mix_bytes(&v, sizeof v);
    }
}
static int size_of(int argc, int v)
{
    return argc > 1000 ? 1 : v;
}
"""
# element type -> (C fill expression of i and a salt s, how main hashes a buffer of it)
FILLS = {"int": "(int)((i * 7 + s) % 17) - 8",
         "unsigned": "(unsigned)((i * 2654435761u + s) % 1000u)",
         "double": "0.125 * (double)((i * 37 + s) % 29) - 1.75",
         "short": "(short)((i * 5 + s) % 13 - 6)",
         "unsigned char": "(unsigned char)((i * 11 + s) % 251)"}


class TrapGen:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.top: list[str] = []  # file-scope declarations and functions, in order
        self.main: list[str] = []  # main's statements
        self.uid = 0

    def fresh(self, base: str) -> str:
        self.uid += 1
        return f"{base}{self.uid}"

    def size(self, value: int) -> str:
        """`value` as main passes it: a literal lift sees, or through `size_of(argc, ...)`."""
        return str(value) if self.rng.random() < 0.4 else f"size_of(argc, {value})"

    def array(self, elem: str, length: int) -> str:
        """A file-scope array of main's, filled by main before the kernels run."""
        name = self.fresh("g")
        self.top.append(f"static {elem} {name}[{max(length, 1)}];")
        fill = FILLS[elem].replace("s)", f"{self.uid})")
        self.main.append(f"for (long i = 0; i < {max(length, 1)}; i++) {name}[i] = {fill};")
        return name

    def report(self, label: str, arrays: list[tuple[str, str, int]], scalars: list[str] = ()) -> None:
        """main hashes `arrays` (name, element, length) and prints the hash and `scalars`."""
        lines = ["lift_h = 1469598103934665603ULL;"]
        for name, elem, length in arrays:
            lines.append(f"mix_doubles({name}, {length});" if elem == "double"
                         else f"mix_bytes({name}, sizeof({elem}) * {length});")
        fmt = " ".join(["%s"] + ["%lld"] * len(scalars))
        args = ", ".join([f'"{label}"'] + [f"(long long)({s})" for s in scalars])
        lines.append(f'printf("{fmt} %016llx\\n", {args}, lift_h);')
        self.main.append("{ " + " ".join(lines) + " }")

    # -- kernels ---------------------------------------------------------------------------
    def narrow(self) -> None:
        r = self.rng
        f = self.fresh("narrow")
        shape = r.choice(("scalar", "scalar", "stepped", "counter", "sizet"))
        a, b = self.array("unsigned", 65536 + 8), self.array("unsigned", 600)
        n = r.choice((0, 1, 40, 100, 200, 300))
        op = r.choice(("=", "+=", "^="))
        if shape in ("scalar", "stepped"):
            t, base = r.choice((("unsigned char", 0), ("signed char", 128), ("short", 32768),
                                ("unsigned short", 0), ("int", 0)))
            s = r.choice((1, 2, 3, 5, 300)) if t in ("short", "unsigned short") else r.choice((1, 2, 3, 5))
            o = r.choice((0, 7, 200, 250))
            if t == "int":  # the control: no wrap, so the subscript must stay in the array
                n = min(n, (65536 - o) // s)
            if shape == "scalar":
                conv = r.choice((f"({t})(i * {s} + {o})", f"i * {s} + {o}"))
                body = f"{t} k = {conv};\n        a[k + {base}] {op} b[i] + (unsigned)i;"
                loop = f"for (int i = 0; i < n; i++) {{\n        {body}\n    }}"
                pre = ""
            else:
                pre = f"{t} k = ({t}){o};\n    "
                loop = (f"for (int i = 0; i < n; i++) {{\n        a[k + {base}] {op} b[i];\n"
                        f"        k += {s};\n    }}")
            self.top.append(f"void {f}(unsigned *a, const unsigned *b, int n)\n{{\n    {pre}{loop}\n}}")
        elif shape == "counter":
            t = r.choice(("unsigned char", "unsigned short"))
            top = 255 if t == "unsigned char" else 65535
            lo = r.choice((top - 5, top - 1, top, 0, 3))
            hi = r.choice((2, 4, 0, top - 2, lo))  # hi < lo: the counter wraps past `top`
            d = r.choice((0, 1, -1))
            rd = "b[c % 600]" if d == 0 else f"a[({t})(c + {d})]"
            self.top.append(f"void {f}(unsigned *a, const unsigned *b, int n)\n{{\n    (void)n;\n"
                            f"    for ({t} c = {lo}; c != {hi}; c++)\n        a[c] {op} {rd} + 1u;\n}}")
        else:
            d = r.choice((0, 1))
            self.top.append(f"void {f}(unsigned *a, const unsigned *b, int n)\n{{\n"
                            f"    for (size_t i = (size_t)n - 1; i < (size_t)n; i--)\n"
                            f"        a[i] {op} a[i + {d}] + b[i];\n}}")
        self.main.append(f"{f}({a}, {b}, {self.size(n)});")
        self.report(f, [(a, "unsigned", 65536 + 8)])

    def signs(self) -> None:
        r = self.rng
        f = self.fresh("signs")
        bt = r.choice(("unsigned", "size_t", "unsigned short", "unsigned char", "long", "unsigned long"))
        lo = r.choice((-5, -1, 0, 2))
        n = r.choice((0, 3, 60, 200))
        cmp = r.choice(("<", "<=", "!="))
        if cmp == "<=" and n == 0 and bt in ("unsigned", "size_t", "unsigned long"):
            cmp = "<"  # `i <= 0u - 1` would run i past INT_MAX
        if cmp == "!=" and lo > n:
            cmp = "<"
        a, b = self.array("int", 300), self.array("int", 300)
        off = 8
        # C: an int converted to an unsigned type of int's rank or wider, else promoted to int
        unsigned = bt in ("unsigned", "size_t", "unsigned long")
        if cmp == "!=" and lo < 0 and unsigned:
            cmp = "<"  # -5 != 3u runs through 2^32 values
        param = r.random() < 0.5  # `bt n` as the parameter's own type, else a cast of `int n`
        name = "n" if param else f"({bt})n"
        bound = f"({name} - 1)" if cmp == "<=" else name
        body = r.choice((f"a[i + {off}] = b[i + {off}] * 2 + i;",
                         f"a[i + {off}] = a[i + {off} - 1] + b[i + {off}];",
                         f"a[i + {off}] += b[i + {off} + 1]; last = i;",
                         f"if (b[i + {off}] > 0) last = i; a[i + {off}] = last;"))
        self.top.append(f"int {f}(int *a, const int *b, {bt if param else 'int'} n)\n{{\n    int i, last = -7;\n"
                        f"    for (i = {lo}; i {cmp} {bound}; i++) {{\n        {body}\n    }}\n"
                        f"    return {r.choice(('i * 1000 + last', 'last', '0'))};\n}}")
        res = self.fresh("r")
        self.main.append(f"int {res} = {f}({a}, {b}, ({bt if param else 'int'}){self.size(n)});")
        self.report(f, [(a, "int", 300)], [res])

    def steps(self) -> None:
        r = self.rng
        f = self.fresh("steps")
        step = r.choice((1, -1, 2, -2, 3, -3))
        trips = r.choice((0, 1, 17, 64))
        lo = 8 if step > 0 else 8 + abs(step) * trips
        end = lo + step * trips
        a, b = self.array("double", 260), self.array("double", 260)
        body = r.choice(("a[i] = b[i] + 1.0;", f"a[i] = a[i - {step}] + b[i];", "a[i] += a[i + 1];",
                         f"a[i + {step} * 0 + 1] = b[i] * 2.0;", "s += a[i] * b[i]; a[i] = s;", "s += b[i];"))
        form = r.choice(("ne", "ne", "rel", "rel", "do", "while"))
        inc = {1: "i++", -1: "i--"}.get(step, f"i {'+' if step > 0 else '-'}= {abs(step)}")
        if r.random() < 0.3:
            inc = f"i += {step}"
        if form == "ne":
            loop = f"for (i = {lo}; i != {end}; {inc}) {{\n        {body}\n    }}"
        elif form == "rel":
            cond = (f"i < {end}" if step > 0 else f"i > {end}") if r.random() < 0.6 else \
                (f"i <= {end - 1}" if step > 0 else f"i >= {end + 1}")
            loop = f"for (i = {lo}; {cond}; {inc}) {{\n        {body}\n    }}"
        elif form == "do":
            loop = (f"i = {lo};\n    do {{\n        {body}\n        i += {step};\n"
                    f"    }} while (i {'<' if step > 0 else '>'} {end});")
        else:
            loop = (f"i = {trips};\n    while (i-- > 0) {{\n        {body.replace('[i', '[8 + i')}\n    }}")
        self.top.append(f"double {f}(double *a, const double *b)\n{{\n    int i;\n    double s = 0.0;\n"
                        f"    {loop}\n    return s * 64.0{r.choice((' + i', ''))};\n}}")
        res = self.fresh("r")
        self.main.append(f"double {res} = {f}({a}, {b});")
        self.report(f, [(a, "double", 260)], [res])

    def bounds(self) -> None:
        r = self.rng
        f = self.fresh("bounds")
        shape = r.choice(("ternary", "shrink", "pointer", "global", "exit"))
        n, m = r.choice((0, 5, 90, 150)), r.choice((0, 7, 120))
        a, b = self.array("int", 320), self.array("int", 320)
        body = r.choice(("a[i] = b[i] + 3;", "a[i + 1] = a[i] + b[i];", "a[i] += b[i + 1];"))
        pre = ""
        if shape == "ternary":
            cond = r.choice(("i < (n < m ? n : m)", "i <= (n > m ? n : m) - 1", "i < n + (m > 3 ? 1 : 0)"))
            loop = f"for (i = 0; {cond}; i++) {{\n        {body}\n    }}"
        elif shape == "shrink":
            loop = f"for (i = 0; i < n; i++) {{\n        {body}\n        if (b[i] > 4) n--;\n    }}"
        elif shape == "pointer":
            pre = f"int *pn = {r.choice(('&n', '&m'))};\n    "
            loop = (f"for (i = 0; i < n; i++) {{\n        {body}\n        *pn -= (b[i] == 0);\n"
                    f"        if (*pn < 0) *pn = 0;\n    }}")
        elif shape == "global":
            g = self.fresh("limit")
            self.top.append(f"static int {g};\nstatic void {g}_shrink(int v)\n{{\n    if (v > 2 && {g} > 0) {g}--;\n}}")
            pre = f"{g} = n;\n    "
            call = r.choice((f"{g}_shrink(b[i]);", f"{g}_shrink(0);"))
            loop = f"for (i = 0; i < {g}; i++) {{\n        {body}\n        {call}\n    }}"
        else:
            loop = f"for (i = 0; i < n && b[i] != {r.choice((-8, 3, 100))}; i++) {{\n        {body}\n    }}"
        self.top.append(f"int {f}(int *a, const int *b, int n, int m)\n{{\n    int i;\n    {pre}{loop}\n"
                        f"    return i * 1000 + n * 10 + m;\n}}")
        res = self.fresh("r")
        self.main.append(f"int {res} = {f}({a}, {b}, {self.size(n)}, {self.size(m)});")
        self.report(f, [(a, "int", 320)], [res])

    def effects(self) -> None:
        r = self.rng
        f = self.fresh("effects")
        n = r.choice((0, 1, 50, 200))
        a, b = self.array("int", 220), self.array("int", 220)
        body = r.choice(("a[i] = (c++, b[i] + c);",
                         "a[(k = i + 1, k)] = b[i];",
                         "a[i] = b[i]; if (b[i] > 0 && ++c > 20) break;",
                         "if (b[i] < 0 || (c += 2) > 1000) a[i] = c; else a[i] = -c;",
                         "k = i, a[k] = b[k] + 1, c += a[k];",
                         "a[i] = c = b[i] + 1;",
                         "a[i] = b[i] ? b[i] : (c++, -1);"))
        form = r.choice(("for", "for", "while"))
        if form == "for":
            loop = f"for (i = 0; i < n; i++) {{\n        {body}\n    }}"
        else:
            loop = f"i = -1;\n    while (++i < n) {{\n        {body}\n    }}"
        self.top.append(f"int {f}(int *a, const int *b, int n)\n{{\n    int i, c = 0, k = -1;\n    {loop}\n"
                        f"    return (i * 1000 + c) * 1000 + k;\n}}")
        res = self.fresh("r")
        self.main.append(f"int {res} = {f}({a}, {b}, {self.size(n)});")
        self.report(f, [(a, "int", 220)], [res])

    def scalars(self) -> None:
        r = self.rng
        f = self.fresh("scalars")
        n = r.choice((0, 1, 40, 250))
        a, b = self.array("int", 260), self.array("int", 260)
        t = r.choice((-3, 0, 2))
        body = r.choice((f"k += (b[i] > {t});\n        a[k] = i;",
                         f"if (b[i] & 1) a[k++] = b[i];",
                         f"if (b[i] > {t}) last = i;\n        a[i] = b[i] - {t};",
                         "tmp = b[i] * 2;\n        a[i] = tmp + 1;",
                         f"if (b[i] > {t}) tmp = b[i];\n        a[i] = tmp;",
                         "if (i % 3 == 0) tmp = b[i]; else a[i] = tmp;",
                         "a[i] = tmp;\n        tmp = b[i];",
                         f"if (b[i] > {t}) {{ tmp = b[i]; a[i] = tmp; }}"))
        self.top.append(f"long long {f}(int *a, const int *b, int n)\n{{\n    int i, k = 0, last = -1, tmp = 5;\n"
                        f"    for (i = 0; i < n; i++) {{\n        {body}\n    }}\n"
                        f"    return {r.choice(('((k * 1000LL + last) * 100 + tmp) * 1000 + i', 'k', 'last', 'tmp', '0'))};\n}}")
        res = self.fresh("r")
        self.main.append(f"long long {res} = {f}({a}, {b}, {self.size(n)});")
        self.report(f, [(a, "int", 260)], [res])

    def minmax(self) -> None:
        r = self.rng
        f = self.fresh("minmax")
        elem = r.choice(("int", "unsigned", "double"))
        n = r.choice((0, 1, 30, 300))
        b = self.array(elem, 300)
        rel = r.choice((">", ">=", "<", "<="))
        init = r.choice(("b[0]", "0"))
        body = r.choice((f"if (b[i] {rel} best) {{ best = b[i]; at = i; }}",
                         f"if (b[i] {rel} best) best = b[i];",
                         f"best = b[i] {rel} best ? b[i] : best;",
                         f"if (b[i] {rel} best) at = i, best = b[i]; else cnt++;"))
        lo = r.choice((0, 1))
        self.top.append(f"{elem} {f}(const {elem} *b, int n, int *where)\n{{\n    {elem} best = {init};\n"
                        f"    int at = -1, cnt = 0;\n    for (int i = {lo}; i < n; i++) {{\n        {body}\n    }}\n"
                        f"    *where = at * 1000 + cnt;\n    return best;\n}}")
        res, w = self.fresh("r"), self.fresh("w")
        self.main.append(f"int {w}; double {res} = (double){f}({b}, {self.size(n)}, &{w});")
        self.report(f, [], [f"{res} * 64", w])

    def elemred(self) -> None:
        r = self.rng
        f = self.fresh("elemred")
        elem = r.choice(("int", "double", "unsigned"))
        n = r.choice((0, 1, 64, 250))
        a, b, s = self.array(elem, 260), self.array(elem, 260), self.array(elem, 16)
        body = r.choice(("s[0] += b[i];\n        a[i] = s[0];",
                         "s[0] += b[i];",
                         "a[0] += a[i];",
                         "a[n] += a[i] + b[i];",
                         "s[(int)(b[i] > 0) + (int)(b[i] > 1)] += 1;",
                         "acc: s[i % 4] += b[i];",
                         "if (b[i] > 0) s[1] += b[i]; else s[2] += a[i];",
                         "if (a[i] > b[i]) s[0] += a[i] - b[i];\n        a[i] = s[3];",
                         "s[0] += b[i];\n        s[0] -= a[i];"))
        body = body.replace("acc: ", "")
        lo = r.choice((0, 1))
        self.top.append(f"void {f}({elem} *a, const {elem} *b, {elem} *s, int n)\n{{\n"
                        f"    for (int i = {lo}; i < n; i++) {{\n        {body}\n    }}\n}}")
        where = r.choice((s, s, f"{a} + 5", f"(({elem} *){b}) + 5", f"{a} + {n}"))
        self.main.append(f"{f}({a}, {b}, {where}, {self.size(n)});")
        self.report(f, [(a, elem, 260), (b, elem, 260), (s, elem, 16)])

    def alias(self) -> None:
        r = self.rng
        f = self.fresh("alias")
        shape = r.choice(("flat", "flat", "rows", "vla", "structs"))
        n = r.choice((0, 1, 20, 100))
        if shape == "flat":
            buf = self.array("double", 2 * 100 + 20)
            d = r.choice((-2, -1, 0, 1, 2, 110))
            restrict = "restrict " if d == 110 and r.random() < 0.5 else ""
            body = r.choice(("x[i] = y[i] + 1.0;", "x[i] = y[i] + y[i + 1];", "x[i] += y[i] * 2.0;",
                             "x[i + 1] = y[i] - x[i];"))
            self.top.append(f"void {f}(double *{restrict}x, const double *{restrict}y, int n)\n{{\n"
                            f"    for (int i = 0; i < n; i++)\n        {body}\n}}")
            self.main.append(f"{f}({buf} + 4, {buf} + 4 + {d} + 2, {self.size(n)});")
            self.report(f, [(buf, "double", 220)])
        elif shape == "rows":
            buf = self.array("double", 28 * 16)
            d = r.choice((-1, 0, 1, 12))
            body = r.choice(("x[i][j] = y[i][j] + 1.0;", "x[i][j] = y[i][j + 1] + y[i][j];",
                             "x[i][j] += y[i + 1][j];", "x[i][j] = x[i][j] + y[i][15 - j];"))
            rows = min(n, 10)
            self.top.append(f"void {f}(double (*x)[16], double (*y)[16], int n)\n{{\n"
                            f"    for (int i = 0; i < n; i++)\n        for (int j = 0; j < 15; j++)\n"
                            f"            {body}\n}}")
            self.main.append(f"{f}((double (*)[16]){buf} + 1, (double (*)[16]){buf} + 1 + {d} + 1, "
                             f"{self.size(rows)});")
            self.report(f, [(buf, "double", 28 * 16)])
        elif shape == "vla":
            buf = self.array("int", 30 * 12)
            rows, cols = max(1, min(n, 12)), r.choice((4, 8, 11))
            d = r.choice((0, 1, 13))
            body = r.choice(("x[i][j] = y[i][j] + 1;", "x[i][j] = y[i][j] + x[i][(j + 1) % m];",
                             "x[i][j] += y[i][m - 1 - j];"))
            self.top.append(f"void {f}(int n, int m, int x[n][m], int y[n][m])\n{{\n"
                            f"    for (int i = 0; i < n; i++)\n        for (int j = 0; j < m; j++)\n"
                            f"            {body}\n}}")
            self.main.append(f"{f}({self.size(rows)}, {cols}, (int (*)[{cols}]){buf}, "
                             f"(int (*)[{cols}])({buf} + {d} * {cols}));")
            self.report(f, [(buf, "int", 30 * 12)])
        else:
            st = self.fresh("P")
            self.top.append(f"struct {st} {{ int x, y; double w; }};\nstatic struct {st} {st}_arr[110];")
            self.main.append(f"for (int i = 0; i < 110; i++) {{ {st}_arr[i].x = i % 7 - 3; "
                             f"{st}_arr[i].y = i % 5; {st}_arr[i].w = 0.125 * (i % 9); }}")
            body = r.choice(("p[i].x = p[i].y + p[i + 1].x;", "p[i + 1].w += p[i].w;", "p[i].x += p[i].y;",
                             "p[i].y = p[i].x * 2; p[i].x = p[i + 1].y;", "q->w += p[i].w;"))
            self.top.append(f"void {f}(struct {st} *p, struct {st} *q, int n)\n{{\n"
                            f"    for (int i = 0; i < n; i++) {{\n        {body}\n    }}\n}}")
            qi = r.choice((0, 5, 105))
            self.main.append(f"{f}({st}_arr, {st}_arr + {qi}, {self.size(n)});")
            self.main.append(f"for (int i = 0; i < 110; i++) {st}_arr[i].w *= 64.0;")
            self.report(f, [(f"{st}_arr", f"struct {st}", 110)])

    def calls(self) -> None:
        r = self.rng
        f = self.fresh("calls")
        n = r.choice((0, 1, 40, 150))
        a, b = self.array("int", 160), self.array("int", 160)
        shape = r.choice(("static", "global", "fptr", "recursion", "twice"))
        h = self.fresh("h")
        if shape == "static":
            self.top.append(f"static int {h}(int v)\n{{\n    static int s = 1;\n    s = (s * 5 + v) % 97;\n"
                            f"    return s;\n}}")
            loop = f"for (int i = 0; i < n; i++)\n        a[i] = {h}(b[i]) + b[i];"
        elif shape == "global":
            self.top.append(f"static int {h}_count;\nstatic int {h}(int v)\n{{\n    {h}_count += v;\n"
                            f"    return v * 2;\n}}")
            loop = f"for (int i = 0; i < n; i++)\n        a[i] = {h}(b[i]) + {h}_count;"
        elif shape == "fptr":
            self.top.append(f"static int {h}_inc(int v) {{ return v + 1; }}\nstatic int {h}_dbl(int v) {{ return v * 2; }}")
            pick = r.choice(("n > 10", "b[i] > 0"))
            loop = (f"for (int i = 0; i < n; i++) {{\n        int (*op)(int) = {pick} ? {h}_inc : {h}_dbl;\n"
                    f"        a[i] = op(b[i]);\n    }}")
        elif shape == "recursion":
            self.top.append(f"static int {h}(int k)\n{{\n    return k > 0 ? k + {h}(k - 1) : 0;\n}}")
            loop = r.choice((f"for (int i = 0; i < n; i++)\n        a[i] = {h}(b[i] & 7);",
                             f"for (int i = 1; i < n; i++)\n        a[i] = {h}(a[i - 1] & 7);"))
        else:
            self.top.append(f"static void {h}(int *x, const int *y, int len, int d)\n{{\n"
                            f"    for (int j = 0; j < len; j++)\n        x[j] = y[j] + d;\n}}")
            loop = r.choice((f"for (int i = 0; i < n; i++)\n        {h}(a + i, b + i, 1, i);\n"
                             f"    for (int i = 0; i + 4 <= n; i += 4)\n        {h}(a + i + 1, a + i, 3, 1);",
                             f"for (int i = 0; i < n; i++)\n        {h}(a, b + i, 2, i);"))
        self.top.append(f"void {f}(int *a, const int *b, int n)\n{{\n    {loop}\n}}")
        self.main.append(f"{f}({a}, {b}, {self.size(n)});")
        self.report(f, [(a, "int", 160)], [f"{h}_count"] if shape == "global" else [])

    def helpers(self) -> None:
        r = self.rng
        f = self.fresh("helpers")
        n = r.choice((0, 1, 30, 100))
        d = r.choice((0, 0, 1, -1, 2))
        a, b, c = self.array("int", 320), self.array("int", 320), self.array("int", 320)
        shape = r.choice(("put", "get", "add2", "swap", "first"))
        h = self.fresh("h")
        if shape == "put":
            self.top.append(f"static void {h}(int *p, int v)\n{{\n    *p = v;\n}}")
            body = r.choice((f"{h}(&a[i + 4 + {d}], b[i]);\n        c[i] = a[i + 4];",
                             f"{h}(a + i + 4, b[i] + a[i + 4 + {d}]);", f"{h}(&c[i], a[i + 4 + {d}]);"))
            lo, hi = "0", "n"
        elif shape == "get":
            self.top.append(f"static int {h}(const int *p, int k)\n{{\n    return p[k];\n}}")
            body = r.choice((f"a[i + 4] = {h}(a, i + 4 + {d}) + b[i];", f"a[i + 4] = {h}(b, i) + {h}(c, i + 4 + {d});"))
            lo, hi = "0", "n"
        elif shape == "add2":
            self.top.append(f"static void {h}(int *p, int k, int v)\n{{\n    p[k] += v;\n    p[k + 1] -= v;\n}}")
            body = r.choice((f"{h}(a, 2 * i + 4 + {d}, b[i]);", f"{h}(a, i + 4, b[i]);", f"{h}(a, 3 * i + 4, a[i + 4 + {d}]);"))
            lo, hi = "0", "n"
        elif shape == "swap":
            self.top.append(f"static void {h}(int *x, int *y)\n{{\n    int t = *x;\n    *x = *y;\n    *y = t;\n}}")
            body = f"{h}(&a[i + 4], &a[n + 3 - i]);"
            lo, hi = "0", r.choice(("n / 2", "(n + 1) / 2", "n"))
        else:
            self.top.append(f"static int {h}(const int *p, int m)\n{{\n    for (int j = 0; j < m; j++)\n"
                            f"        if (p[j] > 5)\n            return j;\n    return -1;\n}}")
            body = r.choice(("a[i] = " + h + "(b + i, 3);", f"a[i + 4] = {h}(a + i + 5 + {d}, 3);",
                             f"c[i] = {h}(a + i, 4);\n        a[i + 4] = c[i];"))
            lo, hi = "0", "n"
        self.top.append(f"void {f}(int *a, const int *b, int *c, int n)\n{{\n    for (int i = {lo}; i < {hi}; i++) {{\n"
                        f"        {body}\n    }}\n}}")
        self.main.append(f"{f}({a}, {b}, {c}, {self.size(n)});")
        self.report(f, [(a, "int", 320), (c, "int", 320)])

    def addressed(self) -> None:
        """Variables a pointer may reach: a local, a loop variable, a struct's member or a global
        whose address is taken, written beside `*p` (analysis/addressed_scalars.py)."""
        r = self.rng
        f = self.fresh("addressed")
        n = r.choice((0, 1, 40, 200))
        a, b, o = self.array("int", 220), self.array("int", 220), self.array("int", 16)
        g = self.fresh("gv")
        h = self.fresh("bump")
        self.top.append(f"static int {g};\nstatic void {h}(int *q)\n{{\n    *q += 1;\n}}")
        target = r.choice(("&t", "&t", "p", f"&{g}", "&st.c", "&i"))
        body = r.choice(("t = b[i];\n        *pt += 1;\n        a[i] = t;", "t += b[i];\n        (*pt)++;",
                         "*pt = b[i];\n        a[i] += t;", "a[i] = t;\n        *pt = b[i];",
                         f"{g} = b[i];\n        *pt += 1;\n        a[i] = {g};", f"t = b[i];\n        {h}(pt);\n        a[i] = t;",
                         "st.c += b[i];\n        *pt -= 1;\n        a[i] = st.c + st.d;",
                         "a[i] = b[i] * 2;\n        if (b[i] == 0) (*pt)++;"))
        if target == "&i":  # the loop variable only moves forward
            body = "a[i] = b[i] * 2;\n        if (b[i] == 0) (*pt)++;"
        self.top.append(f"long long {f}(int *a, const int *b, int *p, int n)\n{{\n    int i, t = 3;\n"
                        f"    struct {{ int c, d; }} st = {{ 1, 2 }};\n    int *pt = {target};\n"
                        f"    for (i = 0; i < n; i++) {{\n        {body}\n    }}\n"
                        f"    return {r.choice(('(t * 1000LL + st.c) * 1000 + *p + ' + g, '*p', '0'))};\n}}")
        res = self.fresh("r")
        self.main.append(f"long long {res} = {f}({a}, {b}, {r.choice((f'&{g}', o + ' + 3'))}, {self.size(n)});")
        self.report(f, [(a, "int", 220), (o, "int", 16)], [res, g])

    def moving(self) -> None:
        r = self.rng
        f = self.fresh("moving")
        n = r.choice((0, 1, 40, 100))
        a, b = self.array("double", 320), self.array("double", 320)
        step = r.choice(("p++;", "p += 2;", "if (b[i] > 0.0) p++;", "p = p + 1 + (i & 1);"))
        body = r.choice(("*p = b[i] + 1.0;", "p[0] = p[-1] + b[i];", "p[0] = p[1] * 2.0;",
                         "*p += b[i];", "p[1] = b[i] - p[0];"))
        self.top.append(f"long {f}(double *a, const double *b, int n)\n{{\n    double *p = a + 4;\n"
                        f"    for (int i = 0; i < n; i++) {{\n        {body}\n        {step}\n    }}\n"
                        f"    return (long)(p - a);\n}}")
        res = self.fresh("r")
        self.main.append(f"long {res} = {f}({a}, {b}, {self.size(n)});")
        self.report(f, [(a, "double", 320)], [res])

    def control(self) -> None:
        r = self.rng
        f = self.fresh("control")
        n, m = r.choice((0, 1, 12, 30)), r.choice((1, 9, 30, 32, 33, 40))
        a, b = self.array("int", 32 * 32), self.array("int", 32 * 32)
        t = r.choice((-8, 0, 5, 100))
        shape = r.choice(("goto", "switch", "continue", "break", "literal"))
        if shape == "goto":
            body = (f"if (b[i * 32 + j] == {t}) goto out;\n"
                    f"            a[i * 32 + j] = b[i * 32 + j] + i;")
            tail = "out:\n    cnt += i * 100 + j;"
        elif shape == "switch":
            body = ("switch (b[i * 32 + j] & 3) {\n            case 0: a[i * 32 + j] = 1; break;\n"
                    "            case 1: a[i * 32 + j] += 2; /* fall through */\n"
                    "            case 2: a[i * 32 + j] += b[i * 32 + j]; break;\n"
                    f"            default: {r.choice(('a[i * 32 + j] = -a[i * 32 + j];', 'cnt++;', 'continue;'))}\n"
                    "            }")
            tail = ""
        elif shape == "continue":
            body = (f"if (b[i * 32 + j] > {t}) continue;\n            a[i * 32 + j] = "
                    f"{r.choice(('i + j;', 'a[i * 32 + j + 1] + 1;', 'cnt++;'))}")
            tail = ""
        elif shape == "break":
            body = (f"if (b[i * 32 + j] < {t}) break;\n            a[i * 32 + j] = "
                    f"{r.choice(('b[i * 32 + j] * 2;', 'a[(i + 1) * 32 + j] + 1;', 'cnt;'))}\n            cnt++;")
            tail = ""
        else:
            body = r.choice(("a[i * 32 + j] = b[i * 32 + j] * ((const int[]){1, -2, 3, -4})[j & 3];",
                             f"struct {{ int x, y; }} q = {{ b[i * 32 + j], i - j }};\n"
                             "            a[i * 32 + j] = q.x - q.y;",
                             "int *w = (int[]){i, j, i + j};\n            w[j % 3] += b[i * 32 + j];\n"
                             "            a[i * 32 + j] = w[0] + w[1] + w[2];"))
            tail = ""
        self.top.append(f"int {f}(int *a, const int *b, int n, int m)\n{{\n    int i, j = -1, cnt = 0;\n"
                        f"    for (i = 0; i < n; i++)\n        for (j = 0; j < m; j++) {{\n            {body}\n"
                        f"        }}\n    {tail}\n    return cnt * 1000 + i;\n}}")
        res = self.fresh("r")
        self.main.append(f"int {res} = {f}({a}, {b}, {self.size(n)}, {self.size(m)});")
        self.report(f, [(a, "int", 32 * 32)], [res])

    def lastval(self) -> None:
        r = self.rng
        f = self.fresh("lastval")
        mt = r.choice(("int", "long", "size_t", "unsigned"))
        n, m = r.choice((0, 1, 7, 20)), r.choice((0, 1, 5, 20))
        a, b = self.array("int", 512), self.array("int", 512)
        at = r.choice(("i * m + j", "(long)i * m + j", "j + m * i"))
        t = r.choice((-2, 0, 3))
        body = r.choice((f"t = b[{at}] + (int)j;\n            a[{at}] = t * 2;",
                         f"if (b[{at}] > {t}) t = b[{at}];\n            a[{at}] = t;",
                         f"if (b[{at}] > {t}) t = (int)j;",
                         f"t = b[{at}];\n            if (t < 0) continue;\n            a[{at}] = t + 1;"))
        tail = r.choice(("", "", "a[i * m] += t;", "a[i] = (int)j;", "t += 1;"))
        jt = r.choice(("int", mt))
        self.top.append(f"long long {f}(int *a, const int *b, int n, {mt} m)\n{{\n    int i, t = 3;\n"
                        f"    {jt} j = 7;\n    for (i = 0; i < n; i++) {{\n        for (j = 0; j < m; j++) {{\n"
                        f"            {body}\n        }}\n        {tail}\n    }}\n"
                        f"    return {r.choice(('(t * 1000LL + i) * 1000 + (long long)j', 't', '0', '(long long)j'))};\n}}")
        res = self.fresh("r")
        self.main.append(f"long long {res} = {f}({a}, {b}, {self.size(n)}, ({mt}){self.size(m)});")
        self.report(f, [(a, "int", 512)], [res])

    def nest(self) -> None:
        """A nest of the shape tiling and interchange take, its counters of odd types: `size_t`,
        `unsigned`, `short`, `long`; inner loops counting down by the idioms each type allows,
        triangular and `min` bounds, a time loop around, the counters read after the nest."""
        r = self.rng
        f = self.fresh("nest")
        big, stride = 32, 34
        n, m = r.choice((0, 1, 5, 20, 32)), r.choice((0, 1, 6, 32))
        ti, tj = r.choice(("int", "long", "unsigned", "size_t", "short")), r.choice(("int", "long", "unsigned", "size_t", "unsigned short", "short"))
        jsigned = tj in ("int", "long", "short")
        jhi = r.choice(("m", "m", "i", f"(i < m ? i : m)", "m - (i < m ? i : m)"))
        jloop = r.choice(("up", "up", "down"))
        if jloop == "up":
            jh = f"for (j = 0; j < {jhi}; j++)"
        elif jsigned:
            jh = f"for (j = {jhi} - 1; j >= 0; j--)"
        else:
            jh = r.choice((f"for (j = {jhi}; j-- > 0;)", f"for (j = {jhi} - 1; j < {jhi}; j--)"))
        di, dj = r.choice((-1, 0, 0, 1)), r.choice((-1, 0, 1))
        at = f"(long)i * {stride} + j"
        nb = f"((long)i + {di}) * {stride} + (long)j + {dj}"
        body = r.choice((f"A[{at}] = A[{nb}] + B[{at}];", f"A[{at}] += B[{nb}] * 0.5;",
                         f"s += B[{nb}];\n                A[{at}] = s;", f"A[{at}] = B[{nb}] - A[{at}];",
                         f"s += B[{nb}];"))
        reset = r.choice(("s = 0.0;", ""))
        time = r.choice((1, 1, 2, 3))
        tail = r.choice(("", "iv += (long long)i * 1000 + (long long)j;"))
        ret = r.choice(("iv + (long long)(s * 64.0)", "iv", "(long long)(s * 64.0)", "0"))
        self.top.append(f"long long {f}(double *a, const double *b, {ti} n, {tj} m)\n{{\n"
                        f"    double *A = a + {stride + 1};\n    const double *B = b + {stride + 1};\n"
                        f"    {ti} i = 0;\n    {tj} j = 0;\n    long long iv = 0;\n    double s = 0.0;\n"
                        f"    for (int t = 0; t < {time}; t++) {{\n        for (i = 0; i < n; i++) {{\n"
                        f"            {reset}\n            {jh} {{\n                {body}\n            }}\n"
                        f"            A[(long)i * {stride} + {stride - 3}] = s;\n        }}\n        {tail}\n    }}\n"
                        f"    return {ret};\n}}")
        length = (big + 2) * stride + 2
        a, b = self.array("double", length), self.array("double", length)
        res = self.fresh("r")
        self.main.append(f"long long {res} = {f}({a}, {b}, ({ti}){self.size(n)}, ({tj}){self.size(m)});")
        self.report(f, [(a, "double", length)], [res])

    def strides(self) -> None:
        r = self.rng
        f = self.fresh("strides")
        s = r.choice((256, 4096, 65536, 40000))
        rows = r.choice((1, 3, 8))
        e = r.choice((0, 0, 1))
        cols = r.choice((5, 64, 300, s))
        length = rows * s + cols + e + 8
        a = self.array("unsigned char", length)
        b = self.array("unsigned char", length)
        sub = r.choice((f"(long)i * {s} + j", f"i * {s} + j", f"i * (long){s} + j"))
        body = r.choice((f"a[{sub}] = (unsigned char)(b[{sub}] + 1);",
                         f"a[{sub} + 1] = (unsigned char)(a[{sub}] + b[j]);",
                         f"a[{sub}] += b[{sub} + {s}];"))
        self.top.append(f"void {f}(unsigned char *a, const unsigned char *b, int n, int m)\n{{\n"
                        f"    for (int i = 0; i < n; i++)\n        for (int j = 0; j <{'=' if e else ''} m; j++)\n"
                        f"            {body}\n}}")
        # `a[sub + s]` reads one row further: the kernel runs one row fewer for it
        self.main.append(f"{f}({a}, {b}, {self.size(rows - (1 if f'+ {s}]' in body else 0))}, {self.size(cols)});")
        self.report(f, [(a, "unsigned char", length)])

    def program(self) -> str:
        picks = [self.rng.choice(KERNELS) for _ in range(self.rng.randint(2, 5))]
        for kernel in picks:
            getattr(self, kernel)()
        main = "\n    ".join(self.main)
        return (PRELUDE + "\n" + "\n\n".join(self.top) +
                f"\n\nint main(int argc, char **argv)\n{{\n    (void)argv;\n    {main}\n    return 0;\n}}\n")


def generate(seed: int) -> str:
    return TrapGen(seed).program()


if __name__ == "__main__":
    import sys
    print(generate(int(sys.argv[1]) if len(sys.argv) > 1 else 1))
