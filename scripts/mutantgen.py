"""Near misses of the suite kernels: `corpus/suite/*.c` with their static control parts mutated.

`generate(seed)` returns one complete C program (a `str`), the same for the same seed.

`loopgen.py`, `idiomgen.py` and `reachgen.py` draw programs of their own; this generator starts
from the kernels lift is tuned on, where its heaviest transformations fire (tiling, triangular
tiling, wavefronts, unroll-and-jam, fusion, scratch rows), and moves each a step off its known
shape, so that a dependence the kernel did not have appears or one it had disappears:

- every loop of the `#pragma scop` part loses its first and last iteration (`for (i = lo; i <
  hi; i++)` becomes `for (i = (lo) + 1; i <= (hi) - 2; i++)`, downward loops alike), so that a
  subscript moved by one stays inside its array, and triangular bounds change shape; one loop in
  five also runs the other way, which reverses every dependence it carries;
- one to three subscripts are moved by +1 or -1 (`A[i][j]` -> `A[i][j - 1]`), which turns
  independent iterations into dependent ones and the other way round;
- sometimes one loop variable in a subscript is replaced by another in scope (`A[k][j]` ->
  `A[i][j]`), which changes the direction or the distance of a dependence, or reads a loop's
  variable outside that loop (the kernels' `int i, j, k;` start at 0, so that is defined; so do
  their `double` scalars, which an update made of an assignment would read first);
- one loop in ten runs up to another loop's variable instead of its own bound (a triangle, or a
  loop that runs a fixed count where that variable is not an enclosing loop's);
- one mutation in five changes a one-line statement instead: under `if (v % 3 != 1)` (a write
  that may not happen), or an update made an assignment and an assignment an update;
- one in ten swaps two adjacent one-line statements (a read moves before the write it needed);
- one in ten bounds a loop by a scalar set just before it (`lift_mb = hi; for (j = lo; j <
  lift_mb; j++)`), sometimes from an enclosing loop's variable: the shape of real code that
  computes a row's length before its loop, where scalar expansion and privatization must keep
  the header's text right.

Nothing here proves a mutant free of out-of-bounds accesses: `fuzz.py` builds each original with
`-fsanitize=address,undefined` (VLA bounds included) and discards those that trip it. The
programs print every element (`DUMP_ARRAYS`), so a wrong element anywhere shows.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

SUITE = Path(__file__).resolve().parent.parent / "corpus" / "suite"
SCOP = re.compile(r"#pragma scop\n(.*?)#pragma endscop", re.S)
FOR = re.compile(r"for \((int )?(\w+) = ([^;]+); \2 (<=|<|>=|>) ([^;]+); (\2\+\+|\+\+\2|\2--|--\2)\)")
# The kernels' loop variables and scalars, declared without a value (`int t, i, j;`, `double xm1, ym1;`).
COUNTERS = re.compile(r"^(\s*)(int|double) ([A-Za-z_]\w*(?:, [A-Za-z_]\w*)*);$", re.M)
# One subscript `[ ... ]` without nested brackets.
SUBSCRIPT = re.compile(r"\[([^\[\]]+)\]")


def kernels() -> list[Path]:
    return sorted(p for p in SUITE.glob("*.c") if "#pragma scop" in p.read_text())


def _shrink(match: re.Match, reverse: bool, bound: str | None = None) -> str:
    """The loop without its first and last iteration; run backwards where `reverse`; up to the
    loop variable `bound` instead of its own bound where one is given (a triangle)."""
    decl, var, lo, op, hi, step = match.groups()
    decl = decl or ""
    hi = bound if bound and bound != var else hi
    if op in ("<", "<="):
        first, last = f"({lo}) + 1", f"({hi}) - {2 if op == '<' else 1}"
        if reverse:
            return f"for ({decl}{var} = {last}; {var} >= {first}; {var}--)"
        return f"for ({decl}{var} = {first}; {var} <= {last}; {var}++)"
    first, last = f"({lo}) - 1", f"({hi}) + {2 if op == '>' else 1}"
    if reverse:
        return f"for ({decl}{var} = {last}; {var} <= {first}; {var}++)"
    return f"for ({decl}{var} = {first}; {var} >= {last}; {var}--)"


def _loop_vars(scop: str) -> list[str]:
    return sorted({m.group(2) for m in FOR.finditer(scop)})


def _mutate_subscript(text: str, rng: random.Random, names: list[str]) -> str | None:
    """`text` with one subscript that names a loop variable changed, or None where none does."""
    spots = [m for m in SUBSCRIPT.finditer(text)
             if any(re.search(rf"\b{v}\b", m.group(1)) for v in names)]
    if not spots:
        return None
    spot = rng.choice(spots)
    inner = spot.group(1)
    if rng.random() < 0.75:
        new = f"{inner} {rng.choice('+-')} 1"
    else:
        present = [v for v in names if re.search(rf"\b{v}\b", inner)]
        old = rng.choice(present)
        others = [v for v in names if v != old]
        if not others:
            return None
        new = re.sub(rf"\b{old}\b", rng.choice(others), inner, count=1)
    return text[:spot.start()] + f"[{new}]" + text[spot.end():]


# A statement on one line of the kernel: `lhs op= rhs;` (op empty for a plain assignment).
STATEMENT = re.compile(r"^(\s+)([A-Za-z_]\w*(?:\[[^;\n]*?\])*) (\+|-|\*)?= ([^;\n]+);$", re.M)


def _mutate_statement(text: str, rng: random.Random, names: list[str]) -> str | None:
    """`text` with one single-line statement changed: put under a condition on the loop
    variables (some iterations skip it: a write that may not happen), or its update turned into
    an assignment or the other way round (a reduction that is none, or one that appears)."""
    spots = list(STATEMENT.finditer(text))
    if not spots:
        return None
    spot = rng.choice(spots)
    indent, lhs, op, rhs = spot.groups()
    if rng.random() < 0.5:
        var = rng.choice(names)
        new = f"{indent}if ({var} % 3 != 1)\n{indent}    {lhs} {op or ''}= {rhs};"
    elif op:
        new = f"{indent}{lhs} = {rhs};"
    else:
        new = f"{indent}{lhs} += {rhs};"
    return text[:spot.start()] + new + text[spot.end():]


def _swap_statements(text: str, rng: random.Random, names: list[str]) -> str | None:
    """`text` with two adjacent one-line statements of one block in the other order: a value read
    before it is written, or written after it is read (flow and anti dependences swap)."""
    lines = text.split("\n")
    spots = [k for k in range(len(lines) - 1)
             if STATEMENT.fullmatch(lines[k]) and STATEMENT.fullmatch(lines[k + 1])
             and STATEMENT.fullmatch(lines[k]).group(1) == STATEMENT.fullmatch(lines[k + 1]).group(1)]
    if not spots:
        return None
    k = rng.choice(spots)
    lines[k], lines[k + 1] = lines[k + 1], lines[k]
    return "\n".join(lines)


# The scalar `_scalar_bound` sets; declared (and set to 0) before the `#pragma scop` part.
BOUND = "lift_mb"


def _scalar_bound(text: str, rng: random.Random, names: list[str]) -> str | None:
    """`text` with one loop that follows a statement or a brace bounded by a scalar set just before
    it (`lift_mb = hi; for (j = lo; j < lift_mb; j++)`), sometimes from an enclosing loop's
    variable: a scalar written in every iteration of an outer loop and read by an inner loop's
    header (scalar expansion, privatization and the header's text must agree)."""
    spots = [m for m in FOR.finditer(text)
             if m.group(4) in ("<", "<=") and re.search(r"[{;}]\s*$", text[:m.start()])
             and BOUND not in m.group(0)]
    if not spots:
        return None
    spot = rng.choice(spots)
    decl, var, lo, op, hi, step = spot.groups()
    outer = [v for v in names if v != var and re.search(rf"\b{v}\b", text[:spot.start()])]
    value = f"({hi})" if not outer or rng.random() < 0.5 else f"({hi}) - {rng.choice(outer)} % 2"
    indent = re.search(r"[ \t]*$", text[:spot.start()]).group(0)
    header = f"for ({decl or ''}{var} = {lo}; {var} {op} {BOUND}; {step})"
    return text[:spot.start()] + f"{BOUND} = {value};\n{indent}" + header + text[spot.end():]


def generate(seed: int) -> str:
    rng = random.Random(seed)
    path = rng.choice(kernels())
    source = path.read_text()
    match = SCOP.search(source)
    scop = match.group(1)
    names = _loop_vars(scop)
    if rng.random() < 0.85:
        body = FOR.sub(lambda m: _shrink(m, rng.random() < 0.2, rng.choice(names) if rng.random() < 0.1 else None),
                       scop)
    else:
        body = scop
    for _ in range(rng.randint(1, 3)):
        draw = rng.random()
        mutate = (_mutate_statement if draw < 0.2 else _swap_statements if draw < 0.3
                  else _scalar_bound if draw < 0.4 else _mutate_subscript)
        body = mutate(body, rng, names) or body
    mutated = source[:match.start(1)] + body + source[match.end(1):]
    if BOUND in body:
        start = source.rfind("\n", 0, match.start()) + 1
        mutated = mutated[:start] + f"  int {BOUND} = 0;\n" + mutated[start:]
    # A subscript may now name a loop variable outside its loop, before any loop set it.
    mutated = COUNTERS.sub(lambda m: f"{m.group(1)}{m.group(2)} {', '.join(v + ' = 0' for v in m.group(3).split(', '))};",
                           mutated)
    header = f"/* mutantgen seed {seed}: {path.name} */\n#define DUMP_ARRAYS 1\n"
    return header + mutated


if __name__ == "__main__":
    import sys
    print(generate(int(sys.argv[1]) if len(sys.argv) > 1 else 1), end="")
