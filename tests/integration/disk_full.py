"""Filling a file system to its last byte, for the tests that take ClickHouse's disk away (faults/test_kill9.py,
clickhouse/test_full_disk.py)."""

from __future__ import annotations

import errno
import os
from pathlib import Path


def fill(directory: Path) -> Path:
    """Writes a ballast file under ``directory`` until its file system has no byte left (ENOSPC)."""
    ballast = directory / "ballast"
    chunk = b"\0" * (1 << 20)
    with open(ballast, "wb", buffering=0) as f:
        while chunk:
            try:
                f.write(chunk)
            except OSError as e:
                if e.errno != errno.ENOSPC:
                    raise
                chunk = chunk[: len(chunk) // 2]
    assert os.statvfs(directory).f_bavail == 0
    return ballast
