"""What a declaration's type says in basic words: the element type of a pointer (`double *q`),
and whether a variable may hold a pointer at all (effects.py: accesses through a pointer
declared inside an opaque statement)."""
from __future__ import annotations

from pycparser import c_ast

from lifter.frontend.walk import walk

BASIC_TYPE_WORDS = frozenset({"void", "char", "short", "int", "long", "float", "double", "signed", "unsigned",
                              "_Bool", "_Complex", "const", "volatile"})


def pointee_words(decl: c_ast.Decl) -> str:
    """The element type of a pointer declared `T *q` with T in basic words (`double`), else ''."""
    pointer = decl.type
    if not isinstance(pointer, c_ast.PtrDecl) or not isinstance(pointer.type, c_ast.TypeDecl) \
            or not isinstance(pointer.type.type, c_ast.IdentifierType):
        return ""
    words = pointer.type.type.names
    return " ".join(words) if BASIC_TYPE_WORDS.issuperset(words) else ""


def may_point(decl: c_ast.Decl, typedefs) -> bool:
    """Whether the declared variable may hold a pointer (or an array of them): a `*` in its
    type, or a typedef name that does not stand for a basic type (`Real_t xl[4]` with `Real_t` a
    `double` holds none), which may stand for a pointer type."""
    return any(isinstance(n, c_ast.PtrDecl) or isinstance(n, c_ast.IdentifierType)
               and not BASIC_TYPE_WORDS.issuperset(n.names) and not _basic_typedef(n, typedefs)
               for n in walk(decl.type))


def _basic_typedef(names: c_ast.IdentifierType, typedefs) -> bool:
    """A typedef name (`Real_t`) that stands for a basic type."""
    resolved = typedefs.resolve(c_ast.TypeDecl(None, [], None, names))
    return isinstance(resolved, c_ast.TypeDecl) and isinstance(resolved.type, c_ast.IdentifierType) \
        and BASIC_TYPE_WORDS.issuperset(resolved.type.names)
