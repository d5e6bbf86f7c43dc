"""ioscale.query.model: discovery, header parsing and the file-format rules, on small texts written here."""

from __future__ import annotations

from pathlib import Path

import pytest

from ioscale.query import NamedQuery, QueryFileError, QueryLibraryError, model


def parse(text: str) -> NamedQuery:
    return model.parse(text, "thing", Path("thing.sql"))


def test_parses_title_description_params_columns_notes(thing_sql: str) -> None:
    q = parse(thing_sql)
    assert q.name == "thing"
    assert q.title == "Per-step thing of a run."
    assert q.description == "A longer description over two lines.\n\nSecond paragraph."
    assert [(p.name, p.type, p.default, p.choices) for p in q.params] == [
        ("run_id", "String", None, ()),
        ("step_index", "Int32", "-1", ()),
        ("direction", "String", "all", ("all", "read", "write")),
        ("label", "String", "", ()),
    ]
    assert q.params[0].required and not q.params[1].required
    assert q.param("direction").doc == "reads, writes or both"          # continuation line joined
    assert [(c.name, c.doc) for c in q.columns] == [("step_index", "step, 0-based"),
                                                    ("p99_us", "99th percentile, microseconds")]
    assert q.notes == "Why FINAL.\n  an indented table line"             # relative indentation kept
    assert q.sql.startswith("SELECT step_index") and not q.sql.endswith(";")
    assert "--" not in q.sql                                               # header stripped


def with_body(body: str, params: str = "--   run_id        String        the run\n") -> str:
    return ("-- Title.\n--\n-- Parameters:\n" + params + "--\n-- Columns:\n--   x    a column\n" + body)


@pytest.mark.parametrize("text, message", [
    ("SELECT 1\n", "no header"),
    ("-- Title.\n--\n-- Columns:\n--   x  y\n", "no SQL statement"),
    ("-- Title.\n-- more title\n--\n-- Columns:\n--   x  y\nSELECT 1 AS x\n", "title is one line"),
    ("-- Title.\n--\n-- Parameters:\n--   run_id  String  the run\nSELECT {run_id:String} AS x\n", "no Columns"),
    (with_body("SELECT 1 AS x; SELECT 2 AS x\n", ""), "more than one statement"),
    (with_body("SELECT {run_id:String} AS x, {other:Int32} AS y\n"), "does not declare other"),
    (with_body("SELECT {run_id:Int32} AS x\n"), "does not match the declared type String"),
    (with_body("SELECT 1 AS x\n"), "never used"),
    (with_body("SELECT {run_id:String} AS x\n", "--   run_id  String  a\n--   run_id  String  b\n"), "declared twice"),
    (with_body("SELECT {n:Date} AS x\n", "--   n  Date  a day\n"), "unsupported type Date"),
    (with_body("SELECT {n:Int8} AS x\n", "--   n  Int8 = 300  a number\n"), "default '300' is invalid"),
    (with_body("SELECT {n:Int8} AS x\n", "--   n  Int8 = 1 {1|x}  a number\n"), "choice 'x' is not a valid Int8"),
    (with_body("SELECT {run_id:String} AS x -- {other:Int32}\n"), "placeholder-like text in a comment"),
    (with_body("SELECT {run_id:String} AS x\n", "--  run_id  String  three-space indent missing\n"), "indented by 2"),
    (with_body("SELECT {run_id:String} AS x\n", "--   run_id\n"), "cannot read parameter line"),
])
def test_rejects_malformed_files_naming_the_problem(text: str, message: str) -> None:
    with pytest.raises(QueryFileError) as e:
        parse(text)
    assert message in str(e.value)
    assert str(e.value).startswith("thing.sql: ")


def test_semicolons_inside_literals_and_comments_are_not_statement_breaks() -> None:
    q = parse(with_body("SELECT {run_id:String} AS x, 'a;b' AS y /* ; */\n-- trailing; comment\n"))
    assert "'a;b'" in q.sql


def test_discover_and_load(tmp_path: Path, thing_sql: str) -> None:
    (tmp_path / "thing.sql").write_text(thing_sql)
    (tmp_path / "other_thing.sql").write_text(with_body("SELECT {run_id:String} AS x\n"))
    (tmp_path / "README.md").write_text("not a query")
    assert list(model.discover(tmp_path)) == ["other_thing", "thing"]
    assert model.load("thing", tmp_path).title == "Per-step thing of a run."
    assert [q.name for q in model.list_queries(tmp_path)] == ["other_thing", "thing"]
    with pytest.raises(QueryLibraryError) as e:
        model.load("thnig", tmp_path)
    assert "no query named 'thnig'" in str(e.value) and "did you mean thing" in e.value.hint


def test_discover_rejects_badly_named_files(tmp_path: Path, thing_sql: str) -> None:
    (tmp_path / "Bad-Name.sql").write_text(thing_sql)
    with pytest.raises(QueryFileError, match="lower_snake_case"):
        model.discover(tmp_path)
