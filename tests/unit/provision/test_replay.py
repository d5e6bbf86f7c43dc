"""ioscale analyze: the bounded replay job's arguments and the run's Kafka window."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from ioscale.errors import IoscaleError
from ioscale.provision import replay
from ioscale.provision import analytics_config
from ioscale.stack.settings import StackSettings

REPO = Path(__file__).resolve().parents[3]


def _settings(tmp_path: Path) -> StackSettings:
    return StackSettings.from_env({"IOSCALE_REPO": str(REPO), "IOSCALE_HOME": str(tmp_path / "state")})


class FakeClickHouse:
    def __init__(self, rows):
        self.rows = rows

    def query(self, sql, parameters=None):
        return type("R", (), {"result_rows": self.rows})()


def test_the_replay_runs_the_live_jobs_analysis_bounded_to_one_run(tmp_path):
    s = _settings(tmp_path)
    analytics_config.save(s.home, {"slo": "p99.999 < 2 ms"})
    span = replay.RunSpan("diskspd-abc/1 x", 100, first_ingest_ms=1_800_000_000_000, last_ingest_ms=1_800_000_060_000)
    job = replay.replay_job(s, span)
    args = dict(zip(job.program_args[::2], job.program_args[1::2]))
    assert job.entry_class == "io.ioscale.jobs.AnalyticsJob" and job.checkpoint_dir is None
    assert "--checkpoint-dir" not in args                       # never the live job's checkpoints
    assert args["--replay-run"] == "diskspd-abc/1 x"
    assert args["--replay-from-ms"] == str(1_800_000_000_000 - replay.KAFKA_MARGIN_MS)
    assert args["--group-id"].startswith("ioscale-replay-") and args["--group-id"] != "ioscale-analytics"
    assert args["--job-name"] == job.name == "ioscale-replay-diskspd-abc_1_x"
    assert args["--slo"] == "p99.999 < 2 ms"                    # the same settings as the live job
    assert args["--clickhouse-password-file"] == str(s.secrets_file)


def test_run_span_reads_when_the_run_reached_clickhouse():
    t0 = dt.datetime(2026, 11, 21, 10, 0, 0, tzinfo=dt.timezone.utc)
    span = replay.run_span(FakeClickHouse([(42, 0, t0, t0 + dt.timedelta(seconds=30))]), "r")
    assert (span.io_samples, span.first_ingest_ms, span.last_ingest_ms) == (
        42, int(t0.timestamp() * 1000), int(t0.timestamp() * 1000) + 30_000)
    assert span.describe() == "42 I/O samples"


def test_a_run_of_port_samples_only_is_analysed_too():
    """A network test (iperf3) has no I/O samples: its whole-port samples are what the replay analyses."""
    t0 = dt.datetime(2026, 11, 21, 10, 0, 0, tzinfo=dt.timezone.utc)
    span = replay.run_span(FakeClickHouse([(0, 285, t0, t0)]), "net")
    assert (span.io_samples, span.port_samples, span.describe()) == (0, 285, "285 port samples")


def test_an_unknown_run_says_how_to_find_one():
    with pytest.raises(IoscaleError, match="no I/O or port samples of run 'nope'") as e:
        replay.run_span(FakeClickHouse([(0, 0, None, None)]), "nope")
    assert "run_list" in e.value.hint


class FakeFlink:
    """A replay job that stays RUNNING; its record counters move for the first ``moving_polls`` polls only."""

    def __init__(self, settings: StackSettings, moving_polls: int):
        self.settings = settings
        self.moving_polls = moving_polls
        self.polls = 0
        self.cancelled: list[str] = []
        self.ui = type("UI", (), {"step": lambda *a: None, "done": lambda *a: None})()

    def build_job_jar(self) -> None:
        pass

    def submit(self, job) -> str:
        return "job-1"

    def job_state(self, job_id: str) -> str:
        return "CANCELED" if self.cancelled else "RUNNING"

    def job_records(self, job_id: str) -> int:
        self.polls += 1
        return min(self.polls, self.moving_polls) * 1000

    def cancel(self, job_id: str) -> None:
        self.cancelled.append(job_id)


class RunClickHouse:
    """run_span's answer, then result_rows' (always the same: nothing inserted)."""

    def query(self, sql, parameters=None):
        t0 = dt.datetime(2026, 11, 21, 10, 0, 0, tzinfo=dt.timezone.utc)
        rows = [(10, 0, t0, t0)] if "min(first)" in sql else [(t, 0) for t in replay.RESULT_TABLES]
        return type("R", (), {"result_rows": rows})()


def test_a_replay_that_stops_making_progress_is_cancelled_and_reported(tmp_path):
    """A RUNNING replay whose counters stop moving for the stall time is cancelled, with an error saying where to
    look, rather than waited on until its 30 min timeout."""
    flink = FakeFlink(_settings(tmp_path), moving_polls=3)
    now = [0.0]
    with pytest.raises(IoscaleError, match="made no progress for 180 s") as e:
        replay.analyze(flink, RunClickHouse(), "r", clock=lambda: now[0],
                       sleep=lambda s: now.__setitem__(0, now[0] + s))
    assert flink.cancelled == ["job-1"]
    # Polls every 11 s (t = 0, 11, 22, ...): the counters last moved at the third (t = 22), so the stall is
    # called at the first poll 180 s after that, not 180 s after the start.
    assert 22 + 180 <= now[0] <= 22 + 180 + 11
    assert "Flink UI" in e.value.hint
