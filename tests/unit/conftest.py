"""Fixtures shared by the unit tests that run the CLI in-process."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def clean_env(tmp_path, monkeypatch):
    """No IOSCALE_* setting from the caller's shell; a fresh home under tmp_path and this checkout as the repo."""
    for k in list(os.environ):
        if k.startswith("IOSCALE_"):
            monkeypatch.delenv(k)
    monkeypatch.setenv("IOSCALE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("IOSCALE_REPO", str(REPO))
    return tmp_path
