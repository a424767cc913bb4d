"""When a parallel loop may start OpenMP's threads: only once the work done so far pays for it.

The first parallel region a program enters creates the thread team; that costs far more than
entering any later region (hundreds of microseconds against a few on the 2-core development
machine). A loop whose work only just passes the per-run
threshold (parallelize.MIN_PARALLEL_WORK, set for a team that already exists) would pay the
start inside a short run: the suite's matrix products at their small sizes took 0.5 ms in
parallel against 5 us serially.

Whether a later loop will use the team is not known when the first one runs, so the guard
decides as in the ski-rental problem: loops whose work is below TEAM_START_WORK run
sequentially and add their work to a count kept per output file; once the count reaches
TEAM_START_WORK (several times what the start costs, in the work units of the threshold:
iterations x statements) the loop that reaches it starts the team, and every later loop is
judged by its own work only. A program whose loops never add up to that much stays
sequential; one that does pays the start once, after sequential work that bounds its cost.
A loop whose own work reaches TEAM_START_WORK starts the team at once.

`lift_team_worth(work)` is that test in C: a static function emitted once at the top of an
output file that calls it (and its counter, updated atomically: a lifted function may be
called from the user's own threads). Only the OpenMP target uses it.
"""
from __future__ import annotations

# Work (iterations x statements) after which starting the thread team has paid for itself.
TEAM_START_WORK = 4_000_000
HELPER = "lift_team_worth"


def work_parts(work: int | str, min_work: int, team: bool = True) -> tuple[str, str]:
    """A loop's profitability test as its two parts, kept apart so that a region that starts the
    team once for many runs of the loop can count them all (`work_condition`'s `runs`):

    - the size test, `work > min_work` in C: "" where the work is a constant (judged at lift time);
    - the team work, the C expression (type long) the team test takes: "" for no team test
      (`team` false: the target starts no OpenMP team; a constant work that pays for the start)."""
    if isinstance(work, int):
        return "", f"{work}L" if team and work < TEAM_START_WORK else ""
    return f"{work} > {min_work}L", work if team else ""


def work_condition(size: str, team_work: str, runs: str | int = "") -> str:
    """The profitability test in C from `work_parts`: the size test, and that `runs` runs of the
    loop (one where "") may start the team now; "" where neither is needed."""
    team = ""
    if team_work:
        team = f"{HELPER}(({runs}) * ({team_work}))" if runs else f"{HELPER}({team_work})"
    return " && ".join(c for c in (size, team) if c)


def team_helpers(text: str) -> str:
    """The definition of the test, if `text` calls it, to go before it."""
    if HELPER + "(" not in text:
        return ""
    limit = f"{TEAM_START_WORK}L"
    return ("/* lift: whether a parallel loop of `work` may start the threads: once the loops run\n"
            f"   sequentially so far have done {TEAM_START_WORK} units of work (iterations x statements,\n"
            "   several times the cost of starting them), or when this loop alone does as much */\n"
            "static long lift_team_work;\n"
            f"static int {HELPER}(long work)\n"
            "{\n"
            "    long done;\n"
            "    #pragma omp atomic read\n"
            "    done = lift_team_work;\n"
            f"    if (done >= {limit} || work >= {limit})\n"
            "        return 1;\n"
            "    #pragma omp atomic capture\n"
            "    done = lift_team_work += work;\n"
            f"    return done >= {limit};\n"
            "}\n")
