"""`lift --help` in groups, one line per option, and usage errors in the compiler's form.

click prints one flat list and, on a bad command line, its `Usage:`/`Error:` block with exit
status 2. A compiler driver prints `lift: error: ...` and exits with 1, and its help is grouped
by what the options are for; the details of each option are in docs/options.md.
"""
from __future__ import annotations

import click

# Each option's group, by its first long or short name; an option named nowhere here (one added
# later) is listed under "Other options", so that no option goes missing from --help.
GROUPS = [
    ("Input and preprocessing", ["inputs", "include_dirs", "system_dirs", "quote_dirs", "after_dirs", "defines",
                                 "undefines", "forced_includes", "std", "language", "preprocess_only"]),
    ("Optimization", ["opt_level", "target", "no_tile", "no_fuse", "no_unroll", "assume_no_alias", "tile_sizes"]),
    ("Output and reports", ["output", "report_path", "html_path", "remarks", "rpass", "rpass_missed", "rpass_analysis",
                            "opt_info", "color", "graph_path"]),
    ("Batch and make", ["outdir", "jobs", "fail_fast", "quiet", "cache_dir", "no_cache", "dep_md", "dep_mmd",
                        "dep_file", "dep_targets", "dep_quoted", "dep_phony"]),
]


# Options shown in their cc or clang spelling (the command line rewrites these into the long form).
SPELLING = {"rpass": "-Rpass=REGEX", "rpass_missed": "-Rpass-missed=REGEX", "rpass_analysis": "-Rpass-analysis=REGEX",
            "opt_info": "-fopt-info[-KIND][=FILE]", "color": "-fdiagnostics-color=WHEN", "std": "-std=STD",
            "opt_level": "-O0|-O1|-O2, --opt-level N", "language": "-x c", "system_dirs": "-isystem DIR",
            "quote_dirs": "-iquote DIR", "after_dirs": "-idirafter DIR", "forced_includes": "-include FILE",
            "assume_no_alias": "--assume-no-alias"}


def _record(ctx: click.Context, param: click.Parameter) -> tuple[str, str] | None:
    """One option's row: its cc spelling where it has one, its help without click's
    `[default: ...]` and range notes (one line per option; the details are in docs/options.md)."""
    if isinstance(param, click.Argument):
        return param.make_metavar(ctx), "C files ('-': standard input)."
    record = param.get_help_record(ctx)
    if record is None:
        return None
    return SPELLING.get(param.name, record[0]), record[1].split("  [")[0]


class GroupedCommand(click.Command):
    """A click command whose help lists its options by group."""

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = {p.name: _record(ctx, p) for p in self.get_params(ctx)}
        grouped = {n for _, names in GROUPS for n in names}
        for title, names in GROUPS + [("Other options", [n for n in rows if n not in grouped])]:
            records = [rows[n] for n in names if rows.get(n)]
            if records:
                with formatter.section(title):
                    formatter.write_dl(records, col_max=30)


def usage_error(exc: click.ClickException) -> str:
    """A click usage error as a compiler says it: `lift: error: ...`."""
    if isinstance(exc, click.NoSuchOption):
        return f"lift: error: unrecognized command-line option '{exc.option_name}'"
    return f"lift: error: {exc.format_message()}"
