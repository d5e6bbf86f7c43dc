"""Avro binary for many flat records at once, byte for byte what fastavro writes, several times cheaper.

Why: fastavro spends ~10 us on an IoSample (22 fields, two sparse-histogram arrays of ~20 items), which
alone caps one Python process far below the simulator's 50k I/O samples/s target. Encoding a whole
batch column by column lets numpy do the zigzag varints of all its integers at once: ~1-3 us per
IoSample and ~1 us per CpuSample in batches of thousands (bench/simulator_bench.py).

What it covers (anything else makes `compile_schema` return None: the caller keeps fastavro):
- a record whose fields are int, long (plain or timestamp-millis/-micros), double, string, enum,
  arrays of int/long/double, maps of strings, and unions of null with one of int/long/double/string;
- records that are mappings holding every field of the schema (no reliance on defaults).
A batch holding any value outside the strict subset below raises `Unsupported`; the caller then encodes
that batch with fastavro, so odd inputs get fastavro's own behaviour (its coercions and its errors):
- int/long: Python ints, bools and objects with __index__ (numpy ints) -- what array('q') accepts and
  fastavro writes as the same integer; floats, Decimals and strings go to fastavro;
- double: what array('d') accepts (ints, floats, __float__ objects), converted by the same C call;
- string: str only (fastavro rejects bytes); enum: one of the symbols;
- arrays: list or tuple; maps: dict of str -> str; unions: None or exactly int / float / str.

How (per batch of N records)
- Columns come from one itemgetter per record and a transpose (C loops, no per-field Python code), or
  straight from an ioscale.wire.columns.RecordBlock (`encode_block`: numpy arrays, no dicts at all).
- Runs of adjacent string / enum / int fields that identify a source (run_id, step, host, vm, target,
  direction) are encoded once per distinct tuple and cached across batches: a fleet's sources repeat
  every interval, so the cache hits ~always. A block whose identity columns share one codes array is
  encoded per distinct row and gathered by code.
- Integers: zigzag, then a (values x W) matrix of 7-bit groups with continuation bits, compacted; W is
  the widest varint among the batch's small integers (histograms: 2) or among the others (up to 10).
  Doubles: their little-endian bytes as they are in memory.
- Every field is then a few segments per record (start, length) into one byte pool; one np.repeat +
  arange builds the gather index of the whole batch, one fancy index gathers it, and the records are
  slices of that buffer.

Wire format reminders (Avro 1.11 spec): int/long = zigzag varint; double = 8 bytes little-endian;
string = long length + UTF-8; enum = int index; array/map = blocks of (long count, items), ended by a
0 count -- fastavro writes one block holding every item, and a lone 0 for an empty one; union = long
branch index then the value.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Callable, Mapping, Sequence
from itertools import chain
from operator import index, itemgetter
from typing import Any

import numpy as np

from ioscale.wire.columns import Coded, Column, Const, Ragged, RecordBlock, column_values

if sys.byteorder != "little":  # doubles are copied from memory as they are; Avro wants little-endian
    raise ImportError("ioscale.wire.avro_fast assumes a little-endian machine")

#: Distinct identity rows (and values) kept per field group before the cache starts over (~300 B each).
GROUP_CACHE_LIMIT = 50_000

_INT_TYPES = ("int", "long")
_INT_LOGICAL = {None, "timestamp-millis", "timestamp-micros"}  # int passes through these unchanged
_UNION_TYPES = {"int": int, "long": int, "double": float, "string": str}


class Unsupported(Exception):
    """The batch holds a value outside the fast path's strict subset: encode it with fastavro."""


# -- scalar encoders (per distinct value, in Python) ------------------------------------------------------
def varint(n: int) -> bytes:
    """Zigzag varint of a 64-bit signed integer (Avro int and long)."""
    if not -(1 << 63) <= n < (1 << 63):
        raise Unsupported(f"{n} does not fit in 64 bits")
    z = ((n << 1) ^ (n >> 63)) & 0xFFFF_FFFF_FFFF_FFFF
    out = bytearray()
    while z >= 0x80:
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    out.append(z)
    return bytes(out)


def string_bytes(s: object) -> bytes:
    if not isinstance(s, str):
        raise Unsupported(f"{type(s).__name__} in a string field")
    try:
        b = s.encode("utf-8")
    except UnicodeEncodeError as e:  # lone surrogates: fastavro raises, let it
        raise Unsupported(str(e)) from e
    return varint(len(b)) + b


def _int_bytes(v: object) -> bytes:
    if isinstance(v, float):  # fastavro truncates floats; leave that to it
        raise Unsupported("float in an int field")
    try:
        return varint(index(v))
    except TypeError as e:
        raise Unsupported(str(e)) from e


# -- vectorised integers ----------------------------------------------------------------------------------
def varint_matrix(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(M, W) uint8 matrix whose row i starts with the zigzag varint of values[i], the (M, W) mask of the
    bytes each varint uses, and its byte counts.

    W is the widest varint of the batch, so a batch of small integers costs one pass, not ten.
    """
    v = np.asarray(values, dtype=np.int64)
    z = ((v << 1) ^ (v >> 63)).view(np.uint64)
    top = int(z.max()) if z.size else 0
    width = 1
    while width < 10 and top >> (7 * width):
        width += 1
    used = np.empty((z.size, width), dtype=bool)
    used[:, 0] = True
    nbytes = np.ones(z.size, dtype=np.int64)
    for k in range(1, width):
        np.greater_equal(z, np.uint64(1 << (7 * k)), out=used[:, k])
        nbytes += used[:, k]   # (a sum over axis 1 of a narrow matrix is ~10x slower)
    m = np.empty((z.size, width), dtype=np.uint8)
    if width == 1:
        m[:, 0] = z
        return m, used, nbytes
    for k in range(width):
        m[:, k] = ((z >> np.uint64(7 * k)) & np.uint64(0x7F)) | np.uint64(0x80)
    m.ravel()[np.arange(0, z.size * width, width) + nbytes - 1] &= 0x7F
    return m, used, nbytes


def packed_varints(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The varints of `values` back to back (uint8) and each one's byte count."""
    m, used, nbytes = varint_matrix(values)
    if m.shape[1] == 1:
        return m.ravel(), nbytes
    return np.compress(used.ravel(), m.ravel()), nbytes   # 1-D: a 2-D boolean index is ~50x slower


def _ints(column: Sequence[object]) -> np.ndarray:
    try:
        return np.frombuffer(array("q", column), dtype=np.int64)
    except (TypeError, OverflowError) as e:
        raise Unsupported(str(e)) from e


def _doubles(column: Sequence[object] | Any) -> np.ndarray:
    try:
        return np.frombuffer(array("d", column), dtype=np.float64)
    except (TypeError, OverflowError, ValueError) as e:
        raise Unsupported(str(e)) from e


# -- pieces: every field is a fixed number of segments per record ------------------------------------------
class _Ints:
    """Integers added to a batch; their varints' pool offsets are known once the batch is assembled."""

    __slots__ = ("values", "at", "nbytes")

    def __init__(self, values: np.ndarray):
        self.values = values
        self.at: np.ndarray = values   # offsets of each varint in the pool, end appended (set by assemble)
        self.nbytes: np.ndarray = values


class _Pieces:
    """One batch's byte pool and, per record, the segments (start, length) that make up its bytes in order.

    Integers are encoded when the batch is assembled, all at once in two passes: those below 2^13 in
    magnitude (histogram indexes and counts, at most two bytes each) and the rest, so the many small
    ones do not pay for the width of a nanosecond sum.
    """

    def __init__(self, n: int):
        self.n = n
        self.rows = np.arange(n, dtype=np.int64)
        self._pool: list[np.ndarray] = []
        self._size = 0
        self._ints: list[_Ints] = []
        self._segments: list[tuple] = []

    def raw(self, data: np.ndarray) -> int:
        """Adds bytes to the pool; returns their offset."""
        base = self._size
        self._pool.append(np.ascontiguousarray(data).view(np.uint8).ravel())
        self._size += data.nbytes
        return base

    def segment(self, starts: np.ndarray | int, lengths: np.ndarray | int) -> None:
        self._segments.append((starts, lengths))

    def constant(self, data: bytes) -> None:
        self.segment(self.raw(np.frombuffer(data, dtype=np.uint8)), len(data))

    def blobs(self, items: list[bytes]) -> None:
        """One bytes object per record."""
        lengths = np.fromiter(map(len, items), dtype=np.int64, count=len(items))
        base = self.raw(np.frombuffer(b"".join(items), dtype=np.uint8))
        self.segment(base + np.cumsum(lengths) - lengths, lengths)

    def ints(self, values: np.ndarray) -> _Ints:
        h = _Ints(values)
        self._ints.append(h)
        return h

    def int_segment(self, h: _Ints, index: np.ndarray, present: np.ndarray | None = None) -> None:
        """Record i gets the varint of h.values[index[i]] (nothing where present[i] is False)."""
        self._segments.append((h, index, present, False))

    def int_range(self, h: _Ints, first: np.ndarray, end: np.ndarray) -> None:
        """Record i gets the varints of h.values[first[i]:end[i]], back to back."""
        self._segments.append((h, first, end, True))

    def int_columns(self, parts: list[bytes | np.ndarray]) -> None:
        """Adjacent integer fields: constants (their encoded bytes) or one int64 array per field."""
        arrays = [p for p in parts if not isinstance(p, bytes)]
        if arrays:
            k = len(arrays)
            h = self.ints(arrays[0] if k == 1 else np.stack(arrays, axis=1).ravel())
            index = self.rows * k
        j = 0
        for p in parts:
            if isinstance(p, bytes):
                self.constant(p)
            else:
                self.int_segment(h, index + j)
                j += 1

    def _encode_ints(self) -> None:
        small, large = [], []
        for h in self._ints:
            v = h.values
            (small if v.size == 0 or (int(v.max()) < 8192 and int(v.min()) >= -8192) else large).append(h)
        for group in (small, large):
            if not group:
                continue
            packed, nbytes = packed_varints(np.concatenate([h.values for h in group]) if len(group) > 1
                                            else group[0].values)
            at = np.empty(nbytes.size + 1, dtype=np.int64)
            at[0] = self._size
            np.cumsum(nbytes, out=at[1:])
            at[1:] += self._size
            self.raw(packed)
            offset = 0
            for h in group:
                m = h.values.size
                h.at, h.nbytes = at[offset:offset + m + 1], nbytes[offset:offset + m]
                offset += m

    def assemble(self) -> list[bytes]:
        if self._ints:
            self._encode_ints()
        n, s = self.n, len(self._segments)
        pool = np.concatenate(self._pool) if len(self._pool) > 1 else self._pool[0]
        starts = np.empty((n, s), dtype=np.int64)
        lengths = np.empty((n, s), dtype=np.int64)
        for j, seg in enumerate(self._segments):
            if len(seg) == 2:
                starts[:, j], lengths[:, j] = seg
                continue
            h, a, b, is_range = seg
            starts[:, j] = h.at[a]
            if is_range:
                lengths[:, j] = h.at[b] - starts[:, j]
            else:
                lengths[:, j] = h.nbytes[a] if b is None else np.where(b, h.nbytes[a], 0)
        flat_len = lengths.ravel()
        ends = np.cumsum(flat_len)
        # gather index: for each output byte, its position in the pool (int32 halves the memory traffic)
        dtype = np.int32 if max(pool.size, int(ends[-1])) < 1 << 31 else np.int64
        gather = np.repeat((starts.ravel() - (ends - flat_len)).astype(dtype), flat_len)
        gather += np.arange(gather.size, dtype=dtype)
        out = pool[gather].tobytes()
        record_end = ends[s - 1::s].tolist()
        return [out[a:b] for a, b in zip([0, *record_end[:-1]], record_end)]


# -- fields -----------------------------------------------------------------------------------------------
class _Field:
    """One or more adjacent schema fields; `add` takes a tuple of Python values per field (from dicts),
    `add_block` takes ioscale.wire.columns columns and falls back to their Python values."""

    names: tuple[str, ...]

    def add(self, pieces: _Pieces, columns: list[Sequence[Any]]) -> None:
        raise NotImplementedError

    def add_block(self, pieces: _Pieces, columns: list[Column]) -> None:
        self.add(pieces, [column_values(c, pieces.n) for c in columns])


def _int_array(column: Column) -> np.ndarray | None:
    """An integer numpy column as int64 (the values its records hold), else None."""
    if isinstance(column, np.ndarray) and column.ndim == 1 and column.dtype.kind in "iub":
        if column.dtype.kind == "u" and column.size and int(column.max()) >= 1 << 63:
            return None
        return column.astype(np.int64, copy=False)
    return None


class _Longs(_Field):
    """Adjacent int/long fields."""

    def __init__(self, names: list[str]):
        self.names = tuple(names)

    def add(self, pieces, columns):
        pieces.int_columns([_ints(c) for c in columns])

    def add_block(self, pieces, columns):
        parts: list[bytes | np.ndarray] = []
        for c in columns:
            if isinstance(c, Const):
                parts.append(_int_bytes(c.value))
                continue
            a = _int_array(c)
            parts.append(a if a is not None else _ints(column_values(c, pieces.n)))
        pieces.int_columns(parts)


class _Doubles(_Field):
    """Adjacent double fields: 8 bytes each."""

    def __init__(self, names: list[str]):
        self.names = tuple(names)

    def add(self, pieces, columns):
        k, n = len(columns), pieces.n
        data = _doubles(columns[0] if k == 1 else list(chain.from_iterable(columns)))
        if k > 1:
            data = data.reshape(k, n).T.copy()
        pieces.segment(pieces.raw(data) + pieces.rows * (8 * k), 8 * k)

    def add_block(self, pieces, columns):
        n = pieces.n
        arrays = []
        for c in columns:
            if isinstance(c, Const):
                arrays.append(np.full(n, _doubles([c.value])[0]))
            elif isinstance(c, np.ndarray) and c.ndim == 1 and c.dtype == np.float64:
                arrays.append(c)
            else:
                arrays.append(_doubles(column_values(c, n)))
        data = arrays[0] if len(arrays) == 1 else np.stack(arrays, axis=1)
        pieces.segment(pieces.raw(np.ascontiguousarray(data)) + pieces.rows * (8 * len(arrays)), 8 * len(arrays))


class _ValueCache(dict):
    """value -> its Avro bytes, for one field of a group (kept across batches)."""

    def __init__(self, encode: Callable[[Any], bytes]):
        super().__init__()
        self._encode = encode

    def __missing__(self, value: Any) -> bytes:
        encoded = self[value] = self._encode(value)
        return encoded


class _Group(_Field):
    """Adjacent string / enum / int fields, encoded once per distinct value and once per distinct row of
    values (a source: run, step, host, VM, target, direction), both cached across batches.

    Int fields are checked strictly before any cache lookup: 1.0 == 1 as a dict key, and fastavro must get
    the float itself."""

    def __init__(self, parts: list[tuple[str, Callable[[Any], bytes], bool]]):
        self.names = tuple(name for name, _, _ in parts)
        self._values = [_ValueCache(enc) for _, enc, _ in parts]
        self._int_positions = [i for i, (_, _, is_int) in enumerate(parts) if is_int]
        values = self._values

        class Rows(dict):
            def __missing__(self, key: tuple) -> bytes:
                encoded = self[key] = b"".join([cache[v] for cache, v in zip(values, key)])
                return encoded

        self._rows: dict[tuple, bytes] = Rows()
        self._tables: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def _trim(self) -> None:
        if len(self._rows) > GROUP_CACHE_LIMIT:
            self._rows.clear()
        for cache in self._values:
            if len(cache) > GROUP_CACHE_LIMIT:
                cache.clear()

    def add(self, pieces, columns):
        for i in self._int_positions:
            _ints(columns[i])
        self._trim()
        keys = zip(*columns) if len(columns) > 1 else zip(columns[0])
        pieces.blobs(list(map(self._rows.__getitem__, keys)))

    def add_block(self, pieces, columns):
        """Columns that are constants or Coded on one shared codes array: encode the distinct rows only."""
        codes = None
        for c in columns:
            if isinstance(c, Coded):
                if codes is None:
                    codes = c.codes
                elif c.codes is not codes:
                    codes = False
                    break
            elif not isinstance(c, Const):
                codes = False
                break
        if codes is False:
            super().add_block(pieces, columns)
            return
        for i in self._int_positions:
            c = columns[i]
            _int_bytes(c.value) if isinstance(c, Const) else _ints(c.values)
        spec = tuple((c.value,) if isinstance(c, Const) else c.values for c in columns)
        table = self._tables.get(spec)
        if table is None:
            self._trim()
            rows = 1 if codes is None else min(len(c.values) for c in columns if isinstance(c, Coded))
            fields = [[cache[c.value]] * rows if isinstance(c, Const) else list(map(cache.__getitem__, c.values))
                      for cache, c in zip(self._values, columns)]
            blobs = list(map(b"".join, zip(*fields)))
            lengths = np.fromiter(map(len, blobs), dtype=np.int64, count=len(blobs))
            table = (np.frombuffer(b"".join(blobs), dtype=np.uint8), np.cumsum(lengths) - lengths, lengths)
            if len(self._tables) >= 64:  # one entry per step of a simulation: keep the recent ones
                self._tables.clear()
            self._tables[spec] = table
        data, offsets, lengths = table
        base = pieces.raw(data)
        if codes is None:  # every column constant
            pieces.segment(base + offsets[0], lengths[0])
        else:
            pieces.segment(base + offsets[codes], lengths[codes])


class _Array(_Field):
    """count (absent when empty), the items, a 0 count: fastavro writes a single block."""

    def __init__(self, name: str, item: str):
        self.names = (name,)
        self._item = item

    def add(self, pieces, columns):
        col, n = columns[0], pieces.n
        if not {type(v) for v in col} <= {list, tuple}:
            raise Unsupported("array field holds something other than a list or tuple")
        counts = np.fromiter(map(len, col), dtype=np.int64, count=n)
        if not counts.any():
            pieces.constant(b"\x00")
            return
        items = list(chain.from_iterable(col))
        self._emit(pieces, counts, _doubles(items) if self._item == "double" else _ints(items))

    def add_block(self, pieces, columns):
        c = columns[0]
        if isinstance(c, Const):
            if type(c.value) not in (list, tuple):
                raise Unsupported("array field holds something other than a list or tuple")
            pieces.constant(self._one(c.value))
            return
        if isinstance(c, Ragged) and c.values.ndim == 1:
            kind = c.values.dtype.kind
            if (self._item == "double" and c.values.dtype == np.float64) or (self._item != "double" and kind in "iu"):
                counts = np.diff(c.bounds).astype(np.int64, copy=False)
                items = c.values[int(c.bounds[0]):int(c.bounds[-1])]
                if kind == "u" and items.size and int(items.max()) >= 1 << 63:
                    raise Unsupported("array item does not fit in 64 bits")
                if not counts.any():
                    pieces.constant(b"\x00")
                else:
                    self._emit(pieces, counts, items if self._item == "double" else items.astype(np.int64, copy=False))
                return
        super().add_block(pieces, columns)

    def _one(self, items: Sequence[Any]) -> bytes:
        if not items:
            return b"\x00"
        body = _doubles(items).tobytes() if self._item == "double" else b"".join(map(_int_bytes, items))
        return varint(len(items)) + body + b"\x00"

    def _emit(self, pieces: _Pieces, counts: np.ndarray, items: np.ndarray) -> None:
        n = pieces.n
        bounds = np.empty(n + 1, dtype=np.int64)
        bounds[0] = 0
        np.cumsum(counts, out=bounds[1:])
        pieces.int_segment(pieces.ints(counts), pieces.rows, counts > 0)
        if self._item == "double":
            base = pieces.raw(items)
            pieces.segment(base + bounds[:-1] * 8, counts * 8)
        else:
            pieces.int_range(pieces.ints(items), bounds[:-1], bounds[1:])
        pieces.constant(b"\x00")


class _StringMap(_Field):
    def __init__(self, name: str):
        self.names = (name,)

    def add(self, pieces, columns):
        col = columns[0]
        if {type(v) for v in col} != {dict}:
            raise Unsupported("map field holds something other than a dict")
        if not any(col):
            pieces.constant(b"\x00")
            return
        pieces.blobs([self._one(m) for m in col])

    def add_block(self, pieces, columns):
        c = columns[0]
        if isinstance(c, Const):
            if type(c.value) is not dict:
                raise Unsupported("map field holds something other than a dict")
            pieces.constant(self._one(c.value))
            return
        super().add_block(pieces, columns)

    @staticmethod
    def _one(m: dict) -> bytes:
        if not m:
            return b"\x00"
        return b"".join([varint(len(m)), *(string_bytes(k) + string_bytes(v) for k, v in m.items()), b"\x00"])


class _NullUnion(_Field):
    def __init__(self, name: str, null_branch: int, kind: str):
        self.names = (name,)
        self._null = varint(null_branch)
        self._value_branch = varint(1 - null_branch)
        self._type = _UNION_TYPES[kind]
        self._encode: Callable[[Any], bytes] = {
            "int": varint, "long": varint, "string": string_bytes,
            "double": lambda x: array("d", [x]).tobytes()}[kind]

    def add(self, pieces, columns):
        pieces.blobs([self._one(v) for v in columns[0]])

    def add_block(self, pieces, columns):
        c = columns[0]
        if isinstance(c, Const):
            pieces.constant(self._one(c.value))
            return
        super().add_block(pieces, columns)

    def _one(self, v: object) -> bytes:
        if v is None:
            return self._null
        if type(v) is not self._type:  # fastavro's union resolution has its own rules: leave the rest to it
            raise Unsupported(f"{type(v).__name__} in a union field")
        return self._value_branch + self._encode(v)


# -- schema -----------------------------------------------------------------------------------------------
def _kind(t: Any) -> tuple[str, Any] | None:
    """(kind, detail) of a field type, or None when the fast path does not cover it."""
    if isinstance(t, str):
        return ("int", t) if t in _INT_TYPES else ("double", None) if t == "double" else \
            ("string", None) if t == "string" else None
    if isinstance(t, dict):
        tt = t.get("type")
        if tt in _INT_TYPES and t.get("logicalType") in _INT_LOGICAL:
            return ("int", tt)
        if tt in ("double", "string") and "logicalType" not in t:
            return _kind(tt)
        if tt == "enum":
            return ("enum", list(t["symbols"]))
        if tt == "array" and t.get("items") in ("int", "long", "double"):
            return ("array", t["items"])
        if tt == "map" and t.get("values") == "string":
            return ("map", None)
        return None
    if isinstance(t, list) and len(t) == 2 and "null" in t:
        other = t[1 - t.index("null")]
        if isinstance(other, str) and other in _UNION_TYPES:
            return ("union", (t.index("null"), other))
    return None


def _enum_encoder(symbols: list[str]) -> Callable[[Any], bytes]:
    codes = {s: varint(i) for i, s in enumerate(symbols)}

    def encode(v: object) -> bytes:
        if not isinstance(v, str) or v not in codes:
            raise Unsupported(f"{v!r} is not a symbol of the enum")
        return codes[v]
    return encode


def compile_schema(schema: Mapping[str, Any]) -> list[_Field] | None:
    """The field encoders of a flat record schema, or None when any field is outside the fast path."""
    if not isinstance(schema, Mapping) or schema.get("type") != "record":
        return None
    kinds = []
    for f in schema["fields"]:
        k = _kind(f["type"])
        if k is None:
            return None
        kinds.append((f["name"], *k))
    out: list[_Field] = []
    i = 0
    while i < len(kinds):
        # A run of string / enum / 32-bit int fields holding a string or enum: one cached group. Longs
        # (timestamps, counters) stay out: they change every record.
        j = i
        while j < len(kinds) and (kinds[j][1] in ("string", "enum") or kinds[j][1:] == ("int", "int")):
            j += 1
        run = kinds[i:j]
        if any(k in ("string", "enum") for _, k, _ in run):
            out.append(_Group([(name, string_bytes if k == "string" else _enum_encoder(d) if k == "enum"
                                else _int_bytes, k == "int") for name, k, d in run]))
            i = j
            continue
        name, k, d = kinds[i]
        if k in ("int", "double"):
            j = i
            while j < len(kinds) and kinds[j][1] == k and not (k == "int" and _starts_group(kinds, j)):
                j += 1
            names = [nm for nm, _, _ in kinds[i:j]]
            out.append(_Longs(names) if k == "int" else _Doubles(names))
            i = j
            continue
        out.append(_Array(name, d) if k == "array" else _StringMap(name) if k == "map" else _NullUnion(name, *d))
        i += 1
    return out


def _starts_group(kinds: list[tuple[str, str, Any]], i: int) -> bool:
    """Whether a group (see compile_schema) starts at field i."""
    j = i
    while j < len(kinds) and (kinds[j][1] in ("string", "enum") or kinds[j][1:] == ("int", "int")):
        if kinds[j][1] in ("string", "enum"):
            return True
        j += 1
    return False


class BatchEncoder:
    """Encodes batches of records of one flat schema; raises Unsupported for what it does not cover."""

    def __init__(self, fields: list[_Field], prefix: bytes = b""):
        self._fields = fields
        self._prefix = prefix
        self.names = tuple(n for f in fields for n in f.names)
        self._getter = itemgetter(*self.names)
        self._slices: list[tuple[_Field, int, int]] = []
        pos = 0
        for f in fields:
            self._slices.append((f, pos, pos + len(f.names)))
            pos += len(f.names)

    @classmethod
    def for_schema(cls, schema: Mapping[str, Any], prefix: bytes = b"") -> BatchEncoder | None:
        fields = compile_schema(schema)
        return None if fields is None else cls(fields, prefix)

    def encode_many(self, records: Sequence[Mapping[str, Any]]) -> list[bytes]:
        """`prefix` + the Avro body of each record, in order."""
        n = len(records)
        if n == 0:
            return []
        try:
            rows = list(map(self._getter, records))
        except (KeyError, TypeError) as e:  # a missing field: fastavro fills in the default
            raise Unsupported(f"record without field {e}") from e
        columns = list(zip(*rows)) if len(self.names) > 1 else [rows]
        pieces = self._start(n)
        for f, a, b in self._slices:
            f.add(pieces, columns[a:b])
        return pieces.assemble()

    def encode_block(self, block: RecordBlock) -> list[bytes]:
        """The same bytes as encode_many(block.to_records()), from the columns."""
        n = block.n
        if n == 0:
            return []
        try:
            columns = [block.columns[name] for name in self.names]
        except KeyError as e:
            raise Unsupported(f"block without field {e}") from e
        pieces = self._start(n)
        for f, a, b in self._slices:
            f.add_block(pieces, columns[a:b])
        return pieces.assemble()

    def _start(self, n: int) -> _Pieces:
        pieces = _Pieces(n)
        if self._prefix:
            pieces.constant(self._prefix)
        return pieces
