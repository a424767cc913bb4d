"""Snapshot of what lift produces for every corpus program, to prove a refactoring changes nothing.

    python3 scripts/snapshot_outputs.py write  SNAPDIR      # on the base commit
    python3 scripts/snapshot_outputs.py compare SNAPDIR     # after the change: exit 1 on any difference

Every `corpus/**/*.c` is lifted in-process (lifter.driver.lift_file; the files of corpus/apps with
`-I corpus/apps`, as their Makefiles do) for each option set of OPTION_SETS: the OpenMP target at the defaults, --no-tile, --no-fuse, --no-unroll and -O1, and the
CUDA target at the defaults, --no-tile and -O1, and the MPI target at the defaults. One file per program and option set holds the
output text followed by the report entries and remarks as JSON (or the located error), so a
difference in the loop verdicts shows even where the emitted C is the same. Programs are named
relative to the tree the script lies in, so the snapshot of the base can be taken from a copy
(`git archive BASE | tar -x -C /tmp/base`) while the working tree changes. `--only SUBSTR` limits
the run to programs whose path contains SUBSTR, `--sets a,b` to those option sets; `-j N` lifts N
programs at a time.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from functools import partial
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lifter.diagnostics import LiftError  # noqa: E402  (after the path insertion above)
from lifter.driver import LiftOptions, lift_file  # noqa: E402
from lifter.frontend.preprocess import PreprocessOptions  # noqa: E402

APPS_INCLUDE = "corpus/apps"  # corpus/apps/app.mk's -I.. from an application's directory (hand_omp.h)

OPTION_SETS: dict[str, dict] = {
    "openmp": {"target": "openmp"},
    "openmp-no-tile": {"target": "openmp", "tile": False},
    "openmp-no-fuse": {"target": "openmp", "fuse": False},
    "openmp-no-unroll": {"target": "openmp", "unroll": False},
    "openmp-O1": {"target": "openmp", "opt_level": 1},
    "cuda": {"target": "cuda"},
    "cuda-no-tile": {"target": "cuda", "tile": False},
    "cuda-O1": {"target": "cuda", "opt_level": 1},
    "mpi": {"target": "mpi"},
}


def snapshot_one(rel: str, sets: list[str]) -> dict[str, str]:
    """{option-set name: the text that stands for lifting corpus/`rel` with it}, for the option sets `sets`."""
    texts = {}
    for name in sets:
        fields = OPTION_SETS[name]
        try:
            preprocess = PreprocessOptions(include_dirs=[APPS_INCLUDE] if rel.startswith("apps/") else [])
            result = lift_file(f"corpus/{rel}", LiftOptions(**fields, preprocess=preprocess))
        except LiftError as exc:
            texts[name] = f"LiftError: {exc}\n"
            continue
        except Exception as exc:  # a crash is a behaviour too; record it rather than stop the run
            texts[name] = f"CRASH: {type(exc).__name__}: {exc}\n"
            continue
        extra = {"loops": result.loops, "remarks": [dataclasses.asdict(d) for d in result.diagnostics]}
        texts[name] = result.output + "\n/* ---- report ---- */\n" + json.dumps(extra, indent=1, sort_keys=True, default=str) + "\n"
    root = f"{ROOT}/"  # headers are named by absolute path: the same text for a copy of the tree
    return {name: text.replace(root, "") for name, text in texts.items()}


def _programs(only: str | None) -> list[str]:
    paths = sorted(p.relative_to(ROOT / "corpus").as_posix() for p in (ROOT / "corpus").rglob("*.c"))
    return [p for p in paths if only is None or only in p]


def _snapshot_path(snapdir: Path, rel: str, name: str) -> Path:
    return snapdir / rel.replace("/", "__") / name


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("write", "compare"))
    parser.add_argument("snapdir", type=Path)
    parser.add_argument("--only", help="only programs whose corpus path contains this")
    parser.add_argument("--sets", help="only these option sets, comma-separated (default: all)")
    parser.add_argument("-j", "--jobs", type=int, default=1)
    args = parser.parse_args()
    args.snapdir = args.snapdir.resolve()
    os.chdir(ROOT)  # programs are named relative to the root, so a copy of the tree snapshots the same text
    programs = _programs(args.only)
    sets = args.sets.split(",") if args.sets else list(OPTION_SETS)
    if set(sets) - set(OPTION_SETS):
        parser.error(f"unknown option sets: {sorted(set(sets) - set(OPTION_SETS))}")
    differ: list[str] = []
    with ProcessPoolExecutor(args.jobs) as pool:
        for rel, texts in zip(programs, pool.map(partial(snapshot_one, sets=sets), programs)):
            for name, text in texts.items():
                path = _snapshot_path(args.snapdir, rel, name)
                if args.mode == "write":
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(text, encoding="utf-8", errors="surrogateescape")
                elif not path.is_file() or path.read_text(encoding="utf-8", errors="surrogateescape") != text:
                    differ.append(f"{rel} [{name}]")
                    print(f"DIFFERS {rel} [{name}]", flush=True)
            print(f"{'wrote' if args.mode == 'write' else 'compared'} {rel}", file=sys.stderr, flush=True)
    total = len(programs) * len(sets)
    if args.mode == "compare":
        print(f"{total - len(differ)}/{total} identical ({len(programs)} programs x {len(sets)} option sets)")
    else:
        print(f"wrote {total} snapshots ({len(programs)} programs x {len(sets)} option sets) to {args.snapdir}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
