"""A lift tasklet's statement as DaCe tasklet code over connectors.

DaCe's tasklets see no containers, only connectors that memlets bind to single elements: the
statement `C[i][j] += (alpha * A[i][k]) * B[k][j]` becomes `__out = __in0 + ((__in1 * __in2) *
__in3);` with `__in0` bound to `C[i][j]`, `__in1` to `alpha`, and so on. The accesses are the
tasklet's memlets' texts (`Memlet.text`, the access as the statement's printer wrote it), so they
are found in the statement by text: each distinct read becomes one input connector, the assigned
element the output connector.

A reduction (the write's `wcr`) leaves the old value out: `s += e` and `s = s + e` become
`__out = e;` and DaCe's write-conflict resolution adds it (`s -= e` becomes `__out = -(e);` with
`+`). A statement whose shape is not `access op= expression` (an opaque one, several
statements, a call with side effects on its own) has no such form: `None`, and the exporter
keeps the C text.

A statement under `if`s inside its map (the tasklet's `conditions`) writes its element always,
the old value where the conditions fail: `if (c) p[i] = e` becomes `__out = (c) ? (e) : (__in0);`
with `__in0` bound to `p[i]`, so DaCe's memlet moves exactly one element and the map stays free
of control flow (lift only parallelizes such a map when no other iteration writes that element).
A reduction under conditions adds the operator's identity instead (`s += e` under `c` becomes
`__out = (c) ? (e) : 0;`); `min` and `max` have none of every type: `None`.

A statement of another shape over single elements (`if (d > diff) diff = d;`, an `if` around
several assignments) keeps its C text over connectors (`statement_code`): each element it writes
is an output connector that starts as the element's old value, so the statement's own reads of it
see what it wrote and a write it skips leaves the old value, as in C.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_IDENTITY = {"+": "0", "-": "0", "*": "1", "|": "0", "^": "0", "||": "0", "&&": "1"}
_REDUCTIONS = {"+": "Sum", "*": "Product", "min": "Min", "max": "Max", "&": "Bitwise_And", "|": "Bitwise_Or",
               "^": "Bitwise_Xor", "&&": "Logical_And", "||": "Logical_Or"}
_ASSIGN = re.compile(r"\s*(\+|-|\*|/|%|&|\||\^|<<|>>)?=(?!=)\s*(.*)$", re.S)


@dataclass
class TaskletCode:
    code: str
    inputs: dict[str, str]  # connector -> the access text it reads
    output: str  # the connector written
    wcr: str | None  # the reduction operator kept on the output memlet, None for a plain write


def _pattern(text: str) -> re.Pattern:
    """The access `text` as a whole access: not the tail of a longer name or member access."""
    return re.compile(r"(?<![\w.>\]])" + re.escape(text) + (r"(?![\w\[])" if text[-1:].isalnum() or
                                                          text[-1:] == "_" else r"(?!\[)"))


def assignment(code: str, write: str, wcr: str | None) -> tuple[str | None, str, str | None] | None:
    """The statement as (its operator, its value, its reduction) where it is one assignment to `write`
    (`s++` is `s += 1`), else None. Under the reduction `wcr`, `s += e` and `s = s + e` give `e` (`s -= e`
    under `+`: `-(e)`); where the value reads the reduced element again, or the operator is not the
    reduction's, the reduction is None: a plain read-modify-write."""
    code = code.strip().rstrip(";")
    for op in ("+", "-"):  # `s++` and `++s` are `s += 1`
        if code in (f"{write}{op}{op}", f"{op}{op}{write}"):
            code = f"{write} {op}= 1"
    if not code.startswith(write) or ";" in code or "\n" in code:
        return None
    match = _ASSIGN.match(code[len(write):])
    if match is None:
        return None
    op, value = match.group(1), match.group(2)
    if wcr is not None:
        if op is None and value.startswith(f"{write} {wcr} "):  # s = s + e
            op, value = wcr, value[len(write) + len(wcr) + 2:]
        if op not in (wcr, "-" if wcr == "+" else None):
            wcr = None  # not the reduction's own form: a plain read-modify-write
    if wcr is not None and _pattern(write).search(value):
        wcr = None  # the reduced element is read again in the value
    if wcr is not None and op == "-" and wcr == "+":
        value = f"-({value})"
    return op, value, wcr


def tasklet_code(code: str, reads: list[str], write: str, wcr: str | None,
                 conditions: list[str] = ()) -> TaskletCode | None:
    """The statement over connectors, or None where it is not one assignment to `write`; under
    `conditions` (C text, all must hold) `reads` must hold `write` too (the value kept otherwise)."""
    parsed = assignment(code, write, wcr)
    if parsed is None:
        return None
    op, value, wcr = parsed
    if wcr is None and op is not None:
        value = f"{write} {op} ({value})"
    if conditions:
        if wcr is not None and wcr not in _IDENTITY:
            return None
        test = " && ".join(f"({c})" for c in conditions)
        value = f"({test}) ? ({value}) : ({write if wcr is None else _IDENTITY[wcr]})"
    inputs = {}
    for text in sorted(dict.fromkeys(reads), key=len, reverse=True):
        pattern = _pattern(text)
        if not pattern.search(value):
            continue
        connector = f"__in{len(inputs)}"
        inputs[connector] = text
        value = pattern.sub(connector, value)
    return TaskletCode(f"__out = {value};", inputs, "__out", wcr)


def subscripts(text: str, name: str) -> list[str] | None:
    """The subscripts of the access `text` of the container `name` (`hist[key[i]]` of `hist`: `key[i]`),
    None where the text is not `name[...]...[...]`."""
    rest, out = text[len(name):], []
    if not text.startswith(name):
        return None
    while rest:
        depth, end = 0, None
        for k, ch in enumerate(rest):
            depth += {"[": 1, "]": -1}.get(ch, 0)
            if depth == 0:
                end = k
                break
        if rest[0] != "[" or end is None:
            return None
        out.append(rest[1:end])
        rest = rest[end + 1:]
    return out or None


def over_arrays(code: str, elements: dict[str, str], write: str | None, wcr: str | None) -> str | None:
    """The statement with each access text of `elements` replaced by its element of an array connector
    (`hist[key[i]]` by `__arr0[key[i]]`: DaCe binds the connector to the whole array, as a pointer,
    where the access is data-dependent). A reduction `wcr` of such an element becomes DaCe's atomic
    update of it, since the parallel iterations may hit the same one; None where the statement is
    not of the reduction's form then."""
    def replaced(text: str) -> str:
        for access in sorted(elements, key=len, reverse=True):
            text = _pattern(access).sub(lambda _: elements[access], text)
        return text

    if wcr is None:
        return replaced(code.strip().rstrip(";")) + ";"
    parsed = assignment(code, write, wcr)
    if parsed is None or parsed[2] is None or wcr not in _REDUCTIONS:
        return None
    target = elements[write]
    connector = target.split("[")[0]
    return (f"dace::wcr_fixed<dace::ReductionType::{_REDUCTIONS[wcr]}, std::remove_pointer_t<decltype({connector})>>"
            f"::reduce_atomic(&{target}, {replaced(parsed[1])});")


@dataclass
class StatementCode:
    code: str
    inputs: dict[str, str]  # connector -> the access text it reads (the written elements' old values too)
    outputs: dict[str, str]  # connector -> the access text it writes


def statement_code(code: str, reads: list[str], writes: list[str], names: set[str],
                   conditions: list[str] = ()) -> StatementCode | None:
    """The C statement (under `conditions`) over connectors, or None where some access of it is not
    among `reads` and `writes` (the texts of its memlets, each one element): a container of `names`
    still named in the text after the substitution."""
    guard = "".join(f"if ({c}) " for c in conditions)
    text = f"{guard}{{ {code.strip().rstrip(';')}; }}"
    inputs, outputs = {}, {}
    for access in sorted(dict.fromkeys(reads + writes), key=len, reverse=True):
        pattern = _pattern(access)
        if not pattern.search(text):
            if access in writes:
                return None
            continue
        connectors = outputs if access in writes else inputs
        connector = f"__{'out' if access in writes else 'in'}{len(connectors)}"
        connectors[connector] = access
        text = pattern.sub(connector, text)
    if any(re.search(rf"(?<![\w.])(?<!->){re.escape(name)}\b", text) for name in names):
        return None
    starts = []
    for connector, access in outputs.items():
        old = f"__in{len(inputs)}"
        inputs[old] = access
        starts.append(f"{connector} = {old};")
    return StatementCode(" ".join(starts + [text]), inputs, outputs)
