"""Random Avro records for the encoder tests: fixed seeds, edge values mixed in (see the test modules)."""

from __future__ import annotations

import math
import random
from typing import Any

SCHEMA_ID = 0x01020304

STRINGS = ["", "a", "sim-s2d-vmfleet-320-4k-20260101T000000Z-s1", "host3", "Intel 82598 #2", "naïve",
           "日本語のディスク", "emoji 🚀 disk", "nul\x00inside", "x" * 300, "\u0301combining", "tab\tnew\nline"]
EDGE_INTS = [0, 1, -1, 63, 64, -64, -65, 127, 128, 8191, 8192, -8192, -8193, 2**31 - 1, -2**31, 2**31,
             2**53 + 1, 2**62, 2**63 - 1, -2**63, -2**63 + 1]
EDGE_DOUBLES = [0.0, -0.0, 1.5, -2.25, 1e-310, 5e-324, 1.7976931348623157e308, math.inf, -math.inf, math.nan,
                0.1 + 0.2, 99.99999999999999]


def rand_int(rng: random.Random, kind: str) -> int:
    r = rng.random()
    if r < 0.3:
        return rng.choice(EDGE_INTS if kind == "long" else [v for v in EDGE_INTS if -2**31 <= v < 2**31])
    if r < 0.6:
        return rng.randint(-300, 300)
    if kind == "int":
        return rng.randint(-2**31, 2**31 - 1)
    return rng.randint(-2**63, 2**63 - 1) if r < 0.8 else rng.randint(0, 10**12)


def rand_double(rng: random.Random) -> float:
    r = rng.random()
    if r < 0.3:
        return rng.choice(EDGE_DOUBLES)
    return rng.uniform(-1e6, 1e6) if r < 0.8 else rng.random() * 10 ** rng.randint(-300, 300)


def rand_string(rng: random.Random) -> str:
    if rng.random() < 0.7:
        return rng.choice(STRINGS)
    return "".join(chr(rng.choice([rng.randint(32, 126), rng.randint(0xA0, 0xD7FF), rng.randint(0xE000, 0x10FFFF)]))
                   for _ in range(rng.randint(0, 20)))


def rand_value(rng: random.Random, t: Any) -> Any:
    if isinstance(t, list):  # union with null
        other = [x for x in t if x != "null"][0]
        return None if rng.random() < 0.4 else rand_value(rng, other)
    if isinstance(t, dict):
        tt = t["type"]
        if tt == "enum":
            return rng.choice(t["symbols"])
        if tt == "array":
            n = rng.choice([0, 0, 1, 2, rng.randint(3, 40), rng.randint(100, 400)])
            return [rand_value(rng, t["items"]) for _ in range(n)]
        if tt == "map":
            return {} if rng.random() < 0.6 else {rand_string(rng): rand_string(rng) for _ in range(rng.randint(1, 4))}
        return rand_value(rng, tt)
    if t in ("int", "long"):
        return rand_int(rng, t)
    if t == "double":
        return rand_double(rng)
    if t == "string":
        return rand_string(rng)
    raise AssertionError(t)


def rand_records(rng: random.Random, schema: dict, n: int) -> list[dict[str, Any]]:
    return [{f["name"]: rand_value(rng, f["type"]) for f in schema["fields"]} for _ in range(n)]


def same(a: Any, b: Any) -> bool:
    """Equality with NaN equal to NaN and -0.0 told apart from 0.0 (the bytes differ)."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b
