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
    ("Optimization", ["opt_level", "target", "no_tile", "no_fuse", "no_unroll", "assume_no_alias",
                      "no_strict_aliasing", "tile_sizes"]),
    ("Output and reports", ["output", "report_path", "html_path", "remarks", "rpass", "rpass_missed", "rpass_analysis",
                            "opt_info", "color", "graph_path", "graph_function"]),
    ("Batch and make", ["outdir", "jobs", "fail_fast", "quiet", "cache_dir", "no_cache", "dep_md", "dep_mmd",
                        "dep_file", "dep_targets", "dep_quoted", "dep_phony"]),
]


# Options shown in their cc or clang spelling (the command line rewrites these into the long form).
SPELLING = {"rpass": "-Rpass[=REGEX]", "rpass_missed": "-Rpass-missed[=REGEX]",
            "rpass_analysis": "-Rpass-analysis[=REGEX]",
            "opt_info": "-fopt-info[-KIND][=FILE]", "color": "-fdiagnostics-color=WHEN", "std": "-std=STD",
            "opt_level": "-O0|-O1|-O2, --opt-level N", "language": "-x c", "system_dirs": "-isystem DIR",
            "quote_dirs": "-iquote DIR", "after_dirs": "-idirafter DIR", "forced_includes": "-include FILE",
            "assume_no_alias": "--assume-no-alias", "no_strict_aliasing": "-fno-strict-aliasing"}


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


class CompilerChoice(click.Choice):
    """A choice whose wrong value is reported as gcc reports it, in the spelling the user typed
    (`-std=c44`, not click's `'--std' / '-std'`), with the valid values on the same line."""

    def __init__(self, choices, spelling: str):
        super().__init__(choices)
        self.spelling = spelling

    def convert(self, value, param, ctx):
        if value in self.choices:
            return value
        given = (f"in option '{self.spelling}{value}'" if self.spelling.endswith("=")
                 else f"'{value}' to option '{self.spelling}'")
        raise click.UsageError(f"unrecognized argument {given}; valid arguments are: {', '.join(self.choices)}",
                               ctx)


def usage_error(exc: click.ClickException, command: click.Command) -> str:
    """A click usage error as a compiler says it: `lift: error: ...`, one line, lower case, no
    final full stop (gcc's form; click's own sentences are capitalised)."""
    if isinstance(exc, click.NoSuchOption):
        return f"lift: error: unrecognized command-line option '{exc.option_name}'"
    if isinstance(exc, click.BadOptionUsage) and "requires" in exc.message:
        return f"lift: error: {_missing(exc, command)}"
    message = exc.format_message().rstrip(".")
    return f"lift: error: {message[:1].lower()}{message[1:]}"


# gcc's words for an option given without its value, by the kind of value (the option's metavar;
# -D and -U by their name: --function's metavar is NAME too).
_MISSING = {"FILE": "missing filename after '{}'", "DIR": "missing path after '{}'",
            "TARGET": "missing makefile target after '{}'", "defines": "macro name missing after '{}'",
            "undefines": "macro name missing after '{}'"}


def _missing(exc: click.BadOptionUsage, command: click.Command) -> str:
    param = next((p for p in command.params if exc.option_name in p.opts + p.secondary_opts), None)
    words = _MISSING.get(param.name, _MISSING.get(param.metavar)) if param is not None else None
    return (words or "missing argument to '{}'").format(exc.option_name)
