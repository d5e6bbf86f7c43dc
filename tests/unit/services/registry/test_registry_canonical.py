"""Canonical form (Avro Java's Schema.toString(), what Confluent stores) and schema validation."""

from __future__ import annotations

import json

import pytest

from ioscale.paths import repo_root
from ioscale.services.registry.canonical import parse_schema
from ioscale.services.registry.errors import INVALID_SCHEMA, InvalidSchemaError

# (submitted schema, expected canonical string). Expected strings are what Avro Java 1.11 prints.
CANONICAL_CASES = [
    pytest.param('"string"', '"string"', id="bare primitive"),
    pytest.param('{"type": "string"}', '"string"', id="primitive object without props collapses"),
    pytest.param('{"type":"long","logicalType":"timestamp-millis"}', '{"type":"long","logicalType":"timestamp-millis"}',
                 id="logical type kept as prop"),
    pytest.param('{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}',
                 '{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}', id="decimal props in order"),
    pytest.param('{"type":"string","name":"ignored","doc":"ignored"}', '"string"', id="reserved keys on primitives dropped"),
    pytest.param(
        '{ "fields": [ {"type": "int", "name": "a"} ], "name": "R", "type": "record" }',
        '{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}', id="key order normalised"),
    pytest.param(
        '{"type":"record","name":"a.b.R","fields":[]}',
        '{"type":"record","name":"R","namespace":"a.b","fields":[]}', id="dotted name split"),
    pytest.param(
        '{"type":"record","name":"R","namespace":"a.b","fields":[{"name":"e","type":'
        '{"type":"enum","name":"E","namespace":"a.b","symbols":["X","Y"]}}]}',
        '{"type":"record","name":"R","namespace":"a.b","fields":[{"name":"e","type":'
        '{"type":"enum","name":"E","symbols":["X","Y"]}}]}', id="inherited namespace omitted"),
    pytest.param(
        '{"type":"record","name":"R","namespace":"a","fields":[{"name":"f","type":{"type":"fixed","name":"F","size":4}},'
        '{"name":"g","type":"a.F"},{"name":"h","type":"F"}]}',
        '{"type":"record","name":"R","namespace":"a","fields":[{"name":"f","type":{"type":"fixed","name":"F","size":4}},'
        '{"name":"g","type":"F"},{"name":"h","type":"F"}]}', id="references written short in same namespace"),
    pytest.param(
        '{"type":"record","name":"R","namespace":"a","fields":[{"name":"n","type":{"type":"record","name":"N",'
        '"namespace":"","fields":[]}}]}',
        '{"type":"record","name":"R","namespace":"a","fields":[{"name":"n","type":{"type":"record","name":"N",'
        '"namespace":"","fields":[]}}]}', id="null namespace inside a namespace"),
    pytest.param(
        '{"type":"record","name":"L","fields":[{"name":"next","type":["null","L"],"default":null}]}',
        '{"type":"record","name":"L","fields":[{"name":"next","type":["null","L"],"default":null}]}',
        id="recursive type and null default"),
    pytest.param(
        '{"type":"record","name":"R","fields":[{"aliases":["old"],"order":"descending","default":1,"doc":"d",'
        '"type":"int","name":"a","x-custom":true}],"aliases":["Q"],"doc":"rd","x-r":1}',
        '{"type":"record","name":"R","doc":"rd","fields":[{"name":"a","type":"int","doc":"d","default":1,'
        '"order":"descending","aliases":["old"],"x-custom":true}],"x-r":1,"aliases":["Q"]}',
        id="field attribute order, props, aliases last"),
    pytest.param(
        '{"type":"record","name":"R","fields":[{"name":"a","type":"int","order":"ascending"}]}',
        '{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}', id="default order omitted"),
    pytest.param('{"type":"enum","name":"E","symbols":["A","B"],"default":"A","doc":"x"}',
                 '{"type":"enum","name":"E","doc":"x","symbols":["A","B"],"default":"A"}', id="enum default"),
    pytest.param('{"type":"map","values":{"type":"array","items":"long"}}',
                 '{"type":"map","values":{"type":"array","items":"long"}}', id="map of arrays"),
    pytest.param('["null", {"type": "string"}]', '["null","string"]', id="union"),
    pytest.param('{"type":"record","name":"R","fields":[{"name":"s","type":"string","default":"h\\u00e9\\n"}]}',
                 '{"type":"record","name":"R","fields":[{"name":"s","type":"string","default":"hé\\n"}]}',
                 id="non-ASCII kept, control characters escaped"),
]


@pytest.mark.parametrize("submitted,expected", CANONICAL_CASES)
def test_canonical_form_matches_avro_java(submitted: str, expected: str) -> None:
    assert parse_schema(submitted).canonical == expected


def test_canonical_form_is_a_fixed_point() -> None:
    for param in CANONICAL_CASES:
        canonical = param.values[1]
        assert parse_schema(canonical).canonical == canonical


def test_project_schemas_parse_and_keep_docs_and_defaults() -> None:
    for path in sorted((repo_root() / "schema").glob("*.avsc")):
        original = json.loads(path.read_text())
        parsed = parse_schema(path.read_text())
        back = json.loads(parsed.canonical)
        assert back["name"] == original["name"].rsplit(".", 1)[-1]
        assert [f["name"] for f in back["fields"]] == [f["name"] for f in original["fields"]]
        assert [f.get("default", "<none>") for f in back["fields"]] == [f.get("default", "<none>") for f in original["fields"]]
        assert back.get("doc") == original.get("doc")


INVALID_CASES = [
    pytest.param("", "Empty schema", id="empty"),
    pytest.param("   ", "Empty schema", id="blank"),
    pytest.param("{not json", "Invalid schema", id="not JSON"),
    pytest.param('"Foo"', "Undefined name", id="undefined name"),
    pytest.param('{"type":"foo"}', "unknown type", id="unknown type"),
    pytest.param('{"type":"record","name":"1R","fields":[]}', "Illegal initial character", id="bad record name"),
    pytest.param('{"type":"record","name":"R","fields":[{"name":"a-b","type":"int"}]}', "Illegal character", id="bad field name"),
    pytest.param('{"type":"record","name":"R"}', "fields", id="record without fields"),
    pytest.param('{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"a","type":"long"}]}',
                 "Duplicate field", id="duplicate field"),
    pytest.param('{"type":"record","name":"R","fields":[{"name":"a","type":"int","default":"x"}]}', "efault",
                 id="default of wrong type"),
    pytest.param('{"type":"record","name":"R","fields":[{"name":"a","type":"int","default":4294967296}]}', "default",
                 id="int default out of range"),
    pytest.param('{"type":"record","name":"R","fields":[{"name":"a","type":["null","int"],"default":1}]}',
                 "Invalid default", id="union default must match first branch"),
    pytest.param('{"type":"record","name":"R","fields":[{"name":"a","type":"int","order":"up"}]}', "order", id="bad order"),
    pytest.param('["int","int"]', "Duplicate in union", id="duplicate union branch"),
    pytest.param('["int",["string"]]', "union", id="nested union"),
    pytest.param('{"type":"enum","name":"E","symbols":["A","A"]}', "unique", id="duplicate enum symbol"),
    pytest.param('{"type":"enum","name":"E","symbols":["A"],"default":"B"}', "symbols", id="enum default not a symbol"),
    pytest.param('{"type":"fixed","name":"F"}', "size", id="fixed without size"),
    pytest.param('{"type":"fixed","name":"F","size":-1}', "size", id="negative fixed size"),
    pytest.param('{"type":"array"}', "items", id="array without items"),
    pytest.param('{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"record","name":"R","fields":[]}}]}',
                 "redefine", id="redefined name"),
    pytest.param('{"type":"record","name":"int","fields":[]}', "primitive", id="named after a primitive"),
]


@pytest.mark.parametrize("submitted,fragment", INVALID_CASES)
def test_invalid_schemas_are_42201(submitted: str, fragment: str) -> None:
    with pytest.raises(InvalidSchemaError) as info:
        parse_schema(submitted)
    assert info.value.error_code == INVALID_SCHEMA
    assert info.value.status == 422
    assert fragment.lower() in info.value.message.lower()
