"""Progress display on stderr: timestamped steps and heartbeats for long work; a silent variant for tests."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """Prints one line per event to stderr, with seconds since start, so a non-TTY log stays readable."""

    def __init__(self, stream: TextIO | None = None):
        self.stream = stream or sys.stderr
        self.t0 = time.monotonic()

    def _emit(self, mark: str, msg: str) -> None:
        print(f"[{time.monotonic() - self.t0:6.1f}s] {mark} {msg}", file=self.stream, flush=True)

    def step(self, msg: str) -> None:
        self._emit("..", msg)

    def done(self, msg: str) -> None:
        self._emit("ok", msg)

    def warn(self, msg: str) -> None:
        self._emit("!!", msg)

    def heartbeat(self, label: str, elapsed_s: float, last_line: str) -> None:
        last = last_line.strip()[:100]
        self._emit("..", f"{label}: still working ({elapsed_s:.0f}s){' - ' + last if last else ''}")


class SilentProgress(Progress):
    def _emit(self, mark: str, msg: str) -> None:
        pass
