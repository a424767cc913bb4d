"""Run the `lift` command in this process, as the console script does, for the CLI and batch tests."""
from __future__ import annotations

from dataclasses import dataclass

from click.testing import CliRunner

from lifter.cli import main


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str


def lift(*argv) -> Run:
    """`lift argv...` through lifter.cli.main; the exit status as a shell would see it."""
    runner = CliRunner()
    with runner.isolation() as streams:
        try:
            main([str(a) for a in argv])
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        out, err = streams[0].getvalue(), streams[1].getvalue()
    return Run(code, out, err.decode("utf-8", errors="replace"))
