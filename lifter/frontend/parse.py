"""Parsing preprocessed C with pycparser, with errors reported at their place."""
from __future__ import annotations

import re

from pycparser import c_ast, c_lexer, c_parser

from lifter.diagnostics import LiftError
from lifter.frontend import header_cache
from lifter.frontend.preprocess import unescape_marker
from lifter.frontend.tokens import GAP, MARKER_OR_STRING, parenthesized_end, replaced_keeping_lines
from lifter.frontend.typeof import hide_typeof, is_placeholder, prelude, restored, spelled, typeof_keywords

# gcc's headers name this builtin type; pycparser needs to know it is a type.
PRELUDE = '# 1 "<lift-prelude>"\ntypedef int __builtin_va_list;\n'

_ERR_RE = re.compile(r"^(?P<file>.*?):(?P<line>\d+)(?::(?P<col>\d+))?: (?P<msg>.*)$", re.S)


class _Lexer(c_lexer.CLexer):
    """pycparser's lexer, naming files exactly as the user and the rest of lift spell them.

    pycparser does not undo the escapes of a line marker's file name (`a\\"b.c` is the file
    a"b.c), and it loses a trailing escaped quote; so names with escapes are replaced by plain
    placeholders before parsing (see _plain_marker_names) and mapped back here. Before pycparser
    3.12 coordinates take the lexer's current `filename`; from 3.12 on each token carries its
    own, so both are mapped."""

    marker_names: dict[str, str] = {}

    @property
    def filename(self) -> str:
        name = super().filename
        return self.marker_names.get(name, name)

    def token(self):
        tok = super().token()
        if self.marker_names and tok is not None:
            name = getattr(tok, "filename", None)
            if name in self.marker_names:
                tok.filename = self.marker_names[name]
        return tok


_MARKER_NAME_RE = re.compile(r'^(#(?:line)?[ \t]+\d+[ \t]+)"((?:[^"\\\n]|\\.)*)"', re.M)


def _plain_marker_names(text: str) -> tuple[str, dict[str, str]]:
    """`text` with every line-marker file name that has escapes replaced by a placeholder
    without any, and the map from placeholders to the names they stand for."""
    if "\\" not in text:
        return text, {}
    prefix = "<lift-file-"
    while prefix in text:
        prefix += "-"
    names: dict[str, str] = {}
    placeholders: dict[str, str] = {}

    def plain(m: re.Match) -> str:
        raw = m.group(2)
        if "\\" not in raw:
            return m.group()
        if raw not in placeholders:
            placeholders[raw] = f"{prefix}{len(placeholders)}>"
            names[placeholders[raw]] = unescape_marker(raw)
        return f'{m.group(1)}"{placeholders[raw]}"'

    return _MARKER_NAME_RE.sub(plain, text), names


class _Parser(c_parser.CParser):
    """pycparser's parser, robust to a stray `}`: its lexer callback pops the scope
    stack and pycparser asserts it is never emptied; here the stray brace is left
    to the grammar, which reports it as a syntax error at its place."""

    def _lex_on_rbrace_func(self) -> None:
        if len(self._scope_stack) > 1:
            self._pop_scope()


def parse(text: str, path: str, std: str = "c11") -> c_ast.FileAST:
    """Parse preprocessed text (as C of `-std=STD`); a syntax error becomes a LiftError at its
    position."""
    text, placeholders = hide_typeof(strip_asm(text), typeof_keywords(std))
    text, mangled = mangle_extended_identifiers(text)
    text, marker_names = _plain_marker_names(text)
    text = PRELUDE + prelude(placeholders) + text
    ast = None if marker_names else _parse_with_kept_headers(text, path)
    if ast is None:
        ast = _parse_whole(text, path, marker_names, placeholders)
    if mangled:
        restore_extended_identifiers(ast)
    if placeholders:
        ast.ext = [e for e in ast.ext if not (isinstance(e, c_ast.Typedef) and is_placeholder(e.name))]
    _check_depth(ast, path)
    return ast


def _parse_with_kept_headers(text: str, path: str) -> c_ast.FileAST | None:
    """The AST of `text`, its headers part (header_cache.split) parsed in an earlier run or now
    (and kept), the rest after declarations of the names the parser knew at the end of the
    headers (so it reads every name as the whole text's parse does), which are then dropped.
    None where the text has no headers part or a part does not parse: the whole text is parsed
    then, and reports its error as always."""
    parts = header_cache.split(text)
    if parts is None:
        return None
    head, rest = parts
    name = header_cache.key(head)
    kept = header_cache.load(name)
    try:
        if kept is None:
            parser = _Parser(lexer=_Lexer)
            ext = parser.parse(head, path).ext
            names = dict(parser._scope_stack[0])
            header_cache.store(name, ext, names)
        else:
            ext, names = kept
        # The parser looks a name up only where it reads it: the names the rest never spells
        # need no declaration.
        used = {n: names[n] for n in _spelled(rest) if n in names}
        ast = _Parser(lexer=_Lexer).parse(_declarations(used) + rest, path)
    except Exception:  # noqa: BLE001  a syntax error, or pycparser's own assertion: parsed whole
        return None
    if any(e.coord is None or e.coord.file != "<lift-prelude>" for e in ast.ext[:len(used)]):
        return None
    return c_ast.FileAST(ext + ast.ext[len(used):])


_RUN = re.compile(r"[\w$]+")


def _spelled(text: str) -> set[str]:
    """Every name the lexer may read in `text` (and more: words in strings and comments). A name
    is a whole run of word characters, but one after digits (`1.0fabc`, a malformed number the
    lexer ends early) may be any tail of the run."""
    words = set()
    for run in _RUN.findall(text):
        if run[0].isdigit():
            words.update(run[i:] for i in range(1, len(run)))
        else:
            words.add(run)
    return words


def _declarations(names: dict[str, bool]) -> str:
    """One declaration per name (each one node of the AST): the typedef names as types, the
    others as variables, which is all the parser remembers of them."""
    types = ", ".join(n for n, is_type in names.items() if is_type)
    others = ", ".join(n for n, is_type in names.items() if not is_type)
    return '# 1 "<lift-prelude>"\n' + (f"typedef int {types};\n" if types else "") + \
        (f"int {others};\n" if others else "")


def _parse_whole(text: str, path: str, marker_names: dict[str, str], placeholders: dict[str, str]) -> c_ast.FileAST:
    parser = _Parser(lexer=_Lexer)
    parser.clex.marker_names = marker_names
    try:
        return parser.parse(text, path)
    except c_parser.ParseError as exc:
        raise _with_parsed_line(_located(str(exc), parser, path), parser.clex, placeholders) from None
    except RecursionError:
        raise _at_current_token(parser, path, "expression or statement nested too deeply to parse") from None
    except Exception as exc:  # noqa: BLE001  pycparser's own assertions: never a traceback
        raise _at_current_token(parser, path, f"cannot parse this ({type(exc).__name__} in the C parser)") from None


# The analysis walks the AST recursively (on a deep stack, see driver.py); a program nested
# deeper than this (C requires 127 levels of blocks and 63 of parentheses) is refused here,
# at the place it gets too deep, before minutes are spent walking it.
MAX_AST_DEPTH = 12_000


def _check_depth(ast: c_ast.Node, path: str, limit: int | None = None) -> None:
    limit = MAX_AST_DEPTH if limit is None else limit
    stack = [(ast, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            coord = _nearest_coord(node, stack)
            file = coord.file if coord is not None and coord.file else path
            line, column = (coord.line or 0, coord.column or 0) if coord is not None else (0, 0)
            raise LiftError(file, line, column, f"statement or expression nested more than {limit} levels deep "
                                                f"(lift's limit)")
        for _, child in node.children():
            stack.append((child, depth + 1))


def _nearest_coord(node: c_ast.Node, stack):
    if getattr(node, "coord", None) is not None:
        return node.coord
    for other, _ in reversed(stack):
        if getattr(other, "coord", None) is not None:
            return other.coord
    return None


class SyntaxFailure(LiftError):
    """A syntax error, with the line as the parser read it (`parsed_line`, None if unknown): its
    column counts in that line, which the preprocessor wrote (runs of blanks made one, comments
    and macros replaced, extended identifiers spelled as UCNs and mangled). explain() maps the
    column back to the user's line."""

    def __init__(self, error: LiftError, parsed_line: str | None):
        d = error.diagnostic
        super().__init__(d.path, d.line, d.column, d.message, ranges=d.ranges, fixit=d.fixit, notes=d.notes)
        self.parsed_line = parsed_line


def _with_parsed_line(error: LiftError, lexer, placeholders: dict[str, str]) -> SyntaxFailure:
    """`error` with the lexer's current line (pycparser from 3.12 keeps where it starts) when the
    error is on it, with the typeof placeholders (typeof.py) put back."""
    data, start = getattr(lexer, "_lexdata", None), getattr(lexer, "_line_start", None)
    d = error.diagnostic
    if placeholders:
        error = LiftError(d.path, d.line, d.column, spelled(d.message, placeholders), ranges=d.ranges)
    if data is None or start is None or getattr(lexer, "_lineno", None) != d.line:
        return SyntaxFailure(error, None)
    end = data.find("\n", start)
    line, column = restored(data[start:end if end >= 0 else len(data)], d.column, placeholders)
    if column != d.column:
        error = LiftError(d.path, d.line, column, error.diagnostic.message, ranges=d.ranges)
    return SyntaxFailure(error, line)


def _at_current_token(parser: c_parser.CParser, path: str, message: str) -> LiftError:
    """An error at the token the parser had reached (or where the lexer stands)."""
    try:
        token = parser._peek()
    except Exception:  # noqa: BLE001  the token stream itself may be what failed
        token = None
    file = parser.clex.filename or path
    if token is not None:
        return LiftError(file, token.lineno, token.column, message)
    lexer = parser.clex
    line = getattr(lexer, "_lineno", 0)
    column = getattr(lexer, "_pos", 0) - getattr(lexer, "_line_start", 0) + 1 if line else 0
    if line:
        return LiftError(file, line, max(column, 0), message)
    return LiftError(file, 0, 0, message)


def _located(message: str, parser: c_parser.CParser, path: str) -> LiftError:
    m = _ERR_RE.match(message)
    if m:
        msg = _reword(m["msg"])
        return LiftError(m["file"], int(m["line"]), int(m["col"] or 0), msg)
    # pycparser gave no position: use the token the parser stopped at.
    msg = message.split(": ", 1)[-1]
    token = parser._peek() if hasattr(parser, "_peek") else None
    if token is not None:
        return LiftError(parser.clex.filename or path, token.lineno, token.column,
                         f"{_reword(msg)} before '{token.value}'")
    # At the end of the input: point just past the last token.
    file, line, column = _end_position(parser, path)
    return LiftError(file, line, column, _reword(msg) if msg.lower().startswith("at end of input")
                     else f"{_reword(msg)} at end of input")


def _end_position(parser: c_parser.CParser, path: str) -> tuple[str, int, int]:
    """File, line and column just after the last token of the input."""
    tokens = getattr(getattr(parser, "_tokens", None), "_buffer", None) or []
    last = next((t for t in reversed(tokens) if t is not None), None)
    file = parser.clex.filename or path
    if last is None:
        return file, 0, 0
    return file, last.lineno, last.column + len(str(last.value))


def _reword(msg: str) -> str:
    if msg.startswith("before: "):
        return f"syntax error before '{msg[len('before: '):]}'"
    if msg.lower().startswith("at end of input"):
        return "unexpected end of input (missing '}' or ';'?)"
    if msg.lower() == "invalid expression":  # where an operand is missing: gcc's words
        return "expected expression"
    # The lexer's words as gcc's: a quote without its end, a character C does not use.
    m = re.match(r"^(?:illegal character '([\"'])'|unmatched (['\"]))$", msg, re.I)
    if m:
        return f"missing terminating {m[1] or m[2]} character"
    m = re.match(r"^illegal character '(.+)'$", msg, re.I)
    if m:
        msg = f"stray '{m[1]}' in program"
    # A byte that is not UTF-8 (kept as a lone surrogate by `surrogateescape`) is shown as the byte.
    msg = re.sub(r"\\udc([89a-f][0-9a-f])", r"\\x\1", msg)
    return msg[:1].lower() + msg[1:] if msg else "syntax error"


# GNU inline assembly, which pycparser does not parse. A statement `asm volatile(...)`
# becomes a call to an unknown function (so the analysis treats it as having any
# effect); an asm label in a declaration (`int f(void) __asm__("g");`) is blanked.
# Newlines are kept, so every line number stays right.
_ASM_SCAN = re.compile(
    MARKER_OR_STRING +
    r"""|(?P<word>[A-Za-z_]\w*)"""
    r"""|(?P<punct>[^\s\w])""",
    re.M,
)
_ASM_WORDS = {"asm", "__asm", "__asm__"}
_ASM_QUALIFIERS = {"volatile", "__volatile", "__volatile__", "goto", "inline", "__inline", "__inline__"}
_STATEMENT_START = set(";{}:")
_ASM_QUICK = re.compile(r"(?<![\w/.])(?:asm|__asm|__asm__)\b(?![/.])")


def strip_asm(text: str) -> str:
    if not _ASM_QUICK.search(text):
        return text
    out: list[str] = []
    done = 0
    last = ";"
    pos = 0
    while True:
        m = _ASM_SCAN.search(text, pos)
        if m is None:
            break
        pos = m.end()
        if m.lastgroup == "marker":
            continue
        if m.lastgroup == "punct":
            last = m.group()
            continue
        if m.lastgroup != "word" or m.group() not in _ASM_WORDS:
            last = "x"
            continue
        end = _asm_end(text, m.end())
        if end is None:
            last = "x"
            continue
        replacement = "__lift_asm()" if last in _STATEMENT_START else ""
        out.append(text[done:m.start()])
        out.append(replaced_keeping_lines(text[m.start():end], replacement))
        done = pos = end
        last = ")"
    out.append(text[done:])
    return "".join(out)


def _asm_end(text: str, pos: int) -> int | None:
    """End of `qualifiers (...)` after an asm keyword, or None if it is not one."""
    word = re.compile(r"[A-Za-z_]\w*")
    while True:
        pos = GAP.match(text, pos).end()
        m = word.match(text, pos)
        if not m or m.group() not in _ASM_QUALIFIERS:
            break
        pos = m.end()
    return parenthesized_end(text, pos)


# Extended identifiers (C99 6.4.2: `int café;`). gcc -E spells their characters as UCNs
# (`caf\U000000e9`), which pycparser's lexer does not accept; they are mangled into ASCII for
# parsing and restored in the AST, so every name is exactly what the user wrote.
_UCN_SCAN = re.compile(
    MARKER_OR_STRING +
    r"""|(?P<word>(?:[^\W\d]|\$|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})"""
    r"""(?:[\w$]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*)""",
    re.M,
)
_UCN_CHAR = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})|([^\x00-\x7f])")
_MANGLED = re.compile(r"__lift_ucn_([0-9a-f]+)__")
_MAYBE_EXTENDED = re.compile(r"\\[uU]|[^\x00-\x7f]")


def mangle_extended_identifiers(text: str) -> tuple[str, bool]:
    """Identifiers with UCNs or non-ASCII letters, spelled in ASCII; True if any was."""
    if not _MAYBE_EXTENDED.search(text):
        return text, False
    changed = False

    def word(m: re.Match) -> str:
        nonlocal changed
        if m.lastgroup != "word" or m.group().isascii() and "\\" not in m.group():
            return m.group()
        changed = True
        return _UCN_CHAR.sub(_mangle_char, m.group())

    out = _UCN_SCAN.sub(word, text)
    return out, changed


def _mangle_char(m: re.Match) -> str:
    code = int(m.group(1) or m.group(2), 16) if (m.group(1) or m.group(2)) else ord(m.group(3))
    return f"__lift_ucn_{code:x}__"


def _unmangle(name: str) -> str:
    return _MANGLED.sub(lambda m: chr(int(m.group(1), 16)), name)


def restore_extended_identifiers(ast: c_ast.Node) -> None:
    """Undo mangle_extended_identifiers on every name in the AST (iteratively: ASTs can be deep)."""
    stack = [ast]
    while stack:
        node = stack.pop()
        for slot in getattr(type(node), "__slots__", ()):
            if slot in ("coord", "__weakref__"):
                continue
            value = getattr(node, slot, None)
            if isinstance(value, str) and "__lift_ucn_" in value:
                setattr(node, slot, _unmangle(value))
            elif isinstance(value, list) and any(isinstance(v, str) and "__lift_ucn_" in v for v in value):
                setattr(node, slot, [_unmangle(v) if isinstance(v, str) else v for v in value])
        stack.extend(child for _, child in node.children())
