"""The PDH CSV/TSV layer: header (zone bias), counter paths, sample times in UTC, blank cells, decoding."""

from __future__ import annotations

import io
from datetime import datetime, timezone

import pytest

from ioscale.importers.common import ImportIssue
from ioscale.importers.pdh import (IssueBudget, LineSplitter, bytes_lines, file_lines, parse_counter_path,
                                   parse_local_time_ms, read_pdh)


def utc_ms(*args) -> int:
    return int(datetime(*args, tzinfo=timezone.utc).timestamp() * 1000)


@pytest.mark.parametrize("path,expected", [
    (r"\\HV01\Processor Information(0,1)\% DPC Time", ("HV01", "Processor Information", "0,1", "% DPC Time")),
    (r"\\esx01\Group Cpu(1234:vm-sql (2))\% Ready", ("esx01", "Group Cpu", "1234:vm-sql (2)", "% Ready")),
    (r"\\esx01\Physical Disk Adapter(vmhba0)\Average Driver MilliSec/Command",
     ("esx01", "Physical Disk Adapter", "vmhba0", "Average Driver MilliSec/Command")),
    (r"\\H\Network Adapter(Intel[R] Ethernet X710 #2)\Bytes Sent/sec",
     ("H", "Network Adapter", "Intel[R] Ethernet X710 #2", "Bytes Sent/sec")),
    (r"\\H\Virtual Disk(vm:scsi0:1)\Reads/sec", ("H", "Virtual Disk", "vm:scsi0:1", "Reads/sec")),
    (r"\\H\Memory\Available MBytes", ("H", "Memory", None, "Available MBytes")),
    (r"\\esx\Physical Cpu Load\Cpu Load (1 Minute Avg)", ("esx", "Physical Cpu Load", None, "Cpu Load (1 Minute Avg)")),
    (r"\\H\Hyper-V Virtual Storage Device(C:-ClusterStorage-Volume1-a (b).vhdx)\Read Bytes/sec",
     ("H", "Hyper-V Virtual Storage Device", "C:-ClusterStorage-Volume1-a (b).vhdx", "Read Bytes/sec")),
])
def test_counter_paths_split_at_the_last_instance_end(path, expected):
    p = parse_counter_path(path)
    assert (p.host, p.object, p.instance, p.counter) == expected


@pytest.mark.parametrize("text", ["", "Timestamp", r"\Processor(0)\% Processor Time", r"\\H", r"\\H\Memory",
                                  r"\\H\Object(unclosed\Counter"])
def test_non_paths_are_none(text):
    assert parse_counter_path(text) is None


def rows_of(text: str):
    errs: list[ImportIssue] = []
    header, rows = read_pdh(bytes_lines(text.encode()), IssueBudget("f.csv", errs))
    return header, list(rows), errs


@pytest.mark.parametrize("zone,bias,local,expected", [
    ("W. Europe Standard Time", -60, "03/10/2026 14:00:15.125", utc_ms(2026, 3, 10, 13, 0, 15, 125000)),
    ("India Standard Time", -330, "09/19/2017 09:51:39.073", utc_ms(2017, 9, 19, 4, 21, 39, 73000)),
    ("Pacific Standard Time", 480, "12/31/2025 20:00:00.000", utc_ms(2026, 1, 1, 4, 0, 0)),
    ("Eastern Daylight Time", 240, "09/16/2021 07:51:58.569", utc_ms(2021, 9, 16, 11, 51, 58, 569000)),
    ("UTC", 0, "05/15/2018 02:13:06", utc_ms(2018, 5, 15, 2, 13, 6)),
])
def test_local_sample_times_become_utc_with_the_header_bias(zone, bias, local, expected):
    header, rows, errs = rows_of(f'"(PDH-CSV 4.0) ({zone})({bias})","\\\\H\\Memory\\Available MBytes"\n"{local}","1"\n')
    assert header.zone == zone and header.bias_min == bias and not errs
    assert [r.ts_ms for r in rows] == [expected]


def test_header_without_a_zone_is_taken_as_utc_with_a_warning():
    header, rows, errs = rows_of('"(PDH-CSV 4.0)","\\\\H\\Memory\\Available MBytes"\n"01/02/2024 03:04:05.600","1"\n')
    assert header.bias_min is None and rows[0].ts_ms == utc_ms(2024, 1, 2, 3, 4, 5, 600000)
    assert [str(e) for e in errs] == ["warning: f.csv:1: header gives no time-zone bias: sample times are taken as UTC"]


def test_a_localized_zone_name_cut_short_still_reads():
    # As a Russian Windows wrote it (the zone name's own parenthesis cut the header short).
    header, _, errs = rows_of('"(PDH-CSV 4.0) (RTZ 2 (","\\\\H\\Memory\\Available MBytes"\n')
    assert header is not None and header.zone == "RTZ 2 (" and header.bias_min is None and len(errs) == 1


def test_tsv_blank_cells_and_bad_rows():
    text = ('"(PDH-TSV 4.0) (UTC)(0)"\t"\\\\H\\A\\x"\t"\\\\H\\A\\y"\r\n'
            '"01/02/2024 00:00:01.000"\t" "\t""\r\n'
            '"13/02/2024 00:00:02.000"\t"1"\t"2"\r\n'        # month 13: no time
            '"01/02/2024 00:00:03.000"\t"1"\r\n'             # cut short
            '"01/02/2024 00:00:04.000"\t"1.5"\t"2"\r\n')
    header, rows, errs = rows_of(text)
    assert header.fmt == "TSV" and [c.counter for c in header.columns] == ["x", "y"]
    assert [(r.line, r.cells) for r in rows] == [(2, [" ", ""]), (5, ["1.5", "2"])]
    assert [(e.line, e.severity) for e in errs] == [(3, "warning"), (4, "error")]
    assert "1 values for 2 columns" in errs[1].reason


def test_not_a_pdh_file_is_one_error():
    header, rows, errs = rows_of("a,b\n1,2\n")
    assert header is None and rows == [] and "not a PDH CSV/TSV header" in errs[0].reason


@pytest.mark.parametrize("text", ["02/30/2024 00:00:00", "1/2/2024 24:00:00", "01/02/24 00:00:00", "x"])
def test_impossible_times_are_none(text):
    assert parse_local_time_ms(text) is None


def test_issue_budget_lists_the_first_of_a_kind_then_counts():
    errs: list[ImportIssue] = []
    b = IssueBudget("f", errs, per_kind=2)
    for i in range(5):
        b.error("number", f"bad {i}", line=i)
    b.close()
    assert [e.reason for e in errs] == ["bad 0", "bad 1", "3 more issue(s) like 'number' not listed (5 in all)"]


def test_utf16_file_with_a_character_split_across_reads():
    text = '"(PDH-CSV 4.0) (UTC)(0)","\\\\HÖST\\Memory\\Available MBytes"\r\n"01/02/2024 00:00:01.000","7"\r\n'
    data = text.encode("utf-16")   # BOM + little endian, as PowerShell's > writes
    lines = list(file_lines(io.BytesIO(data), chunk=3))   # odd chunks split the 2-byte units
    assert lines == ['"(PDH-CSV 4.0) (UTC)(0)","\\\\HÖST\\Memory\\Available MBytes"', '"01/02/2024 00:00:01.000","7"']


def test_splitter_holds_a_partial_line_until_its_newline():
    s = LineSplitter()
    assert s.feed(b'"a","b"\r\n"c",') == ['"a","b"'] and s.partial == '"c",'
    assert s.feed(b'"d"\n') == ['"c","d"'] and s.partial == ""
    assert s.finish() == ""
