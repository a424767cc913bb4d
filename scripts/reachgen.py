"""Random C programs aimed at lift's newest analyses, where their preconditions almost hold.

`generate(seed)` returns one complete C program (a `str`), the same for the same seed.

`idiomgen.py` draws the everyday C around loop nests and `loopgen.py` affine nests; this
generator draws the application idioms of issue 16 (the reach sessions), each in a form where
the analysis that handles it must look twice:

- `cellscan`: a scatter `f[j] op= d` inside a loop whose bounds read memory (`k = start[i];
  k < start[i + 1]`), beside a bounded `f[i] op= d` (a reduced section, the rest atomic outside
  it: transform/guarded_updates.py); neighbours inside or outside the section, empty cells,
  `break`/`continue`, a `d` loop over 3 components, the update through a local pointer declared
  in the leaf, and sometimes a plain read or a second operator that must keep it sequential;
- `bound`: a loop bounded by a struct field or an array element (analysis/invariants.py) that a
  helper, a write through an `int *` the caller points at the field, or an element write changes,
  or does not;
- `scratch`: a row from a struct (`row_of(w)`) filled and read by every iteration
  (analysis/shared_scratch.py), sometimes read before it is written or filled only in part;
- `index`: index scalars (`int p = i * m + j;`, analysis/index_scalars.py) changed later in the
  block or not;
- `copies`: local pointers copied from parameters (analysis/param_copies.py), two copies of one
  parameter, a reassigned parameter or copy, called with the same, overlapping or disjoint arrays;
- `csr`: a row loop over offsets (analysis/row_ranges.py) that also writes the values, with
  offsets that do or do not decrease (overlapping rows);
- `same`: an elementwise loop called with identical, overlapping or disjoint pointers (the run-time
  test that accepts "disjoint or identical");
- `product`: matrix products with sizes not divisible by the unroll factors, triangular and
  empty ranges (transform/unroll.py, accumulators.py), and a function-level accumulator scalar;
- `search`: a `while` search and a `break` out of an inner loop (irregular.py's dynamic schedule);
- `wrap`: unsigned arithmetic that wraps in a condition, an index scalar or a loop's start (found
  two miscompiles: tests/reliability/cases/unsigned_*_wraps.c).

A program whose calls keep `--assume-no-alias`'s promise (no two pointer parameters, nor fields
through them, overlap) says so on its first line, `/* lift-options: assume_no_alias */`, and
fuzz.py lifts it with that flag. Every program is deterministic and free of undefined
behaviour: indices are bounded by construction (neighbour lists are built in range, pointers
into the middle of a buffer have room on both sides), `double` values are multiples of 1/8
small enough that every sum is exact in any order (so a reduction's result is the same to the
bit), `unsigned` arithmetic wraps. `main` prints a checksum of every array and scalar.
"""
from __future__ import annotations

import random

KERNELS = ("cellscan", "bound", "scratch", "index", "copies", "csr", "same", "product", "search", "wrap")


class ReachGen:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.noalias = self.rng.random() < 0.35
        self.funcs: list[str] = []
        self.calls: list[str] = []
        self.sums: list[tuple[str, str, str]] = []  # (label, array, length) checksummed by main
        self.scalars: list[str] = []  # doubles printed by main
        self.statics: list[str] = []
        self.uid = 0

    def fresh(self, base: str) -> str:
        self.uid += 1
        return f"{base}{self.uid}"

    def array(self, elem: str, length: int, fill: str = "d") -> str:
        """A static array of main's file, filled by main with small exact values, checksummed."""
        name = self.fresh("g")
        self.statics.append(f"static {elem} {name}[{length}];")
        self.fills.append((name, elem, length, fill))
        self.sums.append((name, name, str(length)))
        return name

    # -- kernels ---------------------------------------------------------------------------
    def cellscan(self) -> None:
        r = self.rng
        n = r.randint(1, 60)
        dim = r.choice((1, 1, 3))
        outside = r.random() < 0.5  # neighbours in [-n, 2n) of a pointer into the middle of a buffer
        per = r.randint(0, 6)
        start, atoms = self.array("int", n + 1, "none"), self.array("int", n * per + 1, "none")
        x = self.array("double", n)
        buf = self.array("double", 3 * n * dim if outside else n * dim)
        f = self.fresh("cellscan")
        op_i, op_j = r.choice((("+=", "-="), ("-=", "+="), ("+=", "+=")))
        jump = r.choice(("", "", "if (j >= i) break;", "if (j == i) continue;", "if (j > i + 2) break;"))
        local = r.random() < 0.25
        adversary = r.choice(("",) * 10 + ("read", "second", "assign", "call"))
        comp = "3 * " if dim == 3 else ""
        lines = [f"int j = nb[k];", jump, "double d = x[i] - x[(j % n + n) % n];"]
        # three components: a loop over them (cellmd's `f[3*j+d]`) or each written out
        spelled = dim == 3 and r.random() < 0.5
        if dim == 3 and not spelled:
            lines.append("for (int c = 0; c < 3; c++) {")
        off = " + c" if dim == 3 else ""
        lines.append(f"f[{comp}i{off}] {op_i} d;")
        if local:
            shift = r.choice(("0", "e"))
            lines.append(f"double *q = f + {shift};")
            target = f"q[{comp}j{off}{' - e' if shift == 'e' else ''}]"
        else:
            target = f"f[{comp}j{off}]"
        lines.append(r.choice((f"{target} {op_j} d;", f"{target} {op_j} 0.5 * d;"))
                     if adversary != "assign" else f"{target} = {target} - d;")
        if adversary == "read":
            lines.append(f"e += f[{comp}j{off}] * 0.125;")
        elif adversary == "second":
            lines.append(f"f[{comp}j{off}] *= 1.0;")
        elif adversary == "call":
            lines.append(f"{f}_poke(f, {comp}j{off});")
        if spelled:
            component = lines[3:]
            spelled_out = [t.replace(" + c", f" + {c}") for c in range(3) for t in component]
            lines[3:] = [t for k, t in enumerate(spelled_out)  # the local pointer declared once
                         if not t.startswith("double *q") or k == spelled_out.index(t)]
        elif dim == 3:
            lines.append("}")
        lines.append("e += d * d;")
        body = "\n            ".join(x for x in lines if x)
        if adversary == "call":
            self.funcs.append(f"static void {f}_poke(double *f, int at) {{ f[at] += 0.25; }}")
        self.funcs.append(f"""static double {f}(int n, const int *start, const int *nb, const double *x, double *f, int e)
{{
    double en = 0.0;
    for (int i = 0; i < n; i++) {{
        for (int k = start[i]; k < start[i + 1]; k++) {{
            {body.replace('e += ', 'en += ')}
        }}
    }}
    return en + e;
}}""")
        lo, span = (-n, 3 * n) if outside else (0, n)
        empty = r.choice((0, 3, 7))
        self.setup.append(f"""    {{ int m = 0;
      for (int i = 0; i < {n}; i++) {{
        {start}[i] = m;
        if ({empty} == 0 || i % {empty or 1} != 0)
          for (int k = 0; k < {per} && k < (i * 5 + 3) % {per + 1}; k++) {atoms}[m++] = (i * 31 + k * 97) % {span} + ({lo});
      }}
      {start}[{n}] = m; }}""")
        res = self.fresh("e")
        self.scalars.append(res)
        base = f"{buf} + {n * dim}" if outside else buf
        if not self.noalias and r.random() < 0.2:
            x = r.choice((buf, base))  # the positions are the forces' own memory: f[i] += d changes x
        self.calls.append(f"double {res} = {f}({n}, {start}, {atoms}, {x}, {base}, {r.randint(0, 3)});")

    def bound(self) -> None:
        r = self.rng
        n = r.randint(2, 80)
        f = self.fresh("bound")
        b = self.array("double", n + 8)
        how = r.choice(("field", "element"))
        change = r.choice(("none", "none", "helper", "pointer", "element", "helper-other"))
        cnt = self.array("int", 4, "none")
        aux = self.array("int", 4, "none")
        st = self.fresh("s")
        self.setup.append(f"    {cnt}[0] = {n}; {cnt}[1] = {n // 2}; {cnt}[2] = 1; {cnt}[3] = 0;"
                          f" {aux}[0] = 3; {aux}[1] = 4; {aux}[2] = 5; {aux}[3] = 6;")
        bound = "s->n" if how == "field" else "cnt[0]"
        ch = {"none": "", "helper": f"{f}_shrink(s, i);", "helper-other": f"{f}_shrink(t, i);",
              "pointer": "np[(i + 1) % 2] = np[(i + 1) % 2] - (i == 3);",
              "element": "cnt[(i + 1) % 3] = cnt[(i + 1) % 3] - (i == 2);"}[change]
        self.funcs.append(f"""struct {f}_s {{ int n; int m; double *a; }};
static void {f}_shrink(struct {f}_s *s, int i) {{ if (i == 4) s->n = s->n - 2; }}
static void {f}(struct {f}_s *s, struct {f}_s *t, int *np, int *cnt, double *b)
{{
    for (int i = 0; i < {bound}; i++) {{
        b[i] = b[i] * 0.5 + s->a[i % s->m] + {r.choice(('1.0', '0.25 * i'))};
        {ch}
    }}
}}""")
        other = self.fresh("s")
        # the field `a` is `b` itself (b[i] then reads elements the loop writes) unless the
        # program keeps --assume-no-alias's promise, which a field through a parameter is under
        field = self.array("double", n + 8) if self.noalias or r.random() < 0.5 else b
        self.setup.append(f"    struct {f}_s {st} = {{ {n}, {max(1, n // 3)}, {field} }};\n"
                          f"    struct {f}_s {other} = {{ {n}, 1, {field} }};")
        np = r.choice((f"&{st}.n", aux, f"&{other}.n", cnt)) if change == "pointer" else aux
        t = r.choice((f"&{st}", f"&{other}"))
        if self.noalias:
            np, t = aux, f"&{other}"
        self.calls.append(f"{f}(&{st}, {t}, {np}, {cnt}, {b});")
        self.calls.append(f"printf(\"{f} %d %d\\n\", {st}.n, {other}.n);")

    def scratch(self) -> None:
        r = self.rng
        rows, m = r.randint(1, 24), r.randint(1, 20)
        f = self.fresh("scratch")
        rowbuf = self.array("double", m + 4)
        src, out = self.array("double", (rows + 2) * m), self.array("double", rows * m + 4)
        fill_hi = r.choice(("m", "m", "m - (i % 2)", "m - 1"))
        read = r.choice(("row[j]", "row[j]", "row[(j + 1) % m]", "row[m - 1 - j]", "row[j + 1]",
                         "(i == 0 ? 0.0 : row[j])"))
        before = r.choice(("", "", "", "out[i * m] += row[0];"))
        self.funcs.append(f"""struct {f}_w {{ int n; double *row; }};
static double *{f}_row(const struct {f}_w *w) {{ return w->row; }}
static void {f}(struct {f}_w *w, int rows, int m, const double *src, double *out)
{{
    double *row = {f}_row(w);
    for (int i = 0; i < rows; i++) {{
        {before}
        for (int j = 0; j < {fill_hi}; j++)
            row[j] = 0.5 * src[i * m + j] + 0.25 * src[(i + 1) * m + j];
        for (int j = 0; j < m{' - 1' if read == 'row[j + 1]' else ''}; j++)
            out[i * m + j] = {read} + 0.125 * src[(i + 2) * m + j];
    }}
}}""")
        w = self.fresh("w")
        self.setup.append(f"    struct {f}_w {w} = {{ {m}, {rowbuf} }};")
        self.calls.append(f"{f}(&{w}, {rows}, {m}, {src}, {out});")

    def index(self) -> None:
        r = self.rng
        n, m = r.randint(2, 20), r.randint(2, 20)
        f = self.fresh("index")
        a, b = self.array("double", n * m + 2 * m + 2), self.array("double", n * m + 2 * m + 2)
        later = r.choice(("",) * 4 + ("p = p + 1;", "p = i;", "p += m;", "if (j == 1) p = 0;"))
        after = r.choice(("",) * 3 + ("b[p] += 1.0;", "b[p + 1] = a[p] * 0.5;", "a[p] += 1.0;"))
        self.funcs.append(f"""static int {f}(int n, int m, double *a, double *b)
{{
    int p = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {{
            {r.choice(('int ', ''))}p = i * m + j;
            a[p] = b[p + m] * 0.5 + {r.choice(('1.0', '1.0', 'b[p]', 'a[p + 1]'))};
            {later}
            {after}
        }}
    return {r.choice(('p', '0', '0'))};
}}""")
        res = self.fresh("p")
        self.calls.append(f"int {res} = {f}({n}, {m}, {a}, {b}); printf(\"{res} %d\\n\", {res});")

    def copies(self) -> None:
        r = self.rng
        n = r.randint(2, 90)
        f = self.fresh("copies")
        a, b = self.array("double", n + 8), self.array("double", n + 8)
        r_src = r.choice(("a", "b"))
        reassign = r.choice(("", "", "", "a = b + 1;", "q = b;", "a++;"))
        shift = r.choice(("0", "1", "2"))
        self.funcs.append(f"""static void {f}(double *a, double *b, int n)
{{
    {reassign if reassign.startswith('a') else ''}
    double *q = a;
    double *r = {r_src};
    {reassign if reassign.startswith('q') else ''}
    for (int i = 0; i < n; i++)
        q[i + {shift}] = r[i] * 0.5 + {r.choice(('b[i]', '1.0', 'q[i + 1]'))};
}}""")
        if self.noalias:
            args = (a, b)
        else:
            args = r.choice(((a, b), (a, a), (a, f"{a} + 1"), (f"{a} + 2", a), (b, a)))
        self.calls.append(f"{f}({args[0]}, {args[1]}, {n});")
        # a field through a parameter, set by the function or a helper it hands the struct to
        c = self.array("double", n + 8)
        setter = r.choice(("", "s->f = b + 1;", f"{f}_set(s, b);", f"{f}_set(s, s->f);"))
        self.funcs.append(f"""struct {f}_s {{ double *f; int n; }};
static void {f}_set(struct {f}_s *t, double *b) {{ t->f = b + 1; }}
static void {f}_field(struct {f}_s *s, double *b, int n)
{{
    {setter}
    double *f = s->f;
    for (int i = 0; i < n - 2; i++)
        {r.choice(('f', 's->f'))}[i] = b[i] * 0.5 + 1.0;
}}""")
        st = self.fresh("s")
        self.setup.append(f"    struct {f}_s {st} = {{ {c}, {n} }};")
        self.calls.append(f"{f}_field(&{st}, {b if self.noalias else r.choice((b, c))}, {n});")

    def csr(self) -> None:
        r = self.rng
        rows = r.randint(1, 40)
        f = self.fresh("csr")
        nnz = rows * 4 + 4
        ptr, col = self.array("int", rows + 1, "none"), self.array("int", nnz, "none")
        val, x, y = self.array("double", nnz), self.array("double", rows + 4), self.array("double", rows + 4)
        decrease = r.random() < 0.4
        write = r.choice(("", "val[k] = val[k] * 0.5 + 1.0;", "val[k] += 0.25;"))
        self.setup.append(f"""    for (int i = 0; i <= {rows}; i++) {ptr}[i] = {'(i * 3) % 7 + i' if decrease else 'i * 3 + (i % 2)'};
    for (int k = 0; k < {nnz}; k++) {col}[k] = (k * 7) % {rows + 1};""")
        self.funcs.append(f"""static void {f}(int rows, const int *ptr, const int *col, double *val, const double *x, double *y)
{{
    for (int i = 0; i < rows; i++) {{
        double s = 0.0;
        for (int k = ptr[i]; k < ptr[i + 1]; k++) {{
            s += val[k] * x[col[k]];
            {write}
        }}
        y[i] = s;
    }}
}}""")
        yy = r.choice((y, y, f"{x} + 1", x)) if not self.noalias else y
        self.calls.append(f"{f}({rows}, {ptr}, {col}, {val}, {x}, {yy});")

    def same(self) -> None:
        r = self.rng
        n = r.randint(1, 90)
        f = self.fresh("same")
        a, b = self.array("double", n + 8), self.array("double", n + 8)
        body = r.choice(("a[i] = b[i] * 0.5 + c[i];", "a[i] += b[i] + c[i];", "a[i] = b[i] + b[i + 1];"))
        self.funcs.append(f"""static void {f}(double *a, const double *b, const double *c, int n)
{{
    for (int i = 0; i < n; i++)
        {body}
}}""")
        if self.noalias:
            args = (a, b, b)
        else:
            args = r.choice(((a, a, b), (a, b, a), (a, f"{a} + 1", b), (f"{a} + 1", a, b), (a, b, b)))
        self.calls.append(f"{f}({', '.join(args)}, {n});")

    def product(self) -> None:
        r = self.rng
        n, m, p = r.randint(0, 13), r.randint(1, 13), r.randint(0, 13)
        f = self.fresh("product")
        A, B, C = self.array("double", n * p + 1), self.array("double", p * m + 1), self.array("double", n * m + 1)
        kb = r.choice(("p", "p", "(i < p ? i : p)", "(j < p ? j : p)"))
        jb = r.choice(("m", "m", "(i + 1 < m ? i + 1 : m)"))
        acc = r.random() < 0.5
        if acc:
            body = f"""acc = {r.choice(('0.0', 'C[i * m + j]'))};
            for (int k = 0; k < {kb}; k++)
                acc += A[i * p + k] * B[k * m + j];
            C[i * m + j] = acc;"""
        else:
            body = f"""for (int k = 0; k < {kb}; k++)
                C[i * m + j] += A[i * p + k] * B[k * m + j];"""
        self.funcs.append(f"""static double {f}(int n, int m, int p, const double *A, const double *B, double *C)
{{
    double acc = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < {jb}; j++) {{
            {body}
        }}
    return {r.choice(('acc', '0.0', '0.0'))};
}}""")
        res = self.fresh("acc")
        self.scalars.append(res)
        if not self.noalias and r.random() < 0.3:  # the product into one of its factors (sizes fit: C is the smallest)
            C = r.choice((A, B)) if n * m <= min(n * p, p * m) else C
        self.calls.append(f"double {res} = {f}({n}, {m}, {p}, {A}, {B}, {C});")

    def search(self) -> None:
        r = self.rng
        n, m = r.randint(1, 40), r.randint(1, 30)
        f = self.fresh("search")
        keys, out = self.array("double", m + 1), self.array("double", n + 1)
        hits = self.array("int", n + 1, "none")
        form = r.choice(("while", "break"))
        if form == "while":
            inner = """int k = 0;
        while (k < m && keys[k] < v)
            k++;"""
        else:
            inner = """int k;
        for (k = 0; k < m; k++)
            if (keys[k] >= v)
                break;"""
        self.funcs.append(f"""static void {f}(int n, int m, const double *keys, double *out, int *hits)
{{
    for (int i = 0; i < n; i++) {{
        double v = 0.125 * ((i * 37) % 64);
        {inner}
        hits[i] = k;
        out[i] += k < m ? keys[k] : -1.0;
    }}
}}""")
        self.calls.append(f"{f}({n}, {m}, {keys}, {out}, {hits});")

    def wrap(self) -> None:
        """Unsigned arithmetic that wraps around (`(unsigned)(i - 1) >= n`, `unsigned c = i - 1;`,
        `for (unsigned k = i - 1; ...)`): defined C, where the model's integers go below zero."""
        r = self.rng
        n = r.randint(2, 90)
        f = self.fresh("wrap")
        a, t = self.array("double", n + 4), self.array("double", n + 4)
        ty = r.choice(("unsigned", "size_t", "unsigned long"))
        lag = r.randint(0, 3)
        form = r.choice(("cast", "scalar", "start", "start-scalar"))
        if form == "cast":
            body = f"""if (({ty})(i - {lag}) >= ({ty})n)
            t[n - 1] += 2.0;
        else
            a[i] = t[i] * 0.5 + 1.0;"""
        elif form == "scalar":
            body = f"""{ty} c = i - {lag};
        if (c {r.choice(('>=', '>'))} ({ty})n - 1)
            t[{r.choice(('n - 1', '0', 'n / 2'))}] = 3.0 + i;
        else
            a[i] += t[i] * 0.25;"""
        else:
            lo = f"i - {lag}" if form == "start" else "lo"
            body = f"""{f"{ty} lo = i - {lag};" if form == "start-scalar" else ""}
        for ({ty} k = {lo}; k < ({ty})i + 1; k++)
            s = t[i] + 0.5 * (k % 4);
        a[i] = s;"""
        self.funcs.append(f"""static double {f}(int n, double *a, double *t)
{{
    double s = 0.25;
    for (int i = 0; i < n; i++) {{
        {body}
    }}
    return s;
}}""")
        res = self.fresh("w")
        self.scalars.append(res)
        self.calls.append(f"double {res} = {f}({n}, {a}, {t});")

    # -- the program -----------------------------------------------------------------------
    def program(self) -> str:
        self.fills: list[tuple[str, str, int, str]] = []
        self.setup: list[str] = []
        kinds = [self.rng.choice(KERNELS) for _ in range(self.rng.randint(2, 4))]
        for kind in kinds:
            getattr(self, kind)()
        fill = []
        for name, elem, length, how in self.fills:
            if how == "none":
                continue
            value = f"0.125 * ((i * 29 + {len(fill)}) % 41) - 2.0" if elem == "double" else f"(i * 7) % 13"
            fill.append(f"    for (int i = 0; i < {length}; i++) {name}[i] = {value};")
        sums = [f'    {{ double t = 0; for (int i = 0; i < {length}; i++) t += {name}[i] * (i % 7 + 1);'
                f' printf("{label} %.17g\\n", t); }}' for label, name, length in self.sums]
        scal = [f'    printf("{s} %.17g\\n", {s});' for s in self.scalars]
        head = "/* lift-options: assume_no_alias */\n" if self.noalias else ""
        calls = [f"    {c}" for c in self.calls]
        return head + "\n".join(["#include <stdio.h>", "#include <stddef.h>", *self.statics, "", *self.funcs, "",
                                 "int main(void)", "{", *fill, *self.setup, *calls, *sums, *scal,
                                 "    return 0;", "}", ""])


def generate(seed: int) -> str:
    return ReachGen(seed).program()


if __name__ == "__main__":
    import sys
    print(generate(int(sys.argv[1]) if len(sys.argv) > 1 else 1))
