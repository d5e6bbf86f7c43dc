"""A migration that creates a view again (``NNNN_replace_view_<name>.sql``: a view keeps the column types and
function bodies it was created with) must hold the same query as the view's own ``create_view`` migration, which
is what a new database runs: otherwise an old database and a new one would show different views."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

MIGRATIONS = Path(__file__).resolve().parents[3] / "sql" / "migrations"
REPLACED = sorted(MIGRATIONS.glob("*_replace_view_*.sql"))


def query_of(path: Path) -> str:
    text = "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith("--"))
    match = re.search(r"CREATE\s+(?:OR\s+REPLACE\s+)?VIEW\s+(?:IF\s+NOT\s+EXISTS\s+)?(\S+)\s+AS\b(.*)", text, re.S)
    assert match, f"{path.name}: no CREATE VIEW"
    return match.group(1) + " AS " + " ".join(match.group(2).split())


def test_there_are_replaced_views():
    assert len(REPLACED) >= 3


@pytest.mark.parametrize("replaced", REPLACED, ids=lambda p: p.name)
def test_a_replaced_view_holds_its_create_migrations_query(replaced):
    name = replaced.stem.split("_replace_view_", 1)[1]
    (original,) = MIGRATIONS.glob(f"*_create_view_{name}.sql")
    assert int(original.name[:4]) > int(replaced.name[:4])  # a new database creates it after, so IF NOT EXISTS
    assert query_of(replaced) == query_of(original)
