"""A call started on a thread of its own, its outcome collected later.

lift waits on processes of the C compiler (the preprocessor, the check, a probe of the compiler,
frontend/): work that does not need their answer runs meanwhile instead of after them.
"""
from __future__ import annotations

import threading


class Started:
    """A call running on a thread of its own from now on; `result()` returns what it returned or
    raises what it raised, once the thread has ended."""

    def __init__(self, func, *args, name: str = "lift-started"):
        self._outcome: list = []

        def run() -> None:
            try:
                self._outcome.append((True, func(*args)))
            except BaseException as exc:  # noqa: BLE001  handed to the caller by result()
                self._outcome.append((False, exc))

        self.thread = threading.Thread(target=run, name=name, daemon=True)
        try:
            self.thread.start()
        except RuntimeError:  # no thread to be had (memory limits): the call runs here, now
            run()

    def join(self) -> None:
        if self.thread.is_alive():
            self.thread.join()

    def result(self):
        self.join()
        ok, value = self._outcome[0]
        if not ok:
            raise value
        return value
