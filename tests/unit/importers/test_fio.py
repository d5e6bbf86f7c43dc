"""fio JSON importer: fio 2.1.4 / 2.17 / 3.26 real outputs and hand-made json+ files."""

import json

from ioscale.histogram import LatencyHistogram
from ioscale.importers.fio_bins import plat_idx_to_val, plat_val_to_idx

F214 = "pkb_fio-2.1.4_sample.json"
F217 = "pkb_fio-2.17_hist_run.json"
F326 = "vc_fio-3.26_windowsaio_randwrite.json"


def test_fio_214_usec_layout_kib_bytes_and_duplicate_keys(kit):
    r = kit.run("fio", kit.fixture(F214))
    assert kit.errors_of(r) == []
    assert any("no timestamp" in w for w in kit.errors_of(r, "warning"))
    kit.assert_schema_valid(r)
    by_job = {s["tags"]["fio_job"]: s for s in r.io_samples}
    assert set(by_job) == {"sequential_write", "sequential_read", "random_write_test", "random_read_test",
                           "random_read_test_parallel"}
    sw = by_job["sequential_write"]
    assert sw["direction"] == "WRITE" and sw["interval_ms"] == 5314
    assert sw["bytes"] == 361984 * 1024          # fio 2.x io_bytes is KiB
    assert sw["ops"] == 707                      # 361984 KiB / 512 KiB (bw / iops)
    assert sw["tags"]["ops_basis"] == "io_bytes_div_block_size"
    assert by_job["random_read_test"]["ops"] == 36244 // 4 == 9061
    # clat in usec -> ns; min/max/mean exact from the file
    assert (sw["latency_min_ns"], sw["latency_max_ns"]) == (189_263_000, 869_891_000)
    assert sw["latency_sum_ns"] == round(477734.84 * 1000 * 707)
    # 20-slot percentile map with three "0.00" padding keys: 17 real levels kept, padding dropped
    assert len(sw["percentile_q"]) == 19 and 0.0 not in sw["percentile_q"]
    q = dict(zip(sw["percentile_q"], sw["percentile_ns"]))
    assert q[0.5] == 444_416_000 and q[0.9999] == 872_448_000 and q[0.25] == 440_380_000
    # QD 64 sequential: Little's law from lat mean
    assert 60 < sw["outstanding_ios"] < 66
    steps = [e for e in r.run_events if e["event_type"] == "STEP_STARTED"]
    assert [e["step_index"] for e in steps] == [0, 1, 2, 3, 4]   # one stonewall group each
    assert steps[0]["load"]["block_size_bytes"] == 512 * 1024 and steps[2]["load"]["block_size_bytes"] == 4096
    assert steps[0]["load"]["read_pct"] == 0.0 and steps[1]["load"]["read_pct"] == 100.0
    assert steps[0]["load"]["config_labels"]["random_pct_unknown"] == "true"
    # groups laid end to end from the anchor
    assert [s["ts_ms"] for s in r.io_samples] == [0, 5314, 5314 + 2788, 5314 + 2788 + 5625,
                                                  5314 + 2788 + 5625 + 28540]


def test_fio_217_total_ios_and_group_times(kit):
    r = kit.run("fio", kit.fixture(F217))
    kit.assert_clean(r, allow_warnings=False)
    read, write = r.io_samples
    assert (read["direction"], read["ops"], read["bytes"]) == ("READ", 80891, 1294256 * 1024)
    assert (write["direction"], write["ops"], write["bytes"]) == ("WRITE", 24580, 393280 * 1024)
    assert read["target"] == "/dev/disk/by-id/google-pkb-7fb0c9d8-0-data-0-0"   # repeated 'filename' key
    assert dict(zip(read["percentile_q"], read["percentile_ns"]))[0.9999] == 5_408_000
    assert read["latency_count"] == 80891 and read["latency_max_ns"] == 12_176_000
    # two jobs x QD 1 (group_reporting): ~2 I/Os in flight
    assert 1.9 < read["outstanding_ios"] < 2.1
    # ended at timestamp_ms; 21 s elapsed; the write group follows the read group
    assert read["ts_ms"] == 1506559552257 - 21000 and write["ts_ms"] == read["ts_ms"] + 10003
    assert read["tags"]["time_basis"] == "estimated"
    loads = [e["load"] for e in r.run_events if e["event_type"] == "STEP_STARTED"]
    assert [(l["block_size_bytes"], l["workers_per_target"], l["outstanding_ios_per_target"], l["read_pct"],
             l["random_pct"], l["adapter"]) for l in loads] == [(16384, 2, 1, 100.0, 100.0, "libaio"),
                                                                (16384, 2, 1, 0.0, 100.0, "libaio")]


def test_fio_326_nanosecond_layout_with_bimodal_tail(kit):
    r = kit.run("fio", kit.fixture(F326))
    kit.assert_clean(r)
    (s,) = r.io_samples
    assert (s["direction"], s["ops"], s["bytes"], s["interval_ms"]) == ("WRITE", 262144, 1 << 30, 120958)
    assert "bytes_basis" not in s["tags"]        # io_kbytes present: io_bytes is bytes
    assert (s["latency_count"], s["latency_min_ns"], s["latency_max_ns"]) == (262144, 1200, 4_090_273_600)
    q = dict(zip(s["percentile_q"], s["percentile_ns"]))
    assert len(q) == 17 and q[0.99] == 264_192 and q[0.995] == 19_267_584 and q[0.9999] == 54_788_096
    assert s["ts_ms"] == 1618699271417 - 122_000
    assert s["target"] == "fio_randwrite_1GB_4k_d1_th1_direct"   # no filename option: the job name
    load = r.run_events[1]["load"]
    assert (load["block_size_bytes"], load["read_pct"], load["adapter"]) == (4096, 0.0, "windowsaio")


def test_jsonplus_bins_become_a_histogram(kit):
    path = kit.DATA / "fio-3.36_jsonplus_2groups.json"
    doc = json.loads(path.read_text())
    r = kit.run("fio", path)
    kit.assert_clean(r, allow_warnings=False)
    # two clones of one job without group_reporting: same file, told apart by '#1'
    g0 = kit.samples(r, step_index=0, direction="READ")
    assert [s["target"] for s in g0] == ["/dev/nvme0n1", "/dev/nvme0n1#1"]
    job = doc["jobs"][0]["read"]["clat_ns"]
    s = g0[0]
    hist = LatencyHistogram.from_sparse(s["latency_bucket_index"], s["latency_bucket_count"],
                                        sum_ns=s["latency_sum_ns"], min_ns=s["latency_min_ns"],
                                        max_ns=s["latency_max_ns"])
    assert hist.count == job["N"] == sum(job["bins"].values()) == 7000
    # each fio bin lands in the ioscale bucket of fio's own representative value
    expected = LatencyHistogram()
    for k, v in job["bins"].items():
        expected.record(int(k), v)
    assert expected.to_sparse() == (s["latency_bucket_index"], s["latency_bucket_count"])
    # quantiles from the imported histogram agree with fio's percentiles to fio's bucket resolution
    compared = 0
    for key, fio_ns in job["percentile"].items():
        res = hist.quantile(float(key) / 100)
        if res.too_few_samples:     # ioscale reports the max instead of a tail it cannot estimate
            assert res.value_ns == s["latency_max_ns"]
            continue
        assert abs(res.value_ns - fio_ns) <= fio_ns / 64 + 1, (key, res.value_ns, fio_ns)
        compared += 1
    assert compared >= 13
    # job_start given: times are the file's
    assert g0[0]["ts_ms"] == 1_712_000_000_000 and g0[0]["tags"]["time_basis"] == "file"
    (seq,) = kit.samples(r, step_index=1)
    assert seq["ts_ms"] == 1_712_000_020_500 and seq["bytes"] == 20000 * 131072
    loads = [e["load"] for e in r.run_events if e["event_type"] == "STEP_STARTED"]
    assert (loads[0]["read_pct"], loads[0]["workers_per_target"], loads[0]["adapter"]) == (70.0, 2, "io_uring")


def test_jsonplus_fio2_usec_bins(kit):
    path = kit.DATA / "fio-2.21_jsonplus_usec.json"
    doc = json.loads(path.read_text())
    r = kit.run("fio", path)
    assert kit.errors_of(r) == []
    (s,) = r.io_samples
    w = doc["jobs"][0]["write"]
    assert s["bytes"] == w["io_bytes"] * 1024 and s["ops"] == w["total_ios"] == 5000
    assert sum(s["latency_bucket_count"]) == 5000
    expected = LatencyHistogram()
    for k, v in w["clat"]["bins"].items():
        assert plat_idx_to_val(plat_val_to_idx(int(k), 1216)) == int(k)   # keys are fio bucket values (us)
        expected.record(int(k) * 1000, v)
    assert expected.to_sparse() == (s["latency_bucket_index"], s["latency_bucket_count"])


# --- bad input -------------------------------------------------------------------------------------------


def test_truncated_json_keeps_complete_jobs(kit):
    text = kit.fixture(F214).read_text()
    cut = text.index('"jobname" : "random_read_test"')
    r = kit.run_bytes("fio", ("cut.json", text[:cut].encode()))
    assert any("malformed or truncated JSON" in e for e in kit.errors_of(r))
    assert [s["tags"]["fio_job"] for s in r.io_samples] == ["sequential_write", "sequential_read",
                                                            "random_write_test"]


def test_negative_and_nan_values(kit):
    doc = json.loads(kit.fixture(F326).read_text())
    doc["jobs"][0]["write"]["clat_ns"]["mean"] = float("nan")
    doc["jobs"][0]["write"]["clat_ns"]["percentile"]["50.000000"] = -3
    r = kit.run_bytes("fio", ("bad.json", json.dumps(doc).encode()))
    errs = kit.errors_of(r)
    assert any("jobs[0].write.clat_ns.mean" in e and "not a finite number" in e for e in errs)
    assert any("percentile[50.000000]" in e and "below 0" in e for e in errs)
    (s,) = r.io_samples                      # ops and bytes survive, latency stats are dropped
    assert s["ops"] == 262144 and s["latency_count"] == 0 and 0.5 not in s["percentile_q"]
    assert len(s["percentile_q"]) == 16
    doc["jobs"][0]["write"]["total_ios"] = -1
    r = kit.run_bytes("fio", ("bad.json", json.dumps(doc).encode()))
    assert any("total_ios" in e and "negative count: -1" in e for e in kit.errors_of(r))
    assert r.io_samples == []


def test_unknown_version_and_future_timestamp(kit):
    text = kit.fixture(F326).read_text().replace('"fio-3.26"', '"fio-9.0"').replace(
        "1618699271417", "4102444800000")
    r = kit.run_bytes("fio", ("v9.json", text.encode()))
    errs = kit.errors_of(r)
    assert any("unknown fio version 'fio-9.0'" in e for e in errs)
    assert any("[timestamp_ms]" in e and "in the future" in e for e in errs)
    assert len(r.io_samples) == 1 and r.io_samples[0]["tags"]["time_basis"] == "anchor"


def test_notes_before_the_json_are_skipped(kit):
    data = b"note: both iodepth >= 1 and synchronous I/O engine are selected\n" + kit.fixture(F217).read_bytes()
    r = kit.run_bytes("fio", ("noisy.json", data))
    assert kit.errors_of(r) == [] and len(r.io_samples) == 2
