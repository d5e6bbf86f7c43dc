"""The TypedDicts in ioscale.wire.records and the Avro schemas in schema/ name the same fields."""

import json
import typing
from pathlib import Path

import fastavro
import pytest

from ioscale.wire import records, schemas, topics

SCHEMA_DIR = Path(__file__).resolve().parents[3] / "schema"


@pytest.mark.parametrize("record_type,file_name", list(records.SCHEMA_FILES.items()), ids=lambda x: getattr(x, "__name__", x))
def test_typed_dict_fields_equal_avro_fields(record_type, file_name):
    schema = json.loads((SCHEMA_DIR / file_name).read_text())
    assert list(typing.get_type_hints(record_type)) == [f["name"] for f in schema["fields"]]


@pytest.mark.parametrize("file_name", sorted(p.name for p in SCHEMA_DIR.glob("*.avsc")))
def test_every_field_is_documented(file_name):
    schema = json.loads((SCHEMA_DIR / file_name).read_text())
    fastavro.parse_schema(schema)
    assert schema.get("doc")
    undocumented = [f["name"] for f in schema["fields"] if not f.get("doc")]
    assert undocumented == []


def test_every_sample_topic_has_a_schema():
    assert set(schemas.TOPIC_SCHEMAS) == {topics.RUNS, topics.IO_SAMPLES, topics.CPU_SAMPLES, topics.PORT_SAMPLES}
    for topic in schemas.TOPIC_SCHEMAS:
        assert schemas.schema_for_topic(topic)["type"] == "record"
