"""The result cache: a lifted file is not lifted again while its text, the text of every header
it included, the options, the working directory and lift itself are unchanged.

Entries are JSON files under the cache directory (`v{CACHE_FORMAT}/ab/abcd....json`), written
atomically, so concurrent runs and interrupted ones never leave a half-written entry.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os

from lifter.version import TOOL
from lifter.diagnostics import Diagnostic, LiftError
from lifter.driver import LiftOptions
from lifter.files import write_atomically
from lifter.frontend.source import ENCODING_ERRORS

CACHE_FORMAT = 1


@functools.lru_cache(maxsize=None)
def tool_fingerprint() -> str:
    """lift's version and a hash of its own source: a changed lift never reuses old results."""
    h = hashlib.sha256(TOOL.encode())
    root = os.path.dirname(os.path.abspath(__file__))
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith((".py", ".h")):
                path = os.path.join(dirpath, name)
                h.update(os.path.relpath(path, root).encode() + b"\0")
                with open(path, "rb") as handle:
                    h.update(hashlib.sha256(handle.read()).digest())
    return h.hexdigest()


def _options_key(options: LiftOptions) -> str:
    """Everything besides the input's text that decides a result: the options, the working
    directory, the preprocessing compiler and its version (computed once per run: a compiler
    upgraded in place changes what its headers say), the cache sizes that tile sizes come
    from, and lift itself."""
    from lifter.frontend.preprocess import compiler_version, find_compiler
    from lifter.transform.tiling import cache_sizes

    try:
        compiler = find_compiler()
    except LiftError:
        compiler = ""
    return json.dumps({"options": dataclasses.asdict(options), "cwd": os.getcwd(), "cc": compiler,
                       "cc_version": compiler_version(compiler) if compiler else "",
                       "caches": cache_sizes(), "tool": tool_fingerprint()}, sort_keys=True)


class Cache:
    """Results of earlier runs, keyed by everything that decides them.

    The key covers lift (version and source), the options, the working directory, the
    compiler and its version, the cache sizes, the input's name and its bytes; an entry is
    used only if every header it included still has the content it had (headers are hashed
    once per run).
    """

    def __init__(self, directory: str, options: LiftOptions):
        self.directory = directory
        self.base = hashlib.sha256(_options_key(options).encode()).hexdigest()
        self._hashes: dict[str, tuple[tuple[int, int, int], str | None]] = {}

    def key(self, path: str) -> str | None:
        digest = self.file_hash(path)
        if digest is None:
            return None
        return hashlib.sha256(f"{self.base}\0{path}\0{digest}".encode("utf-8", errors=ENCODING_ERRORS)).hexdigest()

    def file_hash(self, path: str) -> str | None:
        try:
            st = os.stat(path)
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
            known = self._hashes.get(path)
            if known and known[0] == stamp:
                return known[1]
            with open(path, "rb") as handle:
                digest = hashlib.sha256(handle.read()).hexdigest()
        except (OSError, ValueError):
            return None
        self._hashes[path] = (stamp, digest)
        return digest

    def _entry_path(self, key: str) -> str:
        return os.path.join(self.directory, f"v{CACHE_FORMAT}", key[:2], key + ".json")

    def get(self, key: str) -> dict | None:
        try:
            with open(self._entry_path(key), encoding="utf-8") as handle:
                record = json.load(handle)
            headers = record["headers"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        for name, digest in headers:
            if self.file_hash(name) != digest:
                return None
        return record

    def put(self, key: str, output: str, loops: list[dict], diagnostics: list[Diagnostic],
            included_files: list[str], warnings: list[Diagnostic] = ()) -> None:
        headers = [[name, self.file_hash(name)] for name in included_files]
        if any(digest is None for _, digest in headers):
            return  # a header we cannot read again cannot be checked next time
        record = {"tool": TOOL, "output": output, "loops": loops,
                  "diagnostics": [dataclasses.asdict(d) for d in diagnostics],
                  "warnings": [dataclasses.asdict(d) for d in warnings],
                  "included_files": included_files, "headers": headers}
        path = self._entry_path(key)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            write_atomically(path, json.dumps(record))
        except OSError:
            pass  # a cache that cannot be written only costs time
