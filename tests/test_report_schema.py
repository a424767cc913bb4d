"""The report is versioned, follows its JSON Schema (docs/report.schema.json) and gives every loop
that is not parallelized a stable reason_code that docs/report.md documents (issue 18)."""
from __future__ import annotations

import copy
import json
import os
import re

import jsonschema
import pytest

from lifter.report import PASS_OF, REPORT_VERSION
from tests.cli_runner import lift

ROOT = os.path.join(os.path.dirname(__file__), "..")
SCHEMA = json.load(open(os.path.join(ROOT, "docs", "report.schema.json")))
DOC = open(os.path.join(ROOT, "docs", "report.md")).read()
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
CORPUS = [("stencils/seidel2d.c", []), ("linalg/gemm.c", []), ("apps/cellmd/force.c", ["-I", "corpus/apps"]),
          ("apps/mgrid/ops.c", ["-I", "corpus/apps"])]

REASONS = """
#include <stdio.h>
volatile int flag;
void unknown(double *);
double reasons(int n, double *restrict a, double *restrict b, int *restrict p)
{
    double s = 0;
    for (int i = 1; i < n; i++)          /* flow-dependence */
        a[i] = a[i - 1] + 1.0;
    for (int i = 0; i < n; i++)          /* non-affine-subscript */
        a[p[i]] = b[i];
    for (int i = 0; i < n; i++)          /* call-effects */
        unknown(&a[i]);
    for (int i = 0; i < n; i++)          /* volatile-or-atomic */
        a[i] = flag;
    for (int i = 0; i < n; i++) {        /* jump */
        if (a[i] < 0)
            return a[i];
    }
    for (int i = 0; i < n * b[0]; i++)   /* non-affine-bound */
        a[i] = 0;
#pragma omp parallel for
    for (int i = 0; i < n; i++)          /* user-pragma */
        b[i] = 1;
    for (int i = 0; i < 10; i++)         /* not-profitable */
        b[i] = b[i] * 2.0;
    for (int i = 0; i < n; i++) {        /* enclosing-parallel (inner) */
        for (int j = 0; j < n; j++)
            s += a[i * n + j];
    }
    return s;
}
"""
EXPECTED = {8: "flow-dependence", 10: "non-affine-subscript", 12: "call-effects", 14: "volatile-or-atomic",
            16: "jump", 20: "non-affine-bound", 23: "user-pragma", 25: "not-profitable"}


def test_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["properties"]["version"]["const"] == REPORT_VERSION


def test_reason_codes_and_passes_are_documented():
    codes = SCHEMA["$defs"]["reason_code"]["enum"]
    section = DOC[DOC.index("## reason_code"):DOC.index("## Remarks on the command line")]
    documented = re.findall(r"^\| `([a-z-]+)` \|", section, re.M)
    assert sorted(documented) == sorted(codes)
    passes = SCHEMA["$defs"]["loop"]["properties"]["passes"]["items"]["enum"]
    assert set(PASS_OF.values()) | {"parallelize", "offload"} == set(passes)
    assert all(f"`{p}`" in DOC for p in passes)


@pytest.fixture
def in_root(monkeypatch):
    monkeypatch.chdir(ROOT)


@pytest.mark.parametrize("path,flags", CORPUS)
def test_single_file_reports_follow_the_schema(in_root, tmp_path, path, flags):
    r = lift(f"corpus/{path}", *flags, "-o", tmp_path / "o.c", "--report", tmp_path / "r.json")
    assert r.code == 0, r.stderr
    report = json.load(open(tmp_path / "r.json"))
    VALIDATOR.validate(report)
    assert report["version"] == REPORT_VERSION
    assert all("reason_code" in e for e in report["loops"] if not e["parallelized"])


def test_cuda_report_follows_the_schema(in_root, tmp_path):
    r = lift("corpus/linalg/gemm.c", "-o", tmp_path / "o.cu", "--report", tmp_path / "r.json")
    assert r.code == 0, r.stderr
    report = json.load(open(tmp_path / "r.json"))
    VALIDATOR.validate(report)
    assert any("offload" in e["passes"] for e in report["loops"])


def test_batch_report_follows_the_schema(in_root, tmp_path):
    r = lift("corpus/stencils/seidel2d.c", "corpus/linalg/gemm.c", "-d", tmp_path / "out", "-q", "--no-cache",
             "--report", tmp_path / "r.json")
    assert r.code == 0, r.stderr
    report = json.load(open(tmp_path / "r.json"))
    VALIDATOR.validate(report)
    assert report["version"] == REPORT_VERSION and len(report["files"]) == 2


def test_reason_codes_come_from_the_verdicts(tmp_path):
    p = tmp_path / "reasons.c"
    p.write_text(REASONS)
    r = lift(p, "-o", tmp_path / "o.c", "--report", tmp_path / "r.json")
    assert r.code == 0, r.stderr
    report = json.load(open(tmp_path / "r.json"))
    VALIDATOR.validate(report)
    codes = {e["line"]: e.get("reason_code") for e in report["loops"]}
    assert {line: codes[line] for line in EXPECTED} == EXPECTED
    inner = next(e for e in report["loops"] if e["line"] == 28)
    assert inner["reason_code"] == "enclosing-parallel" and inner["kind"] in ("analysis", "passed")


def test_the_schema_can_fail(in_root, tmp_path):
    assert lift("corpus/stencils/seidel2d.c", "-o", tmp_path / "o.c", "--report", tmp_path / "r.json").code == 0
    report = json.load(open(tmp_path / "r.json"))
    for broken in ("no code", "bad code", "no version", "bad kind"):
        bad = copy.deepcopy(report)
        missed = next(e for e in bad["loops"] if not e["parallelized"])
        if broken == "no code":
            del missed["reason_code"]
        elif broken == "bad code":
            missed["reason_code"] = "because"
        elif broken == "no version":
            del bad["version"]
        else:
            missed["kind"] = "maybe"
        assert not VALIDATOR.is_valid(bad), broken


HTML_SOURCE = """#include <stdio.h>
void h(int n, double *restrict a, double *restrict b)
{
    for (int i = 1; i < n && a[0] < 1e9; i++)   /* while-like: a < b & c */
        a[i] = a[i - 1] + b[i];
}
"""


def test_html_view_has_the_source_and_each_loops_verdict(tmp_path):
    from html.parser import HTMLParser

    class Cells(HTMLParser):
        def __init__(self):
            super().__init__()
            self.rows, self.cell = [], None

        def handle_starttag(self, tag, attrs):
            if tag == "tr":
                self.rows.append((dict(attrs).get("class"), []))
            elif tag == "td":
                self.cell = ""

        def handle_endtag(self, tag):
            if tag == "td" and self.rows:
                self.rows[-1][1].append(self.cell)
                self.cell = None

        def handle_data(self, data):
            if self.cell is not None:
                self.cell += data

    p = tmp_path / "h.c"
    p.write_text(HTML_SOURCE)
    r = lift(p, "-o", tmp_path / "o.c", "--report", tmp_path / "r.json", "--report-html", tmp_path / "h.html")
    assert r.code == 0, r.stderr
    parser = Cells()
    parser.feed((tmp_path / "h.html").read_text())
    source = [cells[1] for kind, cells in parser.rows if kind is None]
    assert source == HTML_SOURCE.split("\n")  # every line, '<' and '&' as written
    notes = [cells[1].replace("\xa0", " ") for kind, cells in parser.rows if kind == "r"]
    loops = json.load(open(tmp_path / "r.json"))["loops"]
    assert len(notes) == len(loops) == 1
    assert notes[0].endswith(loops[0]["remark"]) and loops[0]["reason_code"] in notes[0]
    assert lift(p, "-d", tmp_path / "out", "--report-html", tmp_path / "x.html").code == 1
