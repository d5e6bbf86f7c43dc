"""The importer registry, ``import_files`` (the file-reading edge) and the shared helpers."""

import pytest

from ioscale.errors import ExitStatus
from ioscale.importers import IMPORTERS, ImportResult, UnknownImporterError, import_files, import_sources
from ioscale.importers.common import (
    Issues,
    StepSpan,
    checked_count,
    checked_float,
    checked_time_ms,
    decimal_ms_to_ns,
    derive_run_id,
    parse_size_bytes,
    quantile_from_percent,
    run_events,
    step_load,
)


def test_registry_names():
    assert set(IMPORTERS) == {"diskspd", "vmfleet", "fio", "fio-hist", "iometer", "iperf3", "perfmon", "esxtop"}


def test_unknown_tool_is_a_usage_error(kit):
    with pytest.raises(UnknownImporterError) as e:
        import_files("sqlio", [kit.DATA])
    assert e.value.exit_status == ExitStatus.USAGE and "diskspd" in e.value.hint


def test_directory_expands_to_the_tool_files(kit):
    r = import_files("vmfleet", [kit.DATA / "vmfleet_sweep"], now_ms=kit.NOW_MS)
    assert len({s["tags"]["source_file"] for s in r.io_samples}) == 6
    r = import_files("iometer", [kit.DATA], now_ms=kit.NOW_MS)   # the three .csv files of data/, by name
    assert {s["host"] for s in r.io_samples} == {"HOST1", "HOST2", "OLDBOX"}
    steps = [e for e in r.run_events if e["event_type"] == "STEP_STARTED"]
    # time order: 2008 (OLDBOX, 3rd file) first, then 2019 (HOST1, 2nd file), then 2020 (HOST2, 1st file)
    assert len(steps) == 15 and [e["step_index"] for e in steps] == [14, 12, 13, *range(12)]


def test_missing_and_unreadable_inputs_are_issues(kit, tmp_path):
    r = import_files("fio", [tmp_path / "nope.json"], now_ms=kit.NOW_MS)
    assert r.io_samples == [] and "cannot read" in str(r.errors[0])
    (tmp_path / "empty").mkdir()
    r = import_files("fio", [tmp_path / "empty"], now_ms=kit.NOW_MS)
    assert "directory holds no .json file" in str(r.errors[0])
    good = kit.DATA / "fio-2.21_jsonplus_usec.json"
    r = import_files("fio", [tmp_path / "nope.json", good], now_ms=kit.NOW_MS)
    assert len(r.io_samples) == 1 and "nope.json" in r.errors[0].file   # the good file still imports


def test_last_resort_guard_reports_an_internal_error(monkeypatch):
    def broken(sources, run_id, *, start_ms, now_ms):
        raise KeyError("boom")

    monkeypatch.setitem(IMPORTERS, "fio", broken)
    r = import_sources("fio", [("a.json", b"{}")], now_ms=0)
    assert isinstance(r, ImportResult) and r.has_errors
    assert "internal error in the fio importer (KeyError" in r.errors[0].reason


def test_issue_text_names_file_line_and_field():
    errs = []
    Issues("f.csv", errs).error("negative count: -1", line=12, field="Read I/Os")
    Issues("f.csv", errs).warn("odd")
    assert [str(e) for e in errs] == ["error: f.csv:12 [Read I/Os]: negative count: -1", "warning: f.csv: odd"]


@pytest.mark.parametrize(
    "value,expected,reason",
    [(12, 12, None), ("12", 12, None), (12.0, 12, None), ("1e3", 1000, None), (-1, None, "negative count: -1"),
     ("nan", None, "not a finite number"), (float("inf"), None, "not a finite number"),
     ("1.5", None, "not an integer"), ("abc", None, "not a finite number"), (True, None, "not a finite number"),
     (2 ** 64, None, "out of range"), (None, None, "missing count")],
)
def test_checked_count(value, expected, reason):
    errs = []
    assert checked_count(value, Issues("f", errs), field="x") == expected
    assert (reason is None and not errs) or (reason in errs[0].reason and errs[0].field == "x")


def test_checked_float_bounds_and_time():
    errs = []
    issues = Issues("f", errs)
    assert checked_float("3.5%", issues) == 3.5
    assert checked_float("-1", issues) is None and "below 0" in errs[-1].reason
    assert checked_float("7", issues, maximum=5) is None and "above 5" in errs[-1].reason
    assert checked_time_ms(1_000, issues, now_ms=10_000) == 1_000
    assert checked_time_ms(10_000 + 2 * 86_400_000, issues, now_ms=10_000) is None
    assert "in the future" in errs[-1].reason


def test_decimal_conversions():
    assert decimal_ms_to_ns("0.036") == 36_000 and decimal_ms_to_ns("35.257") == 35_257_000
    assert decimal_ms_to_ns("N/A") is None and decimal_ms_to_ns("nan") is None
    assert quantile_from_percent("99.999") == 0.99999 and quantile_from_percent("99.9999999") == 0.999999999
    assert quantile_from_percent("101") is None
    assert [parse_size_bytes(s) for s in ("16k", "4K", "1m", "512", "64KiB", "x")] == [16384, 4096, 1 << 20, 512,
                                                                                        65536, None]


def test_run_id_ignores_names_and_order():
    a = derive_run_id("FIO", [("a", b"1"), ("b", b"2")])
    assert a == derive_run_id("fio", [("y", b"2"), ("x", b"1")]) and a.startswith("fio-") and len(a) == 24
    assert a != derive_run_id("FIO", [("a", b"1"), ("b", b"3")])


def test_run_events_order_and_fields():
    load = step_load(outstanding_ios_per_target=4, block_size_bytes=8192)
    ev = run_events(run_id="r", tool="FIO", scenario="s", description="d", hosts=[], tags={"k": "v"},
                    steps=[StepSpan(1, "b", 200, 300, load), StepSpan(0, "a", 100, 150, load)])
    assert [(e["event_type"], e["ts_ms"], e["step_index"]) for e in ev] == [
        ("RUN_STARTED", 100, -1), ("STEP_STARTED", 100, 0), ("STEP_ENDED", 150, 0), ("STEP_STARTED", 200, 1),
        ("STEP_ENDED", 300, 1), ("RUN_ENDED", 300, -1)]
    assert ev[2]["start_ms"] == 100 and ev[2]["end_ms"] == 150 and ev[1]["start_ms"] is None
    assert ev[-1]["start_ms"] == 100 and ev[-1]["end_ms"] == 300 and ev[0]["load"] is None
    assert all(e["tags"] == {"k": "v"} for e in ev)
    assert run_events(run_id="r", tool="FIO", scenario="", description="", hosts=[], steps=[]) == []


def test_a_directory_of_directories_says_they_are_not_searched(kit, tmp_path):
    (tmp_path / "4k").mkdir()   # bench-fio: <output>/<target>/<block size>/<rw>-<iodepth>-<numjobs>.json
    r = import_files("fio", [tmp_path], now_ms=kit.NOW_MS)
    assert [str(i) for i in r.errors] == [
        f"error: {tmp_path}: directory holds no .json file (subdirectories are not searched: pass them too, "
        "e.g. DIR/*/)"]
