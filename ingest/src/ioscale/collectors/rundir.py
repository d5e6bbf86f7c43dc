"""What the tool runners (fio, iperf3) share: the directory a run's files are kept in, and a log's last lines
for their error messages."""

from __future__ import annotations

from pathlib import Path

from ioscale.errors import IoscaleError


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
