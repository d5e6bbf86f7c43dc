"""What the tool runners (fio, iperf3) share: the directory a run's files are kept in, a log's last lines
for their error messages, the RUN_STARTED/RUN_ENDED events they send around their steps, and what every step's
result holds."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ioscale.errors import IoscaleError
from ioscale.importers.common import StepSpan, run_events, step_load
from ioscale.wire.records import RunEvent


@dataclass
class RunnerStep:
    """A step as a runner ran it: its index and label, its window (epoch ms) and its load. Each runner's
    StepResult adds what it measured."""

    step_index: int
    label: str
    start_ms: int
    end_ms: int
    load: Any


def new_run_dir(out_dir: Path, error: type[IoscaleError]) -> Path:
    """``out_dir``, created; ``error`` when it holds anything (a run never writes over another run's files)."""
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise error(f"run directory {out_dir} already exists and is not empty",
                    hint="pass another --out-dir, or another --run-id (the default directory is named after it)")
    out_dir.mkdir(parents=True, exist_ok=True)
    return out_dir


def log_tail(path: Path, lines: int = 5) -> str:
    """The last ``lines`` lines of a tool's log on one line; empty when it cannot be read."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return " | ".join(ln.strip() for ln in text.strip().splitlines()[-lines:])


def run_boundary(common: dict[str, Any], start_ms: int, end_ms: int | None, tags: dict[str, str]) -> RunEvent:
    """RUN_STARTED (``end_ms`` None) or RUN_ENDED, built by run_events() as the importers build them: a live run
    sends it at that moment, its steps' events in between."""
    span = StepSpan(0, "", start_ms, start_ms if end_ms is None else end_ms, step_load())
    return run_events(**common, steps=[span], tags=tags)[0 if end_ms is None else -1]


def step_event(common: dict[str, Any], span: StepSpan, kind: str) -> RunEvent:
    """The STEP_STARTED or STEP_ENDED event of one step, as run_events() builds it."""
    return next(e for e in run_events(**common, steps=[span], tags={}) if e["event_type"] == kind)
