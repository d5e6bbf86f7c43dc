"""Mergeable latency histogram, bucket scheme 1: log-linear buckets over nanoseconds, 7 sub-bucket bits.

The same scheme, names and results as stream-jobs/.../histogram/LatencyHistogram.java; both are checked
against one golden file, schema/histogram_vectors.tsv.

Guarantees
----------
- Range: every value 0 .. MAX_TRACKABLE_NS = 2^40 - 1 ns (~18.3 min) has its own bucket; values 0..255 ns
  are exact. Larger values are clamped into the last bucket and counted in ``overflow_count``.
  Negative values are rejected.
- Error: the representative value of a bucket (its midpoint) is within 1/256 = 0.39% of every value in
  the bucket (0 for values < 256), half fio's and HdrHistogram-2-digit's 1/128 = 0.78% bound. A quantile
  is within the same 1/256 of the exact quantile of the raw values (same definition, see below), because
  the bucket holding the exact quantile is the bucket the histogram reports, and clamping to the exact
  [min, max] only moves the answer towards it.
- Mergeable: histograms of the same scheme merge by adding bucket counts, exactly (associative and
  commutative); count, sum, min and max are kept exactly alongside. Percentiles are never averaged.
- Size: 4352 buckets (indexes 0..4351, fits ClickHouse UInt16). Sparse form on the wire: only non-empty
  buckets, as ascending indexes + counts (Avro ``latency_bucket_index`` / ``latency_bucket_count``,
  ``latency_hist_scheme = 1``). A lognormal latency spread over two decades touches ~500-900 buckets.

How: bucket index of a value v
------------------------------
Let e = max(0, bit_length(v) - 8), the number of low bits dropped. Then::

    index(v) = 128 * e + (v >> e)          bucket = [lower, upper) with
    lower    = (index - 128 * e) << e      e     = max(0, index // 128 - 1)
    upper    = lower + 2^e                 representative = lower + 2^e // 2  (the midpoint)

For v < 256, e = 0 and index = v. For v >= 128 this equals HdrHistogram's form with SUB_BUCKET_BITS = 7,
e = floor(log2(v)) - 7 (= bit_length(v) - 8) and index = (e + 1) * 128 + (v >> e) - 128: the terms
+128 and -128 cancel, and for 128 <= v < 256 both give e = 0, index = v. v >> e always lies in
[128, 256) once v >= 256, so the 128 buckets of shift e follow those of shift e - 1 without gap or
overlap. Error: a value v in a bucket of shift e >= 1 has v >= 128 * 2^e and |v - representative| <= 2^(e-1),
hence <= v / 256 (equality only at v = lower).

Worked table (fio stat.h style)::

    shift e  values (ns)                      indexes       width   width in time   max error
    0        0 .. 255                         0 .. 255      1 ns    exact           0
    1        256 .. 511                       256 .. 383    2       2 ns            1/256
    2        512 .. 1023                      384 .. 511    4       4 ns            1/256
    3        1024 .. 2047       (1-2 us)      512 .. 639    8       8 ns            1/256
    7        16384 .. 32767     (16-33 us)    1024 .. 1151  128     128 ns          1/256
    10       131072 .. 262143   (131-262 us)  1408 .. 1535  1024    1.02 us         1/256
    13       2^20 .. 2^21-1     (1.05-2.1 ms) 1792 .. 1919  8192    8.2 us          1/256
    17       2^24 .. 2^25-1     (17-34 ms)    2304 .. 2431  2^17    131 us          1/256
    23       2^30 .. 2^31-1     (1.07-2.15 s) 3072 .. 3199  2^23    8.4 ms          1/256
    28       2^35 .. 2^36-1     (34-69 s)     3712 .. 3839  2^28    268 ms          1/256
    32       2^39 .. 2^40-1     (550-1100 s)  4224 .. 4351  2^32    4.3 s           1/256
    e        2^(e+7) .. 2^(e+8)-1             128(e+1) .. 128(e+1)+127, width 2^e
    overflow >= 2^40 (> MAX_TRACKABLE_NS)     4351 (clamped, counted in overflow_count)

Examples: 1000 ns -> e = 2, 1000 >> 2 = 250, index 506, bucket [1000, 1004), representative 1002.
1 ms -> e = 12, 10^6 >> 12 = 244, index 1780, bucket [999424, 1003520), representative 1001472 (+0.15%).
60 s -> e = 28, index 3807, bucket [59861106688, 60129542144), representative 59995324416 (-0.008%).

Quantile definition (identical in Java and in the golden vectors)
-----------------------------------------------------------------
For n = count and 0 < q < 1: rank r = ceil(q * n), computed in binary64 (q * float(n), as Java's
``q * (double) n``), clamped to [1, n]; the answer is the representative of the smallest bucket whose
cumulative count is >= r, clamped to [min_ns, max_ns]. q = 0 gives min_ns, q = 1 gives max_ns (both
exact). ClickHouse's ``quantilesExactWeighted(q)(representative, count)`` uses the same rank rule
(``threshold = ceil(sum_weight * level)``, first value whose running weight >= threshold), so SQL over the
stored buckets agrees once it clamps to [min, max] and applies the sample rule below.

Too few samples: a tail quantile is only meaningful with ~10 samples beyond it, so
``required_n(q) = ceil(10 / (1 - q))`` (p50: 20, p90: 100, p99: 1000, p99.9: 10^4, p99.99: 10^5,
p99.999: 10^6; q = 0 and q = 1 need 1). In binary64 it is computed as
``ceil(10.0 / (1.0 - q) * (1.0 - 1e-9))``: the 1e-9 shave absorbs the rounding of 1 - q (otherwise p90
would need 101). When n < required_n(q) the result is flagged ``too_few_samples`` and its value is the
exact max: with N < ~10^6 "p99.999" is the max, and is shown as such. An empty histogram answers 0 with
n = 0 and ``too_few_samples`` set.

Speed (pure Python, no numpy: the ingest path must not need it): counts live in one dense list of 4352
ints plus the range [lo, hi] of indexes that may be non-zero, so merge, to_sparse and quantiles touch only
that range and run in C (slice + map(add), itertools.compress, accumulate + bisect). ``record_many``
computes the indexes in one comprehension and min/max/sum with builtins. bench/histogram_bench.py
measures it.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import dataclass
from itertools import accumulate, compress, islice
from operator import add, lt, mul
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ioscale.errors import ExitStatus, IoscaleError

SCHEME_ID = 1                                   # Avro latency_hist_scheme
SUB_BUCKET_BITS = 7
SUB_BUCKET_COUNT = 1 << SUB_BUCKET_BITS         # 128 buckets per power of two above 256 ns
MAX_TRACKABLE_NS = (1 << 40) - 1                # largest value with its own bucket (~18.3 min)
_MAX_SHIFT = MAX_TRACKABLE_NS.bit_length() - SUB_BUCKET_BITS - 1   # e of the top group: 32
BUCKET_COUNT = (_MAX_SHIFT + 2) * SUB_BUCKET_COUNT                 # 4352
MAX_INDEX = BUCKET_COUNT - 1                    # 4351, also where overflow goes
INT64_MAX = (1 << 63) - 1                       # Avro long / Java long: the wire limit of every field
MIN_SAMPLES_BEYOND_QUANTILE = 10
_REQUIRED_N_SHAVE = 1.0 - 1e-9                  # see required_n()


class HistogramError(IoscaleError, ValueError):
    """Invalid histogram input: negative value, malformed sparse arrays or encoding, q outside [0, 1]."""

    exit_status = ExitStatus.BAD_INPUT


# --- the bucket scheme -----------------------------------------------------------------------------------
def bucket_index(value_ns: int) -> int:
    """Index of the bucket holding value_ns; values above MAX_TRACKABLE_NS clamp to MAX_INDEX."""
    if value_ns < 0:
        raise HistogramError(f"negative value {value_ns} ns: latencies are >= 0")
    e = value_ns.bit_length() - 8
    if e <= 0:
        return value_ns
    if e > _MAX_SHIFT:
        return MAX_INDEX
    return (e << SUB_BUCKET_BITS) + (value_ns >> e)


def _check_index(index: int) -> None:
    if not 0 <= index <= MAX_INDEX:
        raise HistogramError(f"bucket index {index} out of range [0, {MAX_INDEX}]")


def bucket_lower_ns(index: int) -> int:
    """Smallest value in bucket `index` (inclusive)."""
    _check_index(index)
    e = max(0, (index >> SUB_BUCKET_BITS) - 1)
    return (index - (e << SUB_BUCKET_BITS)) << e


def bucket_upper_ns(index: int) -> int:
    """End of bucket `index` (exclusive); the last bucket ends at 2^40 (overflow values lie beyond it)."""
    _check_index(index)
    e = max(0, (index >> SUB_BUCKET_BITS) - 1)
    return ((index - (e << SUB_BUCKET_BITS)) + 1) << e


def bucket_representative_ns(index: int) -> int:
    """Midpoint of bucket `index` (lower + width // 2): within 1/256 of every value in the bucket."""
    _check_index(index)
    e = max(0, (index >> SUB_BUCKET_BITS) - 1)
    return ((index - (e << SUB_BUCKET_BITS)) << e) + ((1 << e) >> 1)


# Representatives by index, for the quantile walk (4352 ints, built once).
_REPRESENTATIVE_NS = [bucket_representative_ns(i) for i in range(BUCKET_COUNT)]


def required_n(q: float) -> int:
    """Samples needed before quantile(q) is reported rather than the max: ceil(10 / (1 - q)), 1 at q in {0, 1}."""
    q = _check_q(q)
    if q == 0.0 or q == 1.0:
        return 1
    return math.ceil(MIN_SAMPLES_BEYOND_QUANTILE / (1.0 - q) * _REQUIRED_N_SHAVE)


def _check_q(q: float) -> float:
    q = float(q)
    if not 0.0 <= q <= 1.0:  # also false for NaN
        raise HistogramError(f"quantile level {q} is not in [0, 1]")
    return q


def sql_representative_expr(index_column: str) -> str:
    """ClickHouse expression for bucket_representative_ns(index) of an integer index column.

    Branch-free and unsigned throughout: with e = max(index // 128, 1) - 1 and
    m = index % 128 + 128 * min(index // 128, 1) (= index - 128 * e), the value is (m << e) + (1 << e) // 2.
    """
    c = index_column
    e = f"toUInt8(greatest(intDiv({c}, 128), 1) - 1)"
    m = f"toUInt64(modulo({c}, 128) + 128 * least(intDiv({c}, 128), 1))"
    return f"(bitShiftLeft({m}, {e}) + intDiv(bitShiftLeft(toUInt64(1), {e}), 2))"


def sql_representative_check() -> tuple[str, tuple[int, int]]:
    """A query to run once against ClickHouse, and the (sum, weighted sum) it must return.

    The weights (index % 13 + 1) make a swapped pair of buckets show up, not only a wrong total.
    """
    rep = sql_representative_expr("bucket_index")
    query = (
        f"SELECT sum(rep), sum(rep * (bucket_index % 13 + 1)) FROM "
        f"(SELECT toUInt16(number) AS bucket_index, {rep} AS rep FROM numbers({BUCKET_COUNT}))"
    )
    expected = (sum(_REPRESENTATIVE_NS), sum(r * (i % 13 + 1) for i, r in enumerate(_REPRESENTATIVE_NS)))
    return query, expected


def _checked_count(count: int) -> int:
    if type(count) is not int:
        raise HistogramError(f"count must be an int, got {type(count).__name__}")
    if count < 0:
        raise HistogramError(f"negative count {count}")
    return count


# --- results ---------------------------------------------------------------------------------------------
class SparseBuckets(NamedTuple):
    """Non-empty buckets: indexes strictly ascending, counts > 0, same length (the Avro parallel arrays)."""

    indexes: list[int]
    counts: list[int]


@dataclass(frozen=True, slots=True)
class QuantileResult:
    q: float
    value_ns: int            # the quantile, or the exact max when too_few_samples (0 when n == 0)
    n: int                   # samples in the histogram
    too_few_samples: bool    # n < required_n: value_ns is the max, not a percentile
    required_n: int


# --- the histogram ---------------------------------------------------------------------------------------
class LatencyHistogram:
    """Latency histogram of scheme 1 (see the module docstring): record, merge, quantiles, sparse form."""

    __slots__ = ("_counts", "_lo", "_hi", "_count", "_sum_ns", "_min_ns", "_max_ns", "_overflow_count")

    def __init__(self) -> None:
        self._counts = [0] * BUCKET_COUNT
        # Invariant: every non-zero bucket lies in [_lo, _hi], and _lo <= index(min), _hi >= index(max),
        # so record() need only widen the range when it sets a new min or max.
        self._lo = BUCKET_COUNT
        self._hi = -1
        self._count = 0
        self._sum_ns = 0
        self._min_ns = INT64_MAX + 1   # sentinels: any recordable value replaces them
        self._max_ns = -1
        self._overflow_count = 0

    # -- exact statistics --
    @property
    def count(self) -> int:
        return self._count

    @property
    def sum_ns(self) -> int:
        return self._sum_ns

    @property
    def min_ns(self) -> int:
        """Exact smallest value; 0 when empty (the Avro default)."""
        return self._min_ns if self._count else 0

    @property
    def max_ns(self) -> int:
        """Exact largest value, including overflow values; 0 when empty."""
        return self._max_ns if self._count else 0

    @property
    def overflow_count(self) -> int:
        """Values above MAX_TRACKABLE_NS (clamped into the last bucket). Not on the Avro wire."""
        return self._overflow_count

    # -- recording --
    def record(self, value_ns: int, count: int = 1) -> None:
        """Record value_ns (an int, ns) `count` times; count 0 is a no-op."""
        try:
            if value_ns < 256:
                if value_ns < 0:
                    raise HistogramError(f"negative value {value_ns} ns: latencies are >= 0")
                index = value_ns
            else:
                e = value_ns.bit_length() - 8
                if e > _MAX_SHIFT:
                    self._record_overflow(value_ns, count)
                    return
                index = (e << SUB_BUCKET_BITS) + (value_ns >> e)
            if type(count) is not int or count < 1:
                if _checked_count(count) == 0:
                    return
            self._counts[index] += count   # first mutation: an exception above leaves self unchanged
        except (AttributeError, TypeError):
            raise TypeError(f"value_ns must be an int, got {type(value_ns).__name__}") from None
        self._count += count
        self._sum_ns += value_ns * count
        if value_ns < self._min_ns:
            self._min_ns = value_ns
            if index < self._lo:
                self._lo = index
        if value_ns > self._max_ns:
            self._max_ns = value_ns
            if index > self._hi:
                self._hi = index

    def _record_overflow(self, value_ns: int, count: int) -> None:
        # Rare path: clamp into the last bucket, count as overflow, keep the exact value in sum/min/max.
        if value_ns > INT64_MAX:
            raise HistogramError(f"value {value_ns} ns exceeds the signed 64-bit range of the wire format")
        if _checked_count(count) == 0:
            return
        self._counts[MAX_INDEX] += count
        self._overflow_count += count
        self._count += count
        self._sum_ns += value_ns * count
        self._note_extremes(value_ns, value_ns)

    def record_many(self, values_ns: Iterable[int], counts: Iterable[int] | None = None) -> None:
        """Record every value (each `counts[i]` times when counts is given). All or nothing on error."""
        values = values_ns if type(values_ns) is list else list(values_ns)
        if counts is not None:
            self._record_weighted(values, counts if type(counts) is list else list(counts))
            return
        if not values:
            return
        lo_v, hi_v = min(values), max(values)
        if lo_v < 0:
            raise HistogramError(f"negative value {lo_v} ns: latencies are >= 0")
        if hi_v > MAX_TRACKABLE_NS:
            if hi_v > INT64_MAX:
                raise HistogramError(f"value {hi_v} ns exceeds the signed 64-bit range of the wire format")
            tracked = [v for v in values if v <= MAX_TRACKABLE_NS]
            overflow = len(values) - len(tracked)
        else:
            tracked, overflow = values, 0
        try:
            # Index per value in one comprehension: int.bit_length is the only call; e <= 0 means < 256.
            indexes = [v if (e := v.bit_length() - 8) <= 0 else (e << 7) + (v >> e) for v in tracked]
        except AttributeError:
            bad = next(v for v in values if not isinstance(v, int))
            raise TypeError(f"value_ns must be an int, got {type(bad).__name__}") from None
        c = self._counts
        for i in indexes:
            c[i] += 1
        if overflow:
            c[MAX_INDEX] += overflow
            self._overflow_count += overflow
        self._count += len(values)
        self._sum_ns += sum(values)
        self._note_extremes(lo_v, hi_v)

    def _record_weighted(self, values: list[int], counts: list[int]) -> None:
        if len(values) != len(counts):
            raise HistogramError(f"values and counts differ in length ({len(values)} != {len(counts)})")
        if not values:
            return
        total = sum(counts)
        if type(total) is not int:  # a float (or other non-int) count makes the sum non-int: C-speed check
            raise HistogramError(f"count must be an int, got {type(total).__name__}")
        if min(counts) < 0:
            raise HistogramError(f"negative count {min(counts)}")
        if 0 in counts:  # zero-count values must not move min/max
            pairs = [(v, k) for v, k in zip(values, counts) if k]
            if not pairs:
                return
            values, counts = [p[0] for p in pairs], [p[1] for p in pairs]
        lo_v, hi_v = min(values), max(values)
        if lo_v < 0:
            raise HistogramError(f"negative value {lo_v} ns: latencies are >= 0")
        if hi_v > INT64_MAX:
            raise HistogramError(f"value {hi_v} ns exceeds the signed 64-bit range of the wire format")
        try:
            indexes = [v if (e := v.bit_length() - 8) <= 0 else (e << 7) + (v >> e) if e <= _MAX_SHIFT
                       else MAX_INDEX for v in values]
        except AttributeError:
            bad = next(v for v in values if not isinstance(v, int))
            raise TypeError(f"value_ns must be an int, got {type(bad).__name__}") from None
        if hi_v > MAX_TRACKABLE_NS:
            self._overflow_count += sum(k for v, k in zip(values, counts) if v > MAX_TRACKABLE_NS)
        c = self._counts
        for i, k in zip(indexes, counts):
            c[i] += k
        self._count += total
        self._sum_ns += sum(map(mul, values, counts))
        self._note_extremes(lo_v, hi_v)

    def _note_extremes(self, lo_v: int, hi_v: int) -> None:
        if lo_v < self._min_ns:
            self._min_ns = lo_v
            self._lo = min(self._lo, bucket_index(lo_v))
        if hi_v > self._max_ns:
            self._max_ns = hi_v
            self._hi = max(self._hi, bucket_index(hi_v))

    # -- merging --
    def merge(self, other: LatencyHistogram) -> LatencyHistogram:
        """Add other's counts and statistics into self (exact); returns self."""
        if other._count == 0:
            return self
        lo, hi = other._lo, other._hi + 1
        c = self._counts
        c[lo:hi] = map(add, c[lo:hi], other._counts[lo:hi])  # safe when other is self: slices are copies
        self._count += other._count
        self._sum_ns += other._sum_ns
        self._overflow_count += other._overflow_count
        if other._min_ns < self._min_ns:
            self._min_ns = other._min_ns
        if other._max_ns > self._max_ns:
            self._max_ns = other._max_ns
        self._lo = min(self._lo, other._lo)
        self._hi = max(self._hi, other._hi)
        return self

    def copy(self) -> LatencyHistogram:
        return LatencyHistogram().merge(self)

    # -- sparse form (Avro latency_bucket_index / latency_bucket_count) --
    def to_sparse(self) -> SparseBuckets:
        """Non-empty buckets, indexes ascending."""
        if self._count == 0:
            return SparseBuckets([], [])
        window = self._counts[self._lo:self._hi + 1]
        return SparseBuckets(list(compress(range(self._lo, self._hi + 1), window)), list(filter(None, window)))

    @classmethod
    def from_sparse(cls, indexes: Sequence[int], counts: Sequence[int], *, sum_ns: int, min_ns: int,
                    max_ns: int, overflow_count: int = 0) -> LatencyHistogram:
        """Rebuild from the Avro parallel arrays plus the exact statistics (latency_sum_ns/min_ns/max_ns).

        Validates: same length, indexes strictly ascending in [0, MAX_INDEX], counts >= 0 (zeros are
        dropped), statistics consistent (an empty histogram has all of them 0; otherwise
        0 <= min_ns <= max_ns, sum_ns >= 0, overflow only in the last bucket). min/max are not checked
        against the buckets: converted sources (fio's own buckets) may place them in a neighbouring bucket.
        Raises HistogramError naming the first problem.
        """
        indexes = indexes if type(indexes) is list else list(indexes)
        counts = counts if type(counts) is list else list(counts)
        if len(indexes) != len(counts):
            raise HistogramError(f"indexes and counts differ in length ({len(indexes)} != {len(counts)})")
        try:
            fields = (sum(indexes), sum(counts), sum_ns, min_ns, max_ns, overflow_count)
        except TypeError:
            fields = (None,)
        for v in fields:
            if type(v) is not int:  # a list holding a float sums to a float: a C-speed type check
                raise HistogramError(f"sparse histogram fields must be ints, got {type(v).__name__}")
        if indexes:
            # C-speed checks first; locate the culprit only when one fails.
            if not all(map(lt, indexes, islice(indexes, 1, None))):
                pos = next(i for i in range(1, len(indexes)) if indexes[i] <= indexes[i - 1])
                raise HistogramError(f"bucket indexes not strictly ascending at position {pos} "
                                     f"({indexes[pos]} after {indexes[pos - 1]})")
            if indexes[0] < 0 or indexes[-1] > MAX_INDEX:
                bad = indexes[0] if indexes[0] < 0 else indexes[-1]
                raise HistogramError(f"bucket index {bad} out of range [0, {MAX_INDEX}]")
            if min(counts) < 0:
                pos = next(i for i, k in enumerate(counts) if k < 0)
                raise HistogramError(f"negative count {counts[pos]} at position {pos}")
        total = sum(counts)
        h = cls()
        if not total:
            if sum_ns or min_ns or max_ns or overflow_count:
                raise HistogramError("empty histogram must have sum_ns, min_ns, max_ns and overflow_count 0, got "
                                     f"{sum_ns}, {min_ns}, {max_ns}, {overflow_count}")
            return h
        if not 0 <= min_ns <= max_ns <= INT64_MAX:
            raise HistogramError(f"need 0 <= min_ns <= max_ns <= 2^63 - 1, got min_ns={min_ns}, max_ns={max_ns}")
        if not 0 <= sum_ns <= INT64_MAX:
            raise HistogramError(f"sum_ns {sum_ns} is not in [0, 2^63 - 1]")
        if overflow_count:
            last = counts[-1] if indexes[-1] == MAX_INDEX else 0
            if not 0 <= overflow_count <= last or max_ns <= MAX_TRACKABLE_NS:
                raise HistogramError(f"overflow_count {overflow_count} needs as many values in the last bucket "
                                     f"(has {last}) and max_ns > {MAX_TRACKABLE_NS} (is {max_ns})")
        c = h._counts
        for i, k in zip(indexes, counts):
            c[i] = k
        h._count, h._sum_ns, h._overflow_count = total, sum_ns, overflow_count
        h._min_ns, h._max_ns = min_ns, max_ns
        first, last = indexes[0], indexes[-1]
        if 0 in counts:
            nonzero = [i for i, k in zip(indexes, counts) if k]
            first, last = nonzero[0], nonzero[-1]
        h._lo = min(first, bucket_index(min_ns))
        h._hi = max(last, bucket_index(max_ns))
        return h

    # -- quantiles --
    def quantile(self, q: float) -> QuantileResult:
        return self.quantiles([q])[0]

    def quantiles(self, qs: Iterable[float]) -> list[QuantileResult]:
        """One QuantileResult per level, in the order given; one pass over the buckets for all of them."""
        levels = [_check_q(q) for q in qs]
        n = self._count
        cumulative: list[int] | None = None
        out = []
        for q in levels:
            need = required_n(q)
            if n < need:
                out.append(QuantileResult(q, self.max_ns, n, True, need))
                continue
            if q == 0.0:
                value = self._min_ns
            elif q == 1.0:
                value = self._max_ns
            else:
                if cumulative is None:
                    cumulative = list(accumulate(self._counts[self._lo:self._hi + 1]))
                rank = min(max(math.ceil(q * n), 1), n)
                rep = _REPRESENTATIVE_NS[self._lo + bisect_left(cumulative, rank)]
                value = min(max(rep, self._min_ns), self._max_ns)
            out.append(QuantileResult(q, value, n, False, need))
        return out

    # -- compact binary form (state, files, wire) --
    def to_bytes(self) -> bytes:
        """Encode in the current format (ENCODING_VERSION); see the format history below."""
        out = bytearray((ENCODING_VERSION,))
        for field in (SCHEME_ID, self._sum_ns, self.min_ns, self.max_ns, self._overflow_count):
            _put_varint(out, field)
        indexes, counts = self.to_sparse()
        _put_varint(out, len(indexes))
        append = out.append
        previous = 0
        for i, k in zip(indexes, counts):
            delta, previous = i - previous, i
            if delta < 0x80 and k < 0x80:  # the common case: one byte each
                append(delta)
                append(k)
            else:
                _put_varint(out, delta)
                _put_varint(out, k)
        return bytes(out)

    @classmethod
    def from_bytes(cls, data: bytes) -> LatencyHistogram:
        """Decode to_bytes() output; raises HistogramError on any malformed input."""
        if not data:
            raise HistogramError("truncated encoding: no version byte")
        if data[0] != ENCODING_VERSION:
            raise HistogramError(f"unsupported encoding version {data[0]} (this code reads {ENCODING_VERSION})")
        reader = _VarintReader(data, 1)
        scheme = reader.next()
        if scheme != SCHEME_ID:
            raise HistogramError(f"unsupported scheme {scheme} (this code reads {SCHEME_ID})")
        sum_ns, min_ns, max_ns, overflow_count, k = (reader.next() for _ in range(5))
        indexes, counts = [], []
        index = 0
        end = len(data) - 1
        for _ in range(k):
            pos = reader.pos
            if pos < end and data[pos] < 0x80 and data[pos + 1] < 0x80:  # one byte each, as usual
                index += data[pos]
                count = data[pos + 1]
                reader.pos = pos + 2
            else:
                index += reader.next()
                count = reader.next()
            if count == 0:
                raise HistogramError(f"zero count in encoded bucket {index} (encodings hold non-empty buckets)")
            if index > MAX_INDEX:  # checked as we go, like the Java decoder, so both name the same problem
                raise HistogramError(f"bucket index {index} out of range [0, {MAX_INDEX}]")
            indexes.append(index)
            counts.append(count)
        if reader.pos != len(data):
            raise HistogramError(f"trailing bytes after the encoding ({len(data) - reader.pos})")
        return cls.from_sparse(indexes, counts, sum_ns=sum_ns, min_ns=min_ns, max_ns=max_ns,
                               overflow_count=overflow_count)

    # -- value semantics --
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LatencyHistogram):
            return NotImplemented
        return (self._count, self._sum_ns, self.min_ns, self.max_ns, self._overflow_count) == (
            other._count, other._sum_ns, other.min_ns, other.max_ns, other._overflow_count
        ) and self.to_sparse() == other.to_sparse()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return (f"LatencyHistogram(count={self._count}, min_ns={self.min_ns}, max_ns={self.max_ns}, "
                f"buckets={len(self.to_sparse().indexes)}, overflow_count={self._overflow_count})")


# --- binary encoding -------------------------------------------------------------------------------------
# Format history (bump ENCODING_VERSION on any change; decoders reject versions they do not know):
#   1  byte 0 = version 1; then unsigned LEB128 varints (7 bits per byte, low group first, high bit set
#      on all but the last byte, at most 9 bytes since every field is <= 2^63 - 1):
#      scheme id (1), sum_ns, min_ns, max_ns, overflow_count, k = number of non-empty buckets, then k
#      pairs (index delta, count): the first delta is the index itself, later ones the gap to the
#      previous index (>= 1); counts are >= 1. count is not stored: it is the sum of the counts.
#      An empty histogram is 7 bytes: 01 01 00 00 00 00 00.
ENCODING_VERSION = 1


def _put_varint(out: bytearray, value: int) -> None:
    if not 0 <= value <= INT64_MAX:
        raise HistogramError(f"{value} does not fit the encoding's unsigned 63-bit varints")
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


class _VarintReader:
    __slots__ = ("data", "pos")

    def __init__(self, data: bytes, pos: int) -> None:
        self.data, self.pos = data, pos

    def next(self) -> int:
        data, start = self.data, self.pos
        value, shift, pos = 0, 0, start
        while True:
            if pos >= len(data):
                raise HistogramError(f"truncated varint at byte {start}")
            byte = data[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                break
            if shift == 56:  # a 10th byte would carry bit 63 or beyond
                raise HistogramError(f"varint at byte {start} exceeds 2^63 - 1")
            shift += 7
        self.pos = pos
        return value
