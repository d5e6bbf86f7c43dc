"""`ioscale analyze`: the replay, then the check; the flags that skip one or the other; what a failed check prints."""

from __future__ import annotations

import pytest

from ioscale.cli import analyze as cli_analyze
from ioscale.cli import main
from ioscale.errors import ExitStatus
from ioscale.provision import analysis_check as ac
from ioscale.provision.analysis_check import Counts


@pytest.fixture
def calls(monkeypatch):
    seen: list[tuple[str, dict]] = []
    monkeypatch.setattr(cli_analyze, "analyze_run", lambda run_id, **kw: seen.append((run_id, kw)))
    return seen


@pytest.mark.parametrize("flags, replay, check", [([], True, True), (["--no-check"], True, False),
                                                  (["--check-only"], False, True)])
def test_the_flags_choose_replay_and_check(calls, flags, replay, check):
    assert main(["analyze", "run-a", "run-b", *flags]) == ExitStatus.OK
    assert calls == [(r, {"timeout_s": 1800.0, "replay": replay, "check": check}) for r in ("run-a", "run-b")]


def test_no_check_and_check_only_exclude_each_other(calls, capsys):
    with pytest.raises(SystemExit) as e:
        main(["analyze", "run-a", "--no-check", "--check-only"])
    assert e.value.code == 2 and "not allowed with argument" in capsys.readouterr().err
    assert calls == []


class Recorder:
    def __init__(self):
        self.lines: list[str] = []

    def done(self, msg: str) -> None:
        self.lines.append(msg)


def _result(got_fleet: Counts) -> ac.CheckResult:
    expected = {(t, 0): Counts(10, 1_000) for t in ac.RESULT_TABLES}
    return ac.summarize("run-a", expected, {**expected, ("io_fleet_10s", 0): got_fleet})


def test_a_passed_check_says_what_it_counted(monkeypatch):
    monkeypatch.setattr(ac, "check", lambda ch, run_id: _result(Counts(10, 1_000)))
    progress = Recorder()
    cli_analyze.check_results(object(), "run-a", progress)
    [line] = progress.lines
    assert line.startswith("checked 7 tables x 1 step: 10 samples, 1,000 ops, equal to the raw tables (")


def test_a_failed_check_exits_with_its_status_naming_table_and_step(monkeypatch, capsys):
    monkeypatch.setattr(ac, "check", lambda ch, run_id: _result(Counts(7, 700)))

    def analyze_run(run_id, **kw):
        cli_analyze.check_results(object(), run_id, Recorder())

    monkeypatch.setattr(cli_analyze, "analyze_run", analyze_run)
    assert main(["analyze", "run-a", "--check-only"]) == ExitStatus.RESULTS_DIFFER
    err = capsys.readouterr().err
    assert "Error: the analysis of run-a does not account for every raw I/O sample: 1 (table, step) pair in " \
           "io_fleet_10s differs from the raw tables (10 samples, 1,000 ops)" in err
    assert "io_fleet_10s     0  samples        10    7          -3" in err
    assert "Hint: re-run `ioscale analyze run-a`" in err
