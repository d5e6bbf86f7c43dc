"""fio histogram-log importer, checked against PKB's expected parse of the same logs."""

import json
from collections import Counter

from ioscale.histogram import LatencyHistogram
from ioscale.importers.fio_bins import bucket_bounds, plat_idx_to_val

LOG1 = "pkb_fio-2.17_clat_hist.1.log"
LOG2 = "pkb_fio-2.17_clat_hist.2.log"
JSON = "pkb_fio-2.17_hist_run.json"
EXPECTED = "pkb_fio-2.17_hist_expected_read.json"


def _pkb_value_ms(i: int) -> float:
    """PKB's key for fio bucket i (see test_fio_bins): mean of i's lower and i+1's upper edge, in ms."""
    lo, _ = bucket_bounds(i)
    hi_next = i + 1 if i + 1 < 128 else bucket_bounds(i + 1)[1]
    return (lo + hi_next) / 2 / 1000


def _bins_by_index(path) -> Counter:
    """Per fio bucket index, the counts of all read lines of a log (read straight from the file)."""
    total: Counter = Counter()
    for line in path.read_text().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if parts[1] == "0":
            total.update({i: int(c) for i, c in enumerate(parts[3:]) if int(c)})
    return total


def test_matches_pkb_expected_read_histogram(kit):
    logs = [kit.fixture(LOG1), kit.fixture(LOG2)]
    expected = json.loads(kit.fixture(EXPECTED).read_text())
    r = kit.run("fio-hist", *logs, kit.fixture(JSON))
    kit.assert_clean(r, allow_warnings=False)
    assert len(r.io_samples) == 9 + 10 and {s["direction"] for s in r.io_samples} == {"READ"}
    assert sum(s["ops"] for s in r.io_samples) == sum(expected.values()) == 80124

    # The merged per-bucket counts equal PKB's, bucket for bucket (PKB keys a bucket by its own value).
    by_index = _bins_by_index(logs[0]) + _bins_by_index(logs[1])
    pkb_keyed = {}
    for i, c in by_index.items():
        key = f"{_pkb_value_ms(i):.10g}"
        pkb_keyed[key] = pkb_keyed.get(key, 0) + c
    assert pkb_keyed == {f"{float(k):.10g}": v for k, v in expected.items()}

    # The imported histograms merge (by adding) into exactly those buckets at fio's own values.
    merged = LatencyHistogram()
    for s in r.io_samples:
        merged.merge(LatencyHistogram.from_sparse(s["latency_bucket_index"], s["latency_bucket_count"],
                                                  sum_ns=s["latency_sum_ns"], min_ns=s["latency_min_ns"],
                                                  max_ns=s["latency_max_ns"]))
    want = LatencyHistogram()
    for i, c in by_index.items():
        want.record(plat_idx_to_val(i) * 1000, c)   # fio 2.x bins count microseconds
    assert merged.to_sparse() == want.to_sparse()
    assert merged.count == 80124 and merged.max_ns == plat_idx_to_val(max(by_index)) * 1000


def test_intervals_targets_and_anchor_from_the_json(kit):
    r = kit.run("fio-hist", kit.fixture(LOG1), kit.fixture(LOG2), kit.fixture(JSON))
    first = [s for s in r.io_samples if s["tags"]["fio_log_index"] == "1"]
    second = [s for s in r.io_samples if s["tags"]["fio_log_index"] == "2"]
    assert [s["ops"] for s in first] == [8325, 7665, 7672, 7640, 5290, 768, 768, 765, 770]
    assert [s["interval_ms"] for s in first] == [1001, 1000, 1000, 1000, 1000, 1000, 1001, 999, 1000]
    run_start = 1506559552257 - 21000             # fio JSON timestamp_ms minus elapsed
    assert first[0]["ts_ms"] == run_start and first[1]["ts_ms"] == run_start + 1001
    target = "/dev/disk/by-id/google-pkb-7fb0c9d8-0-data-0-0"
    assert {s["target"] for s in first} == {target} and {s["target"] for s in second} == {target + "#1"}
    assert all(s["bytes"] == s["ops"] * 16384 and s["latency_count"] == s["ops"] for s in r.io_samples)
    # QD 1 per job: Little's law from the histogram mean stays just under one I/O in flight
    assert all(0.85 < s["outstanding_ios"] < 1.01 for s in r.io_samples)
    # the logs miss the last partial interval: 80124 logged of the JSON's 80891 reads
    assert sum(s["ops"] for s in r.io_samples) == 80124
    (step,) = [e for e in r.run_events if e["event_type"] == "STEP_STARTED"]
    assert step["load"]["workers_per_target"] == 2 and step["load"]["block_size_bytes"] == 16384


def test_without_json_times_are_anchored_with_a_warning(kit):
    r = kit.run("fio-hist", kit.fixture(LOG1), start_ms=1_700_000_000_000)
    assert kit.errors_of(r) == []
    assert any("anchored at the given start time" in w for w in kit.errors_of(r, "warning"))
    assert r.io_samples[0]["ts_ms"] == 1_700_000_000_000 and r.io_samples[0]["target"] == "job1"


def test_coarse_log_keeps_every_io(kit):
    """log_hist_coarseness=2 sums 4 neighbouring buckets: 304 bins per line, same I/O count."""
    lines = []
    for line in kit.fixture(LOG1).read_text().splitlines():
        p = [x.strip() for x in line.split(",")]
        bins = [int(x) for x in p[3:]]
        coarse = [sum(bins[j:j + 4]) for j in range(0, len(bins), 4)]
        lines.append(", ".join(p[:3] + [str(c) for c in coarse]))
    r = kit.run_bytes("fio-hist", ("x_clat_hist.1.log", "\n".join(lines).encode()))
    assert kit.errors_of(r) == []
    assert [s["ops"] for s in r.io_samples] == [8325, 7665, 7672, 7640, 5290, 768, 768, 765, 770]
    assert all(s["tags"]["fio_hist_coarseness"] == "2" for s in r.io_samples)


def test_epoch_stamped_log(kit):
    text = "\n".join(f"{1_700_000_000_000 + 1000 * k}, 1, 4096, " + ", ".join(
        ["0"] * 10 + [str(k + 1)] + ["0"] * (1856 - 11)) for k in range(3))
    r = kit.run_bytes("fio-hist", ("e_clat_hist.3.log", text.encode()))
    assert kit.errors_of(r) == []
    assert [(s["ts_ms"], s["interval_ms"], s["ops"], s["direction"]) for s in r.io_samples] == [
        (1_699_999_999_000, 1000, 1, "WRITE"), (1_700_000_000_000, 1000, 2, "WRITE"),
        (1_700_000_001_000, 1000, 3, "WRITE")]
    assert r.io_samples[0]["latency_max_ns"] == 10   # fio >= 3: nanosecond bins, bucket 10 = 10 ns


def test_bad_lines_are_reported_and_skipped(kit):
    lines = kit.fixture(LOG1).read_text().splitlines()
    lines[2] = lines[2].replace(", 0, 0,", ", -4, 0,", 1)
    lines[4] = lines[4][: len(lines[4]) // 2]           # truncated line
    lines[6] = lines[6].replace("7002,", "NaN,", 1)
    r = kit.run_bytes("fio-hist", ("bad_clat_hist.1.log", "\n".join(lines).encode()))
    errs = kit.errors_of(r)
    assert len(errs) == 3
    assert any(":3" in e and "not a non-negative 64-bit integer: '-4'" in e for e in errs)
    assert any(":5" in e and "expected 1216" in e for e in errs)
    assert any(":7" in e and "unreadable time" in e for e in errs)
    assert [s["ops"] for s in r.io_samples] == [8325, 7665, 7640, 768, 765, 770]
    # a line whose bins are bad still closes its interval; one whose time is unreadable cannot
    assert [s["interval_ms"] for s in r.io_samples] == [1001, 1000, 1000, 1000, 2000, 1000]


def test_unknown_layout(kit):
    r = kit.run_bytes("fio-hist", ("odd_clat_hist.1.log", b"1000, 0, 4096, 1, 2, 3\n"))
    (err,) = kit.errors_of(r)
    assert "unknown histogram layout: 3 bins" in err and r.io_samples == []
