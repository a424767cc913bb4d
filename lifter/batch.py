"""Lifting many files at once: whole source trees, parallel workers, a result cache, Make dependencies.

`lift a.c src/ -d OUT` is `run_batch(plan(find_inputs(...), OUT, ...), ...)`; the
command line only prints what comes back. The pieces:

- `find_inputs`: the arguments, with every directory replaced by the `.c` files
  below it (sorted; hidden directories, the output directory and the cache skipped).
- `plan`: where each input's result goes. An input inside the current directory
  keeps its path relative to it (`src/x.c` -> `OUT/src/x.c`); an input outside it
  (an absolute path elsewhere, `../lib/y.c`) keeps its path relative to the
  deepest directory common to all such inputs. Nothing is written outside OUT
  (no `..`, no symbolic link out of it), no input is overwritten, and two inputs
  never share an output.
- `run_batch`: lifts the files in worker processes (`jobs`), one failure does not
  stop the others (unless `fail_fast`), and delivers results in input order, so
  everything a caller prints is what a serial run prints. Outputs are written by
  this process, in that order, and left untouched when their text did not change.
- `lift_file_cached`: `lift_file` through the result cache (`cache.py`); Make
  dependency files come from `depfile.py`, outputs are written by `files.py`.
"""
from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import time
from dataclasses import dataclass, field
from typing import Callable

from lifter.version import TOOL
from lifter.cache import Cache
from lifter.depfile import DepOptions, default_depfile, dependencies, dependency_rule, make_quote
from lifter.diagnostics import Diagnostic, LiftError
from lifter.driver import LiftOptions, LiftResult, lift_file
from lifter.files import write_if_changed
from lifter.main_module import workers_can_start

DEFAULT_CACHE = ".lift-cache"  # under the output directory

# Imported once in the fork server, so every worker starts with the pipeline loaded.
_PIPELINE_MODULES = ["lifter.batch", "lifter.analysis", "lifter.backend", "lifter.backend.cuda",
                     "lifter.backend.mpi", "lifter.graph.build", "lifter.report", "lifter.transform"]


# ---------------------------------------------------------------- lifting through the cache

def lift_file_cached(path: str, options: LiftOptions, cache: Cache | None) -> tuple[LiftResult, bool]:
    """`lift_file` through the cache; the bool says whether the result came from it (then without graphs)."""
    key = cache.key(path) if cache else None
    if key:
        record = cache.get(key)
        if record is not None:
            return _from_record(record), True
    result = lift_file(path, options)
    if key:
        cache.put(key, result.output, result.loops, result.diagnostics, result.included_files, result.warnings)
    return result, False


def _from_record(record: dict) -> LiftResult:
    return LiftResult(record["output"], record["loops"], [Diagnostic(**d) for d in record["diagnostics"]],
                      [], record["included_files"], warnings=[Diagnostic(**d) for d in record["warnings"]])



# ---------------------------------------------------------------- inputs and outputs

@dataclass
class FileJob:
    """One input of a batch and where its results go."""

    index: int
    path: str                    # as given or as found below a directory argument
    output: str | None = None    # OUTDIR/relative path
    depfile: str | None = None
    error: Diagnostic | None = None  # a problem found before lifting (the file is not lifted)
    outdir: str | None = None    # nothing is written outside it


def find_inputs(args: list[str], skip: list[str] = ()) -> tuple[list[str], list[Diagnostic]]:
    """The input files named by `args`: files as given, directories replaced by every `.c` file below them.

    Directories are walked in sorted order; hidden directories (`.git`, `.lift-cache`)
    and the directories in `skip` (the output directory) are not entered. An
    argument that names nothing is kept: lifting it reports the error.
    """
    skipped = {os.path.realpath(s) for s in skip}
    files: list[str] = []
    warnings: list[Diagnostic] = []
    for arg in args:
        if not os.path.isdir(arg):
            files.append(arg)
            continue
        found = []
        for dirpath, dirnames, filenames in os.walk(arg):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".")
                                 and os.path.realpath(os.path.join(dirpath, d)) not in skipped)
            found += [os.path.normpath(os.path.join(dirpath, f)) for f in sorted(filenames)
                      if f.endswith(".c") and os.path.isfile(os.path.join(dirpath, f))]
        if not found:
            warnings.append(Diagnostic(arg, 0, 0, "warning", "no .c files in this directory"))
        files += found
    return files, warnings


def output_name(relative: str, target: str) -> str:
    if target == "cuda":
        return (relative[:-2] if relative.endswith(".c") else relative) + ".cu"
    return relative


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def plan(paths: list[str], outdir: str, target: str = "openmp", depfiles: bool = False) -> list[FileJob]:
    """Where each input's result goes under `outdir` (see the module's doc); refusals become per-file errors."""
    cwd = os.getcwd()
    absolute = [os.path.normpath(os.path.join(cwd, p)) for p in paths]
    outside = [os.path.dirname(a) for a in absolute if not _inside(a, cwd)]
    root = os.path.commonpath(outside) if outside else cwd
    identities = {}
    for p in paths:
        try:
            st = os.stat(p)
            identities[(st.st_dev, st.st_ino)] = p
        except OSError:
            pass

    def is_input(path: str) -> str | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return identities.get((st.st_dev, st.st_ino))

    jobs: list[FileJob] = []
    seen_inputs: set[str] = set()
    owners: dict[str, str] = {}
    for p, a in zip(paths, absolute):
        if a in seen_inputs:
            continue  # the same file named twice is lifted once
        seen_inputs.add(a)
        job = FileJob(len(jobs), p, outdir=outdir)
        jobs.append(job)
        rel = os.path.relpath(a, cwd if _inside(a, cwd) else root)
        if os.path.isabs(rel) or os.pardir in rel.split(os.sep) or rel in (os.curdir, ""):
            job.error = Diagnostic(p, 0, 0, "error", f"cannot place the output of this input under '{outdir}'")
            continue
        job.output = os.path.join(outdir, output_name(rel, target))
        job.depfile = default_depfile(job.output) if depfiles else None
        key = os.path.normpath(os.path.join(cwd, job.output))
        if key in owners:
            job.error = Diagnostic(p, 0, 0, "error", f"output '{job.output}' is also the output of '{owners[key]}'")
            continue
        owners[key] = p
        for written in filter(None, (job.output, job.depfile)):
            clash = is_input(written)
            if clash is not None:
                what = "the input" if clash == p else f"the input '{clash}'"
                job.error = Diagnostic(p, 0, 0, "error", f"output '{written}' would overwrite {what}")
                break
    return jobs


# ---------------------------------------------------------------- running a batch

@dataclass
class FileOutcome:
    """What became of one input."""

    path: str
    output: str | None
    status: str                  # "lifted", "cached", "failed" or "skipped" (not reached after --fail-fast)
    loops: list[dict] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)  # remarks, one per loop
    error: Diagnostic | None = None
    included_files: list[str] = field(default_factory=list)
    seconds: float = 0.0         # lifting time in the worker (0 when cached)
    written: bool = False        # the output file was (re)written; False when it already held this text
    text: str | None = field(default=None, repr=False)  # the lifted text, until it is written
    warnings: list[Diagnostic] = field(default_factory=list)  # passes undone (LiftResult.warnings)

    @property
    def ok(self) -> bool:
        return self.status in ("lifted", "cached")

    @property
    def parallelized(self) -> int:
        return sum(1 for e in self.loops if e.get("parallelized"))

    def summary(self) -> dict:
        return {"file": self.path, "output": self.output, "status": self.status, "loops": len(self.loops),
                "parallelized": self.parallelized, "seconds": round(self.seconds, 4),
                "error": str(self.error) if self.error else None}


@dataclass
class BatchOptions:
    jobs: int | None = None          # worker processes; None: one per core
    fail_fast: bool = False          # stop at the first file (in input order) that fails
    cache_dir: str | None = None     # None: no cache
    deps: DepOptions | None = None   # write a Make rule next to each output (FileJob.depfile)


@dataclass
class BatchResult:
    files: list[FileOutcome]         # in input order
    seconds: float                   # wall time of the whole run
    jobs: int                        # worker processes used (1: lifted in this process)
    warnings: list[Diagnostic] = field(default_factory=list)  # about the inputs (an empty directory)

    @property
    def failed(self) -> list[FileOutcome]:
        return [f for f in self.files if f.status == "failed"]

    @property
    def ok(self) -> bool:
        return all(f.ok for f in self.files)

    def report(self) -> dict:
        """The JSON report of the whole run: every loop of every file in input order, and one entry per file."""
        return {"tool": TOOL, "loops": [e for f in self.files for e in f.loops],
                "files": [f.summary() for f in self.files]}


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _work(path: str, options: LiftOptions) -> FileOutcome:
    """Lift one file (in a worker process); a problem with the file is returned, never raised."""
    start = time.perf_counter()

    def failed(message: str) -> FileOutcome:
        return FileOutcome(path, None, "failed", error=Diagnostic(path, 0, 0, "error", message),
                           seconds=time.perf_counter() - start)

    try:
        result = lift_file(path, options)
    except LiftError as exc:
        return FileOutcome(path, None, "failed", error=exc.diagnostic, seconds=time.perf_counter() - start)
    except MemoryError:
        return failed("out of memory")
    except Exception as exc:  # a bug in lift: this file's problem, reported like any other
        return failed(f"internal error: {type(exc).__name__}: {exc}")
    return FileOutcome(path, None, "lifted", result.loops, result.diagnostics, None, result.included_files,
                       time.perf_counter() - start, text=result.output, warnings=result.warnings)


def _crashed(path: str) -> FileOutcome:
    return FileOutcome(path, None, "failed",
                       error=Diagnostic(path, 0, 0, "error", "internal error: lift crashed on this file"))


def _pool_context():
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(_PIPELINE_MODULES)
        return ctx
    return multiprocessing.get_context("spawn")


def run_batch(jobs: list[FileJob], options: LiftOptions | None = None, batch: BatchOptions | None = None,
              on_file: Callable[[FileOutcome], None] | None = None,
              on_progress: Callable[[int, int, str], None] | None = None) -> BatchResult:
    """Lift every job's input and write its output; `on_file` sees each outcome in input order.

    `on_progress(done, total, path)` is called as files finish, in whatever order
    they finish. Workers only lift; this process writes every file, in input order,
    so with `fail_fast` nothing after the first failure (in input order) is written
    and what a caller prints does not depend on the number of workers.
    """
    options = options or LiftOptions()
    batch = batch or BatchOptions()
    start = time.perf_counter()
    total = len(jobs)
    outcomes: list[FileOutcome | None] = [None] * total
    cache = Cache(batch.cache_dir, options) if batch.cache_dir else None
    keys: list[str | None] = [None] * total
    done_count = 0
    delivered = 0
    stopped = False

    def finished(i: int, outcome: FileOutcome) -> None:
        nonlocal done_count
        outcome.output = jobs[i].output
        if outcome.status == "lifted" and cache and keys[i]:
            cache.put(keys[i], outcome.text, outcome.loops, outcome.diagnostics, outcome.included_files,
                      outcome.warnings)
        outcomes[i] = outcome
        done_count += 1
        if on_progress:
            on_progress(done_count, total, jobs[i].path)

    def deliver() -> None:
        """Write and hand over every finished outcome whose predecessors are all handed over."""
        nonlocal delivered, stopped
        while not stopped and delivered < total and outcomes[delivered] is not None:
            outcome = outcomes[delivered]
            if outcome.ok:
                _write_outputs(jobs[delivered], outcome, batch.deps)
            if on_file:
                on_file(outcome)
            delivered += 1
            if outcome.status == "failed" and batch.fail_fast:
                stopped = True

    todo: list[int] = []
    for job in jobs:
        if job.error is not None:
            finished(job.index, FileOutcome(job.path, None, "failed", error=job.error))
            continue
        if cache:
            keys[job.index] = cache.key(job.path)
            record = cache.get(keys[job.index]) if keys[job.index] else None
            if record is not None:
                r = _from_record(record)
                finished(job.index, FileOutcome(job.path, None, "cached", r.loops, r.diagnostics, None,
                                                r.included_files, text=r.output, warnings=r.warnings))
                continue
        todo.append(job.index)

    deliver()
    workers = min(batch.jobs or default_jobs(), len(todo))
    if workers > 1 and not workers_can_start():
        workers = 1  # a script without a `__main__` guard would run again in every worker
    pool = None
    if workers > 1:
        try:
            pool = cf.ProcessPoolExecutor(workers, mp_context=_pool_context())
        except (OSError, NotImplementedError, ValueError):
            workers = 1  # no worker processes here (no semaphores, say): lift in this process
    if pool is not None:
        _run_pool(pool, jobs, todo, options, batch.fail_fast, finished, deliver, lambda: stopped)
    else:
        for i in todo:
            if stopped:
                break
            finished(i, _work(jobs[i].path, options))
            deliver()
    for i in range(delivered, total):
        outcomes[i] = FileOutcome(jobs[i].path, jobs[i].output, "skipped")
    return BatchResult(outcomes, time.perf_counter() - start, max(workers, 1))


def _run_pool(pool, jobs, todo, options, fail_fast, finished, deliver, stopped) -> None:
    """Lift `todo` in the pool's processes; files whose worker died are lifted again, each on its own."""
    ctx = _pool_context()
    crashed: list[int] = []
    try:
        futures = {}
        for n, i in enumerate(todo):
            try:
                futures[pool.submit(_work, jobs[i].path, options)] = i
            except cf.process.BrokenProcessPool:
                # A worker died while the rest were still being handed out (it happened in CI):
                # the files not handed out yet are lifted again below like those it took with it.
                crashed.extend(todo[n:])
                break
        pending = set(futures)
        while pending and not stopped():
            done, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for future in sorted(done, key=futures.get):
                i = futures[future]
                if future.cancelled():
                    continue
                exc = future.exception()
                if isinstance(exc, cf.process.BrokenProcessPool):
                    crashed.append(i)
                    continue
                outcome = _work_failed(jobs[i].path, exc) if exc else future.result()
                finished(i, outcome)
                if fail_fast and outcome.status == "failed":
                    for other, j in futures.items():
                        if j > i:
                            other.cancel()
            deliver()
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True, cancel_futures=True)
    # A worker that dies (a crash in a native library) takes the pool with it, and every
    # file not finished yet with it: lift those one at a time, so only the culprit fails.
    for i in sorted(crashed):
        if stopped():
            break
        finished(i, _work_alone(jobs[i].path, options, ctx))
        deliver()


def _work_alone(path: str, options: LiftOptions, ctx) -> FileOutcome:
    """Lift one file in a worker of its own. A worker that dies lifting it crashed on it; one
    that cannot even start never ran lift on it, so the file is lifted in this process."""
    started = False
    try:
        with cf.ProcessPoolExecutor(1, mp_context=ctx) as single:
            single.submit(os.getpid).result()
            started = True
            return single.submit(_work, path, options).result()
    except cf.process.BrokenProcessPool:
        return _crashed(path) if started else _work(path, options)


def _work_failed(path: str, exc: BaseException) -> FileOutcome:
    return FileOutcome(path, None, "failed",
                       error=Diagnostic(path, 0, 0, "error", f"internal error: {type(exc).__name__}: {exc}"))


def _write_outputs(job: FileJob, outcome: FileOutcome, deps: DepOptions | None) -> None:
    """Write the lifted text (unless the file already holds it) and the Make rule; a failure fails the file."""
    output = job.output
    try:
        directory = os.path.dirname(output) or os.curdir
        os.makedirs(directory, exist_ok=True)
        root = job.outdir
        if root is not None and not _inside(os.path.realpath(directory), os.path.realpath(root)):
            raise _Refused(f"'{directory}' leads out of the output directory (a symbolic link?)")
        outcome.written = write_if_changed(output, outcome.text)
        if deps is not None and job.depfile:
            headers = dependencies(outcome.included_files, deps.system)
            write_if_changed(job.depfile, dependency_rule([make_quote(output)], job.path, headers, deps.phony))
    except _Refused as exc:
        outcome.status, outcome.error = "failed", Diagnostic(output, 0, 0, "error", f"refusing to write: {exc}")
    except OSError as exc:
        outcome.status = "failed"
        outcome.error = Diagnostic(exc.filename or output, 0, 0, "error", f"cannot write: {exc.strerror or exc}")
    outcome.text = None  # written: keep the result small


class _Refused(Exception):
    pass


def lift_batch(inputs: list[str], outdir: str, options: LiftOptions | None = None,
               batch: BatchOptions | None = None, on_file: Callable[[FileOutcome], None] | None = None,
               on_progress: Callable[[int, int, str], None] | None = None,
               on_warning: Callable[[Diagnostic], None] | None = None) -> BatchResult:
    """Lift files and source trees into `outdir`: `lift INPUTS... -d OUTDIR` as a function.

    `inputs` are files and directories (every `.c` file below a directory); see
    `find_inputs`, `plan` and `run_batch`. Nothing is printed: `on_warning` gets the
    warnings about the inputs before anything is lifted, `on_file` every outcome in
    input order (its error and remarks); the result has them all. Raises LiftError
    when there is nothing to lift or OUTDIR is not a directory.
    """
    options = options or LiftOptions()
    batch = batch or BatchOptions()
    if os.path.exists(outdir) and not os.path.isdir(outdir):
        raise LiftError(outdir, 0, 0, "output directory is not a directory")
    files, warnings = find_inputs(list(inputs), skip=[outdir] + ([batch.cache_dir] if batch.cache_dir else []))
    for w in warnings:
        if on_warning:
            on_warning(w)
    if not files:
        raise LiftError("lift", 0, 0, "no input files")
    jobs = plan(files, outdir, options.target, depfiles=batch.deps is not None)
    result = run_batch(jobs, options, batch, on_file, on_progress)
    result.warnings = warnings
    return result


# ---------------------------------------------------------------- what a terminal shows

class ProgressBar:
    """`[#######.......]  12/31  src/x.c` on one line of a terminal, redrawn in place; nothing elsewhere."""

    def __init__(self, write: Callable[[str], None], enabled: bool, width: int | None = None):
        self.write = write
        self.enabled = enabled
        self.width = width
        self.line = ""

    def update(self, done: int, total: int, path: str) -> None:
        if not self.enabled:
            return
        import shutil

        columns = self.width or shutil.get_terminal_size((80, 24)).columns
        bar_width = max(10, min(30, columns // 3))
        filled = bar_width * done // max(total, 1)
        count = f"{done}/{total}"
        head = f"[{'#' * filled}{'.' * (bar_width - filled)}] {count:>{2 * len(str(total)) + 1}} "
        room = max(0, columns - len(head) - 1)
        name = path if len(path) <= room else "..." + path[len(path) - room + 3:] if room > 3 else ""
        self.clear()
        self.line = head + name
        self.write(self.line)

    def clear(self) -> None:
        if self.enabled and self.line:
            self.write("\r\033[K")
            self.line = ""

    def redraw(self) -> None:
        if self.enabled and self.line:
            self.write(self.line)


def format_summary(result: BatchResult) -> str:
    """The table printed after a batch run: files, loops found, loops parallelized and time, per status."""
    rows = []
    for status in ("lifted", "cached", "failed", "skipped"):
        files = [f for f in result.files if f.status == status]
        if not files and status not in ("lifted",):
            continue
        ok = status in ("lifted", "cached")
        loops = str(sum(len(f.loops) for f in files)) if ok else "-"
        par = str(sum(f.parallelized for f in files)) if ok else "-"
        secs = f"{sum(f.seconds for f in files):.2f} s" if status in ("lifted", "failed") else "-"
        rows.append((status, str(len(files)), loops, par, secs))
    ok_files = [f for f in result.files if f.ok]
    rows.append(("total", str(len(result.files)), str(sum(len(f.loops) for f in ok_files)),
                 str(sum(f.parallelized for f in ok_files)), f"{result.seconds:.2f} s wall"))
    header = ("", "files", "loops", "parallelized", "time")
    widths = [max(len(r[c]) for r in rows + [header]) for c in range(len(header))]
    lines = ["  ".join(cell.ljust(widths[0]) if c == 0 else cell.rjust(widths[c]) for c, cell in enumerate(row))
             for row in [header] + rows]
    jobs = f"{result.jobs} worker process{'es' if result.jobs != 1 else ''}" if result.jobs > 1 else "1 process"
    text = f"lift: {len(result.files)} file{'s' if len(result.files) != 1 else ''}, {jobs}\n"
    text += "\n".join("  " + ln.rstrip() for ln in lines) + "\n"
    failed = result.failed
    if failed:
        text += f"lift: {len(failed)} file{'s' if len(failed) != 1 else ''} failed:\n"
        text += "".join(f"  {f.path}\n" for f in failed)
    skipped = [f for f in result.files if f.status == "skipped"]
    if skipped:
        text += f"lift: {len(skipped)} file{'s' if len(skipped) != 1 else ''} not lifted (--fail-fast)\n"
    return text
