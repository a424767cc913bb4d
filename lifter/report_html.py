"""The report as a page: the source with each loop's verdict beside its line (`--report-html`).

clang's opt-viewer shows remarks this way; lift has every remark's place already, so the page
is the source, line by line, with a note after each line where a loop starts: its kind
(passed, missed, analysis), its passes, its reason_code and the remark. One self-contained
file (no scripts, no external style sheets), readable in any browser.
"""
from __future__ import annotations

from html import escape

_STYLE = """
body { font-family: sans-serif; margin: 1em; }
table { border-collapse: collapse; font-family: monospace; font-size: 13px; }
td.n { color: #888; text-align: right; padding-right: 1em; user-select: none; }
td.s { white-space: pre; }
tr.r td { font-family: sans-serif; padding: 2px 0 4px 0; }
span.k { border-radius: 3px; padding: 0 4px; margin-right: 6px; color: #fff; }
span.passed { background: #2a7d2a; } span.missed { background: #b03030; } span.analysis { background: #3060b0; }
span.c { color: #555; margin-right: 6px; }
"""


def report_html(path: str, text: str, loops: list[dict]) -> str:
    """The page for the file `path` (its text) and its report entries."""
    at: dict[int, list[dict]] = {}
    for entry in loops:
        if entry["file"] == path:
            at.setdefault(entry["line"], []).append(entry)
    rows = []
    for number, line in enumerate(text.split("\n"), start=1):
        rows.append(f'<tr id="L{number}"><td class="n">{number}</td><td class="s">{escape(line.rstrip())}</td></tr>')
        for entry in sorted(at.get(number, []), key=lambda e: e["column"]):
            code = f'<span class="c">{escape(entry["reason_code"])}</span>' if "reason_code" in entry else ""
            indent = "&nbsp;" * (entry["column"] - 1)
            rows.append(f'<tr class="r"><td class="n"></td><td>{indent}'
                        f'<span class="k {entry["kind"]}">{entry["kind"]}: {escape(", ".join(entry["passes"]))}'
                        f'</span>{code}{escape(entry["remark"])}</td></tr>')
    mine = [e["kind"] for e in loops if e["file"] == path]
    summary = ", ".join(f"{mine.count(k)} {k}" for k in ("passed", "missed", "analysis"))
    return (f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>lift: {escape(path)}</title>'
            f"<style>{_STYLE}</style></head>\n<body><h1>{escape(path)}</h1><p>{summary}</p>\n<table>\n"
            + "\n".join(rows) + "\n</table></body></html>\n")
