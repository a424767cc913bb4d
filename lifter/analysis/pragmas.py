"""What the pragmas right before a loop mean for lift: the user took the loop, the pragma is bound
to it, or it is only a marker.

Polyhedral codes mark their static control parts with `#pragma scop` / `#pragma endscop`, and
compilers ignore pragmas they do not know: such markers say nothing against analysing the loop,
and they stay byte for byte where they are (lift's directives go on the loop's own line, after
them). A pragma that parallelizes or offloads (`omp`, `acc`, ...) means the user already decided
how the loop runs. A loop pragma of the compilers (`GCC ivdep`, `GCC unroll`, `clang loop`,
`unroll`, ...) must be followed by the loop itself: gcc and clang reject a `#pragma omp` between
them, so that loop stays as written, while the loops inside it are analysed.
"""
from __future__ import annotations

from enum import Enum

# First words of pragmas that parallelize, vectorize under the user's control, or offload.
_TAKEN = frozenset({"omp", "acc", "cilk", "offload", "offload_attribute", "parallel", "simd", "hmpp", "loop"})
# Loop pragmas that must be followed by the loop (first word, or `GCC`/`clang` and second word).
_BOUND = frozenset({"unroll", "nounroll", "unroll_and_jam", "nounroll_and_jam", "ivdep", "vector", "novector",
                    "loop_count", "distribute_point", "nofusion", "fusion"})
_BOUND_GCC = frozenset({"ivdep", "unroll", "novector"})


class PragmaRole(Enum):
    MARKER = "marker"
    BOUND = "bound"
    TAKEN = "taken"


def pragma_role(text: str) -> PragmaRole:
    """The role of one pragma, from its text after `#pragma` (pycparser's Pragma.string)."""
    words = text.replace("(", " ").split()
    if not words:
        return PragmaRole.MARKER
    first = words[0]
    if first in _TAKEN:
        return PragmaRole.TAKEN
    if first in _BOUND:
        return PragmaRole.BOUND
    second = words[1] if len(words) > 1 else ""
    if (first == "GCC" and second in _BOUND_GCC) or (first == "clang" and second == "loop"):
        return PragmaRole.BOUND
    return PragmaRole.MARKER


def strongest(texts: list[str]) -> tuple[PragmaRole, str] | None:
    """The role that decides for a loop preceded by these pragmas, with the pragma that has it
    (a taken loop outranks a bound one, which outranks markers); None if all are markers."""
    for role in (PragmaRole.TAKEN, PragmaRole.BOUND):
        for text in texts:
            if pragma_role(text) is role:
                return role, text
    return None
