"""Shared pytest configuration: make `ingest/src` importable when tests run outside the venv's editable install."""

import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "ingest" / "src"
if str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))
