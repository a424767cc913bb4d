"""A syntax error from the parser, placed and worded as gcc would place and word it.

pycparser reports the token it could not take, at its place in the preprocessed text. That is
not always where the problem is: a missing `;` is reported at the first token of the next
line (gcc points just after the token that lacks it and proposes the `;`), an error inside a
macro's expansion has a column of the expanded text (gcc points into the macro's definition
and adds "in expansion of macro" at the use), and an error caused by a GNU extension the
parser does not know says only "syntax error". Each case is recognised here from the user's
text, and nothing is guessed when it is not recognised: the parser's place stays.
"""
from __future__ import annotations

import re

import dataclasses

from lifter.diagnostics import Diagnostic, LiftError
from lifter.frontend.parse import SyntaxFailure, mangle_extended_identifiers
from lifter.frontend.preprocess import unescape_marker
from lifter.frontend.source import SourceFile, read_source
from lifter.frontend.typeof import typeof_keywords

# C extensions the parser does not know: a syntax error on a line (or in a macro) that uses one says so.
# (The spellings of typeof that are not keywords of the standard asked for are added by _unsupported.)
UNSUPPORTED = [
    (re.compile(r"\b__auto_type\b"), "'__auto_type' (a GNU extension) is not supported"),
    (re.compile(r"\b_Generic\b"), "'_Generic' selections are not supported"),
    # `&&label` only where an operand starts (`a && b` is C). A pattern's group `at` or `goto`, where
    # it has one, is what the caret points at (gcc's and clang's places: see _span).
    (re.compile(r"(?:^|[=(,{\[?:]|\breturn)\s*(?P<at>&&\s*[A-Za-z_]\w*)|(?P<goto>\bgoto\s*\*)"),
     "labels as values ('&&label', 'goto *p') are not supported"),
    (re.compile(r"(?P<at>\bcase\b)[^:]*\.\.\."), "case ranges ('case 1 ... 5:') are not supported"),
    (re.compile(r"\b__label__\b"), "local labels ('__label__') are not supported"),
    (re.compile(r"\[[^\[\]]*?(?P<at>\.\.\.)[^\[\]]*\]\s*="),
     "designated ranges ('[0 ... 9] = v', a GNU extension) are not supported"),
    (re.compile(r"\?\s*(?P<at>:)"), "'?:' expressions without a middle operand (a GNU extension) are not supported"),
    (re.compile(r"(?P<at>\[)\["), "C23 attributes ('[[...]]') are not supported"),
    (re.compile(r"\b__builtin_types_compatible_p\b"), "'__builtin_types_compatible_p' is not supported"),
    (re.compile(r"\b__builtin_choose_expr\b"), "'__builtin_choose_expr' is not supported"),
    (re.compile(r"\b(?:__complex__|__real__|__imag__)\b"), "GNU complex keywords are not supported"),
]
# A function definition where the parser expected a statement: a GNU nested function.
_NESTED_FUNCTION = re.compile(r"^\s*(?!(?:if|for|while|switch|return|else|do)\b)[A-Za-z_][\w\s*]*?\b"
                              r"[A-Za-z_]\w*\s*\([^;{}()]*\)\s*\{")
_NESTED_WHY = "nested function definitions (a GNU extension) are not supported"
_BEFORE = re.compile(r"^(?P<what>.*) before '(?P<token>.+)'$")
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(?P<name>[A-Za-z_]\w*)(?P<params>\([^)]*\))?", re.M)
_WORD = re.compile(r"[A-Za-z_]\w*")
# Tokens that start a statement or a declaration: before one of them, after a token that can end
# an expression, what is missing is the `;`.
_STATEMENT_START = re.compile(r"^(?:[A-Za-z_]\w*|\}|\*|\(|\+\+|--)$")
# ... but not these: a syntax error before `else` or a do loop's `while` has other causes.
_NOT_AFTER_EXPRESSION = {"else", "while"}
_ENDS_EXPRESSION = re.compile(r"(?:[\w)\]'\"]|\+\+|--)$")
# C tokens, as far as telling the parser's line and the user's apart needs (longest punctuators first).
_C_TOKEN = re.compile(r"""(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\.?\d(?:[eEpP][+-]|[\w.])*|(?:\\[uU]|[^\W\d])"""
                      r"""(?:\\[uU]|\w)*|\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|[<>=!*/%+\-&^|]=|&&|\|\||##|\S)""")


class Unsupported(LiftError):
    """A syntax error explained by a construct lift does not parse (named in the message): the
    compiler's own error for it, where it has one, says less."""


def explain(exc: LiftError, source: SourceFile, headers: list[str], std: str = "c11") -> LiftError:
    """The parser's error `exc` (on C of `-std=STD`), moved to where the problem is and with what
    lift does not support said."""
    unsupported = _unsupported(std)
    d = exc.diagnostic
    if d.path != source.path and d.path in headers:  # an error in a header the file included: explained in it
        try:
            source = read_source(d.path)
        except LiftError:
            return exc
    if d.path != source.path or not d.line:
        return exc
    line = source.line_text(d.line)
    if isinstance(exc, SyntaxFailure) and exc.parsed_line is not None and d.column:
        d = dataclasses.replace(d, column=_user_column(line, exc.parsed_line, d.column) or d.column)
    before = _BEFORE.match(d.message)
    token = before["token"] if before else ""
    if token and d.column and not line[d.column - 1:].startswith(token):
        located = _in_macro(d, line, token, source, headers, unsupported)
        if located is not None:
            return located
    if d.column > len(line) + 1:  # inside an expansion lift could not place: no column rather than a wrong one
        d = Diagnostic(d.path, d.line, 0, "error", d.message)
    construct = _unsupported_match(unsupported, line)
    if construct is not None:  # at the construct, as gcc -pedantic points at it ("ISO C forbids ...")
        (first, end), why = construct
        return Unsupported(d.path, d.line, first + 1, why, ranges=((first + 1, end),))
    if token == "{" and _NESTED_FUNCTION.match(line):
        return LiftError(d.path, d.line, d.column, f"{d.message}: {_NESTED_WHY}")
    if token and before["what"] == "syntax error" and d.column and not line[:d.column - 1].strip() \
            and _STATEMENT_START.match(token) and token not in _NOT_AFTER_EXPRESSION:
        missing = _missing_semicolon(source, d.line, d.column, token)
        if missing is not None:
            return missing
    return LiftError(d.path, d.line, d.column, d.message, ranges=_token_range(d.column, token))


def _user_column(line: str, parsed: str, column: int) -> int | None:
    """The parser's `column` in its line `parsed` (as the preprocessor wrote it: runs of blanks
    made one, comments replaced, `é` written `\\U000000e9`, then mangled) as a column of the
    user's `line`: the same token, counted from the start, when both lines have the same tokens
    up to it (no macro expanded before it); None otherwise."""
    theirs = [(m.start(), m.end(), m.group()) for m in _C_TOKEN.finditer(parsed)]
    ours = [(m.start(), m.end(), mangle_extended_identifiers(m.group())[0]) for m in _C_TOKEN.finditer(_code(line))]
    k = next((i for i, t in enumerate(theirs) if t[0] >= column - 1), len(theirs))
    if len(ours) < k or [t[2] for t in ours[:k]] != [t[2] for t in theirs[:k]]:
        return None
    if k < len(theirs):
        return ours[k][0] + 1 if k < len(ours) and ours[k][2] == theirs[k][2] else None
    return ours[k - 1][1] + column - theirs[k - 1][1] if k else None  # past the last token


def _unsupported(std: str) -> list[tuple[re.Pattern, str]]:
    """UNSUPPORTED, and the spellings of typeof that `-std=STD` does not make keywords: used as
    types, they are syntax errors for the compiler too, and the error says which standard has them."""
    keywords = typeof_keywords(std)
    late = [(word, standards) for word, standards in (("typeof", "C23 and the GNU dialects"), ("typeof_unqual", "C23"))
            if word not in keywords]
    return UNSUPPORTED + [(re.compile(rf"\b{word}(?=\s*\()"),
                           f"'{word}' is not a keyword of -std={std} (only of {standards}): write '__{word}__', "
                           f"or choose -std=c23") for word, standards in late]


def _unsupported_match(patterns: list[tuple[re.Pattern, str]], text: str, start: int = 0) \
        -> tuple[tuple[int, int], str] | None:
    """The first construct of `patterns` in `text` (from `start`) and why it is refused."""
    found = [(m, why) for m, why in ((p.search(text, start), why) for p, why in patterns) if m]
    if not found:
        return None
    m, why = min(found, key=lambda f: _span(f[0])[0])
    return _span(m), why


def _span(m: re.Match) -> tuple[int, int]:
    """Where a construct's match is: its named group where it has one that matched (`at`, `goto`)."""
    return next((m.span(g) for g in m.re.groupindex if m[g] is not None), m.span())


def _token_range(column: int, token: str) -> tuple[tuple[int, int], ...]:
    return ((column, column + len(token) - 1),) if column and len(token) > 1 else ()


def _missing_semicolon(source: SourceFile, line: int, column: int, token: str) -> LiftError | None:
    """gcc's "expected ';' before 'X'" just after the last token of the previous line, when
    that token ends an expression (a name, a number, `)`, `]`, a string); "expected ')'" when
    that line leaves a `(` open. A declaration without its `;` is reported as gcc 12 reports it,
    at the token after it (`X`, at `line` and `column`), with what could have come before it
    (clang points after the declaration: lift follows gcc, as everywhere)."""
    previous = line - 1
    while previous >= 1:
        text = _code(source.line_text(previous))
        if text.strip() and not text.lstrip().startswith("#"):
            break
        previous -= 1
    else:
        return None
    text = _code(source.line_text(previous)).rstrip()
    unclosed = _unclosed_parenthesis(text)
    expected = _declaration_expects(text) if unclosed is None else None
    if expected is not None:
        return LiftError(source.path, line, column, f"expected {expected} before '{token}'",
                         ranges=_token_range(column, token))
    if not _ENDS_EXPRESSION.search(text):
        return None
    if unclosed is not None:  # gcc: the `)` is what is missing, and the `(` it closes is marked
        return LiftError(source.path, previous, len(text) + 1, f"expected ')' before '{token}'", fixit=")",
                         ranges=((unclosed + 1, unclosed + 1),))
    return LiftError(source.path, previous, len(text) + 1, f"expected ';' before '{token}'", fixit=";")


def _declaration_expects(code: str) -> str | None:
    """What gcc says may follow the declaration on the line `code` when something else does:
    after an initializer, another declarator or the `;`; after a struct, union or enum
    definition, a declarator or the `;`; else also an initializer. None if `code` is not a
    declaration that lacks only its `;` (from its first words: a type, storage class or
    qualifier keyword, or a type name followed by a declarator, `size_t n`)."""
    if not _DECLARATION_START.match(code) or code.endswith((";", "{", ",", "(")):
        return None
    if re.match(r"\s*(?:typedef\s+)?(?:struct|union|enum)\b", code) and code.endswith("}") and "=" not in code:
        return "';', identifier or '('"
    if re.search(r"(?<![=!<>+\-*/%&|^])=(?!=)", code):
        return "',' or ';'"
    return "'=', ',', ';', 'asm' or '__attribute__'"


_DECLARATION_START = re.compile(
    r"\s*(?:(?:void|char|short|int|long|float|double|signed|unsigned|_Bool|bool|_Complex|struct|union|enum|const"
    r"|volatile|restrict|static|extern|register|typedef|inline|_Thread_local|_Atomic|_Alignas)\b"
    r"|(?!(?:return|goto|case|default|else|do|sizeof|break|continue)\b)[A-Za-z_]\w*\s+\**\s*[A-Za-z_])")


def _unclosed_parenthesis(code: str) -> int | None:
    """Where the last `(` of a line without its `)` is (strings skipped), or None."""
    opened: list[int] = []
    for m in _C_TOKEN.finditer(code):
        if m.group() == "(":
            opened.append(m.start())
        elif m.group() == ")" and opened:
            opened.pop()
    return opened[-1] if opened else None


def _code(text: str) -> str:
    """A line without its trailing `//` or one-line `/* */` comment (outside string literals)."""
    out, quote, i = [], "", 0
    while i < len(text):
        ch = text[i]
        if quote:
            out.append(ch)
            if ch == "\\" and i + 1 < len(text):
                out.append(text[i + 1])
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
            out.append(ch)
        elif text.startswith("//", i):
            break
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                break
            out.append(" " * (end + 2 - i))
            i = end + 1
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def _in_macro(d: Diagnostic, line: str, token: str, source: SourceFile, headers: list[str],
              unsupported: list[tuple[re.Pattern, str]]) -> LiftError | None:
    """The error inside the expansion of a macro used on the line: placed in the macro's
    definition, with gcc's note "in expansion of macro 'M'" at the use."""
    macros = _definitions(source, headers)
    uses = [m for m in _WORD.finditer(_code(line)) if m.group() in macros]
    if not uses:
        return None
    use = next((m for m in reversed(uses) if m.start() + 1 <= d.column), uses[0])
    name = use.group()
    path, def_line, text, body = macros[name]
    at = text.find(token, body)
    if at >= 0 and text.find(token, at + 1) >= 0:
        at = -1  # which of several is the one is not known: the definition's start, no range
    column = at + 1 if at >= 0 else len(text) - len(text[body:].lstrip()) + 1
    note = Diagnostic(d.path, d.line, use.start() + 1, "note", f"in expansion of macro '{name}'",
                      _token_range(use.start() + 1, name))
    construct = _unsupported_match(unsupported, text, body)
    if construct is not None:
        (first, end), why = construct
        return Unsupported(path, def_line, first + 1, why, ranges=((first + 1, end),), notes=(note,))
    return LiftError(path, def_line, column, d.message, ranges=_token_range(column, token) if at >= 0 else (),
                     notes=(note,))


def _definitions(source: SourceFile, headers: list[str]) -> dict[str, tuple[str, int, str, int]]:
    """Every `#define` of the file and of the headers it included: name -> (file, line, the
    definition's line, where its body starts). A later definition of a name wins."""
    found: dict[str, tuple[str, int, str, int]] = {}
    for path in headers + [source.path]:
        if path == source.path:
            text = source.text
        else:
            try:
                with open(path, encoding="utf-8", errors="surrogateescape") as handle:
                    text = handle.read(1 << 22)
            except OSError:
                continue
        number, counted = 1, 0
        for m in _DEFINE.finditer(text):
            number, counted = number + text.count("\n", counted, m.start()), m.start()
            start = text.rfind("\n", 0, m.start()) + 1
            end = text.find("\n", m.end())
            found[m["name"]] = (path, number, text[start:end if end >= 0 else len(text)], m.end() - start)
    return found


_LINE_MARKER = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"((?: \d)*)$')


def with_include_chain(error: LiftError, preprocessed: str) -> LiftError:
    """`error`, when it is in a header, with the #include lines that led there (gcc's "In file
    included from"), read from the preprocessor's line markers: flag 1 enters a file from the
    line of the file below it, flag 2 returns to a file."""
    d = error.diagnostic
    if not d.line or d.included_from:
        return error
    stack: list[list] = []  # [file, number of the next line]
    for text in preprocessed.split("\n"):
        m = _LINE_MARKER.match(text) if text.startswith("# ") else None
        if m is None:
            if stack and stack[-1][0] == d.path and stack[-1][1] == d.line:
                break
            if stack:
                stack[-1][1] += 1
            continue
        file, number, flags = unescape_marker(m[2]), int(m[1]), m[3].split()
        if "1" in flags:
            stack.append([file, number])
        elif "2" in flags:
            while len(stack) > 1 and stack[-1][0] != file:
                stack.pop()
            stack[-1:] = [[file, number]]
        else:
            stack[-1:] = [[file, number]]
    else:
        return error
    # `-include FILE` is included from "<command-line>", which has no line (gcc shows none)
    chain = tuple((file, 0 if file.startswith("<") else line) for file, line in reversed(stack[:-1]))
    if not chain:
        return error
    return LiftError(d.path, d.line, d.column, d.message, ranges=d.ranges, fixit=d.fixit, notes=d.notes,
                     included_from=chain, function=d.function)


# The tokens of preprocessed text that tell a function's body from the rest (literals skipped whole).
_OUTLINE_TOKEN = re.compile(r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|[A-Za-z_]\w*|\S""")
_NOT_FUNCTIONS = {"sizeof", "_Alignof", "_Alignas", "alignof", "alignas", "typeof", "__typeof__", "__typeof",
                  "typeof_unqual", "__typeof_unqual__", "_Generic", "_Static_assert", "static_assert", "void", "char",
                  "short", "int", "long", "float", "double", "signed", "unsigned", "_Bool", "bool", "_Complex",
                  "const", "volatile", "restrict", "_Atomic", "static", "extern", "inline", "register"}


_LAST_TOKEN = re.compile(r" before '(?P<token>.+)'$")


def _gcc_token(message: str) -> str:
    """A message's `before 'X'` in gcc's words: a punctuator is "'}' token", a number a "numeric
    constant", a string literal a "string constant"; names and keywords stay as they are."""
    m = _LAST_TOKEN.search(message)
    if m is None or _WORD.fullmatch(m["token"]):
        return message
    token = m["token"]
    if token[0].isdigit() or token[0] == "." and token[1:2].isdigit():
        words = "numeric constant"
    elif token[0] == '"' or token[:2] in ('L"', 'u"', 'U"') or token[:3] == 'u8"':
        words = "string constant"
    else:
        words = f"'{token}' token"
    return message[:m.start()] + f" before {words}"


def with_function(error: LiftError, preprocessed: str) -> LiftError:
    """A parser's `error` in gcc's words (_gcc_token), with the function it is in (gcc's "k.c: In function 'f':"), read from the
    preprocessed text: the function whose body is open at the start of the error's line, or
    whose body opens on it before the error's column (the preprocessor keeps a line's columns
    where no macro or comment comes first: near enough to tell a parameter list from the body).
    An error in a macro's definition is in the function where the macro is expanded (its
    outermost note)."""
    d = error.diagnostic
    place = d.notes[-1] if d.notes else d
    name = d.function or (_function_at(preprocessed, place.path, place.line, place.column) if place.line else "")
    return LiftError(d.path, d.line, d.column, _gcc_token(d.message), ranges=d.ranges, fixit=d.fixit,
                     notes=d.notes, included_from=d.included_from, function=name)


def _function_at(preprocessed: str, path: str, line: int, column: int) -> str:
    file, number, depth, function = "", 0, 0, ""
    statement: list[str] = []  # the tokens at file scope since the last `;` or `}` there
    for text in preprocessed.split("\n"):
        m = _LINE_MARKER.match(text) if text.startswith("# ") else None
        if m is not None:
            file, number = unescape_marker(m[2]), int(m[1])
            continue
        here = (file, number) == (path, line)
        open_at_start = function if depth else ""
        for m in ([] if text.startswith("#") else _OUTLINE_TOKEN.finditer(text)):
            token = m.group()
            if token == "{":
                if not depth:
                    function = _defined_name(statement)
                    if here and function and m.start() + 1 < column:
                        return function
                depth += 1
            elif token == "}":
                depth = max(depth - 1, 0)
                if not depth:
                    statement = []
            elif not depth:
                statement = [] if token == ";" else statement + [token]
        if here:
            return open_at_start
        number += 1
    return ""


def _defined_name(declaration: list[str]) -> str:
    """The name a file-scope declaration that a `{` follows defines as a function ('' when the
    `{` opens a struct, an enum or an initializer): the outermost name followed by `(`."""
    if not declaration or declaration[-1] != ")" or "=" in declaration:
        return ""
    depth, found, found_depth = 0, "", 0
    for k, token in enumerate(declaration):
        if token == "(":
            before = declaration[k - 1] if k else ""
            if _WORD.fullmatch(before) and before not in _NOT_FUNCTIONS and (not found or depth < found_depth):
                found, found_depth = before, depth
            depth += 1
        elif token == ")":
            depth -= 1
    return found
