"""The brink generator's kernels for session 16's idioms, each drawn on both sides of its precondition.

`Idioms16` is a mixin of `brinkgen.BrinkGen` (it uses its `rng`, `fresh`, `buffer`, `funcs`,
`body`, `types` and `noalias`); brinkgen.py lists its kernels with its own, so `fuzz.py brink`
draws them. Kept apart so that neither module nears 800 lines:

- `accum`: accumulators behind output pointers (`*r += x[i] * y[i]`, `if (v[i] < *m) *m =
  v[i];`, analysis/effects' keys and updates.root_name), `r` outside what the loop reads or a
  pointer into `x`, `y` or `v` (first, middle, last element), read in the loop besides, or
  spelled `r[0]`; a least and a greatest value behind two pointers that may be one, and a loop
  bounded by `*h` that may be the accumulator;
- `interleave`: cells of four components `q[4*(j*nx + i) + c]` or `q[(j*nx + i)*4 + c]`
  (analysis/delinearize.py), `c` a literal or a loop up to 3, 4 or 5 (spilling into the next
  cell), rows one cell too long (`i <= nx`), reads of the other components, the next cell, or
  shifted by one, in place or not;
- `stepped`: `*p++` in counted loops and `while (n--)` / `while (n-- > 0)` copies
  (frontend/pointer_steps.py), the pointer read after the loop, stepped twice, declared outside
  an outer loop (carried from row to row) or in it (each row its own), the counter read after
  the loop, and the two pointers into one buffer (in place, one apart);
- `shared`: a mesh's element loop gathering `x`, `y` and `z` through one connectivity range
  (row_spans.apart_all, one `lift_gathers_apart_T` pass), the written `area` and `mass` apart
  from them or one of the five overlapping one gathered array;
- `halo`: ghost columns and rows of a padded grid `u[j*(nx + 2) + nx + 1]`,
  `u[(ny + 1)*(nx + 2) + i]` (analysis/flat_buffers.py, the `nx >= 0` test) with `nx` from -3 to
  6, so that rows of width 1, 0 or -1 make the loop carry a dependence;
- `rowptr`: rows through row pointers `double *r = rows[i]; r[j] = ...` (pointer_aliases'
  rows, the `lift_rows_T` test), the rows disjoint, one repeated, overlapping by a few elements,
  or all one row; a row handed to a helper, or read through `rows[i][j]` besides;
- `owned`: NPB IS's ranking per bucket, `rank[keys[i] + d]++` between the zeroing and the prefix
  sum of the bucket's own interval (analysis/owned_rows.py, transform/owned_check.py), the keys
  inside their bucket's interval or one outside (a neighbour's, shifted by `d`, a bucket's rows
  starting one early), the zeroing one past the interval (`k <= end`), the rank array
  read through another name in the loop, or the counters overlapping the keys; then the
  placement counting down `sorted[--t->rank[k]] = k` (transform/bucket_scatter.py) through a
  struct member or a pointer, the ranks exact, shifted (ranges that overlap), or the target
  overlapping the ranks.

The same rules as brinkgen's hold: every buffer sized from the values the program runs with
(indices enumerated here where the shape is irregular, views moved up past the lowest), integer
values small, and `double` values multiples of 1/64 whose sums stay exact (so a reduction's order
changes no bit).
"""
from __future__ import annotations


class Idioms16:
    KERNELS16 = ("accum", "interleave", "stepped", "halo", "rowptr", "owned", "shared")

    def literal(self, elem: str, values: list[int]) -> str:
        """A buffer of main's holding `values` (a table in the program), hashed like the others."""
        name = self.fresh("m")
        table = ", ".join(str(v) for v in values) or "0"
        self.body += [f"static const {elem} {name}_init[] = {{ {table} }};",
                      f"{elem} *{name} = malloc(sizeof({elem}) * {max(len(values), 1)});",
                      f"memcpy({name}, {name}_init, sizeof {name}_init);"]
        self.buffers.append((name, name, elem, max(len(values), 1)))
        return name

    def accum(self) -> None:
        r = self.rng
        n = r.choice((0, 1, 7, 40, 300))
        kind = r.choice(("dot", "dot", "min", "max", "sum", "pair", "bound"))
        elem = "long" if kind == "bound" else r.choice(("double", "long", "int"))
        spell = r.choice(("*r", "*r", "r[0]"))
        extra = r.random() < 0.15  # the accumulator read in the loop besides its update
        f = self.fresh("accum")
        bound = "n"
        if kind == "dot":
            stmt = f"{spell} += x[i] * y[i];"
        elif kind == "sum":
            stmt = f"{spell} += x[i] - y[i] / 2;" if elem != "double" else f"{spell} += x[i] - 0.5 * y[i];"
        elif kind == "pair":  # a least and a greatest value behind two pointers, maybe one slot
            stmt = f"if (x[i] < {spell}) {spell} = x[i]; if (x[i] > *h) *h = x[i];"
        elif kind == "bound":  # the bound behind a pointer, maybe the accumulator itself
            bound, stmt = "*h", f"{spell} -= (x[i] > 0);"
        else:
            cmp = "<" if kind == "min" else ">"
            stmt = f"if (x[i] {cmp} {spell}) {spell} = x[i];"
        if extra:
            stmt += f" y[i] = {spell};" if kind in ("min", "max", "pair") else f" y[i] = y[i] + ({spell} > 0);"
        self.funcs.append(f"""static void {f}(long n, const {elem} *x, {elem} *y, {elem} *r, {elem} *h)
{{
    for (long i = 0; i < {bound}; i++) {{
        {stmt}
    }}
}}""")
        # one buffer holding x, y and two slots; r is a slot or an element of x or y, h the
        # other slot or r's (set to n where it bounds the loop, so that x is read inside)
        fill = ("0.125 * ((i * 37 + %d) %% 29) - 1.5" % self.uid if elem == "double"
                else "(%s)((i * 13 + %d) %% 31) - 9" % (elem, self.uid))
        buf = self.buffer(elem, 2 * n + 4, fill)
        where = "apart" if self.noalias else r.choice(("apart", "apart", "x", "y", "x_end", "y_mid"))
        at = {"apart": 2 * n + 2, "x": 0, "y": n + 1, "x_end": max(n - 1, 0), "y_mid": n + 1 + n // 2}[where]
        other = at if not self.noalias and kind in ("pair", "bound") and r.random() < 0.4 else 2 * n + 3
        if kind == "bound":
            self.body.append(f"{buf}[{other}] = {n};")
        self.body.append(f"{f}({n}, {buf}, {buf} + {n + 1}, {buf} + {at}, {buf} + {other});")

    def interleave(self) -> None:
        r = self.rng
        ny, nx = r.randint(0, 6), r.randint(0, 9)
        nc = r.choice((1, 3, 4, 4, 5))  # the component loop's trip count (5 spills into the next cell)
        form = r.choice(("4 * (j * nx + i) + C", "(j * nx + i) * 4 + C", "4 * j * nx + 4 * i + C"))
        comp = "c" if nc > 1 else str(r.choice((0, 3, 4)))
        src = r.choice(("C", "3 - C", "C + 1", "C", "(C + 1) % 4")) if comp == "c" else r.choice(("C", "C + 1", "2"))
        cell = r.choice(("(j * nx + i)", "(j * nx + i)", "(j * nx + i + 1)", "((j + 1) * nx + i)"))
        inplace = not self.noalias and r.random() < 0.5
        past = r.random() < 0.15  # `i <= nx`: the last cell of a row is the next row's first
        f = self.fresh("interleave")
        write = form.replace("C", comp)
        read = f"4 * {cell} + {src.replace('C', comp)}"
        loop = f"for (int c = 0; c < {nc}; c++)\n                " if comp == "c" else ""
        self.funcs.append(f"""static void {f}(double *q, const double *p, int ny, int nx)
{{
    for (int j = 0; j < ny; j++)
        for (int i = 0; i {"<=" if past else "<"} nx; i++)
            {loop}q[{write}] = p[{read}] * 0.5 + 0.125 * i;
}}""")
        cs = range(nc) if comp == "c" else [int(comp)]
        env = lambda j, i, c: {"j": j, "i": i, "c": c, "nx": nx}  # noqa: E731
        idx = [eval(e, env(j, i, c)) for j in range(ny) for i in range(nx + past) for c in cs
               for e in (write, read)]
        base = max(0, -min(idx, default=0))  # (`3 - c` of a fifth component reads before the cell)
        top = base + max(idx, default=0) + 2
        q = self.buffer("double", top)
        p = q if inplace else self.buffer("double", top)
        self.body.append(f"{f}({q} + {base}, {p} + {base}, {ny}, {nx});")

    def stepped(self) -> None:
        r = self.rng
        n = r.choice((0, 1, 5, 33, 200))
        form = r.choice(("for", "for", "while", "while_gt", "twice", "rows", "rows_in"))
        after = r.random() < 0.3  # the pointer (or counter) read after the loop
        elem = r.choice(("double", "long"))
        count_t = r.choice(("int", "int", "long", "unsigned", "size_t"))  # (an unsigned n-- wraps at the end)
        f = self.fresh("stepped")
        k = "0.5" if elem == "double" else "3"
        if form == "for":
            lo = r.choice((0, 1, 2))
            body = f"for (int i = {lo}; i < n; i++)\n        *p++ = *s++ * {k} + i;"
            used = max(n - lo, 0)
        elif form in ("while", "while_gt"):
            test = "n--" if form == "while" else "n-- > 0"
            body = f"while ({test})\n        *p++ = *s++ * {k} + 1;"
            used = n
        elif form == "twice":
            body = f"for (int i = 0; i < n; i++) {{\n        *p++ = *s++ * {k};\n        *p++ = i;\n    }}"
            used = 2 * n
        elif form == "rows":  # declared outside the outer loop: carried from one row to the next
            body = (f"for (int j = 0; j < 3; j++)\n        for (int i = 0; i < n; i++)\n"
                    f"            *p++ = *s++ + j;")
            used = 3 * n
        else:  # declared in the outer loop: each row starts from its own
            body = (f"for (int j = 0; j < 3; j++) {{\n        {elem} *w = dst + j * n;\n"
                    f"        for (int i = 0; i < n; i++)\n            *w++ = src[j * n + i] + j;\n    }}")
            used = 3 * n
        tail = "(long)(p - dst) + n" if after else "0"
        self.funcs.append(f"""static long {f}({elem} *dst, const {elem} *src, {count_t} n)
{{
    {elem} *p = dst;
    const {elem} *s = src;
    {body}
    return {tail};
}}""")
        span = used + 2
        buf = self.buffer(elem, 2 * span + 4)
        off = span + 2 if self.noalias else r.choice((span + 2, span + 2, 0, 1, -1, 2))
        base = max(0, -off)
        res = self.fresh("r")
        self.body.append(f'long {res} = {f}({buf} + {base}, {buf} + {base + off}, {n}); printf("{res} %ld\\n", {res});')

    def halo(self) -> None:
        r = self.rng
        nx = r.choice((-3, -2, -1, 0, 0, 1, 3, 6))
        ny = r.randint(0, 5)
        stmt = r.choice(("u[j * (nx + 2) + nx + 1] = u[j * (nx + 2) + 1];",
                         "u[j * (nx + 2)] = u[j * (nx + 2) + nx];",
                         "u[j * (nx + 2) + nx + 1] = 0.5 * u[j * (nx + 2) + nx] + 0.125;"))
        rows = r.choice(("u[(ny + 1) * (nx + 2) + i] = u[ny * (nx + 2) + i];",
                         "u[i] = u[(nx + 2) + i] * 0.5;", ""))
        f = self.fresh("halo")
        self.funcs.append(f"""static void {f}(double *u, int nx, int ny)
{{
    for (int j = 0; j < ny + 2; j++)
        {stmt}
    {"for (int i = 0; i < nx + 2; i++)" if rows else ""}
        {rows}
}}""")
        idx = []
        for j in range(ny + 2):
            for e in stmt.rstrip(";").split(" = "):
                idx += [eval(e[e.index("[") + 1:e.rindex("]")], {"j": j, "nx": nx, "ny": ny})]
        if rows:
            for i in range(nx + 2):
                for e in rows.rstrip(";").split(" = "):
                    idx += [eval(e[e.index("[") + 1:e.index("]")], {"i": i, "nx": nx, "ny": ny})]
        base = max(0, -min(idx, default=0))
        u = self.buffer("double", base + max(idx, default=0) + 2)
        self.body.append(f"{f}({u} + {base}, {nx}, {ny});")

    def rowptr(self) -> None:
        r = self.rng
        n, m = r.randint(0, 9), r.randint(1, 12)
        layout = "apart" if self.noalias else r.choice(("apart", "apart", "repeat", "overlap", "one"))
        use = r.choice(("scale", "scale", "shift", "helper", "both"))
        f = self.fresh("rowptr")
        stmt = {"scale": "r[j] = r[j] * 0.5 + 0.125 * i;",
                "shift": "r[j] = r[j + 1] * 0.5 + j;",
                "both": "r[j] = rows[i][j] * 0.5 + r[0];",
                "helper": ""}[use]
        inner = f"{f}_row(r, m, i);" if use == "helper" else \
            f"for (int j = 0; j < {'m - 1' if use == 'shift' else 'm'}; j++)\n            {stmt}"
        helper = f"""static void {f}_row(double *r, int m, int i)
{{
    for (int j = 0; j < m; j++)
        r[j] = r[j] * 0.5 + 0.125 * i;
}}
""" if use == "helper" else ""
        self.funcs.append(f"""{helper}static void {f}(double **rows, int n, int m)
{{
    for (int i = 0; i < n; i++) {{
        double *r = rows[i];
        {inner}
    }}
}}""")
        starts = {"apart": [i * m for i in range(n)], "overlap": [i * max(m - 2, 1) for i in range(n)],
                  "one": [0] * n, "repeat": [i * m if i != n // 2 or i == 0 else (i - 1) * m for i in range(n)]}[layout]
        buf = self.buffer("double", max(starts, default=0) + m + 2)
        rows = self.fresh("rows")
        self.body.append(f"double *{rows}[{max(n, 1)}];")
        self.body += [f"{rows}[{i}] = {buf} + {s};" for i, s in enumerate(starts)]
        self.body.append(f"{f}({rows}, {n}, {m});")

    def owned(self) -> None:
        r = self.rng
        nb, sh = r.choice((1, 3, 8)), r.choice((1, 2, 3))
        width = 1 << sh
        d = 0 if r.random() < 0.7 else r.choice((1, -1))
        stray = r.random() < 0.3  # one key in a neighbour's interval
        other = not self.noalias and r.random() < 0.2  # the ranks read through another name
        overlap = not self.noalias and r.random() < 0.15  # the counters overlap the keys
        keys, start = [], [0]
        for b in range(nb):
            keys += [r.randrange(b * width, (b + 1) * width) for _ in range(r.randint(0, 6))]
            start.append(len(keys))
        if stray and keys:
            keys[r.randrange(len(keys))] = r.randrange(nb * width)
        if nb > 1 and r.random() < 0.15:  # a bucket's rows start one early: its neighbour's last key
            b = r.randrange(1, nb)
            start[b] = max(0, start[b] - 1)
        upto = "<=" if r.random() < 0.1 else "<"  # the zeroing runs onto the next bucket's first
        f = self.fresh("owned")
        total = "total += rank[k];" if not other else "total += alias[k] + (alias[first] & 1);"
        self.funcs.append(f"""static void {f}(int nb, const int *start, const int *keys, int *rank, const int *alias)
{{
    for (int b = 0; b < nb; b++) {{
        int first = b << {sh}, end = (b + 1) << {sh};
        for (int k = first; k {upto} end; k++)
            rank[k] = 0;
        for (int i = start[b]; i < start[b + 1]; i++)
            rank[keys[i] + ({d})]++;
        int total = start[b];
        for (int k = first; k < end; k++) {{
            {total}
            rank[k] = total;
        }}
    }}
}}""")
        nk = len(keys)
        span = nb * width
        # rank's values stay below 31 + nk (the fills, then counts and totals): keys overlapped by
        # the counters are read back as such, so rank reaches that far past its start
        reach = span + 2 + (31 + 2 * nk if overlap else 0)
        st = self.literal("int", start)
        kb = self.literal("int", keys + [0] * (reach + 2 if overlap else 1))
        rank = f"({kb} + 1)" if overlap else f"({self.buffer('int', reach + 2)} + 1)"
        self.body.append(f"{f}({nb}, {st}, {kb}, {rank}, {rank});")
        # the placement, counting down through a struct member or a pointer
        if overlap or d or stray:
            return
        s = self.fresh("ranks")
        self.types.append(f"struct {s} {{ long n; int *keys; int *rank; }};")
        through = r.choice(("member", "member", "pointer"))
        place = "sorted[--t->rank[k]] = k;" if through == "member" else "sorted[--pos[k]] = k;"
        self.funcs.append(f"""static void {f}_place(struct {s} *t, int *sorted)
{{
    {"int *pos = t->rank;" if through == "pointer" else ""}
    for (long i = 0; i < t->n; i++) {{
        int k = t->keys[i];
        {place}
    }}
}}""")
        shift = 0 if self.noalias else r.choice((0, 0, 1, -1))
        # after the ranking rank[k] counts the keys up to k; `shift` moves every end (the ranges overlap)
        # positions run from -nk - 1 (ends shifted down) to below nk + span (ranks read through
        # another name count more): every buffer they index has a margin below
        margin, size = nk + 2, 2 * (nk + 2) + 2 * (span + nk) + 4
        ends = f"({self.buffer('int', size)} + {margin})"
        self.body.append(f"for (int k = 0; k < {span}; k++) {ends}[k] = {rank}[k] + ({shift});")
        target = "apart" if self.noalias else r.choice(("apart", "apart", "ranks"))
        # the target may run over the ends it counts down (the keys it stores stay below span)
        out = ends if target == "ranks" else f"({self.buffer('int', size)} + {margin})"
        t = self.fresh("t")
        self.body.append(f"struct {s} {t} = {{ {nk}, {kb}, {ends} }}; {f}_place(&{t}, {out});")

    def shared(self) -> None:
        r = self.rng
        ne, nn = r.randint(0, 30), r.randint(1, 40)
        s = self.fresh("elems")
        self.types.append(f"struct {s} {{ int ne; const int *conn; double *x, *y, *z, *area, *mass; }};")
        f = self.fresh("shared")
        self.funcs.append(f"""static void {f}(struct {s} *m)
{{
    for (int e = 0; e < m->ne; e++) {{
        double sx = 0, sy = 0, sz = 0;
        for (int k = 0; k < 4; k++) {{
            sx += m->x[m->conn[4 * e + k]];
            sy += m->y[m->conn[4 * e + k]];
            sz += m->z[m->conn[4 * e + k]];
        }}
        m->area[e] = {r.choice(("sx * sy", "sx - sy * 0.5", "sy"))};
        m->mass[e] = sz + sx;
    }}
}}""")
        conn = self.buffer("int", 4 * ne + 1, f"(int)((i * 11 + {self.uid}) % {nn})")
        # five views of one buffer: x, y, z (nn elements each), area and mass (ne each), apart,
        # or one written view moved onto one gathered view (a few elements in, or exactly)
        starts = [0, nn, 2 * nn, 3 * nn, 3 * nn + ne]
        if not self.noalias and r.random() < 0.5:
            starts[r.choice((3, 4))] = starts[r.randrange(3)] + r.choice((0, 1, nn // 2))
        buf = self.buffer("double", 3 * nn + 2 * ne + nn + 2)
        d = self.fresh("el")
        views = ", ".join(f"{buf} + {v}" for v in starts)
        self.body.append(f"struct {s} {d} = {{ {ne}, {conn}, {views} }}; {f}(&{d});")
