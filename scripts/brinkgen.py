"""Random C programs on the brink of the analyses of sessions 14-15: each precondition almost holds.

`generate(seed)` returns one complete C program (a `str`), the same for the same seed.

`loopgen.py` draws affine nests, `idiomgen.py` the everyday C around them, `reachgen.py` the
application idioms of issue 16 and `mutantgen.py` near misses of the suite. This one aims at what
the later sessions taught lift, each kernel a family whose members sit on both sides of the
condition that decides:

- `scatter`: a counting sort's `int b = E; T[C[b]++] = V;` (transform/bucket_scatter.py): counters
  that start as a prefix sum, at zero (ranges that overlap), in reverse order, shifted onto their
  neighbour; the target a buffer of its own, the key array itself, a pointer into the keys' buffer
  just past (or one short of) what is read; two scatters sharing the counters; the bucket declared
  outside the loop; the counters read after it; narrow bucket types that wrap;
- `gather`: a mesh element loop reading `d->x[d->nodes[4*e + k] + s]` (analysis/affine_gathers.py,
  pointer_aliases.py) through the field, a local alias or a helper, whose written field points
  into the same buffer as the gathered one (disjoint, touching, overlapping), sometimes repointed
  by the function before the loop;
- `fields`: helpers that write one field and read another (analysis/field_pointers.py, the
  helpers' `FieldAccess` summaries) or the loop that does it itself, both fields into one buffer,
  the loop bound a field a helper may change (an `int` store to an `int` or a `long` field, an
  `int *` field pointed at the bound: invariants.py), a field repointed between two loops;
- `copies`: pointers copied from parameters, advanced, and read against each other
  (analysis/param_copies.py) under the no-alias promise where the caller keeps it;
- `block`: `memset`/`memcpy`/`memmove` of a row (analysis/block_calls.py): counts of elements
  that run into the next row, sizes of another type, byte counts not a multiple of the element
  (two bytes into the next one), offset pointers (`a + i*m + 1`), overlapping `memmove`s within
  one buffer, and whole rows, each iteration its own (the shape the analysis takes);
- `padded`: flat grids with padded rows `u[i*(n + P) + j]` (delinearize's affine sizes): columns
  that run past the row, strides that differ between two accesses of one array, rows of
  one element, a stride held in a `const int`;
- `header`: the suite's shape of a loop bounded by a scalar the nest sets (`m = n - 2; for (k = 1;
  k <= m; k++)`, legality's header scalars and index_scalars.py) over file-scope arrays: set in the
  outer or the middle loop, from the loops' variables or from its own last value, changed after
  the inner loop, read after the nest;
- `diagonal`: Nussinov-like table fills (transform/diagonal.py) whose reads `T[i + di][j + dj]`
  keep, or break, the property that every dependence increases `j - i`, rows run up or down, the
  loops' variables read after the nest, the sequence read from a row of the table itself;
- session 16's idioms (accumulators behind output pointers, interleaved components, stepping
  pointers, halo loops with negative sizes, row pointers, owned rows and the placement counting
  down): brink16.py, a mixin of this class.

Every program is deterministic and free of undefined behaviour by construction: the buffers are
sized from the values the program runs with (the padded grids' accesses enumerated here, in
Python; the other kernels' bounds derived per variant; views below a buffer's start moved up),
`int` values stay small, tables that may grow are `unsigned`, and `double` values are only
halved and shifted by eighths, never summed by a reduction, so the lifted program must print the
same bits (campaigns check samples under `-fsanitize=address,undefined`, scripts/FUZZ_RESULTS.md).
`main` allocates every buffer, fills it, calls the kernels and prints an FNV hash of every
buffer's bytes in order, so one wrong bit anywhere shows. A program whose calls keep
`--assume-no-alias`'s promise says so on its first line, `/* lift-options: assume_no_alias */`.
"""
from __future__ import annotations

import random

from brink16 import Idioms16

KERNELS = ("scatter", "gather", "fields", "copies", "block", "padded", "header", "diagonal") + Idioms16.KERNELS16
HASH = """static unsigned long long hash_bytes(const void *p, long bytes)
{
    const unsigned char *c = p;
    unsigned long long h = 1469598103934665603ULL;
    for (long k = 0; k < bytes; k++)
        h = (h ^ c[k]) * 1099511628211ULL;
    return h;
}"""


class BrinkGen(Idioms16):
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.noalias = self.rng.random() < 0.3
        self.types: list[str] = []
        self.funcs: list[str] = []
        self.body: list[str] = []  # main's statements, in order
        self.statics: list[str] = []  # file-scope arrays (the suite's habit), filled by main
        self.fills: list[tuple[str, int, int, str]] = []  # (name, rows, columns, element)
        self.meshes: list[str] = []  # struct types of the gather kernels
        self.buffers: list[tuple[str, str, str, int]] = []  # (label, address, element, length) hashed by main
        self.uid = 0

    def fresh(self, base: str) -> str:
        self.uid += 1
        return f"{base}{self.uid}"

    def buffer(self, elem: str, length: int, fill: str | None = None) -> str:
        """A buffer of main's, malloc'd, filled with `fill` (of `i`) or a small pattern, hashed."""
        name = self.fresh("m")
        length = max(length, 1)
        if fill is None:
            fill = "0.125 * ((i * 37 + %d) %% 29) - 1.5" % self.uid if "double" in elem \
                else "(%s)((i * 13 + %d) %% 31)" % (elem, self.uid)
        self.body += [f"{elem} *{name} = malloc(sizeof({elem}) * {length});",
                      f"for (long i = 0; i < {length}; i++) {name}[i] = {fill};"]
        self.buffers.append((name, name, elem, length))
        return name

    def overlap(self, length: int, span: int) -> int:
        """An offset of a second view of `span` elements into a buffer whose first view has
        `length`: the same place, one over, touching, or far apart (far when the program keeps
        the no-alias promise)."""
        if self.noalias:
            return length + self.rng.randint(0, 3)
        return self.rng.choice((0, 1, -1, length - 1, length, length + 2, span // 2))

    # -- kernels ---------------------------------------------------------------------------
    def scatter(self) -> None:
        r = self.rng
        nb = r.choice((4, 8, 16, 256))
        n = r.choice((0, 5, 40, 200, 600, 3000 if nb == 256 else 400))
        lo = r.choice((0, 0, 1, 3))
        count_t = r.choice(("int", "long", "unsigned", "unsigned long"))
        loop_t = r.choice(("int", "long", "long", "size_t", "unsigned"))
        bucket_t = "unsigned char" if nb == 256 and r.random() < 0.5 else r.choice(("int", "long", "unsigned"))
        keymax = 300 if bucket_t == "unsigned char" else nb * 8
        expr = r.choice(("keys[i] % NB", "keys[i] >> 3", "(keys[i] + s) % NB", "NB - 1 - keys[i] % NB",
                         "keys[i] & (NB - 1)", "keys[i] / 5 % NB"))
        if bucket_t == "unsigned char":
            expr = r.choice(("keys[i]", "keys[i] + s", "keys[i] * 3"))
        start = r.choice(("prefix", "prefix", "zero", "reverse", "shifted", "based"))
        tlen = 2 * n + 16
        where = r.choice(("out", "out", "keys", "past", "short", "local"))
        if self.noalias and where in ("keys", "short", "past"):
            where = "out"
        # a value stored into the keys' own buffer is read back as a key: one that stays a key
        value = r.choice(("keys[i]", "vals[i]", "s", "(int)b") + (("keys[i] * 3 + (int)i", "-keys[i]")
                                                                 if where in ("out", "local") else ()))
        outside = r.random() < 0.12
        second = r.random() < 0.25
        f = self.fresh("scatter")
        init = {"prefix": "fill[b] = at; at += hist[b];",
                "based": "fill[b] = at + 7; at += hist[b];",
                "zero": "fill[b] = 0;",
                "shifted": "fill[b] = at > 0 ? at - 1 : 0; at += hist[b];",
                "reverse": "fill[NB - 1 - b] = at; at += hist[NB - 1 - b];"}[start]
        target = {"out": "out", "keys": "keys", "local": "t", "past": "t", "short": "t"}[where]
        point = {"local": "int *t = out + 3;", "past": "int *t = keys + n;", "short": "int *t = keys + (n > 0 ? n - 1 : 0);"}
        decl = f"{bucket_t} b = {expr};"
        loop = (f"for ({loop_t} i = {lo}; i < ({loop_t})n; i++) {{\n        {decl}\n        "
                f"{target}[fill[b]++] = {value};\n    }}")
        if outside:
            loop = f"{bucket_t} b = 0;\n    " + loop.replace(decl, decl.replace(f"{bucket_t} b", "b"))
        self.funcs.append(f"""#define NB {nb}
static long {f}(long n, int *keys, const int *vals, int *out, int s)
{{
    {count_t} fill[NB];
    long hist[NB] = {{0}}, at = 0, sum = 0;
    for (long i = {lo}; i < n; i++) {{ {bucket_t} b = {expr}; hist[b]++; }}
    for (int b = 0; b < NB; b++) {{ {init} }}
    {point.get(where, "")}
    {loop}
    {f"for ({loop_t} i = 0; i < ({loop_t})n; i++) {{ {decl} out[fill[b]++] = keys[i] + 1; }}" if second else ""}
    for (int b = 0; b < NB; b++) sum += (long)fill[b] * (b + 1);
    return sum{" + b" if outside else ""};
}}
#undef NB""")
        # positions: counters start at most n + 7 and grow by at most n (a second scatter: 2n)
        keys = self.buffer("int", 3 * n + 32, f"(int)((i * 7919 + {self.uid}) % {keymax})")
        vals = self.buffer("int", n + 1)
        out = self.buffer("int", 4 * n + 32 if second else tlen)
        res = self.fresh("r")
        self.body.append(f'long {res} = {f}({n}, {keys}, {vals}, {out}, {r.randint(0, 9)}); printf("{res} %ld\\n", {res});')

    def gather(self) -> None:
        r = self.rng
        ne, nx = r.randint(0, 40), r.randint(1, 60)
        shift = r.choice((0, 0, 1, 2))
        s = self.fresh("mesh")
        if not self.meshes or r.random() < 0.5:
            self.types.append(f"struct {s} {{ int nelem; int *nodes; double *x; double *v; }};")
            self.meshes.append(s)
        else:
            s = self.meshes[-1]  # the struct of an earlier kernel (its fields, other helpers)
        how = r.choice(("field", "alias", "helper", "helper"))
        repoint = r.random() < 0.2
        f = self.fresh("gather")
        read = f"d->x[nodes[k] + {shift}]" if how == "alias" else f"d->x[d->nodes[4 * e + k] + {shift}]"
        if how == "helper":
            self.funcs.append(f"""static void {f}_collect(const struct {s} *d, const int *nodes, double *xl)
{{
    for (int k = 0; k < 4; k++)
        xl[k] = d->x[nodes[k] + {shift}];
}}""")
            fill = f"{f}_collect(d, &d->nodes[4 * e], xl);"
        else:
            alias = "const int *nodes = &d->nodes[4 * e];" if how == "alias" else ""
            fill = f"{alias}\n        for (int k = 0; k < 4; k++)\n            xl[k] = {read};"
        combine = r.choice(("xl[0] + xl[1] - 0.5 * xl[2] + xl[3]", "0.5 * (xl[0] - xl[3]) + xl[1]",
                            "xl[2] * 0.5 + 0.125"))
        update = r.choice(("=", "=", "+="))
        self.funcs.append(f"""static void {f}(struct {s} *d)
{{
    {"d->v = d->x + 1;" if repoint else ""}
    for (int e = 0; e < d->nelem; e++) {{
        double xl[4];
        {fill}
        d->v[e] {update} {combine};
    }}
}}""")
        nodes = self.buffer("int", 4 * ne + 1, f"(int)((i * 17 + {self.uid}) % {nx})")
        span = nx + shift + 1
        off = self.overlap(span, ne)
        base = max(0, -off)
        length = max(base + span, base + off + ne, base + 2 + ne) + 2
        buf = self.buffer("double", length)
        d = self.fresh("d")
        self.body.append(f"struct {s} {d} = {{ {ne}, {nodes}, {buf} + {base}, {buf} + {base + off} }}; {f}(&{d});")

    def fields(self) -> None:
        r = self.rng
        n = r.randint(0, 50)
        bound_t = r.choice(("int", "long", "unsigned", "long"))
        n = max(n, 1) if bound_t == "unsigned" else n  # (`s->n - 1` of an unsigned 0 wraps)
        elem = r.choice(("double", "int"))
        s = self.fresh("box")
        self.types.append(f"struct {s} {{ {elem} *a; {elem} *b; {bound_t} n; int *cnt; }};")
        f = self.fresh("fields")
        shift = r.choice((0, 1, -1, 2))
        lo = 1 if shift < 0 else 0
        change = r.choice(("", "", "", "s->n -= 1;", "s->cnt[0] += 1;", "s->b = s->a;"))
        # the store in the loop itself (an `int` store against a `long` bound) or through the helper
        put = f"{f}_put(s, i, " if r.random() < 0.5 else "s->a[i] = ("
        get = f"{f}_get(s, i + ({shift}))" if put.startswith(f) or r.random() < 0.5 else f"s->b[i + ({shift})]"
        self.funcs.append(f"""static void {f}_put(struct {s} *s, int i, {elem} v)
{{
    s->a[i] = v;
    if (i == 3) {{ {change} }}
}}
static {elem} {f}_get(const struct {s} *s, int i)
{{
    return s->b[i];
}}
static void {f}(struct {s} *s)
{{
    for ({bound_t} i = {lo}; i < s->n; i++)
        {put}{get} {"* 0.5 + 0.125" if elem == "double" else "% 1000 * 3 + 1"});
    {r.choice(("", "s->b = s->a + 1;"))}
    for ({bound_t} i = {lo}; i < s->n - 1; i++)
        s->a[i] = {f}_get(s, i) {"- 0.25" if elem == "double" else "- 2"};
}}""")
        off = self.overlap(n + 3, n + 3)
        base = max(0, -off) + 1
        length = base + max(n, off + n) + 6
        buf = self.buffer(elem, length, "(%s)((i * 5) %% 11)" % elem)
        cnt = self.fresh("c")
        self.body.append(f"int {cnt}[2] = {{ 0, 0 }};")
        # `cnt` points at the bound's own storage where its type is int: a helper's `int` store may
        # change the loop's bound (it may not where the bound is a long)
        at = f"(int *)&{cnt}_s.n" if bound_t in ("int", "unsigned") and not self.noalias and r.random() < 0.4 else cnt
        self.body.append(f"struct {s} {cnt}_s = {{ {buf} + {base}, {buf} + {base + off}, {n}, 0 }};"
                         f" {cnt}_s.cnt = {at}; {f}(&{cnt}_s);"
                         f' printf("{cnt} %ld %ld\\n", (long){cnt}_s.n, (long){cnt}[0]);')

    def copies(self) -> None:
        r = self.rng
        n = r.randint(0, 60)
        f = self.fresh("copies")
        step = r.choice((0, 1, 2))
        form = r.choice(("copy", "advanced", "pair", "reassigned", "field"))
        shift = r.choice((0, 1, -1))
        lo = 1 if shift < 0 else 0
        head = {"copy": "double *p = a, *q = b;",
                "advanced": f"double *p = a, *q = b; p += {step};",
                "pair": f"double *p = a, *q = a + {step};",
                "reassigned": f"double *p = a, *q = b; q = p + {step};",
                "field": f"double *p = a, *q = b; p++; q += {step};"}[form]
        self.funcs.append(f"""static void {f}(double *a, double *b, int n)
{{
    {head}
    for (int i = {lo}; i < n; i++)
        p[i] = q[i + ({shift})] * 0.5 + 0.125 * i;
}}""")
        off = self.overlap(n + 4, n + 4)
        base = max(0, -off) + 1
        buf = self.buffer("double", base + max(n, off + n) + 8)
        self.body.append(f"{f}({buf} + {base}, {buf} + {base + off}, {n});")

    def block(self) -> None:
        r = self.rng
        n, m = r.randint(1, 12), r.randint(1, 10)
        elem = r.choice(("double", "double", "int", "char"))
        call = r.choice(("memset", "memcpy", "memmove", "memmove"))
        count = r.choice(("m", "m", "m - 1", "m + 1", "2 * m"))
        size = r.choice((f"({count}) * sizeof({elem})", f"sizeof({elem}) * ({count})", f"({count}) * sizeof *a",
                         f"({count}) * sizeof(a[0])", f"({count}) * sizeof(short)", f"({count}) * sizeof({elem}) + 2"))
        dst = r.choice(("&a[i * m]", "a + i * m + 1", "&a[i * m + 1]", "a + (i - 1) * m"))
        src = r.choice(("&b[(i - 1) * m]", "&b[i * m]", "b + i * m + 1", "&a[(i - 1) * m]", "a + i * m + 1"))
        if r.random() < 0.4:  # the shape block_calls.py takes: whole rows, each iteration its own
            count, dst, src = "m", "&a[i * m]", r.choice(("&b[i * m]", "b + i * m"))
            size = r.choice((f"m * sizeof({elem})", "sizeof *a * m", "m * sizeof(b[0])"))
        if call == "memcpy" and src.lstrip("&").startswith("a"):
            call = "memmove"  # (memcpy of overlapping blocks is undefined)
        args = f"{dst}, {r.choice(('0', '1', '7'))}, {size}" if call == "memset" else f"{dst}, {src}, {size}"
        after = r.choice(("", f"a[i * m] += ({elem})1;", f"b[i * m] = a[i * m + m - 1];",
                          f"for (int j = 0; j < m; j++) a[i * m + j] += ({elem})(j & 3);"))
        f = self.fresh("block")
        self.funcs.append(f"""static void {f}({elem} *a, {elem} *b, int n, int m)
{{
    for (int i = 1; i < n; i++) {{
        {call}({args});
        {after}
    }}
}}""")
        rowmax = (n + 2) * m + 2 * m + 8
        same = not self.noalias and call != "memcpy" and r.random() < 0.4
        a = self.buffer(elem, rowmax + (m + 4 if same else 0), None if elem != "char" else "(char)(i % 23)")
        b = a + f" + {r.choice((0, 1, m))}" if same else self.buffer(elem, rowmax, None if elem != "char" else "(char)(i % 19)")
        self.body.append(f"{f}({a}, {b}, {n}, {m});")

    def padded(self) -> None:
        r = self.rng
        pad = r.choice((1, 2, 3))
        n = r.choice((0, 1, 2, 5, 9, 16)) - (1 if pad > 1 and r.random() < 0.2 else 0)
        rows = r.randint(1, 8)
        pad2 = r.choice((pad,) * 5 + (pad + 1, max(1, pad - 1)))
        jlo = r.choice((0, 1))
        jhi = r.choice(("n", "n + P - 1", "n + P", "n + P + 1")).replace("P", str(pad))
        d = r.choice((0, 0, 1, -1)) if jlo == 1 else r.choice((0, 1))
        di = r.choice((-1, 0)) if r.random() < 0.8 else 1
        held = r.random() < 0.3
        stride = "ld" if held else f"(n + {pad})"
        f = self.fresh("padded")
        self.funcs.append(f"""static void {f}(double *u, int n, int rows)
{{
    {f"const int ld = n + {pad};" if held else ""}
    for (int i = 1; i <= rows; i++)
        for (int j = {jlo}; j <= {jhi}; j++)
            u[i * {stride} + j] = u[(i + ({di})) * (n + {pad2}) + j + ({d})] * 0.5 + 0.125 * j;
}}""")
        hi = eval(jhi, {"n": n})
        idx = [v for i in range(1, rows + 1) for j in range(jlo, hi + 1)
               for v in (i * (n + pad) + j, (i + di) * (n + pad2) + j + d)]
        low = min(idx, default=0)
        base = max(0, -low)
        u = self.buffer("double", base + max(idx, default=0) + 2)
        self.body.append(f"{f}({u} + {base}, {n}, {rows});")

    def header(self) -> None:
        r = self.rng
        n = r.randint(2, 14)
        f = self.fresh("header")
        A, B, X = (self.fresh(x) for x in ("A", "B", "X"))
        self.statics += [f"static long {A}[{n}][{n}], {B}[{n}][{n}], {X}[{n}][{n}];"]
        self.fills += [(A, n, n, "long"), (B, n, n, "long"), (X, n, n, "long")]
        bound = r.choice(("n - 2", "n - 2 - j % 2", "i - 1", "n - 1 - i % 3", "j", "m + 1 < n - 1 ? m + 1 : 1"))
        inner = r.choice((f"{X}[i][j] += {A}[i][k] * {B}[k][j];", f"{X}[i][k] += {A}[i][j] - {B}[k][j];",
                          f"{X}[k][j] += {A}[i][k];", f"{X}[i][j] += {X}[i][k - 1] % 7;"))
        first = r.choice((f"{X}[i][j] = {A}[i][j];", f"{X}[i][j] *= 2;", f"{B}[i][j] = {X}[i][j] % 5;"))
        later = r.choice(("", "", "m = m + 1;", f"{X}[i][j] += m;", f"m = {X}[i][j] % 3;"))
        two = r.random() < 0.5  # the scalar set in the i loop, read by headers in the j loop
        set_at = "        m = " + bound + ";" if two and "j" not in bound else ""
        later = "" if set_at and later == "m = m + 1;" else later  # (m would grow past the rows)
        inner_set = "" if set_at else f"            m = {bound};"
        self.funcs.append(f"""static long {f}(int n)
{{
    int i, j, k, m = 0;
    for (i = 1; i < n - 1; i++) {{
{set_at}
        for (j = 1; j < n - 1; j++) {{
            {first}
{inner_set}
            for (k = 1; k <= m; k++)
                {inner}
            {later}
        }}
    }}
    return {r.choice(("m", "0"))};
}}""")
        res = self.fresh("r")
        self.body.append(f'long {res} = {f}({n}); printf("{res} %ld\\n", {res});')
        for arr in (A, B, X):
            self.buffers.append((arr, f"&{arr}[0][0]", "long", n * n))

    def diagonal(self) -> None:
        r = self.rng
        n = r.randint(1, 24)
        reads = r.sample([(0, -1), (1, 0), (1, -1), (1, 1), (-1, 0), (0, 1), (-1, -1), (2, 0)], r.randint(1, 3))
        split = r.random() < 0.6
        down = r.random() < 0.8
        after = r.random() < 0.15  # the loops' variables read after the nest
        f = self.fresh("diagonal")
        terms = " ".join(f"if (T({di:+d}, {dj:+d}) > T(0, 0)) T(0, 0) = T({di:+d}, {dj:+d});" for di, dj in reads)
        rows = "for (i = n - 1; i >= 0; i--)" if down else "for (i = 0; i < n; i++)"
        ks = "for (k = i + 1; k < j; k++) if (T(0, k - j) + t[k + 2][j + 1] > T(0, 0)) T(0, 0) = T(0, k - j) + t[k + 2][j + 1];"
        tab = self.fresh("tab")
        self.statics.append(f"static unsigned {tab}[{n + 3}][{n + 3}];")
        self.fills.append((tab, n + 3, n + 3, "unsigned"))
        self.funcs.append(f"""#define T(di, dj) t[i + 1 + (di)][j + 1 + (dj)]
static int {f}(int n, unsigned t[{n + 3}][{n + 3}], const int *seq)
{{
    int i, j{", k" if split else ""};
    {rows}
        for (j = i + 1; j < n; j++) {{
            {terms}
            {ks if split else ""}
            T(0, 0) = T(0, 0) + (seq[i] + seq[j] == 3) + {r.choice(("0u", "1u"))};
        }}
    return {"i * 100 + j" if after else "0"};
}}
#undef T""")
        # the sequence in a row of the table itself (row 0 is never written, row 1 is), as `int`s
        seq = self.buffer("int", n, f"(int)((i * 7 + {self.uid}) % 4)") if self.noalias or r.random() < 0.7 \
            else f"(const int *)&{tab}[{r.randint(0, 2)}][{r.randint(0, 3)}]"
        res = self.fresh("r")
        self.body.append(f'int {res} = {f}({n}, {tab}, {seq}); printf("{res} %d\\n", {res});')
        self.buffers.append((tab, f"&{tab}[0][0]", "unsigned", (n + 3) * (n + 3)))

    # -- the program -----------------------------------------------------------------------
    def program(self) -> str:
        for kind in [self.rng.choice(KERNELS) for _ in range(self.rng.randint(2, 4))]:
            getattr(self, kind)()
        hashes = [f'printf("{label} %llx\\n", hash_bytes({name}, (long)sizeof({elem}) * {length}));'
                  for label, name, elem, length in self.buffers]
        head = "/* lift-options: assume_no_alias */\n" if self.noalias else ""
        fills = [f"for (int i = 0; i < {rows}; i++) for (int j = 0; j < {cols}; j++) {a}[i][j] = ({elem})((i * 3 + j * 5 + {k}) % 7);"
                 for k, (a, rows, cols, elem) in enumerate(self.fills)]
        statics = {a for a, *_ in self.fills}
        frees = [f"free({label});" for label, *_ in self.buffers if label not in statics]
        main = [f"    {line}" for line in fills + self.body + hashes + frees]
        return head + "\n".join(["#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>", "",
                                 *self.types, *self.statics, "", HASH, "", *self.funcs, "", "int main(void)", "{", *main,
                                 "    return 0;", "}", ""])


def generate(seed: int) -> str:
    return BrinkGen(seed).program()


if __name__ == "__main__":
    import sys
    print(generate(int(sys.argv[1]) if len(sys.argv) > 1 else 1))
