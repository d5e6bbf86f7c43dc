"""Property tests for the iperf3 importer, as test_robustness.py does for the others: truncations, byte flips and
hostile numbers never raise, every record stays schema-valid, and a cut file keeps its complete intervals.

The importer is called directly (not through ``import_sources``'s last-resort guard), so a parser bug surfaces here
with its traceback. Deterministic: seeded ``random.Random``.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from ioscale.importers import IMPORTERS

REPO = Path(__file__).resolve().parents[3]
REAL = REPO / "tests" / "fixtures" / "real"
RECORDED = REPO / "tests" / "fixtures" / "recorded" / "iperf3"
#: After the 2026-11-28 recordings.
NOW_MS = 1_900_000_000_000

CASES = [
    REAL / "iperf3-3.0.11_tcp_1stream_thiezn.json",
    REAL / "iperf3-3.6_tcp_P4_ekfoury.json",
    REAL / "iperf3-3.14_udp_reverse_client_opte.json",
    REAL / "iperf3-3.14_tcp_macos_client_opte.json",
    RECORDED / "tcp_bidir_p2_client.json",
    RECORDED / "udp_p2_server.json",
    RECORDED / "tcp_omit1_client.json",
    RECORDED / "tcp_server_output_client.json",
    RECORDED / "server_log_2tests.json",
]
IDS = [p.name for p in CASES]
TOKENS = [b"-1", b"NaN", b"1e999", b"", b"-0.5", b"99999999999999999999999", b"\x00", b"\xff\xfe", b"{", b"'",
          b",", b"\n", b"true", b"null", b"[]"]


def _import(name: str, data: bytes):
    result = IMPORTERS["iperf3"]([(name, data)], None, start_ms=None, now_ms=NOW_MS)
    assert not any("internal error" in i.reason for i in result.errors)
    return result


def _cuts(n: int, rng: random.Random, k: int = 30) -> list[int]:
    return sorted({0, 1, n // 2, n - 1, n} | {rng.randrange(n + 1) for _ in range(k)})


@pytest.mark.parametrize("path", CASES, ids=IDS)
def test_truncations_never_raise_and_stay_schema_valid(kit, path):
    data = path.read_bytes()
    rng = random.Random(path.name)
    for cut in _cuts(len(data), rng):
        kit.assert_schema_valid(_import(path.name, data[:cut]))
    full = _import(path.name, data)
    assert full.port_samples and not full.has_errors


@pytest.mark.parametrize("path", CASES, ids=IDS)
def test_byte_flips_never_raise_and_stay_schema_valid(kit, path):
    data = path.read_bytes()
    rng = random.Random("flip" + path.name)
    for _ in range(40):
        mutated = bytearray(data)
        for _ in range(rng.choice((1, 1, 2, 8))):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        kit.assert_schema_valid(_import(path.name, bytes(mutated)))


@pytest.mark.parametrize("path", CASES, ids=IDS)
def test_number_replacements_never_raise(kit, path):
    data = path.read_bytes()
    rng = random.Random("tok" + path.name)
    spans = [m.span() for m in re.finditer(rb"-?\d+(?:\.\d+)?(?:e[+-]\d+)?", data)]
    for _ in range(40):
        a, b = rng.choice(spans)
        result = _import(path.name, data[:a] + rng.choice(TOKENS) + data[b:])
        kit.assert_schema_valid(result)
        assert all(s["tx_bytes"] >= 0 and s["rx_bytes"] >= 0 and s["interval_ms"] >= 0 for s in result.port_samples)


def test_a_prefix_keeps_exactly_the_complete_intervals():
    path = REAL / "iperf3-3.6_tcp_P4_ekfoury.json"
    data = path.read_bytes()
    full = [s for s in _import(path.name, data).port_samples if s["queue"] == -1]
    # an interval object is complete once the "sum" that closes it is followed by its closing brace
    ends = [m.end() for m in re.finditer(rb'"omitted":\tfalse\n\t\t\t}\n\t\t}', data)]
    assert len(ends) == 60
    rng = random.Random(11)
    for cut in _cuts(len(data), rng, 40):
        done = sum(1 for e in ends if e <= cut)
        got = [s for s in _import(path.name, data[:cut]).port_samples if s["queue"] == -1]
        assert [(s["ts_ms"], s["tx_bytes"]) for s in got] == [(s["ts_ms"], s["tx_bytes"]) for s in full[:done]]


def test_a_bad_stream_loses_that_stream_only(kit):
    path = REAL / "iperf3-3.6_tcp_P4_ekfoury.json"
    data = path.read_bytes().replace(b'"bytes":\t530750368', b'"bytes":\t-530750368', 1)
    r = _import(path.name, data)
    kit.assert_schema_valid(r)
    assert [str(i) for i in r.errors if i.severity == "error"] == [
        f"error: {path.name} [intervals[0].streams[1].bytes]: negative count: -530750368"]
    assert len([s for s in r.port_samples if s["queue"] >= 0]) == 60 * 4 - 1
    first = [s for s in r.port_samples if s["queue"] == -1][0]
    assert first["tx_bytes"] == 2_123_002_224 - 530_750_368  # the whole port sums what was readable
