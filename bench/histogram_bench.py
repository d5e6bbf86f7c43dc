"""Micro-benchmark of ioscale.histogram (pure Python): ns per record, per merge, per quantile.

Run: .ioscale/venv/bin/python bench/histogram_bench.py [--values N]
Java twin: stream-jobs/src/test/java/io/ioscale/histogram/LatencyHistogramBench.java (same figures).
Each figure is the best of 5 repeats (least disturbed by other load on the machine).
"""

from __future__ import annotations

import argparse
import math
import platform
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ingest" / "src"))

from ioscale.histogram import LatencyHistogram  # noqa: E402

LEVELS = [0.0, 0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999, 1.0]


def best_ns(fn: Callable[[], object], ops: int, repeats: int = 5) -> float:
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter_ns()
        fn()
        best = min(best, time.perf_counter_ns() - start)
    return best / ops


def histogram_with_buckets(target: int, seed: int) -> LatencyHistogram:
    """A lognormal histogram grown until it has `target` non-empty buckets (~1000 = a wide, real spread)."""
    rng = random.Random(seed)
    h = LatencyHistogram()
    while len(h.to_sparse().indexes) < target:
        h.record_many([int(rng.lognormvariate(math.log(300_000), 1.6)) for _ in range(2000)])
    return h


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--values", type=int, default=200_000, help="values per record benchmark")
    args = parser.parse_args()
    rng = random.Random(1)
    values = [int(rng.lognormvariate(math.log(200_000), 1.0)) for _ in range(args.values)]
    counts = [rng.randrange(1, 10) for _ in values]

    def record_loop() -> None:
        h = LatencyHistogram()
        record = h.record
        for v in values:
            record(v)

    a, b = histogram_with_buckets(1000, 2), histogram_with_buckets(1000, 3)
    merge_target = a.copy()
    rounds = 200

    def merge_loop() -> None:
        for _ in range(rounds):
            merge_target.merge(b)

    def quantile_loop() -> None:
        for _ in range(rounds):
            a.quantile(0.99)

    def quantiles_loop() -> None:
        for _ in range(rounds):
            a.quantiles(LEVELS)

    sparse = a.to_sparse()
    data = a.to_bytes()
    results = [
        ("record() loop, ns/record", best_ns(record_loop, len(values))),
        ("record_many(values), ns/record", best_ns(lambda: LatencyHistogram().record_many(values), len(values))),
        ("record_many(values, counts), ns/pair",
         best_ns(lambda: LatencyHistogram().record_many(values, counts), len(values))),
        (f"merge ({len(a.to_sparse().indexes)} + {len(b.to_sparse().indexes)} buckets), ns/merge",
         best_ns(merge_loop, rounds)),
        ("quantile(0.99), ns/call", best_ns(quantile_loop, rounds)),
        (f"quantiles({len(LEVELS)} levels), ns/call", best_ns(quantiles_loop, rounds)),
        ("to_sparse, ns/call", best_ns(lambda: [a.to_sparse() for _ in range(rounds)], rounds)),
        ("from_sparse, ns/call", best_ns(lambda: [LatencyHistogram.from_sparse(
            *sparse, sum_ns=a.sum_ns, min_ns=a.min_ns, max_ns=a.max_ns) for _ in range(rounds)], rounds)),
        (f"to_bytes ({len(data)} bytes), ns/call", best_ns(lambda: [a.to_bytes() for _ in range(rounds)], rounds)),
        ("from_bytes, ns/call", best_ns(lambda: [LatencyHistogram.from_bytes(data) for _ in range(rounds)], rounds)),
    ]
    print(f"ioscale.histogram, Python {platform.python_version()} ({platform.python_implementation()})")
    for name, ns in results:
        print(f"  {name:<48} {ns:>12,.0f}")


if __name__ == "__main__":
    main()
