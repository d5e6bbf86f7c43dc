"""Every schema in schema/ stays BACKWARD compatible with each of its earlier committed versions
(BACKWARD_TRANSITIVE), so consumers upgraded first can read everything already in Kafka.

Earlier versions come from git history, so nobody has to remember to snapshot a schema before
changing it. The check is the registry's own (a port of Avro Java's SchemaCompatibility).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ioscale.services.registry.canonical import parse_schema
from ioscale.services.registry.compat import PreviousSchema, check_compatibility

REPO = Path(__file__).resolve().parents[3]
SCHEMAS = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "schema").glob("*.avsc"))


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True).stdout


def previous_versions(path: str) -> list[str]:
    """Texts of the committed versions of ``path``, oldest first (empty outside a git checkout)."""
    try:
        commits = _git("log", "--format=%H", "--", path).split()
    except (subprocess.CalledProcessError, FileNotFoundError):
        return []
    texts = []
    for c in reversed(commits):
        try:
            texts.append(_git("show", f"{c}:{path}"))
        except subprocess.CalledProcessError:  # deleted in that commit
            continue
    return texts


@pytest.mark.parametrize("path", SCHEMAS)
def test_current_schema_reads_every_earlier_version(path):
    current = parse_schema((REPO / path).read_text())
    history = [PreviousSchema(parse_schema(t), i + 1) for i, t in enumerate(previous_versions(path))]
    assert check_compatibility("BACKWARD_TRANSITIVE", current, history) == []


def test_checker_rejects_a_field_added_without_default():
    """The guard above is only worth something if it can fail."""
    old = json.loads((REPO / "schema" / "io_sample.avsc").read_text())
    new = json.loads(json.dumps(old))
    new["fields"].append({"name": "queue_id", "type": "int", "doc": "no default: old data cannot be read"})
    messages = check_compatibility("BACKWARD_TRANSITIVE", parse_schema(json.dumps(new)),
                                   [PreviousSchema(parse_schema(json.dumps(old)), 1)])
    assert messages and "queue_id" in messages[0]
    new["fields"][-1]["default"] = -1
    assert check_compatibility("BACKWARD_TRANSITIVE", parse_schema(json.dumps(new)),
                               [PreviousSchema(parse_schema(json.dumps(old)), 1)]) == []
