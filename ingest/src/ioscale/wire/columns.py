"""Records of one topic held as columns: what a generator computes with numpy, before any dict exists.

A RecordBlock stands for `n` records with the fields of `fields` (schema order). The producer encodes
a block straight from its columns (ioscale.wire.avro_fast) and never builds the dicts; `to_records()` builds
them for everything else (tests, sinks without block support), and both give the same bytes on the
wire: the encoder's tests compare them record for record.

Column forms (per field):
- `Const(value)`: the same value in every record (run_id, interval_ms, an empty tags map);
- a 1-D numpy array of n integers or floats: one scalar per record;
- `Coded(codes, values)`: record i holds values[codes[i]] (host, vm, target: a few distinct values,
  repeated every interval); blocks that share one `codes` array let the encoder work per distinct row;
- `Ragged(values, bounds)`: record i holds the list values[bounds[i]:bounds[i + 1]] (sparse histograms);
- a Python list: the records' values as they are (what `concat` falls back to).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Union

import numpy as np


@dataclass(frozen=True, eq=False)
class Const:
    value: Any    # (identity equality: Const(1) and Const(True) are different columns)


@dataclass(frozen=True, eq=False)
class Coded:
    codes: np.ndarray            # int, one per record
    values: tuple                # the distinct values; keep the same tuple object across blocks of a step

    def __len__(self) -> int:
        return len(self.codes)


@dataclass(frozen=True, eq=False)
class Ragged:
    values: np.ndarray           # the records' items back to back
    bounds: np.ndarray           # n + 1 ascending offsets into values

    def __len__(self) -> int:
        return len(self.bounds) - 1


Column = Union[Const, np.ndarray, Coded, Ragged, list]


def column_values(column: Column, n: int) -> list[Any]:
    """The column as one Python value per record (what a dict record would hold)."""
    if isinstance(column, Const):
        v = column.value
        if isinstance(v, (list, dict)):  # every record gets its own list / map, as when built one by one
            return [copy.copy(v) for _ in range(n)]
        return [v] * n
    if isinstance(column, Coded):
        return list(map(column.values.__getitem__, column.codes.tolist()))
    if isinstance(column, Ragged):
        lo = int(column.bounds[0])
        items = column.values[lo:int(column.bounds[-1])].tolist()   # only this block's share of the values
        b = (column.bounds - lo).tolist()
        return [items[b[i]:b[i + 1]] for i in range(n)]
    if isinstance(column, list):
        return column
    return column.tolist()


@dataclass(frozen=True, eq=False)
class RecordBlock:
    topic: str
    n: int
    fields: tuple[str, ...]
    columns: dict[str, Column]

    def __post_init__(self) -> None:
        missing = set(self.fields).difference(self.columns)
        if missing:
            raise ValueError(f"block for {self.topic} has no column for {sorted(missing)}")
        for name, col in self.columns.items():
            if type(col) is not Const and len(col) != self.n:
                raise ValueError(f"column {name} holds {len(col)} values for {self.n} records")

    def __len__(self) -> int:
        return self.n

    def to_records(self) -> list[dict[str, Any]]:
        cols = [column_values(self.columns[f], self.n) for f in self.fields]
        names = self.fields
        return [dict(zip(names, row)) for row in zip(*cols)]

    def items(self) -> Iterator[tuple[str, dict[str, Any]]]:
        topic = self.topic
        for r in self.to_records():
            yield topic, r


def concat(blocks: Sequence[RecordBlock]) -> RecordBlock:
    """One block holding the records of `blocks` in order (same topic and fields): fewer, larger batches
    for the encoder, whose cost per batch is mostly fixed. Columns keep their form where they can."""
    first = blocks[0]
    if len(blocks) == 1:
        return first
    if any(b.topic != first.topic or b.fields != first.fields for b in blocks):
        raise ValueError("only blocks of one topic and field list concatenate")
    n = sum(b.n for b in blocks)
    merged_codes: dict[tuple[int, ...], np.ndarray] = {}   # fields coded together stay coded together
    columns: dict[str, Column] = {}
    for name in first.fields:
        cols = [b.columns[name] for b in blocks]
        columns[name] = _concat_column(cols, [b.n for b in blocks], n, merged_codes)
    return RecordBlock(first.topic, n, first.fields, columns)


def _concat_column(cols: list[Column], sizes: list[int], n: int, merged_codes: dict) -> Column:
    c0 = cols[0]
    if isinstance(c0, Const) and all(c is c0 for c in cols):   # the same constant object in every block
        return c0
    if all(isinstance(c, Const) for c in cols):
        v0 = c0.value
        # equal and of one type and repr: 0.0 == -0.0 and [1] == [1.0], but their records differ
        if all(type(c.value) is type(v0) and c.value == v0 and repr(c.value) == repr(v0) for c in cols):
            return c0
        if type(v0) in (int, float) and all(type(c.value) is type(v0) for c in cols):
            # int64 / float64 hold these exactly (ints of a record field fit in 64 bits or fail either way)
            if type(v0) is float or all(-(1 << 63) <= c.value < (1 << 63) for c in cols):
                return np.concatenate([np.full(k, c.value, dtype=np.int64 if type(v0) is int else np.float64)
                                       for c, k in zip(cols, sizes)])
    elif all(isinstance(c, Coded) for c in cols) and all(c.values is c0.values for c in cols):
        key = tuple(id(c.codes) for c in cols)
        codes = merged_codes.get(key)
        if codes is None:
            codes = merged_codes[key] = np.concatenate([c.codes for c in cols])
        return Coded(codes, c0.values)
    elif all(isinstance(c, Ragged) for c in cols) and len({c.values.dtype for c in cols}) == 1:
        values, bounds, offset = [], [np.zeros(1, dtype=np.int64)], 0
        for c in cols:
            lo, hi = int(c.bounds[0]), int(c.bounds[-1])
            values.append(c.values[lo:hi])
            bounds.append(c.bounds[1:].astype(np.int64) - lo + offset)
            offset += hi - lo
        return Ragged(np.concatenate(values), np.concatenate(bounds))
    elif all(isinstance(c, np.ndarray) for c in cols) and len({c.dtype for c in cols}) == 1:
        return np.concatenate(cols)
    out: list[Any] = []
    for c, k in zip(cols, sizes):
        out.extend(column_values(c, k))
    return out
