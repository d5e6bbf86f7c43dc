"""Confluent wire format: byte 0 = magic 0, bytes 1-4 = schema id (big-endian), then the Avro binary body.

Written by hand because the confluent-kafka[avro] extra does not install here (FIELD-NOTES); the
framing is five bytes and this module is the only place that knows it.

Encoding: one record at a time with fastavro; batches (`encode_many`, `encode_block`) with the
vectorised ioscale.wire.avro_fast where the schema allows, which writes the same bytes (tests compare them
record for record) and hands any batch it does not cover back to fastavro.
"""

from __future__ import annotations

import io
import struct
from typing import Any

import fastavro

from ioscale.wire.avro_fast import BatchEncoder, Unsupported
from ioscale.wire.columns import RecordBlock

MAGIC = 0
HEADER = struct.Struct(">bI")


class WireFormatError(ValueError):
    pass


class AvroEncoder:
    """Encodes records of one parsed schema with a fixed registry id."""

    def __init__(self, schema: dict, schema_id: int):
        self.parsed = fastavro.parse_schema(schema)
        self.schema_id = schema_id
        self.field_names = tuple(f["name"] for f in schema.get("fields", ()))
        self._header = HEADER.pack(MAGIC, schema_id)
        self.fast = BatchEncoder.for_schema(schema, self._header)   # None: the schema is outside the fast path
        self.fallbacks = 0   # batches the fast path handed back to fastavro
        self.last_batch_fast = False   # the last encode_many went through the fast path: every record held
        #                                every schema field

    def encode(self, record: dict[str, Any]) -> bytes:
        buf = io.BytesIO()
        buf.write(self._header)
        fastavro.schemaless_writer(buf, self.parsed, record)
        return buf.getvalue()

    def encode_many(self, records: list[dict[str, Any]]) -> list[bytes]:
        """The framed encoding of each record, in order."""
        self.last_batch_fast = False
        if self.fast is not None:
            try:
                out = self.fast.encode_many(records)
                self.last_batch_fast = True
                return out
            except Unsupported:
                self.fallbacks += 1
        return [self.encode(r) for r in records]

    def encode_block(self, block: RecordBlock) -> list[bytes]:
        """The framed encoding of each record of the block, as encode_many(block.to_records()) gives."""
        if self.fast is not None:
            try:
                return self.fast.encode_block(block)
            except Unsupported:
                self.fallbacks += 1
        return [self.encode(r) for r in block.to_records()]


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
