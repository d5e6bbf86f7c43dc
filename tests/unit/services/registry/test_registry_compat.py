"""Avro schema-resolution rules (reader vs writer) and Confluent's compatibility levels and messages."""

from __future__ import annotations

import json
from typing import Any

import pytest
from ioscale.services.registry.canonical import parse_schema
from ioscale.services.registry.compat import (
    PreviousSchema,
    check_compatibility,
    describe,
    reader_writer_incompatibilities,
)


def record(name: str, *fields: dict[str, Any], namespace: str | None = "io.ioscale.test", **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "record", "name": name}
    if namespace:
        out["namespace"] = namespace
    return {**out, "fields": list(fields), **extra}


def fld(name: str, type_: Any, **extra: Any) -> dict[str, Any]:
    return {"name": name, "type": type_, **extra}


def incompat(reader: Any, writer: Any) -> list[tuple[str, str, str]]:
    r = parse_schema(json.dumps(reader)).root
    w = parse_schema(json.dumps(writer)).root
    return [(i.kind, i.location, i.message) for i in reader_writer_incompatibilities(r, w)]


ENUM_AB = {"type": "enum", "name": "E", "symbols": ["A", "B"]}
ENUM_ABC = {"type": "enum", "name": "E", "symbols": ["A", "B", "C"]}
LIST_NODE = record("Node", fld("value", "int"), fld("next", ["null", "Node"], default=None), namespace=None)

# (id, reader, writer, expected incompatibilities [(kind, location, message)])
READER_WRITER_CASES: list[Any] = [
    # -- primitives and promotions
    ("same primitive", "int", "int", []),
    ("int promotes to long", "long", "int", []),
    ("long does not narrow to int", "int", "long",
     [("TYPE_MISMATCH", "/", "reader type: INT not compatible with writer type: LONG")]),
    ("int promotes to float", "float", "int", []),
    ("long promotes to float", "float", "long", []),
    ("int promotes to double", "double", "int", []),
    ("long promotes to double", "double", "long", []),
    ("float promotes to double", "double", "float", []),
    ("double does not narrow to float", "float", "double",
     [("TYPE_MISMATCH", "/", "reader type: FLOAT not compatible with writer type: DOUBLE")]),
    ("string reads bytes", "string", "bytes", []),
    ("bytes reads string", "bytes", "string", []),
    ("string vs int", "string", "int",
     [("TYPE_MISMATCH", "/", "reader type: STRING not compatible with writer type: INT")]),
    ("boolean vs null", "boolean", "null",
     [("TYPE_MISMATCH", "/", "reader type: BOOLEAN not compatible with writer type: NULL")]),
    # -- records
    ("added field with default", record("R", fld("a", "int"), fld("b", "string", default="")),
     record("R", fld("a", "int")), []),
    ("added field without default", record("R", fld("a", "int"), fld("b", "string")),
     record("R", fld("a", "int")), [("READER_FIELD_MISSING_DEFAULT_VALUE", "/fields/1", "b")]),
    ("removed field", record("R", fld("a", "int")), record("R", fld("a", "int"), fld("b", "string")), []),
    ("field promoted", record("R", fld("a", "long")), record("R", fld("a", "int")), []),
    ("field type changed", record("R", fld("a", "string")), record("R", fld("a", "int")),
     [("TYPE_MISMATCH", "/fields/0/type", "reader type: STRING not compatible with writer type: INT")]),
    ("field renamed with alias", record("R", fld("b", "int", aliases=["a"])), record("R", fld("a", "int")), []),
    ("field renamed without alias", record("R", fld("b", "int")), record("R", fld("a", "int")),
     [("READER_FIELD_MISSING_DEFAULT_VALUE", "/fields/0", "b")]),
    ("record renamed", record("S", fld("a", "int")), record("R", fld("a", "int")),
     [("NAME_MISMATCH", "/name", "expected: io.ioscale.test.R")]),
    ("record renamed with alias", record("S", fld("a", "int"), aliases=["io.ioscale.test.R"]),
     record("R", fld("a", "int")), []),
    ("only namespace changed (Avro compares short names)", record("R", fld("a", "int"), namespace="other"),
     record("R", fld("a", "int")), []),
    ("field order does not matter", record("R", fld("b", "int"), fld("a", "string")),
     record("R", fld("a", "string"), fld("b", "int")), []),
    ("nested record location", record("R", fld("n", record("N", fld("x", "int"), fld("y", "int")))),
     record("R", fld("n", record("N", fld("x", "int")))),
     [("READER_FIELD_MISSING_DEFAULT_VALUE", "/fields/0/type/fields/1", "y")]),
    ("several problems reported together", record("R", fld("a", "string"), fld("b", "int")),
     record("R", fld("a", "int")),
     [("TYPE_MISMATCH", "/fields/0/type", "reader type: STRING not compatible with writer type: INT"),
      ("READER_FIELD_MISSING_DEFAULT_VALUE", "/fields/1", "b")]),
    ("recursive types terminate", LIST_NODE, LIST_NODE, []),
    ("recursive type with new required field",
     record("Node", fld("value", "int"), fld("next", ["null", "Node"], default=None), fld("w", "int"), namespace=None),
     LIST_NODE, [("READER_FIELD_MISSING_DEFAULT_VALUE", "/fields/2", "w")]),
    # -- enums
    ("enum gains a symbol", ENUM_ABC, ENUM_AB, []),
    ("enum loses a symbol", ENUM_AB, ENUM_ABC, [("MISSING_ENUM_SYMBOLS", "/symbols", "[C]")]),
    ("enum loses symbols, sorted in message", {**ENUM_AB, "symbols": ["A"]}, {**ENUM_ABC, "symbols": ["C", "A", "B"]},
     [("MISSING_ENUM_SYMBOLS", "/symbols", "[B, C]")]),
    ("enum loses a symbol but has a default", {**ENUM_AB, "default": "A"}, ENUM_ABC, []),
    ("enum renamed", {**ENUM_AB, "name": "F"}, ENUM_AB, [("NAME_MISMATCH", "/name", "expected: E")]),
    # -- fixed
    ("fixed same", {"type": "fixed", "name": "F", "size": 16}, {"type": "fixed", "name": "F", "size": 16}, []),
    ("fixed size changed", {"type": "fixed", "name": "F", "size": 8}, {"type": "fixed", "name": "F", "size": 16},
     [("FIXED_SIZE_MISMATCH", "/size", "expected: 16, found: 8")]),
    ("fixed renamed", {"type": "fixed", "name": "G", "size": 4}, {"type": "fixed", "name": "F", "size": 4},
     [("NAME_MISMATCH", "/name", "expected: F")]),
    ("fixed vs bytes", "bytes", {"type": "fixed", "name": "F", "size": 4},
     [("TYPE_MISMATCH", "/", "reader type: BYTES not compatible with writer type: FIXED")]),
    # -- unions
    ("reader union holds the writer type", ["null", "int"], "int", []),
    ("reader union promotes the writer type", ["null", "long"], "int", []),
    ("reader union lacks the writer type", ["null", "int"], "string",
     [("MISSING_UNION_BRANCH", "/", "reader union lacking writer type: STRING")]),
    ("writer union into a plain reader", "int", ["null", "int"],
     [("TYPE_MISMATCH", "/", "reader type: INT not compatible with writer type: NULL")]),
    ("writer union subset of reader union", ["null", "int", "string"], ["null", "int"], []),
    ("writer union superset of reader union", ["null", "int"], ["null", "int", "string"],
     [("MISSING_UNION_BRANCH", "/2", "reader union lacking writer type: STRING")]),
    ("optional field made required", record("R", fld("a", "int")), record("R", fld("a", ["null", "int"], default=None)),
     [("TYPE_MISMATCH", "/", "reader type: INT not compatible with writer type: NULL")]),
    ("required field made optional", record("R", fld("a", ["null", "int"], default=None)), record("R", fld("a", "int")), []),
    # -- arrays and maps
    ("array items promoted", {"type": "array", "items": "long"}, {"type": "array", "items": "int"}, []),
    ("array items changed", {"type": "array", "items": "string"}, {"type": "array", "items": "int"},
     [("TYPE_MISMATCH", "/items", "reader type: STRING not compatible with writer type: INT")]),
    ("map values changed", {"type": "map", "values": "int"}, {"type": "map", "values": "long"},
     [("TYPE_MISMATCH", "/values", "reader type: INT not compatible with writer type: LONG")]),
    ("array vs map", {"type": "array", "items": "int"}, {"type": "map", "values": "int"},
     [("TYPE_MISMATCH", "/", "reader type: ARRAY not compatible with writer type: MAP")]),
    ("record vs string", record("R", fld("a", "int")), "string",
     [("TYPE_MISMATCH", "/", "reader type: RECORD not compatible with writer type: STRING")]),
]


@pytest.mark.parametrize("reader,writer,expected", [pytest.param(*c[1:], id=c[0]) for c in READER_WRITER_CASES])
def test_reader_writer_rules(reader: Any, writer: Any, expected: list[tuple[str, str, str]]) -> None:
    assert incompat(reader, writer) == expected


V1 = record("R", fld("a", "int"))
V2_NEW_REQUIRED = record("R", fld("a", "int"), fld("b", "string"))
V2_NEW_OPTIONAL = record("R", fld("a", "int"), fld("b", "string", default=""))
V2_DROPPED_A = record("R", fld("b", "string", default=""))

# (level, old, new, compatible?) for one previous version
LEVEL_CASES = [
    ("NONE", V1, V2_NEW_REQUIRED, True),
    ("NONE", V1, "string", True),
    ("BACKWARD", V1, V2_NEW_OPTIONAL, True),
    ("BACKWARD", V1, V2_NEW_REQUIRED, False),  # new reader lacks a default for b
    ("BACKWARD", V1, V2_DROPPED_A, True),      # new reader ignores a
    ("FORWARD", V1, V2_NEW_REQUIRED, True),    # old reader ignores b
    ("FORWARD", V1, V2_DROPPED_A, False),      # old reader needs a, no default
    ("FULL", V1, V2_NEW_OPTIONAL, True),
    ("FULL", V1, V2_NEW_REQUIRED, False),
    ("FULL", V1, V2_DROPPED_A, False),
    ("BACKWARD", "int", "long", True),
    ("FORWARD", "int", "long", False),
    ("FULL", "string", "bytes", True),
]


def prev(schema: Any, version: int | None = None) -> PreviousSchema:
    return PreviousSchema(parse_schema(json.dumps(schema)), version)


@pytest.mark.parametrize("level,old,new,compatible", LEVEL_CASES)
def test_levels_against_one_version(level: str, old: Any, new: Any, compatible: bool) -> None:
    messages = check_compatibility(level, parse_schema(json.dumps(new)), [prev(old, 1)])
    assert (messages == []) is compatible


# Sequences where the latest version passes but an older one does not: only *_TRANSITIVE rejects.
TRANSITIVE_CASES = [
    ("BACKWARD", [record("R", fld("a", "int")), record("R")], record("R", fld("a", "string", default=""))),
    ("FORWARD", [record("R", fld("a", "int")), record("R", fld("a", "int", default=0))], record("R")),
    ("FULL", [record("R", fld("a", "int", default=0)), record("R")], record("R", fld("a", "string", default=""))),
]


@pytest.mark.parametrize("level,history,new", TRANSITIVE_CASES)
def test_transitive_levels_check_every_version(level: str, history: list[Any], new: Any) -> None:
    previous = [prev(s, i + 1) for i, s in enumerate(history)]
    parsed = parse_schema(json.dumps(new))
    assert check_compatibility(level, parsed, previous) == []
    messages = check_compatibility(f"{level}_TRANSITIVE", parsed, previous)
    assert messages, "the first version must be rejected"
    assert "{oldSchemaVersion: 1}" in messages
    assert messages[-1] == f"{{validateFields: 'false', compatibility: '{level}_TRANSITIVE'}}"


def test_no_previous_version_is_compatible() -> None:
    assert check_compatibility("FULL_TRANSITIVE", parse_schema('"int"'), []) == []


def test_confluent_message_format_backward() -> None:
    old = prev(V1, 1)
    messages = check_compatibility("BACKWARD", parse_schema(json.dumps(V2_NEW_REQUIRED)), [old])
    assert messages == [
        "{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'b' at path '/fields/1' in the new "
        "schema has no default value and is missing in the old schema', additionalInfo:'b'}",
        "{oldSchemaVersion: 1}",
        f"{{oldSchema: '{old.parsed.canonical}'}}",
        "{validateFields: 'false', compatibility: 'BACKWARD'}",
    ]


def test_confluent_message_format_forward_swaps_reader_and_writer() -> None:
    messages = check_compatibility("FORWARD", parse_schema(json.dumps(V2_DROPPED_A)), [prev(V1, 3)])
    assert messages[0] == (
        "{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'a' at path '/fields/0' in the old "
        "schema has no default value and is missing in the new schema', additionalInfo:'a'}")
    assert messages[1] == "{oldSchemaVersion: 3}"


def test_full_reports_both_directions_and_old_schema_once() -> None:
    old = record("R", fld("a", "int"))
    new = record("R", fld("b", "int"))
    messages = check_compatibility("FULL", parse_schema(json.dumps(new)), [prev(old, 1)])
    kinds = [m.split("'")[1] for m in messages if m.startswith("{errorType")]
    assert kinds == ["READER_FIELD_MISSING_DEFAULT_VALUE", "READER_FIELD_MISSING_DEFAULT_VALUE"]
    assert "in the old schema has no default" in messages[0] and "in the new schema has no default" in messages[1]
    assert sum(m.startswith("{oldSchema:") for m in messages) == 1


@pytest.mark.parametrize("kind,message,expected", [
    ("TYPE_MISMATCH", "reader type: INT not compatible with writer type: LONG",
     "The type (path '/x') of a field in the new schema does not match with the old schema"),
    ("NAME_MISMATCH", "expected: a.R", "The name of the schema has changed (path '/x')"),
    ("MISSING_ENUM_SYMBOLS", "[C]", "The new schema is missing enum symbols '[C]' at path '/x' in the old schema"),
    ("MISSING_UNION_BRANCH", "reader union lacking writer type: INT",
     "The new schema is missing a type inside a union field at path '/x' in the old schema"),
    ("FIXED_SIZE_MISMATCH", "expected: 4, found: 8",
     "The size of FIXED type field at path '/x' in the new schema does not match with the old schema"),
])
def test_difference_descriptions(kind: str, message: str, expected: str) -> None:
    from ioscale.services.registry.compat import Incompatibility

    text = describe(Incompatibility(kind, "/x", message), "new", "old")
    assert text == f"{{errorType:'{kind}', description:'{expected}', additionalInfo:'{message}'}}"
