"""What C allows and C++ does not, made explicit in the text before a file is lifted to CUDA.

nvcc compiles .cu files as C++, which rejects implicit conversions C performs (from `void *` to
any object pointer, from an integer to an enum, between incompatible pointers, from a pointer
with `const` to one without when the target type is known) and calls of functions declared
without a prototype (`int f();`, or not declared at all). The C compiler that checks the input
(frontend/check.py, with -Wc++-compat and -Wstrict-prototypes) says where each of them is and,
in its message or the note after it, which type is wanted; `cxx_text` turns those places into
C that is also C++: a cast to the wanted type around the operand, the parameter list of the
file's own definition in an empty declaration, a prototype before a call of a function the
file defines later. The result is still C, so it is checked and lifted like the original (its
lines are the original's: every edit stays on its line). What cannot be made explicit (the
type has no name, the place is inside a macro, a function without a prototype is defined
elsewhere, `e++` on an enum) is a located error naming the construct.

`malloc`, `calloc` and `realloc` results are left to the `lift_void_ptr` wrapper of the CUDA
output's CXX_SHIMS (backend/cuda_cxx.py)
(their text stays as written), except where the target is a pointer to a variable-length
array, which a C++ template cannot name: there the cast is written, through `void *`.
"""
from __future__ import annotations

import re

from lifter.diagnostics import LiftError
from lifter.frontend.check import CxxNote
from lifter.frontend.cxx_constructs import (array_designators, called_with_arguments, converted_operand,
                                            empty_prototype, starts_token, variably_modified,
                                            volatile_aggregate_copies, word_offsets)
from lifter.frontend.source import SourceFile, read_source

# The allocators whose `void *` the CUDA output converts by itself: backend/cuda_cxx.py's CXX_SHIMS
# wraps each of them in `lift_void_ptr`, so their results need no cast.
WRAPPED_ALLOCATORS = ("malloc", "calloc", "realloc")
_KEYWORD_NOTE = re.compile(r"""identifier ['"](\w+)['"] (?:conflicts with C\+\+ keyword|is a special operator name in C\+\+)""")
_T = r"'(?P<type>[^']*)'(?: \{aka '[^']*'\})?"  # the wanted type, as the compiler spells it
_A = r"'[^']*'(?: \{aka '[^']*'\})?"  # any other type
# messages that name the wanted type, or whose note after them does (`expected 'T' but ...`)
_CASTS = [
    re.compile(rf"request for implicit conversion from '(?:const |volatile )*void \*' to {_T} not permitted in C\+\+"),
    re.compile(rf"enum conversion from {_A} to {_T} in \w+ is invalid in C\+\+"),
    re.compile(rf"(?:initialization of|assignment to) {_T} from (?:incompatible pointer type {_A}|{_A} makes "
               rf"(?:pointer from integer|integer from pointer) without a cast)"),
    re.compile(rf"returning {_A} from a function with incompatible return type {_T}"),
    re.compile(rf"pointer targets in initialization of {_T} from {_A} differ in signedness"),
    re.compile(rf"pointer targets in assignment from {_A} to {_T} differ in signedness"),
    re.compile(rf"pointer targets in returning {_A} from a function with return type {_T} differ in signedness"),
    re.compile(r"pointer targets in passing argument \d+ of '[^']*' differ in signedness"),
    re.compile(r"(?:enum conversion when )?passing argument \d+ of '[^']*' (?:is invalid in C\+\+|from incompatible "
               r"pointer type|discards '\w+' qualifier from pointer target type|makes (?:pointer from integer|"
               r"integer from pointer) without a cast)"),
]
_EXPECTED = re.compile(r"expected '(?P<type>[^']*)'(?: \{aka '[^']*'\})? but argument is of type")
_REFUSED = re.compile(r"(?:increment|decrement) of enumeration value is invalid in C\+\+|"
                      r"(?:initialization|assignment|return) discards '\w+' qualifier from pointer target type|"
                      r"comparison of distinct pointer types lacks a cast")
# Every other warning of these says that C++ reads the code otherwise or not at all.
_NOT_CXX = {"-Wc++-compat", "-Wjump-misses-init"}
_NO_PROTOTYPE = "function declaration isn't a prototype"
_IMPLICIT = re.compile(r"implicit declaration of function '(?P<name>\w+)'")
_CXX = "the CUDA output is C++"


def keyword_names(notes: list[CxxNote]) -> set[str]:
    """The C++ keywords the compiler saw used as identifiers in the user's files (the CUDA output
    renames them: frontend/cxx_names.py)."""
    return {m[1] for n in notes if n.kind == "warning" and (m := _KEYWORD_NOTE.fullmatch(n.message))}


def cxx_text(source: SourceFile, notes: list[CxxNote]) -> str | None:
    """The text with what C++ needs made explicit, or None if it needs nothing (see above)."""
    fix = _Fixer(source)
    fix.refuse_constructs()
    for k, note in enumerate(notes):
        if note.kind != "warning" or not note.line or keyword_names([note]):  # names: frontend/cxx_names.py
            continue
        after = notes[k + 1] if k + 1 < len(notes) and notes[k + 1].kind == "note" else None
        cast = next((m for p in _CASTS if (m := p.fullmatch(note.message))), None)
        refused = _REFUSED.fullmatch(note.message) or note.option in _NOT_CXX and cast is None
        wanted = cast and (cast["type"] if "type" in cast.re.groupindex else
                           after and (e := _EXPECTED.match(after.message)) and e["type"])
        if note.path != source.path:
            if cast:  # the header is not edited: it is C++ only if no cast is needed (a wrapped malloc)
                header = _Fixer(read_source(note.path))
                header.cast(note, wanted or None, cast.re is _CASTS[0])
            if refused or cast and header.edits or _IMPLICIT.match(note.message):
                raise fix.error(note, f"{note.message} ({_CXX}, and lift edits only the file it lifts: "
                                      f"make this header's code C++ as well)")
            continue
        if refused:
            raise fix.error(note, f"{note.message} ({_CXX}: write it as C and C++ both allow)")
        if cast is not None:
            fix.cast(note, wanted or None, cast.re is _CASTS[0])
        elif note.message == _NO_PROTOTYPE:
            fix.prototype(note)
        elif m := _IMPLICIT.match(note.message):  # "...; did you mean 'g'?" may follow
            fix.declare(note, m["name"])
    if not fix.edits:
        return None
    out, last = [], 0
    for start, end, text in sorted(fix.edits.values()):
        out += [source.text[last:start], text]
        last = end
    out.append(source.text[last:])
    return "".join(out)


class _Fixer:
    def __init__(self, source: SourceFile):
        self.source = source
        self.cfile = source.cfile
        self.edits: dict[tuple, tuple[int, int, str]] = {}

    def error(self, note: CxxNote, message: str) -> LiftError:
        return LiftError(note.path, note.line, note.column, message)

    def refuse_constructs(self) -> None:
        """C11 atomics (`_Atomic`, <stdatomic.h>) have no spelling nvcc's C++ accepts, nor do array
        designators (`{[3] = 4}`), nor copies of whole volatile structs (C++ gives them no copy)."""
        cfile = self.cfile
        found = [(at, "C11 atomics ('_Atomic')") for at in word_offsets(cfile, "_Atomic")]
        found += [(at, "array designators in initializers ('[i] = v')") for at in array_designators(cfile)]
        found += [(tok.start, "C11 atomics (<stdatomic.h>)") for tok, name, _ in cfile.includes
                  if name == "stdatomic.h"]
        found += [(at, f"a whole volatile struct or union ('{name}') copied or assigned")
                  for at, name in volatile_aggregate_copies(cfile)]
        if found:
            at, what = min(found)
            line, column = self.source.position(at)
            raise LiftError(self.source.path, line, column, f"{what}: no C++ spelling nvcc accepts ({_CXX})")

    def _token(self, note: CxxNote, what: str) -> int:
        """The offset of the token the note points to."""
        offset = self.source.offset(note.line, note.column)
        if not starts_token(self.cfile, offset):  # inside a directive: the compiler saw a macro's expansion
            raise self.error(note, f"{note.message} in a macro's expansion ({_CXX}; {what} cannot be "
                                   f"written into the macro: write it there)")
        return offset

    def cast(self, note: CxxNote, wanted: str | None, from_void: bool) -> None:
        """`(T)(operand)` around the operand of the assignment, initializer, argument or return
        the note points into (the compiler points to an operator of it, or to its `=`)."""
        if wanted is None or "<" in wanted:  # `struct <anonymous> *`: a type C cannot name
            raise self.error(note, f"{note.message} ({_CXX}, which needs a cast here, and the type "
                                   f"{'has no name' if wanted else 'is not known'})")
        place = converted_operand(self.cfile, self._token(note, "a cast"))
        if place.compound:
            raise self.error(note, f"{note.message} ({_CXX}: write 'x = (type)(x {place.operator} y)')")
        if from_void and not variably_modified(wanted) and place.call in WRAPPED_ALLOCATORS:
            return  # CXX_SHIMS' wrapper converts it
        through = "(void *)" if from_void else ""
        where = (note.line, note.column)
        self.edits[(where, "(")] = (place.start, place.start, f"({wanted}){through}(")
        self.edits[(where, ")")] = (place.end, place.end, ")")

    def prototype(self, note: CxxNote) -> None:
        """`int f();` declares f without a prototype; C++ reads it as `int f(void)`. The file's own
        definition gives the parameters; a definition `f()` needs none."""
        found = empty_prototype(self.cfile, self._token(note, "a prototype"))
        if found is None:
            return  # a definition (its parameter list is its own) or something else
        name, start, end = found
        d = self.cfile.definition(name)
        if d is not None:
            params = self.cfile.parameters_text(d)
            if params.strip():
                self.edits[("()", start)] = (start, end, params)
            return
        if called_with_arguments(self.cfile, name):
            raise self.error(note, f"'{name}' is declared without a prototype and called with arguments "
                                   f"({_CXX}, which needs the parameter types: declare them)")

    def declare(self, note: CxxNote, name: str) -> None:
        """A call of a function not declared before it: the file's definition's prototype goes
        before the top-level declaration holding the call."""
        d = self.cfile.definition(name)
        if d is None:
            raise self.error(note, f"{note.message} ({_CXX}, which needs a declaration: include its "
                                   f"header or declare it)")
        offset = self.source.offset(note.line, note.column)
        holder = self.cfile.holding(offset)
        if holder is None:
            raise self.error(note, f"{note.message} ({_CXX}, which needs a declaration)")
        at = self.cfile.start_offset(holder)
        self.edits[("proto", name)] = (at, at, " ".join(self.cfile.head_text(d).split()) + "; ")
