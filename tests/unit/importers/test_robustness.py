"""Property tests: truncations and byte flips of every input never raise, and keep the valid part.

The importers are called directly (not through ``import_sources``'s last-resort guard), so a parser bug
surfaces here as an exception with its traceback. Every record that comes back must still validate against
the Avro schemas. Deterministic: seeded ``random.Random``, no extra dependency.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from ioscale.importers import IMPORTERS
from ioscale.importers.pdh import IssueBudget, bytes_lines, read_pdh

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
FIXTURES = HERE.parents[2] / "tests" / "fixtures" / "real"
NOW_MS = 1_795_219_200_000

#: (tool, file) for every real fixture and every hand-made input.
CASES = [
    ("diskspd", FIXTURES / "pkb_diskspd_result_nolatency.xml"),
    ("diskspd", FIXTURES / "diskspd_text_readwrite_70_30_vc.txt"),
    ("diskspd", FIXTURES / "diskspd_text_v2.2_multinuma_writeonly_vc.txt"),
    ("fio", FIXTURES / "pkb_fio-2.1.4_sample.json"),
    ("fio", FIXTURES / "pkb_fio-2.17_hist_run.json"),
    ("fio", FIXTURES / "vc_fio-3.26_windowsaio_randwrite.json"),
    ("fio-hist", FIXTURES / "pkb_fio-2.17_clat_hist.1.log"),
    ("fio-hist", FIXTURES / "pkb_fio-2.17_clat_hist.2.log"),
    ("diskspd", DATA / "diskspd_2.0_xml_latency_2targets_2timespans.xml"),
    ("diskspd", DATA / "diskspd_text_2targets_per_target_percentiles.txt"),
    ("fio", DATA / "fio-3.36_jsonplus_2groups.json"),
    ("fio", DATA / "fio-2.21_jsonplus_usec.json"),
    ("iometer", DATA / "iometer_1.1.0_qd_cycling.csv"),
    ("iometer", DATA / "iometer_2006.07.27_no_targets.csv"),
    ("vmfleet", DATA / "vmfleet_sweep" / "result-b4t1o32w30pr-base-vm-base-NODE2-1+vm-base-NODE2-1.xml"),
    ("perfmon", DATA / "perfmon_hyperv_host.csv"),
    ("perfmon", DATA / "perfmon_relog.tsv"),
    ("esxtop", DATA / "esxtop_batch_vmhba_vm.csv"),
]
IDS = [p.name for _, p in CASES]


def _load(path: Path) -> bytes:
    return path.read_bytes()  # committed: a missing one fails the test


def _import(tool: str, name: str, data: bytes):
    result = IMPORTERS[tool]([(name, data)], None, start_ms=None, now_ms=NOW_MS)
    assert not any("internal error" in i.reason for i in result.errors)
    return result


def _cuts(n: int, rng: random.Random, k: int = 30) -> list[int]:
    return sorted({0, 1, n // 2, n - 1, n} | {rng.randrange(n + 1) for _ in range(k)})


@pytest.mark.parametrize("tool,path", CASES, ids=IDS)
def test_truncations_never_raise_and_stay_schema_valid(kit, tool, path):
    data = _load(path)
    rng = random.Random(path.name)
    for cut in _cuts(len(data), rng):
        result = _import(tool, path.name, data[:cut])
        kit.assert_schema_valid(result)
    full = _import(tool, path.name, data)
    assert full.io_samples and not full.has_errors


@pytest.mark.parametrize("tool,path", CASES, ids=IDS)
def test_byte_flips_never_raise_and_stay_schema_valid(kit, tool, path):
    data = _load(path)
    rng = random.Random("flip" + path.name)
    for _ in range(40):
        mutated = bytearray(data)
        for _ in range(rng.choice((1, 1, 2, 8))):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        kit.assert_schema_valid(_import(tool, path.name, bytes(mutated)))


TOKENS = [b"-1", b"NaN", b"1e999", b"", b"-0.5", b"99999999999999999999999", b"\x00", b"\xff\xfe",
          b"<", b"{", b"'", b",", b"\n"]


@pytest.mark.parametrize("tool,path", CASES, ids=IDS)
def test_number_replacements_never_raise(kit, tool, path):
    """Replace random numbers in the file with hostile tokens (negative, NaN, overflow, separators)."""
    data = _load(path)
    rng = random.Random("tok" + path.name)
    spans = [m.span() for m in re.finditer(rb"-?\d+(?:\.\d+)?", data)]
    for _ in range(40):
        a, b = rng.choice(spans)
        mutated = data[:a] + rng.choice(TOKENS) + data[b:]
        kit.assert_schema_valid(_import(tool, path.name, mutated))


# --- "the valid part is still returned" ------------------------------------------------------------------


def test_hist_log_prefix_keeps_every_complete_line():
    data = _load(FIXTURES / "pkb_fio-2.17_clat_hist.2.log")
    ends = [i for i, b in enumerate(data) if b == ord("\n")]
    full = _import("fio-hist", "x_clat_hist.2.log", data)
    rng = random.Random(7)
    for cut in _cuts(len(data), rng, 40):
        complete = sum(1 for e in ends if e <= cut)          # lines whose text lies within the prefix
        got = _import("fio-hist", "x_clat_hist.2.log", data[:cut]).io_samples
        assert complete <= len(got) <= complete + 1          # +1: a cut inside the last bin of a line
        assert [s["ops"] for s in got[:complete]] == [s["ops"] for s in full.io_samples[:complete]]


def test_hist_log_flip_in_bins_loses_at_most_that_line():
    data = _load(FIXTURES / "pkb_fio-2.17_clat_hist.1.log")
    lines = data.split(b"\n")
    rng = random.Random(8)
    for _ in range(40):
        k = rng.randrange(len(lines) - 1)
        line = bytearray(lines[k])
        head = line.index(b",", line.index(b",", line.index(b",") + 1) + 1)   # after time, ddir, bs
        line[rng.randrange(head + 1, len(line))] = rng.randrange(256)
        mutated = b"\n".join(lines[:k] + [bytes(line)] + lines[k + 1:])
        got = _import("fio-hist", "x_clat_hist.1.log", mutated).io_samples
        assert len(got) >= len(lines) - 2                    # 9 lines (+ trailing ''), at most one lost


def _job_ends(text: str) -> list[int]:
    dec = json.JSONDecoder()
    pos = text.index("[", text.index('"jobs"')) + 1
    ends = []
    while True:
        while text[pos] in " \t\r\n,":
            pos += 1
        if text[pos] != "{":
            return ends
        _, pos = dec.raw_decode(text, pos)
        ends.append(pos)


@pytest.mark.parametrize("name", ["pkb_fio-2.1.4_sample.json", "fio-3.36_jsonplus_2groups.json"])
def test_fio_prefix_keeps_every_complete_job(name):
    path = FIXTURES / name if name.startswith("pkb") else DATA / name
    data = _load(path)
    text = data.decode()
    ends = _job_ends(text)
    full = _import("fio", name, data).io_samples
    per_job = [sum(1 for s in full if s["tags"]["fio_job"] == j and s["tags"]["fio_groupid"] == g)
               for j, g in dict.fromkeys((s["tags"]["fio_job"], s["tags"]["fio_groupid"]) for s in full)]
    rng = random.Random(9)
    for cut in _cuts(len(data), rng, 40):
        done = sum(1 for e in ends if e <= cut)
        want = full[:sum(per_job[:done])] if len(per_job) == len(ends) else full[:done]
        got = _import("fio", name, data[:cut]).io_samples
        assert [(s["target"], s["direction"], s["ops"], s["bytes"]) for s in got[:len(want)]] == \
               [(s["target"], s["direction"], s["ops"], s["bytes"]) for s in want]


def test_diskspd_xml_prefix_ops_grow_monotonically():
    data = _load(DATA / "diskspd_2.0_xml_latency_2targets_2timespans.xml")
    total = sum(s["ops"] for s in _import("diskspd", "x.xml", data).io_samples)
    prev = 0
    for cut in range(0, len(data) + 1, 997):
        ops = sum(s["ops"] for s in _import("diskspd", "x.xml", data[:cut]).io_samples)
        assert prev <= ops <= total
        prev = ops
    assert sum(s["ops"] for s in _import("diskspd", "x.xml", data).io_samples) == total


def test_iometer_prefix_keeps_complete_blocks():
    data = _load(DATA / "iometer_1.1.0_qd_cycling.csv")
    text = data.decode()
    first_end = text.index("'Time Stamp", text.index("DISK,F: data2")) + len("'Time Stamp\n2019-05-02 10:01:05:500\n")
    for cut in range(first_end, len(data) + 1, 389):
        got = _import("iometer", "x.csv", data[:cut]).io_samples
        assert len([s for s in got if s["step_index"] == 0]) == 4


def test_vmfleet_one_broken_file_does_not_affect_the_other_vms(kit):
    files = sorted((DATA / "vmfleet_sweep").iterdir())
    sources = [(p.name, p.read_bytes()) for p in files]
    full = IMPORTERS["vmfleet"](sources, None, start_ms=None, now_ms=NOW_MS)
    broken = list(sources)
    broken[0] = (broken[0][0], broken[0][1][: len(broken[0][1]) // 3])
    got = IMPORTERS["vmfleet"](broken, None, start_ms=None, now_ms=NOW_MS)
    kit.assert_schema_valid(got)
    victim = "vm-base-NODE1-1"
    keep = lambda r: sorted((s["step_index"], s["vm"], s["direction"], s["ops"], s["percentile_ns"][-1])  # noqa: E731
                            for s in r.io_samples if not (s["vm"] == victim and s["step_index"] == 0))
    assert keep(got) == keep(full)
    assert any("truncated" in i.reason for i in got.errors)


@pytest.mark.parametrize("tool,name", [("esxtop", "esxtop_batch_vmhba_vm.csv"), ("perfmon", "perfmon_hyperv_host.csv"),
                                       ("perfmon", "perfmon_relog.tsv")])
def test_counter_log_prefix_keeps_every_complete_row(tool, name):
    """A log cut anywhere (a collector still writing it) yields exactly the samples of its complete rows."""
    data = _load(DATA / name)
    full = _import(tool, name, data)
    samples = lambda r: [(s["run_id"][len(r.run_id):], s["ts_ms"], s["interval_ms"], s.get("target", s.get("port_id")),  # noqa: E731
                          s.get("cpu"), s.get("ops", s.get("rx_bytes", s.get("utilization_pct"))))
                         for s in r.io_samples + r.cpu_samples + r.port_samples]
    row_ends = [i + 1 for i, b in enumerate(data) if b == ord("\n")][1:]      # after the header line
    _, rows = read_pdh(bytes_lines(data), IssueBudget(name, []))
    row_times = [row.ts_ms for row in rows]                                  # typeperf's trailer lines are no rows
    rng = random.Random("prefix" + name)
    for cut in _cuts(len(data), rng, 40):
        complete = min(sum(1 for e in row_ends if e <= cut), len(row_times))
        got = _import(tool, name, data[:cut])
        # Rows 1 and 2 come together (row 1 needs row 2's gap); then each row adds the interval it ends. A cut
        # inside the last cell leaves a row of full width (its last column, unmapped here, cut short): read too.
        wants = [[x for x in samples(full) if n >= 2 and x[1] + x[2] <= row_times[n - 1]]
                 for n in (complete, min(complete + 1, len(row_times)))]
        assert samples(got) in wants, cut
