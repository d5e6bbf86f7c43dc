"""The analytics job's settings file: validation, persistence, and the job arguments it becomes."""

from __future__ import annotations

import pytest

from ioscale.cli import main
from ioscale.errors import ConfigError
from ioscale.provision import analytics_config as ac


@pytest.mark.parametrize("spec", ["p99.999 < 2 ms", "p99 < 500us; mean <= 1ms", "max<1s", "P50 < 0.5 ms",
                                  "p99.9 <= 1e3 us, p99.99 < 2ms", "none", "NONE"])
def test_valid_objectives_pass(spec):
    ac.check("slo", spec)


@pytest.mark.parametrize("spec, reason", [
    ("p99.999 > 2 ms", "is not"),           # objectives are upper bounds
    ("p99 < 2", "is not"),                  # unit missing
    ("p99 < 2 hours", "is not"),
    ("p100 < 2 ms", "not in (0, 100)"),
    ("p0 < 2 ms", "not in (0, 100)"),
    ("p99 < 0 ms", "must be > 0"),
    ("p99 < 1 ms,", "is not"),              # empty objective after a separator
    ("latency < 1 ms", "is not"),
])
def test_invalid_objectives_name_the_objective_and_reason(spec, reason):
    with pytest.raises(ConfigError, match="analytics setting slo") as e:
        ac.check("slo", spec)
    assert reason in str(e.value)


@pytest.mark.parametrize("key, value", [("allowed-lateness", "30"), ("allowed-lateness", "-1 s"),
                                        ("load-axis", "iops"), ("parallelism", "-1"), ("parallelism", "two"),
                                        ("saturation", "port-utilization-pct"), ("nonsense", "1")])
def test_other_bad_values_are_refused(key, value):
    with pytest.raises(ConfigError, match=key):
        ac.check(key, value)


def test_save_load_round_trip_in_a_stable_order(tmp_path):
    values = {"parallelism": "1", "slo": "p99.999 < 2 ms", "saturation": "port-utilization-pct=90, cpu-utilization-pct=85"}
    ac.save(tmp_path, values)
    assert ac.load(tmp_path) == values
    assert ac.program_args(ac.load(tmp_path)) == (
        "--slo", "p99.999 < 2 ms", "--saturation", "port-utilization-pct=90, cpu-utilization-pct=85",
        "--parallelism", "1")
    assert ac.load(tmp_path / "missing") == {} and ac.program_args({}) == ()


def test_a_hand_edited_file_with_an_error_names_file_and_line(tmp_path):
    (tmp_path / "analytics.conf").write_text("# mine\nslo = p99 < 1 ms\n\nload-axis = bogus\n")
    with pytest.raises(ConfigError, match=r"analytics.conf:4: analytics setting load-axis"):
        ac.load(tmp_path)


def test_cli_sets_shows_and_unsets(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("IOSCALE_HOME", str(tmp_path))
    assert main(["config", "slo=p99 < 1 ms, p99.999 < 2 ms", "load-axis=vm-count"]) == 0
    assert ac.load(tmp_path) == {"slo": "p99 < 1 ms, p99.999 < 2 ms", "load-axis": "vm-count"}
    assert main(["config", "--unset", "load-axis"]) == 0
    assert ac.load(tmp_path) == {"slo": "p99 < 1 ms, p99.999 < 2 ms"}
    out = capsys.readouterr().out
    assert "load-axis            (job default)" in out
    # a bad value changes nothing and says why
    assert main(["config", "slo=p99 > 1 ms"]) == int(ConfigError.exit_status)
    assert ac.load(tmp_path) == {"slo": "p99 < 1 ms, p99.999 < 2 ms"}
    assert "analytics setting slo" in capsys.readouterr().err
