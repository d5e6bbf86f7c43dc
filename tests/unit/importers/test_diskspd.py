"""DISKSPD importer: real outputs from tests/fixtures/real and hand-made inputs from data/."""

import re
from decimal import Decimal

import pytest

XML_NOLAT = "pkb_diskspd_result_nolatency.xml"
TEXT_7030 = "diskspd_text_readwrite_70_30_vc.txt"
TEXT_22 = "diskspd_text_v2.2_multinuma_writeonly_vc.txt"


def test_xml_without_latency_sums_the_four_threads(kit):
    r = kit.run("diskspd", kit.fixture(XML_NOLAT))
    kit.assert_clean(r, allow_warnings=False)
    (s,) = r.io_samples   # 100% read: no WRITE sample
    assert s["direction"] == "READ" and s["target"] == "C:\\scratch\\testfile.dat"
    assert s["ops"] == 22645 + 22623 + 22548 + 23154 == 90970
    assert s["bytes"] == 1484062720 + 1482620928 + 1477705728 + 1517420544
    assert s["host"] == "pkb-044ffc87-0" and s["vm"] == ""
    # RunTime 2018/10/18 21:39:04 UTC + 5 s warm-up; TestTimeSeconds 30.02
    assert s["ts_ms"] == 1539898744000 + 5000 and s["interval_ms"] == 30020
    # MeasureLatency=false: no latency at all, not zeros pretending to be measurements
    assert (s["latency_count"], s["percentile_q"], s["outstanding_ios"]) == (0, [], 0.0)
    assert s["tags"]["threads"] == "4" and s["tags"]["diskspd_version"] == "2.0.21a"
    cpus = {c["cpu"]: c for c in r.cpu_samples}
    assert sorted(cpus) == [-1, 0, 1, 2, 3]
    assert (cpus[3]["utilization_pct"], cpus[3]["user_pct"], cpus[3]["privileged_pct"]) == (7.03, 0.42, 6.61)
    assert cpus[-1]["utilization_pct"] == 3.20 and cpus[-1]["logical_processors"] == 4
    assert all(c["scope"] == "HOST" for c in r.cpu_samples)
    kinds = [e["event_type"] for e in r.run_events]
    assert kinds == ["RUN_STARTED", "STEP_STARTED", "STEP_ENDED", "RUN_ENDED"]
    load = r.run_events[1]["load"]
    assert (load["block_size_bytes"], load["outstanding_ios_per_target"], load["workers_per_target"],
            load["read_pct"], load["random_pct"]) == (65536, 2, 4, 100.0, 0.0)
    assert r.run_events[0]["hosts"][0]["logical_processors"] == 4
    assert r.run_events[-1]["start_ms"] == s["ts_ms"] and r.run_events[-1]["end_ms"] == s["ts_ms"] + 30020


def test_text_70_30_keeps_the_percentile_table_per_direction(kit):
    r = kit.run("diskspd", kit.fixture(TEXT_7030))
    kit.assert_clean(r, allow_warnings=False)
    read = kit.samples(r, direction="READ")[0]
    write = kit.samples(r, direction="WRITE")[0]
    assert (read["ops"], read["bytes"]) == (25060, 102645760)
    assert (write["ops"], write["bytes"]) == (10626, 43524096)
    assert read["target"] == "diskspd.dat" and read["tags"]["file_size_bytes"] == str(1024 << 20)
    assert read["interval_ms"] == 30010
    # start time 2021/04/16 19:03:38 UTC + 15 s warm-up
    assert read["ts_ms"] == 1618599818000 + 15000
    q = dict(zip(read["percentile_q"], read["percentile_ns"]))
    assert q[0.5] == 232_000 and q[0.99] == 877_000 and q[0.999] == 1_608_000 and q[0.9999] == 4_753_000
    assert q[0.99999] == q[0.999999999] == 7_990_000 == read["latency_max_ns"]  # N=25060: tail = max
    assert read["latency_min_ns"] == 36_000
    assert read["percentile_q"] == [0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 0.9999, 0.99999, 0.999999,
                                    0.9999999, 0.99999999, 0.999999999]
    wq = dict(zip(write["percentile_q"], write["percentile_ns"]))
    assert wq[0.5] == 1_833_000 and write["latency_max_ns"] == 35_257_000 and write["latency_min_ns"] == 1_209_000
    assert read["tags"]["percentile_sample_count"] == "25060"
    # AvgLat 0.272 ms x 25060 reads; Little's law with QD 1 and 70/30: read + write in flight ~ 1
    assert read["latency_count"] == 25060 and read["latency_sum_ns"] == 272_000 * 25060
    assert write["latency_sum_ns"] == 2_179_000 * 10626
    assert 0.95 < read["outstanding_ios"] + write["outstanding_ios"] < 1.05
    cpus = sorted(r.cpu_samples, key=lambda c: c["cpu"])
    assert [c["utilization_pct"] for c in cpus] == [0.82, 3.02, 0.05, 0.05, 0.16]
    load = r.run_events[1]["load"]
    assert (load["read_pct"], load["random_pct"], load["block_size_bytes"], load["outstanding_ios_per_target"],
            load["workers_per_target"]) == (70.0, 100.0, 4096, 1, 1)


def test_text_v22_multinuma_write_only(kit):
    r = kit.run("diskspd", kit.fixture(TEXT_22))
    assert kit.errors_of(r) == []
    assert sorted(w.split(": ", 2)[-1] for w in kit.errors_of(r, "warning")) == [
        "CPU table lists 8 of 96 CPUs", "header says 4 threads but the I/O tables list 2"]
    kit.assert_schema_valid(r)
    (s,) = r.io_samples   # the Read column is N/A: no READ sample
    assert (s["direction"], s["ops"], s["bytes"]) == ("WRITE", 3065 + 3027, 12554240 + 12398592)
    assert s["tags"]["threads"] == "2"   # the header says 4 threads (-t4); the file lists two
    assert s["ts_ms"] == 1782495600000 + 2000 and s["interval_ms"] == 5000   # -W2 from the command line
    q = dict(zip(s["percentile_q"], s["percentile_ns"]))
    assert q[0.99] == 18_342_000 and q[0.999] == 44_981_000 and s["latency_max_ns"] == 53_872_000
    # Little's law: ~8 in flight = the 2 listed threads x -o4, not 4 x 4
    assert 7.5 < s["outstanding_ios"] < 8.5
    cpus = [c for c in r.cpu_samples if c["cpu"] >= 0]
    assert len(cpus) == 8
    assert cpus[4]["tags"]["cpu_node"] == "1" and cpus[4]["tags"]["cpu_group"] == "1"
    assert cpus[1]["utilization_pct"] == 4.08
    avg = [c for c in r.cpu_samples if c["cpu"] == -1][0]
    assert avg["utilization_pct"] == 0.72 and avg["logical_processors"] == 8
    load = r.run_events[1]["load"]
    assert (load["read_pct"], load["block_size_bytes"], load["outstanding_ios_per_target"],
            load["workers_per_target"], load["config_labels"]["load_source"]) == (0.0, 4096, 4, 4, "command_line")


def test_xml_two_targets_two_timespans(kit):
    path = kit.DATA / "diskspd_2.0_xml_latency_2targets_2timespans.xml"
    r = kit.run("diskspd", path)
    kit.assert_clean(r)
    xml = path.read_text()
    steps = [e for e in r.run_events if e["event_type"] == "STEP_STARTED"]
    assert [e["load"]["outstanding_ios_per_target"] for e in steps] == [8, 32]
    assert steps[0]["ts_ms"] == 1709294400000 + 10_000                       # RunTime + warm-up
    assert steps[1]["ts_ms"] == steps[0]["ts_ms"] + 60_010 + 5_000 + 10_000  # + test time, cool-down, warm-up
    assert all(s["tags"]["time_basis"] == ("file" if s["step_index"] == 0 else "estimated") for s in r.io_samples)
    # per target: the two threads summed
    for step in (0, 1):
        block = xml.split("<TimeSpan>\n    <TestTimeSeconds>")[1 + step]
        for path_ in ("D:\\test\\file1.dat", "E:\\test\\file2.dat"):
            reads = [int(m) for m in re.findall(
                r"<Path>" + re.escape(path_) + r"</Path>(?:(?!</Target>).)*?<ReadCount>(\d+)", block, re.S)]
            (s,) = kit.samples(r, step_index=step, target=path_, direction="READ")
            assert len(reads) == 2 and s["ops"] == sum(reads) and s["bytes"] == sum(reads) * 8192
            assert s["percentile_q"] == []        # the XML table covers both targets together
    # ... so it goes to the '*' aggregate, which counts nothing
    agg = kit.samples(r, step_index=0, target="*", direction="WRITE")[0]
    assert agg["ops"] == agg["bytes"] == agg["latency_count"] == 0
    assert agg["tags"]["aggregate"] == "all_targets"
    assert len(agg["percentile_q"]) == 99 + 7
    assert agg["percentile_q"][-1] == 0.999999999 and agg["percentile_q"][98] == 0.99
    first_block = xml.split("<Latency")[1]
    p999 = re.search(r"<Percentile>99.9</Percentile>\s*<ReadMilliseconds>[\d.]+</ReadMilliseconds>\s*"
                     r"<WriteMilliseconds>([\d.]+)</WriteMilliseconds>", first_block).group(1)
    assert dict(zip(agg["percentile_q"], agg["percentile_ns"]))[0.999] == int(Decimal(p999) * 1_000_000)
    assert agg["tags"]["percentile_sample_count"] == str(sum(
        s["ops"] for s in kit.samples(r, step_index=0, direction="WRITE")))


def test_text_with_per_target_percentile_tables(kit):
    path = kit.DATA / "diskspd_text_2targets_per_target_percentiles.txt"
    r = kit.run("diskspd", path)
    kit.assert_clean(r)
    text = path.read_text()
    a = kit.samples(r, target="D:\\a.dat", direction="READ")[0]
    b = kit.samples(r, target="E:\\b.dat", direction="WRITE")[0]
    assert (a["ops"], b["ops"]) == (1600, 300)
    # each target carries its own table, taken from the block under its path
    a_table = text.split("\nD:\\a.dat\n")[1]
    a_p50 = re.search(r"^\s*50th \|\s*([\d.]+)", a_table, re.M).group(1)
    assert dict(zip(a["percentile_q"], a["percentile_ns"]))[0.5] == int(Decimal(a_p50) * 1_000_000)
    b_table = text.split("\nE:\\b.dat\n")[1]
    b_max = re.search(r"^\s*max \|\s*[\d.]+ \|\s*([\d.]+)", b_table, re.M).group(1)
    assert b["latency_max_ns"] == int(Decimal(b_max) * 1_000_000)
    assert a["tags"]["percentile_sample_count"] == "1600"
    assert len(kit.samples(r, target="*")) == 2   # the 'total:' table over both targets


def test_two_concurrent_hosts_form_one_step_and_sequential_runs_two(kit):
    xml = kit.fixture(XML_NOLAT).read_bytes()
    other = xml.replace(b"pkb-044ffc87-0", b"second-host")
    later = xml.replace(b"2018/10/18 21:39:04", b"2018/10/18 22:39:04")
    r = kit.run_bytes("diskspd", ("a.xml", xml), ("b.xml", other), ("c.xml", later))
    assert kit.errors_of(r) == []
    steps = {(s["host"], s["ts_ms"]): s["step_index"] for s in r.io_samples}
    assert len(steps) == 3 and sorted(set(steps.values())) == [0, 1]
    starts = [e for e in r.run_events if e["event_type"] == "STEP_STARTED"]
    assert starts[0]["load"]["config_labels"]["instances"] == "2"


def test_run_id_is_derived_from_content(kit):
    a = kit.run("diskspd", kit.fixture(TEXT_7030))
    b = kit.run_bytes("diskspd", ("renamed.txt", kit.fixture(TEXT_7030).read_bytes()))
    assert a.run_id == b.run_id and a.run_id.startswith("diskspd-")
    assert {s["run_id"] for s in a.io_samples + a.cpu_samples + a.run_events} == {a.run_id}
    c = kit.run("diskspd", kit.fixture(TEXT_7030), run_id="given")
    assert {s["run_id"] for s in c.io_samples} == {"given"}


# --- bad input: clear issue, the rest kept -----------------------------------------------------------------


def test_negative_count_in_one_thread_keeps_the_others(kit):
    xml = kit.fixture(XML_NOLAT).read_text().replace("<ReadCount>22623</ReadCount>", "<ReadCount>-5</ReadCount>")
    r = kit.run_bytes("diskspd", ("neg.xml", xml.encode()))
    errs = kit.errors_of(r)
    assert len(errs) == 1 and "negative count: -5" in errs[0] and "Thread[2]/Target[1]/ReadCount" in errs[0]
    (s,) = r.io_samples
    assert s["ops"] == 90970 - 22623 and s["tags"]["threads"] == "3"


def test_nan_cpu_value_is_reported_and_skipped(kit):
    txt = kit.fixture(TEXT_7030).read_text().replace("   1|   0.05%|   0.05%|    0.00%|  99.95%",
                                                     "   1|     NaN|   0.05%|    0.00%|  99.95%")
    r = kit.run_bytes("diskspd", ("nan.txt", txt.encode()))
    (err,) = kit.errors_of(r)
    assert "nan.txt:39 [CPU/Usage]" in err and "not a finite number" in err
    assert sorted(c["cpu"] for c in r.cpu_samples) == [-1, 0, 1, 2]   # the bad row is gone, the rest kept
    assert len(r.io_samples) == 2


def test_future_start_time_is_rejected_but_data_kept(kit):
    txt = kit.fixture(TEXT_7030).read_text().replace("2021/04/16 19:03:38 UTC", "2099/01/01 00:00:00 UTC")
    r = kit.run_bytes("diskspd", ("future.txt", txt.encode()))
    assert any("in the future" in e for e in kit.errors_of(r))
    assert len(r.io_samples) == 2 and r.io_samples[0]["ts_ms"] == 15000   # epoch anchor + warm-up
    assert r.io_samples[0]["tags"]["time_basis"] == "anchor"
    r2 = kit.run_bytes("diskspd", ("future.txt", txt.encode()), start_ms=1_700_000_000_000)
    assert r2.io_samples[0]["ts_ms"] == 1_700_000_015_000


def test_unknown_version_is_an_error(kit):
    xml = kit.fixture(XML_NOLAT).read_text().replace("<Version>2.0.21a</Version>", "<Version>9.1</Version>")
    r = kit.run_bytes("diskspd", ("v9.xml", xml.encode()))
    assert any("unknown DISKSPD version '9.1'" in e for e in kit.errors_of(r))


def test_truncated_xml_keeps_complete_threads(kit):
    xml = kit.fixture(XML_NOLAT).read_text()
    cut = xml.rindex("<Id>3</Id>")   # inside the last <Thread>
    r = kit.run_bytes("diskspd", ("cut.xml", xml[:cut].encode()))
    assert any("truncated" in e for e in kit.errors_of(r))
    (s,) = r.io_samples
    assert s["ops"] == 22645 + 22623 + 22548 and len(r.cpu_samples) == 5


@pytest.mark.parametrize("content", [b"", b"\x00\xff garbage", b"<NotDiskspd/>",
                                     b'<!DOCTYPE r [<!ENTITY a "aaaa">]><Results>&a;</Results>'])
def test_not_diskspd_output(kit, content):
    r = kit.run_bytes("diskspd", ("x.out", content))
    assert r.io_samples == [] and kit.errors_of(r)


# --- -D time series (<Iops> buckets) -------------------------------------------------------------------------

XML_SERIES = "diskspd_2.2_xml_iops_series_2threads_2targets.xml"
XML_VC = "vc_diskspd-2.0.21a_rxml_readwrite_70_30.xml"
XML_UT = "diskspd-2.2_ut_xmlresult_iops_buckets.xml"


def _series(r, target, direction):
    return sorted((s for s in r.io_samples if s["target"] == target and s["direction"] == direction),
                  key=lambda s: s["ts_ms"])


def test_real_vc_series_replaces_the_whole_run_sample(kit):
    r = kit.run("diskspd", kit.fixture(XML_VC))
    assert kit.errors_of(r) == []
    # 120 s at 1000 ms buckets; 3 reads and 2 writes completed in the last 10 ms (TestTimeSeconds 120.01)
    assert [w.split(": ", 2)[-1] for w in kit.errors_of(r, "warning")] == [
        "diskspd.test READ: the 1000 ms buckets hold 37159 I/Os, the whole run 37162; the 3 completed after the "
        "last bucket (ending at 120000 ms) are added to it",
        "diskspd.test WRITE: the 1000 ms buckets hold 15751 I/Os, the whole run 15753; the 2 completed after the "
        "last bucket (ending at 120000 ms) are added to it"]
    kit.assert_schema_valid(r)
    reads, writes = _series(r, "diskspd.test", "READ"), _series(r, "diskspd.test", "WRITE")
    assert len(reads) == len(writes) == 120 and len(r.io_samples) == 242   # + the "*" percentile pair
    # the whole run's counts, not one more and not one less
    assert sum(s["ops"] for s in reads) == 37162 and sum(s["ops"] for s in writes) == 15753
    assert sum(s["bytes"] for s in reads) == 152215552 == 37162 * 4096
    t0 = 1618442742000 + 15000   # RunTime 2021/04/14 23:25:42 UTC + 15 s warm-up
    assert [s["ts_ms"] for s in reads] == [t0 + 1000 * k for k in range(120)]
    assert [s["interval_ms"] for s in reads] == [1000] * 119 + [1010]
    first = reads[0]   # <Bucket SampleMillisecond="1000" Read="332" ... ReadAvgLatencyMilliseconds="2.378">
    assert (first["ops"], first["bytes"], first["latency_count"]) == (332, 332 * 4096, 332)
    assert first["latency_sum_ns"] == 2_378_000 * 332
    assert (first["latency_min_ns"], first["latency_max_ns"]) == (88_000, 22_679_000)
    assert first["tags"]["ops_basis"] == "rate_x_interval" and first["tags"]["bytes_basis"] == "ops_x_block_size"
    assert first["tags"]["latency_sum_basis"] == "mean_x_count" and first["latency_bucket_index"] == []
    last = reads[-1]   # Read="303" ReadAvgLatencyMilliseconds="2.558", + the 3 of the tail, which have no latency
    assert (last["ops"], last["latency_count"], last["latency_sum_ns"]) == (306, 303, 2_558_000 * 303)
    assert last["tags"]["ops_basis"] == "rate_x_interval_plus_tail"
    assert (writes[0]["ops"], writes[0]["latency_sum_ns"]) == (119, 1_761_000 * 119)
    # the whole-run percentile table stays, on a sample holding no I/O and no time
    star = {s["direction"]: s for s in r.io_samples if s["target"] == "*"}
    assert sorted(star) == ["READ", "WRITE"]
    assert all((s["ops"], s["latency_count"], s["interval_ms"]) == (0, 0, 0) for s in star.values())
    assert star["READ"]["tags"]["percentile_window_ms"] == "120010"
    assert star["READ"]["tags"]["percentile_sample_count"] == "37162"
    q = dict(zip(star["READ"]["percentile_q"], star["READ"]["percentile_ns"]))
    assert q[0.11] == 453_000 and q[0.12] == 1_823_000   # the bimodal read latency the source notes


def test_hand_made_two_threads_two_targets_series(kit):
    r = kit.run("diskspd", kit.DATA / XML_SERIES)
    assert kit.errors_of(r) == []
    # thread 0 read 3+2+4 of D:\a.dat in its buckets, thread 1 1+0+2; the whole run counted 9 + 4
    assert [w.split(": ", 2)[-1] for w in kit.errors_of(r, "warning")] == [
        "D:\\a.dat READ: the 1000 ms buckets hold 12 I/Os, the whole run 13; the 1 completed after the last "
        "bucket (ending at 3000 ms) are added to it"]
    kit.assert_schema_valid(r)
    t0 = 1714979289000 + 2000   # RunTime 2024/05/06 07:08:09 UTC + 2 s warm-up
    got = {(s["target"], s["direction"]): [(s["ts_ms"] - t0, s["interval_ms"], s["ops"], s["bytes"],
                                            s["latency_count"], s["latency_sum_ns"], s["latency_min_ns"],
                                            s["latency_max_ns"]) for s in _series(r, s["target"], s["direction"])]
           for s in r.io_samples if s["target"] != "*"}
    # per bucket, threads summed: ops, ops x block size, sum of mean x count, min and max over the threads that
    # did I/O (thread 1's empty read bucket at 2000 ms prints min = max = 0.000: not a latency)
    assert got[("D:\\a.dat", "READ")] == [
        (0, 1000, 3 + 1, 4 * 4096, 4, 3 * 500_000 + 1 * 700_000, 200_000, 900_000),
        (1000, 1000, 2 + 0, 2 * 4096, 2, 2 * 250_000, 100_000, 400_000),
        (2000, 1010, 4 + 2 + 1, 7 * 4096, 6, 4 * 125_000 + 2 * 300_000, 50_000, 400_000)]
    assert got[("D:\\a.dat", "WRITE")] == [
        (0, 1000, 1 + 1, 2 * 4096, 2, 1_000_000 + 3_000_000, 1_000_000, 3_000_000),
        (1000, 1000, 0 + 2, 2 * 4096, 2, 2 * 1_500_000, 1_000_000, 2_000_000),
        (2000, 1000, 2 + 0, 2 * 4096, 2, 2 * 2_000_000, 1_500_000, 2_500_000)]
    assert got[("E:\\b.dat", "READ")] == [
        (0, 1000, 10 + 5, 15 * 65536, 15, 10 * 2_000_000 + 5 * 4_000_000, 1_000_000, 6_000_000),
        (1000, 1000, 10 + 5, 15 * 65536, 15, 10 * 3_000_000 + 5 * 1_000_000, 500_000, 5_000_000),
        (2000, 1000, 10 + 6, 16 * 65536, 16, 10 * 2_500_000 + 6 * 2_000_000, 1_000_000, 3_500_000)]
    # E:\b.dat wrote nothing, but the step is a 75/25 mix: its WRITE series is zeros, as its whole-run sample was
    assert [x[2] for x in got[("E:\\b.dat", "WRITE")]] == [0, 0, 0]
    whole = {("D:\\a.dat", "READ"): 9 + 4, ("D:\\a.dat", "WRITE"): 3 + 3, ("E:\\b.dat", "READ"): 30 + 16,
             ("E:\\b.dat", "WRITE"): 0}
    assert {k: sum(x[2] for x in v) for k, v in got.items()} == whole
    # Little's law per interval: 4 reads of mean 0.55 ms in 1 s
    a0 = _series(r, "D:\\a.dat", "READ")[0]
    assert a0["outstanding_ios"] == pytest.approx(4 * 0.00055)
    star = {s["direction"]: s for s in r.io_samples if s["target"] == "*"}
    assert (star["READ"]["interval_ms"], star["READ"]["latency_min_ns"], star["READ"]["latency_max_ns"]) == \
        (0, 50_000, 6_000_000)
    assert star["READ"]["percentile_q"] == [0.5] and star["READ"]["percentile_ns"] == [1_500_000]


def test_a_thread_without_its_series_falls_back_to_the_whole_run_sample(kit):
    xml = (kit.DATA / XML_SERIES).read_text()
    cut = xml.index("<Path>E:\\b.dat</Path>", xml.index("<Id>1</Id>"))
    start, end = xml.index("<Iops>", cut), xml.index("</Iops>", cut) + len("</Iops>")
    r = kit.run_bytes("diskspd", ("nob1.xml", (xml[:start] + xml[end:]).encode()))
    assert kit.errors_of(r) == []
    assert "E:\\b.dat: 1 of 2 thread(s) carry no complete IOPS series (-D); the target is imported as one " \
           "whole-run sample" in [w.split(": ", 2)[-1] for w in kit.errors_of(r, "warning")]
    (b,) = _series(r, "E:\\b.dat", "READ")
    assert (b["ops"], b["bytes"], b["interval_ms"]) == (46, 46 * 65536, 3010)
    assert len(_series(r, "D:\\a.dat", "READ")) == 3   # the other target keeps its series


def test_a_bad_bucket_drops_that_threads_series(kit):
    xml = (kit.DATA / XML_SERIES).read_text().replace('SampleMillisecond="2000" Read="10"',
                                                       'SampleMillisecond="2500" Read="10"', 1)
    r = kit.run_bytes("diskspd", ("bad.xml", xml.encode()))
    assert [e.split(": ", 2)[-1] for e in kit.errors_of(r)] == [
        "SampleMillisecond 2500 is not a new multiple of the 1000 ms bucket; this thread's IOPS series is dropped"]
    (b,) = _series(r, "E:\\b.dat", "READ")
    assert b["ops"] == 46 and b["interval_ms"] == 3010


def test_half_second_buckets_turn_iops_into_counts(kit):
    # Read/Write are IOPS over the bucket: 500 ms buckets print twice the count (E:\b.dat made so, over 1.51 s)
    xml = (kit.DATA / XML_SERIES).read_text().replace("<IoBucketDuration>1000<", "<IoBucketDuration>500<")
    xml = xml.replace("<TestTimeSeconds>3.01<", "<TestTimeSeconds>1.51<")
    for end, half in (("1000", "500"), ("2000", "1000"), ("3000", "1500")):
        xml = xml.replace(f'SampleMillisecond="{end}"', f'SampleMillisecond="{half}"')
    for count in ("10", "5", "6"):
        xml = xml.replace(f'Read="{count}" ', f'Read="{2 * int(count)}" ')
    r = kit.run_bytes("diskspd", ("half.xml", xml.encode()))
    assert not [w for w in kit.errors_of(r, "warning") if "b.dat" in w]
    b = _series(r, "E:\\b.dat", "READ")
    assert [(s["ts_ms"] - 1714979291000, s["interval_ms"], s["ops"]) for s in b] == [
        (0, 500, 10 + 5), (500, 500, 10 + 5), (1000, 500, 10 + 6)]
    assert b[0]["latency_sum_ns"] == 10 * 2_000_000 + 5 * 4_000_000


def test_real_diskspd_unit_test_output_reports_counts_that_do_not_add_up(kit):
    # DISKSPD's own XmlResultParser unit test: 10 one-read buckets against ReadCount 6, WriteCount 10 without
    # write buckets, an empty RunTime; the tool's format with values its test made up
    r = kit.run("diskspd", kit.fixture(XML_UT))
    assert [e.split(": ", 2)[-1] for e in kit.errors_of(r)] == ["unreadable start time ''"]
    assert [w.split(": ", 2)[-1] for w in kit.errors_of(r, "warning")] == [
        "testfile1.dat READ: the 1000 ms buckets hold 10 I/Os, the whole run 6: more in the buckets than in the "
        "run; the series is kept as printed",
        "testfile1.dat WRITE: the 1000 ms buckets hold 0 I/Os, the whole run 10; the 10 completed after the last "
        "bucket (ending at 10000 ms) are added to it",
        "no start time in file; measurement times are anchored at the Unix epoch"]
    kit.assert_schema_valid(r)
    reads = _series(r, "testfile1.dat", "READ")
    # anchored at 0 + 5 s warm-up; 65536-byte blocks; MeasureLatency false: the 0.000 latencies are not kept
    assert [(s["ts_ms"], s["interval_ms"], s["ops"], s["bytes"], s["latency_count"]) for s in reads] == \
        [(5000 + 1000 * k, 1000, 1, 65536, 0) for k in range(10)]
    writes = _series(r, "testfile1.dat", "WRITE")
    # the 10 writes land in the last bucket, stretched to the 120 s TestTimeSeconds
    assert [s["ops"] for s in writes] == [0] * 9 + [10] and writes[-1]["interval_ms"] == 120000 - 9000
    assert not any(s["target"] == "*" for s in r.io_samples)   # no <Latency> table
