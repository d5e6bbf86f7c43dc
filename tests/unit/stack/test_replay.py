"""ioscale analyze: the bounded replay job's arguments and the run's Kafka window."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from ioscale import replay
from ioscale.errors import IoscaleError
from ioscale.stack import analytics_config
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
    span = replay.run_span(FakeClickHouse([(42, t0, t0 + dt.timedelta(seconds=30))]), "r")
    assert (span.io_samples, span.first_ingest_ms, span.last_ingest_ms) == (
        42, int(t0.timestamp() * 1000), int(t0.timestamp() * 1000) + 30_000)


def test_an_unknown_run_says_how_to_find_one():
    with pytest.raises(IoscaleError, match="no I/O samples of run 'nope'") as e:
        replay.run_span(FakeClickHouse([(0, None, None)]), "nope")
    assert "run_list" in e.value.hint
