"""A small fixed-seed sample of scripts/fuzz.py's generators, for CI.

The full runs (`python3 scripts/fuzz.py loops|idioms|csmith --count 1000 -j 2`) take long;
this runs a few dozen random loop nests, a few idiom programs and a handful of Csmith
programs through the same pipeline (build, run, lift with every parallel loop
parallelized, build, run at 1 and 8 threads, 1, 2 and 8 for the idioms and the reach programs,
compare), and a
few of each of the first two on the CUDA target, and expects no failure of any kind. The Csmith part needs
`apt-get install -y csmith libcsmith-dev` and is skipped without it.
"""
from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from pathlib import Path

import pytest

from tests import harness
from tests.caches import write_caches
from tests.harness import REPO, have_gcc

SCRIPTS = REPO / "scripts"
LOOP_PROGRAMS = 24
IDIOM_PROGRAMS = 6
REACH_PROGRAMS = 5
BRINK_PROGRAMS = 7
MUTANT_PROGRAMS = 8
TRAP_PROGRAMS = 6
CSMITH_PROGRAMS = 6
CUDA_PROGRAMS = 4


def _load(name: str):
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


fuzz = _load("fuzz")
loopgen = _load("loopgen")
idiomgen = _load("idiomgen")
reachgen = _load("reachgen")
brinkgen = _load("brinkgen")
mutantgen = _load("mutantgen")
trapgen = _load("trapgen")
needs_gcc = pytest.mark.skipif(not have_gcc(), reason="needs gcc")


def _failures(summary: dict) -> str:
    return "\n".join(f"{f['outcome']} seed {f['seed']}: {f['detail']}" for f in summary["failures"])


def test_the_fuzzer_judges_reductions_by_the_tests_rule():
    """One rule for when output may differ by rounding (tests/outputs.py): a reduction the
    report shows in parallel or as SIMD lanes; the fuzzer's tolerance is the tests' too."""
    assert fuzz.has_float_reduction is harness.has_float_reduction
    assert fuzz.Config().rtol == harness.REDUCTION_RTOL
    simd = {"parallelized": False, "transformations": ["simd"], "reduction": [["s", "+"]]}
    assert harness.has_float_reduction([simd])
    assert not harness.has_float_reduction([dict(simd, transformations=[])])


def test_loop_generator_is_deterministic_and_varied():
    assert loopgen.generate(7) == loopgen.generate(7)
    programs = {loopgen.generate(s) for s in range(20)}
    assert len(programs) == 20
    text = "".join(programs)
    for feature in ("+=", "if (", "for (int", "restrict", "double", "unsigned", "#define"):
        assert feature in text, feature


def test_idiom_generator_is_deterministic_varied_and_skips_what_it_is_told():
    assert idiomgen.generate(7) == idiomgen.generate(7)
    programs = {idiomgen.generate(s) for s in range(40)}
    assert len(programs) == 40
    text = "".join(programs)
    for feature in (" && ", " || ", " != ", "size_t zi", "-- > ", "while (", "struct pt ", "union cell ",
                    "_Atomic", "volatile", "malloc(", ") * m + ", "[n][m]", "(*", "break;", "continue;",
                    "return p * N + q;", "for (t = 0;", "printf(\"mid", "+= 0.125 *"):
        assert feature in text, feature
    assert any(k in text for k in ("new", "class", "this", "template")), "C++ keywords as names"
    assert "typedef enum { false, true } logical;" in text and re.search(r"static void \w+\(\);", text), "C, not C++"
    skipped = "".join(idiomgen.generate(s, ("and", "or", "struct", "atomic", "vla", "cxx")) for s in range(40))
    for feature in ("struct pt ", "_Atomic", "[n][m]", ")[m] = malloc", "logical", "();"):
        assert feature not in skipped, feature
    loop_conditions = re.findall(r"for \([^;]*;([^;]*);", skipped)
    assert loop_conditions and not [c for c in loop_conditions if "&&" in c or "||" in c]
    with pytest.raises(ValueError):
        idiomgen.generate(1, ("no-such-idiom",))


def test_reach_generator_is_deterministic_and_reaches_every_kernel():
    assert reachgen.generate(7) == reachgen.generate(7)
    programs = {reachgen.generate(s) for s in range(40)}
    assert len(programs) == 40
    text = "".join(programs)
    for kernel in reachgen.KERNELS:
        assert re.search(rf"static \w+ {kernel}\d+\(", text), kernel
    for feature in ("k < start[i + 1]", "double *q = f", "_shrink(", "_row(", "int p = i * m + j;",
                    "double *r = a;", "ptr[i + 1]", "while (k < m", "break;", "/* lift-options: assume_no_alias */"):
        assert feature in text, feature


def test_brink_generator_is_deterministic_and_reaches_every_kernel():
    assert brinkgen.generate(7) == brinkgen.generate(7)
    programs = {brinkgen.generate(s) for s in range(120)}
    assert len(programs) == 120
    text = "".join(programs)
    for kernel in brinkgen.KERNELS:
        assert re.search(rf"static \w+ {kernel}\d+\(", text), kernel
    for feature in ("[fill[b]++] = ", "unsigned char b = ", "int *t = keys + ", "&d->nodes[4 * e]", "d->v = d->x + 1;",
                    "s->cnt[0] += 1;", "q = p + ", "memmove(", "* sizeof(short)", "const int ld = n + ",
                    "for (k = 1; k <= m; k++)", "(const int *)&tab", "/* lift-options: assume_no_alias */",
                    # session 16's idioms (brink16.py), on both sides of their preconditions
                    "*r += x[i] * y[i];", "if (x[i] < *r) *r = x[i];", "q[(j * nx + i) * 4 + c]",
                    "for (int c = 0; c < 5; c++)", "while (n--)", "*p++ = i;", "u[j * (nx + 2) + nx + 1]",
                    "double *r = rows[i];", "rank[keys[i] + (", "total += alias[k]", "sorted[--t->rank[k]] = k;",
                    "sorted[--pos[k]] = k;", "*w++ = src[j * n + i] + j;", "sy += m->y[m->conn[4 * e + k]];"):
        assert feature in text, feature


def test_brink_programs_reach_the_passes_they_aim_at():
    """Program 282 has a counting sort's scatter, a Nussinov-like fill, NPB IS's ranking, a halo
    loop and a mesh's gathers through one connectivity: lift takes them as a bucket scatter, a
    diagonal wavefront, owned rows, parallel under nx >= 0 and one pass over the connectivity;
    program 136 has rows through row pointers (disjoint rows) and an accumulator behind an output
    pointer (a reduction). A generator that drifts off its targets tests nothing: re-pick the
    seeds when it changes."""
    from lifter import LiftOptions, lift_source

    def remarks(seed: int) -> str:
        return " ".join(loop["remark"] for loop in lift_source(brinkgen.generate(seed), f"brink{seed}.c",
                                                               LiftOptions(min_parallel_work=0)).loops)
    first, second = remarks(282), remarks(136)
    for reached in ("as a bucket scatter", "after diagonal wavefront", "lift_owned_rows_", "nx >= 0",
                    "lift_gathers_apart_"):
        assert reached in first, reached
    for reached in ("lift_rows_", "parallelized with reduction("):
        assert reached in second, reached


def test_mutant_generator_is_deterministic_and_moves_the_kernels():
    assert mutantgen.generate(7) == mutantgen.generate(7)
    programs = [mutantgen.generate(s) for s in range(60)]
    assert len(set(programs)) == 60
    text = "".join(programs)
    assert len({p.splitlines()[0].split(": ")[1] for p in programs}) > 20, "most suite kernels drawn"
    for feature in ("#define DUMP_ARRAYS 1", ") + 1; ", "--)", " + 1]", " - 1]", " % 3 != 1)"):
        assert feature in text, feature


def test_trap_generator_is_deterministic_and_reaches_every_kernel():
    assert trapgen.generate(7) == trapgen.generate(7)
    programs = {trapgen.generate(s) for s in range(200)}
    assert len(programs) == 200
    text = "".join(programs)
    for kernel in trapgen.KERNELS:
        assert re.search(rf"\n\w[\w ]* {kernel}\d+\(", text), kernel
    for feature in ("unsigned char k = ", "for (unsigned char c = ", "for (size_t i = (size_t)n - 1; i < (size_t)n; i--)",
                    "i != (unsigned)n", "do {", "while (i-- > 0)", "(n < m ? n : m)", "*pn -= ", "(c++, b[i] + c)",
                    "k += (b[i] > ", "best = b[i]; at = i;", "a[0] += a[i];", "double (*x)[16]", "int x[n][m]",
                    "static int s = 1;", "int (*op)(int)", "goto out;", "/* fall through */", "(const int[]){",
                    "p += 2;", "(long)i * 65536 + j", "size_t m)", "a[i * m] += t;"):
        assert feature in text, feature


def test_discarded_seeds_are_recorded():
    """A discard may hide a generator's bug: the summary names each discarded seed by reason."""
    cfg = fuzz.Config(mode="traps")
    outcomes = [fuzz.Outcome("traps", 3, "discarded", "gcc rejects the original"), fuzz.Outcome("traps", 5, "ok"),
                fuzz.Outcome("traps", 9, "discarded", "gcc rejects the original"),
                fuzz.Outcome("traps", 4, "discarded", "original timed out")]
    summary = fuzz.summarize(outcomes, cfg, 1.0)
    assert summary["discarded_seeds"] == {"gcc rejects the original": [3, 9], "original timed out": [4]}
    assert summary["discards"] == {"gcc rejects the original": 2, "original timed out": 1}


@needs_gcc
def test_trap_programs(tmp_path):
    _sample(tmp_path, "traps", 20261728, TRAP_PROGRAMS, 0, threads=(1, 2, 8))


@needs_gcc
def test_mutant_programs(tmp_path, monkeypatch):
    """Suite kernels a step off their shape, lifted for tiny caches so that their bands are
    tiled at the small sizes too. Mutants that read outside an array are discarded (sanitizers)."""
    monkeypatch.setenv("LIFT_CACHE_DIR", str(write_caches(tmp_path / "caches")))
    cfg = fuzz.Config(mode="mutants", seed=20261127, count=MUTANT_PROGRAMS, jobs=2, keep=str(tmp_path / "kept"),
                      run_timeout=10, lift_timeout=60, threads=(1, 2, 8))
    summary = fuzz.fuzz(cfg)
    assert summary["tried"] >= MUTANT_PROGRAMS // 2, summary["discards"]
    assert summary["parallel_loops"] > 0, "the sample should parallelize loops"
    assert not summary["failures"], _failures(summary)


def _sample(tmp_path, mode: str, seed: int, count: int, fewest_loops: int, **options) -> None:
    """Run `count` programs of generator `mode` through fuzz.py: all tried, more than
    `fewest_loops` loops parallelized (a sample that parallelizes nothing tests nothing), no failure."""
    cfg = fuzz.Config(mode=mode, seed=seed, count=count, jobs=2, keep=str(tmp_path / "kept"),
                      run_timeout=10, lift_timeout=60, **options)
    summary = fuzz.fuzz(cfg)
    assert summary["tried"] == count
    assert summary["parallel_loops"] > fewest_loops, "the sample should parallelize loops"
    assert not summary["failures"], _failures(summary)


@needs_gcc
def test_reach_programs(tmp_path):
    _sample(tmp_path, "reach", 20261127, REACH_PROGRAMS, 0, threads=(1, 2, 8))


@needs_gcc
def test_brink_programs(tmp_path, monkeypatch):
    """Lifted for tiny caches too, so that the padded grids and table fills are tiled. The master
    seed's seven programs draw all fifteen kernels (re-pick it when the generator changes)."""
    seeds = fuzz.seed_list(fuzz.Config(mode="brink", seed=20261524, count=BRINK_PROGRAMS))
    drawn = set(re.findall(r"static \w+ ([a-z]+)\d+\(", "".join(brinkgen.generate(s) for s in seeds)))
    assert drawn == set(brinkgen.KERNELS), set(brinkgen.KERNELS) - drawn
    monkeypatch.setenv("LIFT_CACHE_DIR", str(write_caches(tmp_path / "caches")))
    _sample(tmp_path, "brink", 20261524, BRINK_PROGRAMS, 0, threads=(1, 2, 8))


@needs_gcc
def test_random_loop_nests(tmp_path):
    _sample(tmp_path, "loops", 20240611, LOOP_PROGRAMS, LOOP_PROGRAMS)


@needs_gcc
def test_idiom_programs(tmp_path):
    _sample(tmp_path, "idioms", 20240611, IDIOM_PROGRAMS, 0, threads=(1, 2, 8))


@needs_gcc
@pytest.mark.skipif(shutil.which("csmith") is None or not (Path(fuzz.CSMITH_INCLUDE) / "csmith.h").exists(),
                    reason="Csmith is not installed (apt-get install -y csmith libcsmith-dev)")
def test_csmith_programs(tmp_path):
    cfg = fuzz.Config(mode="csmith", seed=20240611, count=CSMITH_PROGRAMS, jobs=2, keep=str(tmp_path / "kept"),
                      run_timeout=5, lift_timeout=60, max_funcs=3, max_block_depth=3,
                      csmith_args=("--max-array-dim", "3", "--max-array-len-per-dim", "10"))
    summary = fuzz.fuzz(cfg)
    assert summary["tried"] >= CSMITH_PROGRAMS // 2, summary["discards"]
    assert not summary["failures"], _failures(summary)


@needs_gcc
@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ for the CUDA emulation")
def test_cuda_target_on_loops_and_idioms(tmp_path):
    """The CUDA target: nvcc -c where installed, then the CPU emulation in both thread orders.
    The idioms leave out `_Atomic`, which the CUDA target refuses with a located error."""
    tried = 0
    for mode in ("loops", "idioms"):
        cfg = fuzz.Config(mode=mode, target="cuda", seed=20240611, count=CUDA_PROGRAMS, jobs=2,
                          keep=str(tmp_path / "kept"), run_timeout=10, lift_timeout=60, skip_idioms=("atomic",))
        summary = fuzz.fuzz(cfg)
        tried += summary["tried"]
        assert not summary["failures"], _failures(summary)
    assert tried == 2 * CUDA_PROGRAMS
