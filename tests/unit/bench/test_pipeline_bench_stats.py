"""The freshness bench's per-sample percentile: nearest rank over weighted values, like its per-second `pct`."""

from __future__ import annotations

import importlib.util
import math
import random
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "pipeline_bench", Path(__file__).resolve().parents[3] / "bench" / "pipeline_bench.py")
pipeline_bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pipeline_bench)


def test_weighted_percentile_equals_the_percentile_of_the_expanded_values():
    rng = random.Random(7)
    for _ in range(200):
        pairs = [(round(rng.uniform(0, 3), 2), rng.randint(1, 50)) for _ in range(rng.randint(1, 30))]
        expanded = [v for v, w in pairs for _ in range(w)]
        for q in (0.5, 0.9, 0.99):
            assert pipeline_bench.weighted_pct(pairs, q) == pipeline_bench.pct(expanded, q)


def test_one_slow_second_of_a_hundred_is_above_p99_only_when_it_holds_more_than_one_percent():
    # 10k samples a second: a second whose last 50 samples are late moves the per-second p99, not the per-sample one.
    fast = [(0.5, 10_000)] * 99 + [(0.5, 9_950)]
    assert pipeline_bench.weighted_pct(fast + [(2.5, 50)], 0.99) == 0.5
    # Two whole slow seconds of 102 are ~2 % of the samples: above p99.
    assert pipeline_bench.weighted_pct(fast + [(2.5, 50), (2.5, 20_000)], 0.99) == 2.5
    # Samples never seen count as the slowest.
    assert pipeline_bench.weighted_pct([(0.5, 98), (math.inf, 2)], 0.99) == math.inf


def test_no_weight_is_an_error():
    with pytest.raises(ValueError):
        pipeline_bench.weighted_pct([], 0.5)


def test_the_headline_line_has_the_issues_form_and_counts_an_incomplete_path_as_zero() -> None:
    cpu = {"cpu_us_clickhouse": 129.4, "cpu_us_flink": 58.2, "cpu_us_kafka": 4.6}
    line = pipeline_bench.headline(184_374.0, {"raw": 7_596.0, "source_1s": 11_937.0, "fleet_1s": 11_061.0, **cpu})
    assert line == ("end-to-end ratio to kafka: 0.04 (stack: 7,596 samples/s zero-loss; kafka: 184,374/s; "
                    "stack CPU per sample: 192 us = clickhouse 129 + flink 58 + kafka 5)")
    assert pipeline_bench.headline(1000.0, {"raw": 900.0, **cpu}).startswith(
        "end-to-end ratio to kafka: 0.00 (stack: 0 samples/s zero-loss;")
