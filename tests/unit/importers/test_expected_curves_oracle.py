"""tests/fixtures/real/expected_curves.json (worked out by hand) against devtools/expected_curves.py (the oracle).

The two were produced independently from the same real sweep files; agreeing, they give analysis tests curves
that neither ioscale nor its tests made up.
"""

from __future__ import annotations

import json

import expected_curves  # devtools/, on pytest's pythonpath
import pytest
from independence import ioscale_imports

EXPECTED = json.loads(expected_curves.EXPECTED.read_text(encoding="utf-8"))
SWEEPS = {s["id"]: s for s in EXPECTED["sweeps"]}


def test_hand_figures_equal_the_oracle():
    assert expected_curves.disagreements(EXPECTED, expected_curves.compute()) == []
    assert expected_curves.main(["--check"]) == 0


def test_oracle_does_not_use_the_code_under_test():
    assert ioscale_imports(expected_curves) == set()


def test_every_file_of_a_sweep_is_one_step_with_its_source_record():
    assert set(SWEEPS) == {s.id for s in expected_curves.SWEEPS}
    for sweep in EXPECTED["sweeps"]:
        folder = expected_curves.REAL / sweep["dir"]
        files = sorted(p.name for p in folder.glob("*.json"))
        assert sorted(step["file"] for step in sweep["steps"]) == files, sweep["id"]
        for name in files:
            assert (folder / f"{name}.source.txt").is_file(), f"{sweep['dir']}/{name}"
        assert (expected_curves.REAL / sweep["source"]["licence_file"]).is_file(), sweep["id"]
        loads = [step["load"] for step in sweep["steps"]]
        assert loads == sorted(loads) and len(set(loads)) == len(loads), sweep["id"]


@pytest.mark.parametrize("sweep_id, load, gain_pct, rise_pct", [
    # MX200 16 -> 32: 47336.277729 / 47422.542958 = 0.99818 (-0.18 %); clat 670900.08 / 331395.79 ns = 2.0245
    ("fio_fioplot_mx200_randread_qd", 32, -0.18, 102.45),
    # D3-S4610 16 -> 32 jobs: 52755.104082 / 52773.403777 = 0.99965; clat 597699.62 / 293189.63 ns = 2.0386
    ("fio_fioplot_d3s4610_randread_numjobs", 32, -0.03, 103.86),
    # HGST 1 -> 2: 59.83205 / 58.581449 = 1.02135; clat 33331559.83 / 16978535.90 ns = 1.9632
    ("fio_fioplot_hgst7k2_randread_qd", 2, 2.13, 96.32),
])
def test_saturation_step_and_its_figures(sweep_id, load, gain_pct, rise_pct):
    sat = SWEEPS[sweep_id]["saturation"]
    assert (sat["load"], sat["iops_gain_pct"], sat["latency_rise_pct"]) == (load, gain_pct, rise_pct)


def test_a_big_gain_at_a_latency_jump_is_not_saturation():
    # MX200 2 -> 4: +14.76 % IOPS at +80.54 % clat, the rule's IOPS condition fails
    steps = SWEEPS["fio_fioplot_mx200_randread_qd"]["steps"]
    assert [s["load"] for s in steps[1:3]] == [2, 4]
    assert expected_curves.saturation(steps[1:3]) is None


@pytest.mark.parametrize("iops, clat, saturated", [
    ((100.0, 109.0), (1.0, 1.21), True),    # gain 9 %, latency up 21 %: saturation
    ((100.0, 110.0), (1.0, 2.0), False),    # gain of (just over) 10 % is not below 10 %
    ((100.0, 100.0), (1.0, 1.19), False),   # flat IOPS but latency up only 19 %
])
def test_rule_boundaries(iops, clat, saturated):
    steps = [{"load": i + 1, "file": f"s{i}", "iops": n, "clat_mean_ms": c} for i, (n, c) in enumerate(zip(iops, clat))]
    assert (expected_curves.saturation(steps) is not None) is saturated


def test_a_fio2_file_is_refused_rather_than_misread(tmp_path):
    # fio 2.x printed io_bytes in KiB (no io_kbytes next to it): reading it as bytes would be 1024x off
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "p.json").write_text(json.dumps({"jobs": [{"job options": {"iodepth": "1"}, "read": {
        "iops": 1.0, "io_bytes": 4, "runtime": 1000, "total_ios": 1, "lat": {"mean": 1.0}, "clat": {"mean": 1.0}}}]}))
    with pytest.raises(ValueError, match="not a fio 3"):
        expected_curves.curve(expected_curves.Sweep("s", "fio", "s", "iodepth", "read"), tmp_path)
