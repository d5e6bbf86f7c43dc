"""ioscale.histogram: golden vectors shared with the Java tests, then properties against exact oracles.

The golden file (schema/histogram_vectors.tsv) is read here and by LatencyHistogramTest.java; its rows are
never retyped. Property tests use `random` with fixed seeds (hypothesis is not a dependency).
"""

from __future__ import annotations

import bisect
import itertools
import math
import operator
import random
from pathlib import Path

import pytest

from ioscale import histogram as hm
from ioscale.histogram import (
    BUCKET_COUNT,
    MAX_INDEX,
    MAX_TRACKABLE_NS,
    HistogramError,
    LatencyHistogram,
    QuantileResult,
    bucket_index,
    bucket_lower_ns,
    bucket_representative_ns,
    bucket_upper_ns,
    required_n,
    sql_representative_check,
    sql_representative_expr,
)
import gen_histogram_vectors  # devtools/, on pytest's pythonpath
from independence import ioscale_imports

VECTORS = Path(__file__).resolve().parents[2] / "schema" / "histogram_vectors.tsv"
LEVELS = [0.0, 0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999, 1.0]


# --- golden vectors --------------------------------------------------------------------------------------
def _load(kind: str) -> list[list[str]]:
    rows = []
    for line in VECTORS.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            fields = line.split("\t")
            if fields[0] == kind:
                rows.append(fields[1:])
    assert rows, f"no {kind} rows in {VECTORS}"
    return rows


def _ints(field: str) -> list[int]:
    return [int(x) for x in field.split(",")] if field else []


def _ids(rows: list[list[str]], *cols: int) -> list[str]:
    return ["/".join(r[c] for c in cols)[:60] for r in rows]


BUCKETS = _load("bucket")
HISTS = _load("hist")
QUANTILES = _load("quantile")


def _build(recipe: str, built: dict[str, LatencyHistogram]) -> LatencyHistogram:
    kind, _, body = recipe.partition(":")
    h = LatencyHistogram()
    if kind == "merge":
        for name in body.split("+"):
            h.merge(built[name].copy())
        return h
    assert kind == "record"
    for item in filter(None, body.split(",")):
        value, _, count = item.partition("*")
        h.record(int(value), int(count) if count else 1)
    return h


def _built() -> dict[str, LatencyHistogram]:
    built: dict[str, LatencyHistogram] = {}
    for name, recipe, *_ in HISTS:
        built[name] = _build(recipe, built)
    return built


BUILT = _built()


@pytest.mark.parametrize("row", BUCKETS, ids=_ids(BUCKETS, 0))
def test_bucket_vector(row):
    value, index, lower, upper, rep, overflow = map(int, row)
    assert bucket_index(value) == index
    assert (bucket_lower_ns(index), bucket_upper_ns(index), bucket_representative_ns(index)) == (lower, upper, rep)
    h = LatencyHistogram()
    h.record(value)
    assert h.to_sparse() == ([index], [1])
    assert h.overflow_count == overflow
    assert (h.min_ns, h.max_ns, h.sum_ns) == (value, value, value)  # exact even when clamped


@pytest.mark.parametrize("row", _load("reject"), ids=_ids(_load("reject"), 0, 1))
def test_reject_vector(row):
    value, count, fragment = int(row[0]), int(row[1]), row[2]
    h = LatencyHistogram()
    with pytest.raises(HistogramError, match=fragment):
        h.record(value, count)
    with pytest.raises(HistogramError, match=fragment):
        h.record_many([value], [count])
    if count == 1:
        with pytest.raises(HistogramError, match=fragment):
            h.record_many([7, value])
    assert h == LatencyHistogram()  # nothing half-recorded


@pytest.mark.parametrize("row", HISTS, ids=_ids(HISTS, 0))
def test_hist_vector(row):
    name, recipe, indexes, counts, count, sum_ns, min_ns, max_ns, overflow, hexa = row
    h = BUILT[name]
    assert h.to_sparse() == (_ints(indexes), _ints(counts))
    assert (h.count, h.sum_ns, h.min_ns, h.max_ns, h.overflow_count) == tuple(
        map(int, (count, sum_ns, min_ns, max_ns, overflow)))
    assert h.to_bytes().hex() == hexa
    assert LatencyHistogram.from_bytes(bytes.fromhex(hexa)) == h
    rebuilt = LatencyHistogram.from_sparse(_ints(indexes), _ints(counts), sum_ns=int(sum_ns), min_ns=int(min_ns),
                                           max_ns=int(max_ns), overflow_count=int(overflow))
    assert rebuilt == h and rebuilt.to_bytes().hex() == hexa
    if recipe.startswith("record:"):  # the bulk paths agree with record()
        items = [item.partition("*") for item in filter(None, recipe[7:].split(","))]
        values = [int(v) for v, _, _ in items]
        weights = [int(c) if c else 1 for _, _, c in items]
        bulk = LatencyHistogram()
        bulk.record_many(values, weights)
        assert bulk == h
        if all(w == 1 for w in weights):
            plain = LatencyHistogram()
            plain.record_many(values)
            assert plain == h


@pytest.mark.parametrize("row", QUANTILES, ids=_ids(QUANTILES, 0, 1))
def test_quantile_vector(row):
    name, q, value, n, too_few, need = row
    expected = QuantileResult(float(q), int(value), int(n), too_few == "1", int(need))
    assert BUILT[name].quantile(float(q)) == expected
    # Read-only: asking again after a merge of an empty histogram changes nothing.
    assert BUILT[name].copy().merge(LatencyHistogram()).quantile(float(q)) == expected


def test_quantiles_batch_matches_single_levels():
    for name, h in BUILT.items():
        rows = [r for r in QUANTILES if r[0] == name]
        levels = [float(r[1]) for r in rows]
        assert h.quantiles(reversed(levels)) == [h.quantile(q) for q in reversed(levels)]


@pytest.mark.parametrize("row", _load("required_n"), ids=_ids(_load("required_n"), 0))
def test_required_n_vector(row):
    assert required_n(float(row[0])) == int(row[1])


@pytest.mark.parametrize("row", _load("bad_q"), ids=_ids(_load("bad_q"), 0))
def test_bad_q_vector(row):
    with pytest.raises(HistogramError, match="not in"):
        BUILT["single"].quantile(float(row[0]))


@pytest.mark.parametrize("row", _load("bad_sparse"), ids=_ids(_load("bad_sparse"), 6))
def test_bad_sparse_vector(row):
    indexes, counts = _ints(row[0]), _ints(row[1])
    sum_ns, min_ns, max_ns, overflow = map(int, row[2:6])
    with pytest.raises(HistogramError, match=row[6]):
        LatencyHistogram.from_sparse(indexes, counts, sum_ns=sum_ns, min_ns=min_ns, max_ns=max_ns,
                                     overflow_count=overflow)


@pytest.mark.parametrize("row", _load("bad_bytes"), ids=_ids(_load("bad_bytes"), 0))
def test_bad_bytes_vector(row):
    with pytest.raises(HistogramError, match=row[1]):
        LatencyHistogram.from_bytes(bytes.fromhex(row[0]))


def test_golden_file_is_what_the_generator_writes():
    assert VECTORS.read_text(encoding="utf-8") == gen_histogram_vectors.render(), (
        "schema/histogram_vectors.tsv is stale or hand-edited: rerun python devtools/gen_histogram_vectors.py")


def test_generator_does_not_use_the_code_under_test():
    assert ioscale_imports(gen_histogram_vectors) == set()


# --- the scheme ------------------------------------------------------------------------------------------
def test_buckets_tile_the_range_without_gaps():
    assert BUCKET_COUNT == 4352 and MAX_INDEX < 65536  # ClickHouse stores the index as UInt16
    assert bucket_lower_ns(0) == 0 and bucket_upper_ns(MAX_INDEX) == MAX_TRACKABLE_NS + 1
    for i in range(BUCKET_COUNT):
        lower, upper, rep = bucket_lower_ns(i), bucket_upper_ns(i), bucket_representative_ns(i)
        assert bucket_index(lower) == i and bucket_index(upper - 1) == i
        assert lower <= rep < upper
        assert (upper - lower) & (upper - lower - 1) == 0  # power of two widths
        if i < MAX_INDEX:
            assert bucket_lower_ns(i + 1) == upper
        # worst case of the bound: the value at the lower edge
        assert abs(rep - lower) * 256 <= lower or lower == 0


def test_formula_matches_the_hdrhistogram_form_of_the_issue():
    rng = random.Random(7)
    for v in [*range(128, 70_000), *(rng.randrange(128, MAX_TRACKABLE_NS) for _ in range(50_000))]:
        e = math.frexp(v)[1] - 1 - 7  # floor(log2(v)) - 7, exact: v < 2^53 is exact in binary64
        assert bucket_index(v) == (e + 1) * 128 + (v >> e) - 128


def test_relative_error_of_random_values_within_1_in_256():
    rng = random.Random(20240611)
    lo, hi = math.log(100), math.log(60e9)
    worst = 0.0
    for _ in range(200_000):
        v = int(math.exp(rng.uniform(lo, hi)))
        rep = bucket_representative_ns(bucket_index(v))
        worst = max(worst, abs(rep - v) / v)
    assert worst <= 1 / 256
    assert worst > 0.99 / 256  # the bound is tight, not loose
    for v in range(256):
        assert bucket_representative_ns(bucket_index(v)) == v


def test_negative_and_non_int_values_are_rejected_and_leave_no_trace():
    h = LatencyHistogram()
    h.record(1000)
    before = h.to_bytes()
    for bad in (-1, -300, -(1 << 45)):
        with pytest.raises(HistogramError, match="negative value"):
            h.record(bad)
    for bad in (1.5, 300.0, "7", None):
        with pytest.raises(TypeError):
            h.record(bad)
    with pytest.raises(TypeError):
        h.record_many([5, 6, 7.5])
    with pytest.raises(HistogramError, match="count must be an int"):
        h.record(5, 1.0)
    with pytest.raises(HistogramError, match="exceeds"):
        h.record(1 << 63)
    with pytest.raises(HistogramError, match="exceeds"):
        h.record_many([1, 1 << 63])
    assert h.to_bytes() == before


def test_overflow_clamps_into_last_bucket_and_keeps_exact_max():
    h = LatencyHistogram()
    h.record_many([MAX_TRACKABLE_NS, MAX_TRACKABLE_NS + 1, 3 * 10**12])
    h.record(4 * 10**12, 2)
    assert h.to_sparse() == ([MAX_INDEX], [5])
    assert h.overflow_count == 4 and h.max_ns == 4 * 10**12
    assert h.quantile(1.0).value_ns == 4 * 10**12


def test_sql_representative_expression_evaluates_to_the_midpoint():
    def to_uint(bits):
        def conv(x):
            assert 0 <= x < (1 << bits), f"toUInt{bits}({x}) would wrap"
            return x
        return conv

    # Python stand-ins with ClickHouse's integer semantics for these non-negative arguments.
    namespace = {"__builtins__": {}, "intDiv": operator.floordiv, "modulo": operator.mod, "least": min,
                 "greatest": max, "bitShiftLeft": operator.lshift, "toUInt8": to_uint(8), "toUInt64": to_uint(64)}
    expr = sql_representative_expr("bucket_index")
    for i in range(BUCKET_COUNT):
        assert eval(expr, {**namespace, "bucket_index": i}) == bucket_representative_ns(i)  # noqa: S307
    query, (total, weighted) = sql_representative_check()
    assert expr in query and total == sum(map(bucket_representative_ns, range(BUCKET_COUNT)))
    assert weighted > total


# --- merging ---------------------------------------------------------------------------------------------
def _random_values(rng: random.Random, n: int) -> list[int]:
    return [int(rng.lognormvariate(math.log(200_000), 1.2)) for _ in range(n)]


def _of(values: list[int]) -> LatencyHistogram:
    h = LatencyHistogram()
    h.record_many(values)
    return h


@pytest.mark.parametrize("seed", range(8))
def test_merge_equals_histogram_of_concatenation(seed):
    rng = random.Random(seed)
    parts = [_random_values(rng, rng.randrange(0, 3000)) for _ in range(4)]
    if seed % 2:
        parts[1] += [0, 5, MAX_TRACKABLE_NS + 7]  # exact buckets and overflow merge too
    whole = _of([v for p in parts for v in p])
    left = _of(parts[0]).merge(_of(parts[1])).merge(_of(parts[2]).merge(_of(parts[3])))
    right = _of(parts[3]).merge(_of(parts[2])).merge(_of(parts[1])).merge(_of(parts[0]))
    assert left == whole == right
    assert left.to_bytes() == whole.to_bytes()
    # and through the wire forms
    wire = LatencyHistogram()
    for p in parts:
        wire.merge(LatencyHistogram.from_bytes(_of(p).to_bytes()))
    assert wire == whole


def test_merge_with_itself_doubles_and_empty_is_neutral():
    h = _of(_random_values(random.Random(3), 500))
    doubled = h.copy()
    doubled.merge(doubled)
    idx, cnt = h.to_sparse()
    assert doubled.to_sparse() == (idx, [2 * c for c in cnt])
    assert doubled.count == 2 * h.count and doubled.sum_ns == 2 * h.sum_ns
    assert LatencyHistogram().merge(h) == h == h.copy().merge(LatencyHistogram())


def test_record_paths_agree():
    rng = random.Random(11)
    values = _random_values(rng, 5000) + [0, 1, 255, 256, MAX_TRACKABLE_NS, MAX_TRACKABLE_NS + 1]
    one_by_one = LatencyHistogram()
    for v in values:
        one_by_one.record(v)
    weighted = LatencyHistogram()
    weighted.record_many(values[::2], [2] * len(values[::2]))
    weighted.record_many(values[1::2], [0] * len(values[1::2]))  # zero counts: no-op, min/max untouched
    doubled = LatencyHistogram()
    for v in values[::2]:
        doubled.record(v, 2)
    assert _of(values) == one_by_one
    assert weighted == doubled
    assert _of(iter(values)) == one_by_one  # any iterable


def test_from_sparse_accepts_zero_counts_and_round_trips():
    h = LatencyHistogram.from_sparse([10, 20, 30], [0, 4, 0], sum_ns=80, min_ns=20, max_ns=20)
    assert h.to_sparse() == ([20], [4]) and h.count == 4
    h.record(5)  # the tracked range widens below a from_sparse bucket
    assert h.to_sparse() == ([5, 20], [1, 4])
    # min/max may sit in neighbouring buckets (converted sources); quantiles still clamp to them
    g = LatencyHistogram.from_sparse([506], [30], sum_ns=30_000, min_ns=990, max_ns=1010)
    assert g.quantile(0.5).value_ns == 1002
    g.record(991)  # >= min_ns, so no new min: must still land inside the tracked range
    assert g.to_sparse() == ([503, 506], [1, 30])


# --- quantiles against exact oracles ---------------------------------------------------------------------
def _exact_quantile(pairs: list[tuple[int, int]], cumulative: list[int], q: float) -> int:
    """The same definition over raw values: smallest value whose cumulative count >= ceil(q * n)."""
    n = cumulative[-1]
    if q == 0.0:
        return pairs[0][0]
    if q == 1.0:
        return pairs[-1][0]
    rank = min(max(math.ceil(q * n), 1), n)
    return pairs[bisect.bisect_left(cumulative, rank)][0]


def test_quantiles_of_heavy_tailed_lognormal_within_bound_up_to_five_nines():
    rng = random.Random(99)
    values, counts = [], []
    for _ in range(150_000):
        if rng.random() < 0.002:
            v = int(rng.uniform(5e6, 20e6))                      # rare 5-20 ms stalls
        elif rng.random() < 0.01:
            v = int(200_000 * rng.paretovariate(1.3))            # heavy tail
        else:
            v = int(rng.lognormvariate(math.log(180_000), 0.5))  # ~180 us body
        values.append(v)
        counts.append(rng.randrange(1, 13))
    counts[0] += max(0, 1_000_000 - sum(counts))
    h = LatencyHistogram()
    h.record_many(values, counts)
    assert h.count >= 1_000_000

    merged: dict[int, int] = {}
    for v, c in zip(values, counts):
        merged[v] = merged.get(v, 0) + c
    pairs = sorted(merged.items())
    cumulative = list(itertools.accumulate(c for _, c in pairs))

    for result in h.quantiles(LEVELS):
        exact = _exact_quantile(pairs, cumulative, result.q)
        assert not result.too_few_samples
        assert abs(result.value_ns - exact) <= exact / 256, (result, exact)
        # stronger: the reported value is the clamped representative of the exact quantile's bucket
        expected = min(max(bucket_representative_ns(bucket_index(exact)), h.min_ns), h.max_ns)
        assert result.value_ns == expected


def test_averaging_per_source_percentiles_is_wrong_merging_is_right():
    """FIELD-NOTES: 50 VMs, every tenth 2.5x slower, rare stalls; VMFleet-style averaging vs merging."""
    rng = random.Random(5)
    sources = []
    for vm in range(50):
        scale = 2.5 if vm % 10 == 0 else 1.0
        vals = []
        for _ in range(10_000):
            v = rng.lognormvariate(math.log(150_000 * scale), 0.45)
            if rng.random() < 0.0005:
                v = rng.uniform(5e6, 20e6)
            vals.append(int(v))
        sources.append(vals)
    pooled = sorted(v for s in sources for v in s)
    merged = LatencyHistogram()
    per_source = [_of(s) for s in sources]
    for h in per_source:
        merged.merge(h)
    for q, min_gap in ((0.99, 0.20), (0.999, 0.30)):  # measured: -27% and -37%
        exact = pooled[math.ceil(q * len(pooled)) - 1]
        averaged = sum(h.quantile(q).value_ns for h in per_source) / len(per_source)
        assert all(not h.quantile(q).too_few_samples for h in per_source)
        assert abs(averaged - exact) / exact > min_gap, (q, averaged, exact)   # averaging misleads
        assert abs(merged.quantile(q).value_ns - exact) <= exact / 256          # merging does not


def test_too_few_samples_reports_the_max():
    h = _of(list(range(1000, 1000 + 99_999)))
    r = h.quantile(0.9999)
    assert r.too_few_samples and r.value_ns == h.max_ns and r.required_n == 100_000 and r.n == 99_999
    h.record(500)
    assert not h.quantile(0.9999).too_few_samples
    assert LatencyHistogram().quantile(0.5) == QuantileResult(0.5, 0, 0, True, 20)


def test_binary_encoding_round_trips_random_histograms():
    rng = random.Random(17)
    for _ in range(20):
        h = _of(_random_values(rng, rng.randrange(0, 2000)))
        data = h.to_bytes()
        assert data[0] == hm.ENCODING_VERSION
        assert LatencyHistogram.from_bytes(data) == h
    assert LatencyHistogram().to_bytes() == bytes.fromhex("01010000000000")
