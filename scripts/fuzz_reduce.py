"""`fuzz.py --reduce`: minimize each kept failure with creduce, keeping the same kind of failure.

Apart from fuzz.py so that neither module nears 800 lines; creduce's interestingness test
(`INTERESTING`) imports this module and runs fuzz.py's own check on each candidate.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

from fuzz import CSMITH_INCLUDE, FAILURES, HERE, Config, Outcome, check_file, run


def reduce_all(cfg: Config, outcomes: list[Outcome], log=print) -> None:
    """creduce one kept failure per distinct failure (the smallest program of each kind and
    signature; every mismatch and run error is its own), at most cfg.reduce_max of them."""
    groups: dict[tuple, list[Outcome]] = {}
    for o in outcomes:
        if o.outcome not in FAILURES or not o.kept or o.outcome == "hang":
            continue  # a hang costs the whole time limit per try: not reduced
        key = (o.outcome, failure_signature(o.outcome, o.detail))
        if o.outcome in ("mismatch", "run-error"):
            key += (o.seed,)
        groups.setdefault(key, []).append(o)
    chosen = [min(g, key=lambda o: (Path(o.kept) / "prog.c").stat().st_size) for g in groups.values()]
    chosen.sort(key=lambda o: (Path(o.kept) / "prog.c").stat().st_size)
    for o in chosen[: cfg.reduce_max]:
        log(f"reducing {o.outcome} seed {o.seed} ({o.detail[:100]}) ...")
        o.reduced = reduce_failure(cfg, o, Path(o.kept))
        info = json.loads((Path(o.kept) / "failure.json").read_text())
        info["reduced"] = o.reduced
        (Path(o.kept) / "failure.json").write_text(json.dumps(info, indent=2) + "\n")
        log(f"  -> {o.reduced or 'not reduced (see reduce/creduce.log)'}")


# -- reduction with creduce ----------------------------------------------------------------

INTERESTING = """\
#!{python}
# creduce interestingness test written by scripts/fuzz_reduce.py: exit 0 while prog.c still fails alike.
import sys
sys.path.insert(0, {scripts!r})
import fuzz_reduce
sys.exit(fuzz_reduce.still_interesting({config!r}, "prog.c"))
"""


def reduce_failure(cfg: Config, outcome: Outcome, kept: Path) -> str:
    """Minimize kept/prog.c with creduce, keeping the same kind of failure; returns the reduced path."""
    if shutil.which("creduce") is None:
        return ""
    rdir = kept / "reduce"
    rdir.mkdir(exist_ok=True)
    shutil.copy(kept / "prog.c", rdir / "prog.c")
    config = {"cfg": asdict(cfg), "outcome": outcome.outcome, "detail": outcome.detail,
              "signature": failure_signature(outcome.outcome, outcome.detail)}
    (rdir / "config.json").write_text(json.dumps(config))
    test = rdir / "interesting.py"
    test.write_text(INTERESTING.format(python=sys.executable, scripts=str(HERE),
                                       config=str((rdir / "config.json").resolve())))
    test.chmod(0o755)
    tmp = rdir / "tmp"  # creduce's scratch files, kept out of /tmp
    tmp.mkdir(exist_ok=True)
    if still_interesting(str(rdir / "config.json"), str(rdir / "prog.c")) != 0:
        (rdir / "creduce.log").write_text("the failure does not reproduce under the interestingness test\n")
        return ""
    ran = run(["creduce", "--n", str(max(1, cfg.jobs)), str(test.resolve()), "prog.c"], cfg.reduce_timeout,
              cwd=str(rdir), grace=20, env=dict(os.environ, TMPDIR=str(tmp)))
    (rdir / "creduce.log").write_text(ran.stdout[-20000:] + ran.stderr[-5000:])
    reduced = kept / "reduced.c"
    shutil.copy(rdir / "prog.c", reduced)
    return str(reduced)


def failure_signature(kind: str, detail: str) -> str:
    """What must stay the same while reducing: the exception line, the diagnostic message
    without its position, or the compiler's message without its position."""
    text = re.sub(r"^.*?:\d+:(\d+:)? (error: )?", "", detail)
    text = re.sub(r"'[^']*'|‘[^’]*’|\"[^\"]*\"", "Q", text)
    text = re.sub(r"\d+", "0", text)
    return text.strip()


def still_interesting(config_path: str, prog: str) -> int:
    """0 if `prog` is a valid program (gcc -Wall clean of the usual reduction hazards,
    UB-free under the sanitizers for run failures) that lift still fails on in the same way."""
    config = json.loads(Path(config_path).read_text())
    cfg = Config(**{k: tuple(v) if isinstance(v, list) else v for k, v in config["cfg"].items()})
    kind = config["outcome"]
    # creduce runs this in a scratch directory of its own, which it removes even when killed
    work = Path(tempfile.mkdtemp(prefix="lift-reduce-", dir=os.getcwd()))
    try:
        src = work / "prog.c"
        shutil.copy(prog, src)
        strict = [cfg.cc, "-O1", "-Wall", "-Wextra", "-Werror=uninitialized", "-Werror=maybe-uninitialized",
                  "-Werror=return-type", "-Werror=implicit-function-declaration", "-Werror=implicit-int",
                  "-Werror=int-conversion", "-Werror=incompatible-pointer-types", "-Werror=array-bounds",
                  "-Werror=div-by-zero", "-Werror=sequence-point", "-Werror=init-self",
                  "-Werror=main", "-Werror=return-local-addr",
                  "-Werror=unsequenced" if cfg.cc.endswith("clang") else "-Wno-unused"]
        if cfg.mode == "csmith":
            strict += ["-I", CSMITH_INCLUDE]
        if kind in ("mismatch", "run-error", "hang"):
            exe = work / "san"
            san = run([*strict, "-fsanitize=address,undefined", "-fno-sanitize-recover=all", src.name, "-o", str(exe),
                       "-lm"], cfg.compile_timeout, cwd=str(work))
            if san.code != 0:
                return 1
            if run([str(exe)], cfg.run_timeout * 4).code != 0:
                return 1
        elif run([*strict, "-fsyntax-only", src.name], cfg.compile_timeout, cwd=str(work)).code != 0:
            return 1
        until = {"crash": "lift", "rejected": "lift", "bad-output": "build"}.get(kind, "run")
        outcome = check_file(cfg, 0, src, work, until)
        if outcome.outcome != kind:
            return 1
        if kind in ("crash", "rejected", "bad-output"):
            return 0 if failure_signature(kind, outcome.detail) == config["signature"] else 1
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)
