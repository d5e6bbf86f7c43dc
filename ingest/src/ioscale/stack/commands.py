"""Run an install or admin command with its output in a log file and a heartbeat on the console."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from ioscale.errors import StackError
from ioscale.stack.process import tail
from ioscale.stack.progress import Progress

HEARTBEAT_S = 10.0


def run_logged(
    component: str,
    label: str,
    argv: list[str],
    log_file: Path,
    ui: Progress,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    timeout_s: float = 1800.0,
    hint: str | None = None,
) -> None:
    """Run ``argv`` to completion; output goes to ``log_file``; failure raises ``StackError`` with the tail."""
    log_file.parent.mkdir(parents=True, exist_ok=True)
    ui.step(f"{component}: {label}")
    t0 = time.monotonic()
    with open(log_file, "ab") as log:
        log.write(f"\n==== ioscale: {label}: {' '.join(map(str, argv))} ====\n".encode())
        log.flush()
        proc = subprocess.Popen(
            [str(a) for a in argv],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=cwd,
            env={**os.environ, **(env or {})},
        )
        next_beat = t0 + HEARTBEAT_S
        while True:
            try:
                rc = proc.wait(timeout=1.0)
                break
            except subprocess.TimeoutExpired:
                now = time.monotonic()
                if now - t0 > timeout_s:
                    proc.kill()
                    proc.wait()
                    raise StackError(component, f"{label} timed out after {timeout_s:.0f}s", str(log_file), hint)
                if now >= next_beat:
                    ui.heartbeat(f"{component}: {label}", now - t0, tail(log_file, 1))
                    next_beat = now + HEARTBEAT_S
    if rc != 0:
        raise StackError(
            component,
            f"{label} failed (exit {rc}); last lines:\n{tail(log_file, 15)}",
            str(log_file),
            hint or "fix the cause above and re-run `ioscale stack up`; finished steps are skipped",
        )
    ui.done(f"{component}: {label} ({time.monotonic() - t0:.0f}s)")
