"""Which remarks to print, and how: clang's -Rpass flags, gcc's -fopt-info flags, and -v.

Every loop has one remark (lifter/report.py), of one kind: `passed` (parallelized, offloaded
or reshaped), `missed` (not parallelized, for a reason that blocks it) or `analysis` (not
parallelized, and nothing missed: an enclosing loop runs its iterations in parallel). Each
names the passes it concerns (`parallelize`, `offload`, `interchange`, `distribute`, `fuse`,
`tile`, `wavefront`, `unroll`, `vectorize`, `contract`, `privatize`).

- clang: `-Rpass=REGEX`, `-Rpass-missed=REGEX`, `-Rpass-analysis=REGEX` print the remarks of
  that kind for which REGEX matches one of the pass names (searched, as clang does), tagged
  `[-Rpass=lift]` and shown with the source line, as clang shows them.
- gcc: `-fopt-info[-GROUP...][-KIND...][=FILE]`, KIND one of `optimized`, `missed`, `note`,
  `all` (default `optimized`), GROUP one of `omp`, `loop`, `vec`, `optall` (default all),
  prints gcc's one-line form (`file:line:col: optimized: ...`) on stderr or into FILE.
- `-v` prints every remark, one line each.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from lifter.diagnostics import Diagnostic

KINDS = ("passed", "missed", "analysis")
TAGS = {"passed": "-Rpass=lift", "missed": "-Rpass-missed=lift", "analysis": "-Rpass-analysis=lift"}
PASSES = ("parallelize", "offload", "interchange", "distribute", "fuse", "tile", "wavefront", "unroll",
          "vectorize", "contract", "privatize")
# gcc's words for the kinds, and its -fopt-info groups as sets of lift's passes.
GCC_KIND = {"passed": "optimized", "missed": "missed", "analysis": "note"}
_GCC_KINDS = {"optimized": {"passed"}, "missed": {"missed"}, "note": {"analysis"}, "all": set(KINDS)}
_GCC_GROUPS = {"omp": {"parallelize", "offload"}, "vec": {"vectorize"}, "optall": set(PASSES),
               "loop": set(PASSES) - {"offload", "vectorize"}, "ipa": set(), "inline": set()}
_OPT_INFO = re.compile(r"^-fopt-info(?P<parts>(?:-[a-z]+)*)(?:=(?P<file>.+))?$")


class RemarkOptionError(ValueError):
    """A -Rpass regex or -fopt-info spelling that cannot be used (a usage error)."""


def remark(entry: dict) -> Diagnostic:
    """The remark of a report entry, tagged with the flag that shows it."""
    return Diagnostic(entry["file"], entry["line"], entry["column"], "remark", entry["remark"],
                      option=TAGS[entry["kind"]])


@dataclass
class OptInfo:
    """One -fopt-info flag: the kinds and passes it prints, and where ('' for stderr)."""

    kinds: set[str]
    passes: set[str]
    file: str = ""


def parse_opt_info(flag: str) -> OptInfo:
    """`-fopt-info-omp-missed=out.txt` as an OptInfo; a RemarkOptionError for words gcc does not know."""
    m = _OPT_INFO.match(flag)
    if not m:
        raise RemarkOptionError(f"unrecognized option '{flag}'")
    kinds: set[str] = set()
    passes: set[str] = set()
    grouped = False  # a group named (one lift has no pass in, `ipa`, selects nothing)
    for word in filter(None, m["parts"].split("-")):
        if word in _GCC_KINDS:
            kinds |= _GCC_KINDS[word]
        elif word in _GCC_GROUPS:
            passes |= _GCC_GROUPS[word]
            grouped = True
        else:
            raise RemarkOptionError(f"unknown option '{word}' in '{flag}' (kinds: optimized, missed, note, all; "
                                    f"groups: omp, loop, vec, optall)")
    return OptInfo(kinds or {"passed"}, passes if grouped else set(PASSES), m["file"] or "")


@dataclass
class RemarkSelection:
    """The remark flags of one run."""

    passed: list[re.Pattern] = field(default_factory=list)
    missed: list[re.Pattern] = field(default_factory=list)
    analysis: list[re.Pattern] = field(default_factory=list)
    everything: bool = False  # -v
    opt_info: list[OptInfo] = field(default_factory=list)

    @classmethod
    def from_flags(cls, passed=(), missed=(), analysis=(), everything=False, opt_info=()) -> "RemarkSelection":
        def compile_all(flag: str, patterns) -> list[re.Pattern]:
            out = []
            for p in patterns:
                try:
                    out.append(re.compile(p))
                except re.error as exc:
                    raise RemarkOptionError(f"invalid regular expression '{p}' in '{flag}={p}': {exc}") from None
            return out

        return cls(compile_all("-Rpass", passed), compile_all("-Rpass-missed", missed),
                   compile_all("-Rpass-analysis", analysis), everything, [parse_opt_info(f) for f in opt_info])

    def __bool__(self) -> bool:
        return bool(self.passed or self.missed or self.analysis or self.everything or self.opt_info)

    def clang(self, entry: dict) -> bool:
        """Whether a -Rpass flag selects the entry's remark (shown as clang shows it)."""
        patterns = {"passed": self.passed, "missed": self.missed, "analysis": self.analysis}[entry["kind"]]
        return any(p.search(name) for p in patterns for name in entry["passes"])

    def gcc(self, entry: dict) -> list[str]:
        """The files ('' for stderr) an -fopt-info flag sends the entry's remark to."""
        return list(dict.fromkeys(o.file for o in self.opt_info
                                  if entry["kind"] in o.kinds and o.passes & set(entry["passes"])))


def gcc_line(entry: dict) -> str:
    """gcc's -fopt-info form: `file:line:col: optimized: message`."""
    return f"{entry['file']}:{entry['line']}:{entry['column']}: {GCC_KIND[entry['kind']]}: {entry['remark']}"
