"""Whether a `for` header as written is in OpenMP's canonical loop form, read from its tokens.

gcc checks the form for `omp for` and `omp simd` (OpenMP 5.x, 4.4.1) on the text as written, so
this is a question about the text's tokens (spans.py), not about the loop's meaning: C's
two-character operators are read from adjacent punctuation (`<=` is two tokens there).
"""
from __future__ import annotations

from lifter.frontend.spans import Token, TokenKind, lexed, match_brackets

# C's operators of two and three characters (maximal munch), as adjacent punctuation tokens.
_OPERATORS = {"<<=", ">>=", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<=", ">=", "==", "!=",
              "<<", ">>", "->", "&&", "||"}
_COMPARISONS = {"<", "<=", ">", ">=", "!="}
# At the top level of a bound: an operator that binds looser than a comparison, or is one.
_LOOSER = {"&&", "||", "?", ",", "<", ">", "<=", ">=", "==", "!=", "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=",
           "^=", "<<=", ">>="}


def canonical(header: str, var: str) -> bool:
    """The header is in OpenMP's canonical loop form as written: `[type] var = lb`; `var op b` or
    `b op var` with `op` one of `< <= > >= !=` and `b` free of `var` and of operators that bind
    looser than `op` (`i < n && i < m` is rejected: "invalid controlling predicate"); `var++`,
    `++var`, `var--`, `--var`, `var += s`, `var -= s`, `var = var + s`, `var = s + var` or
    `var = var - s`. Parentheses inside a part are fine as gcc reads them (`i < (n)`, `(i) < n`,
    `(i)++`, `i += (2)`), but an initialisation starting with one (`(i = 0)`, `(i) = 0`) or a test
    wrapped in one (`(i < n)`) is not ("invalid controlling predicate")."""
    parts = _clauses(header)
    if parts is None:
        return False
    init, test, step = parts
    if len(step) > 1 and step[0].text == "(" and match_brackets(step).get(0) == len(step) - 1:
        step = step[1:-1]  # gcc reads a parenthesized increment expression (`(i += 2)`)
    bounds = [_init_bound(init, var), _test_bound(test, var), _step_bound(step, var)]
    if any(b is None for b in bounds):
        return False
    return all(_operand(b) for b in bounds) and \
        not any(t.kind == TokenKind.WORD and t.text == var for t in bounds[1] + bounds[2])


def _clauses(header: str) -> list[list[Token]] | None:
    """The three `;`-separated clauses of `for (...)`, each as its tokens with C's operators joined."""
    toks = lexed(header).tokens
    opening = next((k for k, t in enumerate(toks) if t.text == "("), None)
    closing = max((k for k, t in enumerate(toks) if t.text == ")"), default=None)
    if opening is None or closing is None or closing < opening:
        return None
    parts = [[]]
    for t in toks[opening + 1:closing]:
        if t.text == ";":
            parts.append([])
        else:
            parts[-1].append(t)
    return [_joined(p) for p in parts] if len(parts) == 3 else None


def _joined(toks: list[Token]) -> list[Token]:
    """The tokens with adjacent punctuation that spells one of C's operators made one token."""
    out, k = [], 0
    while k < len(toks):
        for n in (3, 2):
            run = toks[k:k + n]
            if len(run) == n and all(t.kind == TokenKind.PUNCT for t in run) and \
                    all(a.end == b.start for a, b in zip(run, run[1:])) and "".join(t.text for t in run) in _OPERATORS:
                out.append(Token(TokenKind.PUNCT, "".join(t.text for t in run), run[0].start, run[-1].end))
                k += n
                break
        else:
            out.append(toks[k])
            k += 1
    return out


def _var_end(toks: list[Token], k: int, var: str) -> int | None:
    """Just past `var` or `(var)` at k, or None."""
    if k < len(toks) and toks[k].kind == TokenKind.WORD and toks[k].text == var:
        return k + 1
    if k + 2 < len(toks) and [t.text for t in toks[k:k + 3]] == ["(", var, ")"]:
        return k + 3
    return None


def _var_start(toks: list[Token], var: str) -> int | None:
    """Where a final `var` or `(var)` begins, or None."""
    for k in (len(toks) - 1, len(toks) - 3):
        if k >= 0 and _var_end(toks, k, var) == len(toks):
            return k
    return None


def _init_bound(toks: list[Token], var: str) -> list[Token] | None:
    """`lb` of `[type words] var = lb` (a word may take a parenthesized group: `__typeof__(n)`)."""
    k = 0
    while k < len(toks) and toks[k].kind == TokenKind.WORD:
        if toks[k].text == var and k + 1 < len(toks) and toks[k + 1].text == "=":
            return toks[k + 2:] or None
        k += 1
        if k < len(toks) and toks[k].text == "(":
            close = match_brackets(toks).get(k)
            if close is None or any(t.text in ("=", ";", ",") for t in toks[k:close]):
                return None
            k = close + 1
    return None


def _test_bound(toks: list[Token], var: str) -> list[Token] | None:
    """`b` of `var op b` or `b op var`."""
    k = _var_end(toks, 0, var)
    if k is not None and k + 1 < len(toks) and toks[k].text in _COMPARISONS:
        return toks[k + 1:]
    k = _var_start(toks, var)
    if k is not None and k >= 2 and toks[k - 1].text in _COMPARISONS:
        return toks[:k - 1]
    return None


def _step_bound(toks: list[Token], var: str) -> list[Token] | None:
    """The step `s` of an increment ([] for `++` and `--`)."""
    k = _var_end(toks, 0, var)
    if k == len(toks) - 1 and toks[k].text in ("++", "--") or \
            len(toks) > 1 and toks[0].text in ("++", "--") and _var_end(toks, 1, var) == len(toks):
        return []
    if k is not None and k + 1 < len(toks) and toks[k].text in ("+=", "-="):
        return toks[k + 1:]
    if k is None or k + 1 >= len(toks) or toks[k].text != "=":
        return None
    rest = toks[k + 1:]
    j = _var_end(rest, 0, var)
    if j is not None and j + 1 < len(rest) and rest[j].text in "+-":
        return rest[j + 1:]
    j = _var_start(rest, var)
    if j is not None and j >= 2 and rest[j - 1].text == "+":
        return rest[:j - 1]
    return None


def _operand(toks: list[Token]) -> bool:
    """No operator outside brackets that binds looser than a comparison (or is one)."""
    brackets = match_brackets(toks)
    k = 0
    while k < len(toks):
        if toks[k].text in ("(", "["):
            if k not in brackets:
                return True  # (unbalanced: its inside is not the top level)
            k = brackets[k] + 1
            continue
        if toks[k].kind == TokenKind.PUNCT and toks[k].text in _LOOSER:
            return False
        k += 1
    return True
