"""The CLI in-process: exit statuses and messages a user sees."""

import re
from pathlib import Path

import pytest

from ioscale.cli import main
from ioscale.errors import ExitStatus

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "real"


@pytest.fixture
def env(clean_env):
    return clean_env


def test_status_on_a_fresh_home_reports_everything_down(env, capsys):
    assert main(["stack", "status"]) == ExitStatus.STACK
    out = capsys.readouterr().out
    for name in ("kafka", "registry", "clickhouse", "flink", "superset"):
        assert f"{name}" in out
    assert out.count(" down ") == 5


def test_bad_port_setting_is_a_config_error_naming_the_key(env, monkeypatch, capsys):
    monkeypatch.setenv("IOSCALE_KAFAK_PORT", "1")
    assert main(["stack", "status"]) == ExitStatus.CONFIG
    assert "Error: unknown setting IOSCALE_KAFAK_PORT" in capsys.readouterr().err


def test_unknown_component_is_rejected(env, capsys):
    assert main(["stack", "up", "zookeeper"]) == ExitStatus.CONFIG
    assert "unknown component(s) zookeeper" in capsys.readouterr().err


def test_logs_without_logs_says_where_it_looked(env, capsys):
    assert main(["stack", "logs", "kafka"]) == ExitStatus.ERROR
    assert str(env / "home" / "logs") in capsys.readouterr().err


def test_import_dry_run_counts_records(env, capsys):
    rc = main(["import", "fio", str(FIXTURES / "pkb_fio-2.17_hist_run.json"), "--dry-run"])
    assert rc == ExitStatus.OK
    out = capsys.readouterr().out
    assert "2 I/O samples" in out and "0 errors" in out and "dry run" in out


def test_import_of_a_broken_file_names_it_and_exits_bad_input(env, tmp_path, capsys):
    bad = tmp_path / "broken.json"
    bad.write_text('{"fio version": "fio-3.33", "jobs": [ {"jobname": "x", "read": {"io_bytes": -5')
    rc = main(["import", "fio", str(bad), "--dry-run"])
    captured = capsys.readouterr()
    assert rc == ExitStatus.BAD_INPUT
    assert "broken.json" in captured.err
    assert re.search(r"\b[1-9]\d* errors", captured.out)


def test_import_of_a_missing_file_is_reported(env, tmp_path, capsys):
    rc = main(["import", "diskspd", str(tmp_path / "nope.xml"), "--dry-run"])
    assert rc == ExitStatus.BAD_INPUT
    assert "nope.xml" in capsys.readouterr().err


def test_simulate_resume_refuses_before_connecting_without_seed_and_start_or_with_a_future_start(env, capsys):
    import time

    assert main(["simulate", "--scenario", "demo", "--resume", "--start-ms", "1767225600000"]) == ExitStatus.USAGE
    err = capsys.readouterr().err
    assert "Error: --resume needs the --seed and --start-ms of the run it resumes" in err
    assert "its run id ends in -<start, UTC>-s<seed>" in err
    future = int(time.time() * 1000) + 3_600_000
    assert main(["simulate", "--scenario", "demo", "--resume", "--seed", "1", "--start-ms", str(future)]) \
        == ExitStatus.USAGE
    err = capsys.readouterr().err
    assert re.search(rf"Error: --start-ms {future} is (3599|3600) s in the future: a run that has not started has "
                     r"nothing on Kafka to resume", err), err


def test_simulate_refuses_a_run_id_prefix_with_a_slash(env, capsys):
    with pytest.raises(SystemExit) as e:
        main(["simulate", "--scenario", "demo", "--run-id-prefix", "a/b"])
    assert e.value.code == ExitStatus.USAGE
    assert "'a/b' holds a '/'" in capsys.readouterr().err
