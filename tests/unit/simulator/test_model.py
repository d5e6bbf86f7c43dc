"""The queueing model's guarantees (model.py docstring) and the numeric helpers the engine relies on."""

from __future__ import annotations

import random
from statistics import NormalDist

import numpy as np
import pytest

from ioscale.histogram import MAX_TRACKABLE_NS, bucket_index
from ioscale.simulator.model import (GLOBAL, STRATA_EDGES, ClassType, LatencyShape, ModelError, Station,
                                     bucket_indexes, norm_ppf, solve)


def fc_link(cap_bytes_per_s: float, block: int, variability: float = 0.05) -> list[Station]:
    # One full-duplex port: reads on rx, writes on tx.
    return [Station("rx", 1, demands={"t": (block / cap_bytes_per_s, 0.0)}, variability=variability),
            Station("tx", 1, demands={"t": (0.0, block / cap_bytes_per_s)}, variability=variability)]


@pytest.mark.parametrize("population", [1, 4, 30, 120, 1000])
def test_littles_law_is_exact(population):
    types = [ClassType("t", 4, population, 0.75, 300e-6, 320e-6)]
    stations = fc_link(800e6, 8192) + [Station("cpu", 4, demands={"t": (20e-6, 20e-6)}, variability=3.0),
                                       Station("dev", 2, group_size=1, demands={"t": (50e-6, 60e-6)})]
    c = solve(types, stations).classes["t"]
    assert c.throughput_per_s * c.latency_s == pytest.approx(population, rel=1e-12)
    assert 0.75 * c.read_latency_s + 0.25 * c.write_latency_s == pytest.approx(c.latency_s, rel=1e-12)


def test_throughput_plateaus_at_the_wire_and_latency_grows_linearly():
    xs, rs = [], []
    for n in (8, 16, 32, 64, 128, 256, 512):
        c = solve([ClassType("t", 1, n, 1.0, 200e-6)], fc_link(400e6, 8192)).classes["t"]
        xs.append(c.throughput_per_s)
        rs.append(c.latency_s)
    wire = 400e6 / 8192
    assert all(x <= wire for x in xs)
    assert xs[-1] == pytest.approx(wire, rel=0.01)
    assert all(a <= b for a, b in zip(xs, xs[1:]))            # more outstanding never lowers throughput
    assert rs[-1] / rs[-2] == pytest.approx(2.0, rel=0.02)    # beyond saturation R = N / X_max


def test_shared_station_divides_capacity_between_types():
    # Readers and writers share an adapter but use opposite link directions (seed 002's full duplex).
    types = [ClassType("r", 2, 16, 1.0, 100e-6), ClassType("w", 2, 16, 0.0, 100e-6)]
    xfer = 32768 / 800e6
    stations = [Station("rx", 1, demands={"r": (xfer, 0.0)}, variability=0.05),
                Station("tx", 1, demands={"w": (0.0, xfer)}, variability=0.05),
                Station("engine", 1, demands={"r": (23e-6, 23e-6), "w": (23e-6, 23e-6)})]
    sol = solve(types, stations)
    total = 2 * (sol.classes["r"].throughput_per_s + sol.classes["w"].throughput_per_s)
    assert total <= 1 / 23e-6
    assert sol.utilization["engine"] == pytest.approx(total * 23e-6, rel=1e-6)
    assert sol.utilization["engine"] > 0.9


def test_private_stations_do_not_interfere():
    # Two types with private devices only: each behaves as if alone.
    alone = solve([ClassType("a", 1, 8, 1.0)], [Station("dev", 1, group_size=1, demands={"a": (100e-6, 0)})])
    both = solve([ClassType("a", 3, 8, 1.0), ClassType("b", 5, 8, 1.0)],
                 [Station("dev", 1, group_size=1, demands={"a": (100e-6, 0), "b": (100e-6, 0)})])
    assert both.classes["a"].throughput_per_s == pytest.approx(alone.classes["a"].throughput_per_s, rel=1e-9)
    assert both.classes["b"].throughput_per_s == pytest.approx(alone.classes["a"].throughput_per_s, rel=1e-9)


def test_invalid_networks_are_rejected():
    with pytest.raises(ModelError, match="unknown class type"):
        solve([ClassType("a", 1, 1, 1.0)], [Station("s", 1, demands={"zz": (1e-6, 1e-6)})])
    with pytest.raises(ModelError, match="at least one server"):
        solve([ClassType("a", 1, 1, 1.0)], [Station("s", 0, demands={"a": (1e-6, 1e-6)})])
    with pytest.raises(ModelError, match="population > 0"):
        solve([ClassType("a", 1, 0, 1.0)], [Station("s", 1, group_size=GLOBAL, demands={"a": (1e-6, 1e-6)})])


def test_bucket_indexes_match_the_histogram_module():
    rng = random.Random(5)
    values = list(range(0, 2048)) + [(1 << k) + d for k in range(8, 40) for d in (-1, 0, 1)]
    values += [rng.randrange(1, MAX_TRACKABLE_NS) for _ in range(20000)]
    values += [int(10 ** rng.uniform(2, 11)) for _ in range(20000)]
    got = bucket_indexes(np.array(values, dtype=np.int64)).tolist()
    assert got == [bucket_index(v) for v in values]


def test_norm_ppf_matches_the_standard_library():
    nd = NormalDist()
    us = np.concatenate([np.linspace(1e-6, 1 - 1e-6, 2001), [1e-12, 1e-9, 1e-5, 0.02425, 0.5, 0.97575, 1 - 1e-5]])
    got = norm_ppf(us)
    want = np.array([nd.inv_cdf(float(u)) for u in us])
    centre = (us > 0.02425) & (us < 0.97575)
    assert np.max(np.abs(got - want)[centre]) < 1e-8
    assert np.max(np.abs(got - want)) < 2e-5      # Acklam without the refinement step: ppm of a latency


def test_latency_shape_keeps_the_mean():
    shape = LatencyShape(sigma_unloaded=0.3, sigma_queueing=0.3, stall_probability=1e-4, stall_median_s=5e-3,
                         stall_sigma=0.8, stall_growth=2.0)
    mean, unloaded = 1.2e-3, 0.6e-3
    sigma = shape.sigma(mean, unloaded)
    body_mean = np.exp(shape.body_log_mu(mean, unloaded) + sigma**2 / 2)
    stall_mean = shape.stall_median(mean, unloaded) * np.exp(0.8**2 / 2)
    assert (1 - 1e-4) * body_mean + 1e-4 * stall_mean == pytest.approx(mean, rel=1e-12)
    assert shape.stall_median(mean, unloaded) == pytest.approx(5e-3 * 4)   # stretch 2, squared
    assert STRATA_EDGES[0] == 0.0 and STRATA_EDGES[-1] == 1.0 and np.all(np.diff(STRATA_EDGES) > 0)
