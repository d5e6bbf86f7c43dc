"""Confluent wire format: byte 0 = magic 0, bytes 1-4 = schema id (big-endian), then the Avro binary body.

Written by hand because the confluent-kafka[avro] extra does not install here (FIELD-NOTES); the
framing is five bytes and this module is the only place that knows it.
"""

from __future__ import annotations

import io
import struct
from typing import Any

import fastavro

MAGIC = 0
HEADER = struct.Struct(">bI")


class WireFormatError(ValueError):
    pass


class AvroEncoder:
    """Encodes records of one parsed schema with a fixed registry id."""

    def __init__(self, schema: dict, schema_id: int):
        self.parsed = fastavro.parse_schema(schema)
        self.schema_id = schema_id
        self._header = HEADER.pack(MAGIC, schema_id)

    def encode(self, record: dict[str, Any]) -> bytes:
        buf = io.BytesIO()
        buf.write(self._header)
        fastavro.schemaless_writer(buf, self.parsed, record)
        return buf.getvalue()


def split(message: bytes) -> tuple[int, bytes]:
    """(schema id, Avro body) of a framed message; raises WireFormatError on a bad header."""
    if len(message) < HEADER.size:
        raise WireFormatError(f"message of {len(message)} bytes is shorter than the 5-byte header")
    magic, schema_id = HEADER.unpack_from(message)
    if magic != MAGIC:
        raise WireFormatError(f"magic byte is {magic}, expected {MAGIC}")
    return schema_id, message[HEADER.size:]


def decode(message: bytes, writer_schema: dict, reader_schema: dict | None = None) -> dict[str, Any]:
    _, body = split(message)
    parsed = fastavro.parse_schema(writer_schema)
    reader = fastavro.parse_schema(reader_schema) if reader_schema else None
    return fastavro.schemaless_reader(io.BytesIO(body), parsed, reader)
