"""Shared helpers for the importer tests: fixture locations, a fixed clock and a schema checker.

Real tool outputs are committed in ``tests/fixtures/real`` (sources and licences in
``tests/fixtures/README.md``); a missing one fails the test. Hand-made inputs written from
the documented layouts live in ``data/`` next to this file (see ``data/_generate.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import fastavro
import pytest

from ioscale.importers import ImportResult, import_files, import_sources

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "tests" / "fixtures" / "real"
DATA = Path(__file__).resolve().parent / "data"
SCHEMA_DIR = REPO / "schema"

#: A fixed "now" (2026-11-21T00:00:00Z) so future-timestamp checks do not depend on the test date.
NOW_MS = 1_795_219_200_000


def fixture(name: str) -> Path:
    """Path of a committed real-output fixture; a missing one fails the test rather than skipping it."""
    path = FIXTURES / name
    assert path.is_file(), f"real fixture {name} missing from {FIXTURES}"
    return path


def run(tool: str, *paths: Path, **kw: Any) -> ImportResult:
    kw.setdefault("now_ms", NOW_MS)
    return import_files(tool, list(paths), **kw)


def run_bytes(tool: str, *sources: tuple[str, bytes], **kw: Any) -> ImportResult:
    kw.setdefault("now_ms", NOW_MS)
    return import_sources(tool, list(sources), **kw)


_SCHEMAS: dict[str, Any] = {}


def _schema(name: str) -> Any:
    if name not in _SCHEMAS:
        _SCHEMAS[name] = fastavro.parse_schema(json.loads((SCHEMA_DIR / name).read_text()))
    return _SCHEMAS[name]


def assert_schema_valid(result: ImportResult) -> None:
    """Every record has exactly the schema's fields and validates against the Avro schema."""
    for records, avsc in ((result.io_samples, "io_sample.avsc"), (result.cpu_samples, "cpu_sample.avsc"),
                          (result.run_events, "run_event.avsc"), (result.port_samples, "port_sample.avsc")):
        schema = _schema(avsc)
        names = {f["name"] for f in schema["fields"]}
        for rec in records:
            assert set(rec) == names, (avsc, set(rec) ^ names)
            fastavro.validation.validate(rec, schema, raise_errors=True)


def errors_of(result: ImportResult, severity: str = "error") -> list[str]:
    return [str(i) for i in result.errors if i.severity == severity]


def assert_clean(result: ImportResult, allow_warnings: bool = True) -> None:
    """No error (nor, with ``allow_warnings=False``, any warning) and every record valid against its schema."""
    assert errors_of(result) == []
    if not allow_warnings:
        assert errors_of(result, "warning") == []
    assert_schema_valid(result)


def samples(result: ImportResult, **match: Any) -> list[dict]:
    return [s for s in result.io_samples if all(s.get(k) == v for k, v in match.items())]


def one(records: list[dict], **match: Any) -> dict:
    """The one record whose fields equal ``match``; fails when there are none or several."""
    got = [r for r in records if all(r[k] == v for k, v in match.items())]
    assert len(got) == 1, (match, len(got))
    return got[0]


class Kit:
    """The helpers above as one object, handed to tests by the ``kit`` fixture (pytest runs with
    ``--import-mode=importlib``, so test modules cannot import this conftest by name)."""

    FIXTURES = FIXTURES
    DATA = DATA
    NOW_MS = NOW_MS
    fixture = staticmethod(fixture)
    run = staticmethod(run)
    run_bytes = staticmethod(run_bytes)
    assert_schema_valid = staticmethod(assert_schema_valid)
    errors_of = staticmethod(errors_of)
    assert_clean = staticmethod(assert_clean)
    samples = staticmethod(samples)
    one = staticmethod(one)


@pytest.fixture
def kit() -> Kit:
    return Kit()
