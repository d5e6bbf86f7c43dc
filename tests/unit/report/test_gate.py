"""The regression gate on pairs of runs with known differences: better, worse by 5 %, worse by 20 %, latency
rises, too few samples, no comparable step, and steps in another order (matched by load, not by index)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from ioscale.cli import main
from ioscale.errors import ExitStatus, IoscaleError
from ioscale.report import RunData, Step, compare_runs, junit_xml, parse_pct
from ioscale.report.gate import NotComparableError, diff_pct, junit_error_xml, match_steps, table_rows
from report_rows import step_row

QDS = (1, 2, 4)
BASE_IOPS = (1000.0, 2000.0, 3000.0)


def steps(iops=BASE_IOPS, p99=(100.0, 200.0, 300.0), qds=QDS, **kw) -> list[Step]:
    return [Step.from_row(step_row(i, qd, x, p99=p, **kw)) for i, (qd, x, p) in enumerate(zip(qds, iops, p99))]


BASE = steps()


def gate(cand: list[Step], base: list[Step] = BASE, **kw):
    return compare_runs("base", base, "cand", cand, **kw)


def test_a_better_candidate_passes_with_its_gains():
    r = gate(steps(iops=(1100.0, 2200.0, 3300.0), p99=(90.0, 180.0, 270.0)))
    assert r.exit_status == ExitStatus.OK and r.failed == []
    assert [s.check("IOPS").diff_pct for s in r.steps] == pytest.approx([10.0, 10.0, 10.0])
    assert [s.check("p99").diff_pct for s in r.steps] == pytest.approx([-10.0, -10.0, -10.0])


def test_worse_by_5_percent_passes_the_default_10_percent():
    r = gate(steps(iops=(950.0, 1900.0, 2850.0)))
    assert r.exit_status == ExitStatus.OK
    assert [s.check("IOPS").diff_pct for s in r.steps] == pytest.approx([-5.0, -5.0, -5.0])
    # ... and fails a 4 % limit
    assert gate(steps(iops=(950.0, 1900.0, 2850.0)), max_drop_pct=4).exit_status == ExitStatus.REGRESSION


def test_worse_by_20_percent_fails_every_step():
    r = gate(steps(iops=(800.0, 1600.0, 2400.0)))
    assert r.exit_status == ExitStatus.REGRESSION == 8
    assert len(r.failed) == 3
    assert [s.check("IOPS").diff_pct for s in r.failed] == pytest.approx([-20.0] * 3)
    assert all(not s.check("p99").failed for s in r.failed)


def test_a_drop_of_exactly_the_limit_is_not_beyond_it():
    # 900 / 1000 - 1 = -0.0999...98 in binary floating point: still "not more than 10 %"
    assert gate(steps(iops=(900.0, 1800.0, 2700.0))).exit_status == ExitStatus.OK


def test_a_p99_rise_fails_only_its_step():
    r = gate(steps(p99=(100.0, 250.0, 300.0)))          # step 1: 200 -> 250 us = +25 %
    assert [s.base.step_index for s in r.failed] == [1]
    assert r.failed[0].check("p99").diff_pct == pytest.approx(25.0)
    assert r.failed[0].check("IOPS").failed is False


def test_p99_is_not_compared_below_its_n():
    r = gate(steps(p99=(150.0, 300.0, 450.0), n=999), base=steps(n=999))   # +50 %, but N < 1000
    assert r.exit_status == ExitStatus.OK
    c = r.steps[0].check("p99")
    assert c.diff_pct is None and "N below 1,000" in c.note


def test_p99_999_is_compared_only_with_a_million_ios_on_both_sides():
    base = steps(n=2_000_000, p99_999=2000.0)
    worse = steps(n=2_000_000, p99_999=2600.0)           # +30 %
    r = gate(worse, base=base)
    assert len(r.failed) == 3 and all(s.check("p99.999").diff_pct == pytest.approx(30.0) for s in r.failed)
    few = steps(n=500_000, p99_999=2600.0)
    r = gate(few, base=base)
    assert r.exit_status == ExitStatus.OK
    assert "the value is the max" in r.steps[0].check("p99.999").note


def test_no_histogram_means_no_percentile_check():
    r = gate(steps(p99=(None, None, None), p99_999=None, n=0), base=steps(p99=(None, None, None), p99_999=None, n=0))
    assert r.exit_status == ExitStatus.OK
    assert r.steps[0].check("p99").note == "no latency histogram on either side"


def test_steps_are_matched_by_load_not_by_index():
    reordered = [Step.from_row(step_row(i, qd, x)) for i, (qd, x) in enumerate(zip((4, 1, 2), (3000.0, 1000.0, 2000.0)))]
    r = gate(reordered)
    assert r.exit_status == ExitStatus.OK
    assert [(s.base.step_index, s.cand.step_index) for s in r.steps] == [(0, 1), (1, 2), (2, 0)]
    assert [s.check("IOPS").diff_pct for s in r.steps] == [0.0, 0.0, 0.0]


def test_a_partial_overlap_compares_the_common_loads_and_lists_the_rest():
    cand = [Step.from_row(step_row(0, 2, 1500.0)), Step.from_row(step_row(1, 8, 5000.0))]
    r = gate(cand)
    assert [s.base.outstanding_ios_per_target for s in r.steps] == [2]
    assert r.steps[0].check("IOPS").diff_pct == pytest.approx(-25.0) and r.steps[0].failed
    assert [s.outstanding_ios_per_target for s in r.only_baseline] == [1, 4]
    assert [s.outstanding_ios_per_target for s in r.only_candidate] == [8]


def test_repeated_loads_meet_in_order():
    a = [Step.from_row(step_row(i, 1, x)) for i, x in enumerate((100.0, 200.0))]
    b = [Step.from_row(step_row(i, 1, x)) for i, x in enumerate((110.0, 220.0))]
    pairs, only_a, only_b = match_steps(a, b)
    assert [(x.iops, y.iops) for x, y in pairs] == [(100.0, 110.0), (200.0, 220.0)] and not only_a and not only_b


def test_no_comparable_step_is_an_error_naming_both_sweeps():
    other = steps(bs=65536)                            # same queue depths, another block size
    with pytest.raises(NotComparableError) as e:
        gate(other)
    assert e.value.exit_status == ExitStatus.BAD_INPUT
    assert "no comparable step" in str(e.value) and "64 KiB" in str(e.value) and "4 KiB" in str(e.value)
    assert "run_steps" in e.value.hint


def test_steps_without_throughput_are_not_comparable():
    with pytest.raises(NotComparableError):
        gate(steps(iops=(None, None, None)))


def test_junit_has_one_testcase_per_step_and_the_figures_in_failures():
    r = gate(steps(iops=(800.0, 2000.0, 3000.0)))
    root = ET.fromstring(junit_xml(r))
    suite = root.find("testsuite")
    assert suite.get("tests") == "3" and suite.get("failures") == "1"
    cases = suite.findall("testcase")
    assert len(cases) == 3
    failure = cases[0].find("failure")
    assert failure.get("message") == "IOPS -20.00%"
    assert "baseline 1,000.0 IOPS, candidate 800.0 IOPS, -20.00% (limit 10% below) FAIL" in failure.text
    assert cases[1].find("failure") is None and "IOPS: baseline 2,000.0" in cases[1].find("system-out").text
    err = ET.fromstring(junit_error_xml("a", "b", "no comparable step")).find("testsuite/testcase/error")
    assert err.get("type") == "not_comparable"


def test_table_rows_round_and_name_the_failures():
    [row, *_] = table_rows(gate(steps(iops=(800.0, 2000.0, 3000.0), p99=(130.0, 200.0, 300.0))))
    assert row[:9] == ("1 VM, 1 disk/VM, 1 worker/disk, QD 1, 4 KiB, 100% read", 0, 0, 1000.0, 800.0, -20.0,
                       100.0, 130.0, 30.0)
    assert row[-1] == "FAIL: IOPS, p99"


@pytest.mark.parametrize("text,value", [("10%", 10.0), ("7.5", 7.5), (" 0% ", 0.0), (20, 20.0)])
def test_thresholds_are_percentages(text, value):
    assert parse_pct(text, "--max-drop") == value


@pytest.mark.parametrize("text", ["-1%", "ten", "nan", ""])
def test_bad_thresholds_say_how_to_write_them(text):
    with pytest.raises(IoscaleError) as e:
        parse_pct(text, "--max-drop")
    assert "--max-drop 10%" in e.value.hint


def test_diff_pct_of_a_zero_baseline_is_none():
    assert diff_pct(0.0, 5.0) is None and diff_pct(200.0, 150.0) == -25.0


# --- the command ------------------------------------------------------------------------------------------
@pytest.fixture
def two_runs(monkeypatch):
    runs = {}

    def fake_fetch(run_ids):
        return [runs[r] for r in run_ids]

    monkeypatch.setattr("ioscale.cli.report.fetch_runs", fake_fetch)
    return runs


def test_compare_command_exit_status_table_and_junit(two_runs, tmp_path, capsys):
    two_runs["base"] = RunData("base", BASE)
    two_runs["cand"] = RunData("cand", steps(iops=(1000.0, 1600.0, 3000.0)))
    junit = tmp_path / "gate.xml"
    assert main(["compare", "base", "cand", "--junit", str(junit)]) == ExitStatus.REGRESSION
    out = capsys.readouterr().out
    assert "FAIL: 1 of 3 comparable steps worse than the limits" in out
    assert "-20" in out and ET.parse(junit).getroot().find("testsuite").get("failures") == "1"
    assert main(["compare", "base", "cand", "--max-drop", "25%"]) == ExitStatus.OK
    assert "PASS: 0 of 3" in capsys.readouterr().out


def test_compare_command_without_a_comparable_step(two_runs, tmp_path, capsys):
    two_runs["base"] = RunData("base", BASE)
    two_runs["other"] = RunData("other", steps(bs=65536))
    junit = tmp_path / "gate.xml"
    assert main(["compare", "base", "other", "--junit", str(junit)]) == ExitStatus.BAD_INPUT
    err = capsys.readouterr().err
    assert "Error: runs base and other have no comparable step" in err and "Hint:" in err
    assert ET.parse(junit).getroot().get("errors") == "1"


def test_pdf_without_chromium_says_what_to_install(tmp_path):
    from ioscale.cli.report import write_pdf
    from ioscale.errors import ConfigError

    pytest.importorskip("playwright")
    with pytest.raises(ConfigError) as e:
        write_pdf(tmp_path / "r.html", tmp_path / "r.pdf", str(tmp_path / "no-chromium"))
    assert "apt install chromium" in e.value.hint


def test_report_command_writes_one_html_file_per_invocation(two_runs, tmp_path, capsys):
    two_runs["base"] = RunData("base", BASE)
    two_runs["cand"] = RunData("cand", steps(iops=(1000.0, 1600.0, 3000.0)))
    assert main(["report", "base", "cand", "-o", str(tmp_path / "out")]) == ExitStatus.OK
    [written] = (tmp_path / "out").iterdir()
    assert written.name == "report-base-and-1-more.html"
    assert capsys.readouterr().out.strip() == str(written)
    page = written.read_text()
    assert page.count('class="ioscale-figure"') == 2 * 4 + 1 and "Runs compared" in page
