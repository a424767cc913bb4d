"""When a parallel loop may start OpenMP's threads: only once the work done so far pays for it.

The first parallel region a program enters creates the thread team; that costs far more than
entering any later region (hundreds of microseconds against a few on the 2-core development
machine). A loop whose work only just passes the per-run
threshold (parallelize.MIN_PARALLEL_WORK, set for a team that already exists) would pay the
start inside a short run: the suite's matrix products at their small sizes took 0.5 ms in
parallel against 5 us serially.

Whether a later run of the loop will use the team is not known when the first one runs, so the
guard decides as in the ski-rental problem, one loop at a time: runs of a loop whose work is
below TEAM_START_WORK run sequentially and add their work to that loop's own count (one per
line of the output file that tests it); once its count reaches TEAM_START_WORK (several times
what the start costs, in the work units of the threshold: iterations x statements) the run that
reaches it starts the team. A loop whose own work reaches TEAM_START_WORK starts the team at
once. Once started, the team serves a run whose work reaches TEAM_SERVE_WORK, an eighth of the
start's: its threads, asleep between regions, wake for it (a part of the start's cost, not the
threads' creation); a shorter loop still needs its own runs to reach TEAM_START_WORK. (Serving
every loop above the per-run threshold added regions of a few hundred thousand units to the
suite's products and covariance at their medium sizes, each as dear as the start on the loaded
2-core machine: 3mm 2.36x to 1.62x, covariance 14.9x to 7.9x.)

The count is the loop's own, not the program's: with one count for the whole file, the
sequential work of other loops made a short loop pay for the start. The suite's kernels, timed
alone after their init functions, started the team inside a kernel of a few milliseconds
(gesummv at N = 1300: init and kernel 3.4 M units each, the kernel the one that crossed 4 M;
0.16x of the serial time on the idle 2-core machine, where the same code on one thread runs as
fast as the serial build). A program whose loops each stay below the start, run after run,
stays sequential; one whose loop repeats pays the start once, after sequential runs of that
loop that bound its cost.

Loops that give each thread a copy of something (an array reduction's section, a scratch buffer
allocated per thread, an array kept with lastprivate) count the run that asks COPIES_FACTOR times
less toward the start (`lift_team_worth_copies`); their earlier runs count in full, so a loop
that repeats starts the team as soon as one without copies would (cellmd's force loop, an
array reduction run once per time step, ran its first 17 steps sequentially when every run
counted an eighth: 0.96x of the hand-written version fell to 0.77x). The factor is a calibration on the suite, not a measured cost of the
copies (a malloc or a few stack pages per thread, microseconds): doitgen at its medium size
(15.1 M units, a scratch row per thread) and atax and bicg (8.0 M, a reduced vector) ran at
0.31-0.76x of the serial time when they started the team, though on one thread their lifted
code is as fast as the serial build or faster (doitgen 0.9 ms against 1.4 ms); at the large
sizes their team is already running (started by their init loops) and they keep their speedups.
The start of a team with copies does pay for more than the threads (each copy's allocation,
initialization and merge before and after the work), and these are the loops where too short a
run started it.

`lift_team_worth(work)` is that test in C: a macro for a static function emitted once at the top
of an output file that calls it, which passes the calling line (`__LINE__`) to pick the loop's
count (counts updated atomically: a lifted function may be called from the user's own threads;
two loops whose lines fall on one of the COUNTS slots share it and count together, as every
loop did before). Only the OpenMP target uses it.
"""
from __future__ import annotations

# Work (iterations x statements) after which starting the thread team has paid for itself.
TEAM_START_WORK = 4_000_000
# How many times less a loop that gives each thread a copy counts toward the start.
COPIES_FACTOR = 8
# The work of a run that a started team serves at once.
TEAM_SERVE_WORK = TEAM_START_WORK // 8
# Slots of the per-loop counts, picked by the calling line.
COUNTS = 128
HELPER = "lift_team_worth"


def work_parts(work: int | str, min_work: int, team: bool = True) -> tuple[str, str]:
    """A loop's profitability test as its two parts, kept apart so that a region that starts the
    team once for many runs of the loop can count them all (`work_condition`'s `runs`):

    - the size test, `work > min_work` in C: "" where the work is a constant (judged at lift time);
    - the team work, the C expression (type long) the team test takes: "" for no team test
      (`team` false: the target starts no OpenMP team). A constant work that pays for the start
      is tested too: the test then passes at once, and records that the team has started, which
      the later loops' tests read (atax at its large size: the init loop's 16 M start the team, on
      which the kernel's reduction, 4 M counted 8 times less for its copies, then runs)."""
    if isinstance(work, int):
        return "", f"{work}L" if team else ""
    return f"{work} > {min_work}L", work if team else ""


def work_condition(size: str, team_work: str, runs: str | int = "", copies: bool = False) -> str:
    """The profitability test in C from `work_parts`: the size test, and that `runs` runs of the
    loop (one where "") may start the team now, by the helper for copies where each thread gets
    one (`copies`); "" where neither is needed."""
    team = ""
    if team_work:
        helper = HELPER + "_copies" if copies else HELPER
        team = f"{helper}(({runs}) * ({team_work}))" if runs else f"{helper}({team_work})"
    return " && ".join(c for c in (size, team) if c)


def team_helpers(text: str) -> str:
    """The definition of the test, if `text` calls it, to go before it."""
    if HELPER + "(" not in text and HELPER + "_copies(" not in text:
        return ""
    limit = f"{TEAM_START_WORK}L"
    return ("/* lift: whether a parallel loop of `work` may start the threads: once the runs of this loop\n"
            "   (the line that asks) done sequentially so far add up to "
            f"{TEAM_START_WORK} units of work (iterations x\n"
            "   statements, several times the cost of starting them), or when this run alone does as much\n"
            f"   (a run that gives each thread a copy counts 1/{COPIES_FACTOR} of its own work: `share`);\n"
            f"   once started, the threads serve a run of {TEAM_SERVE_WORK} units at once */\n"
            "static int lift_team_started;\n"
            f"static long lift_team_work[{COUNTS}];\n"
            f"static int {HELPER}_at(long work, int share, int line)\n"
            "{\n"
            "    int started;\n"
            "    long done;\n"
            "    #pragma omp atomic read\n"
            "    started = lift_team_started;\n"
            f"    if (started && work / share >= {TEAM_SERVE_WORK}L)\n"
            "        return 1;\n"
            f"    if (work / share < {limit}) {{\n"
            "        #pragma omp atomic capture\n"
            f"        done = lift_team_work[line % {COUNTS}] += work;\n"
            f"        if (done - work + work / share < {limit})\n"
            "            return 0;\n"
            "    }\n"
            "    #pragma omp atomic write\n"
            "    lift_team_started = 1;\n"
            "    return 1;\n"
            "}\n"
            f"#define {HELPER}(work) {HELPER}_at((work), 1, __LINE__)\n"
            f"#define {HELPER}_copies(work) {HELPER}_at((work), {COPIES_FACTOR}, __LINE__)\n")
