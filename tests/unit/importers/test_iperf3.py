"""iperf3 JSON importer on real files (tests/fixtures/real/iperf3-*) and on the 3.12 recordings made over 127.0.0.1
(tests/fixtures/recorded/iperf3): figures are checked against the files' own numbers, read here with the standard
library, and against hand-added literals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ioscale.importers import import_runs
from ioscale.importers.common import Issues
from ioscale.importers.iperf3 import apply_link_speed, parse_link_speed, read_documents

REPO = Path(__file__).resolve().parents[3]
REAL = REPO / "tests" / "fixtures" / "real"
RECORDED = REPO / "tests" / "fixtures" / "recorded" / "iperf3"
#: The recordings were made on 2026-11-28, after the importer kit's fixed "now": a later one for them.
LATER_MS = 1_900_000_000_000

P4 = "iperf3-3.6_tcp_P4_ekfoury.json"
OLD = "iperf3-3.0.11_tcp_1stream_thiezn.json"
UDP_R = "iperf3-3.14_udp_reverse_client_opte.json"
MACOS = "iperf3-3.14_tcp_macos_client_opte.json"


def _doc(path: Path) -> dict:
    return json.loads(path.read_text())


def _whole(result) -> list[dict]:
    return [s for s in result.port_samples if s["queue"] == -1]


def _streams(result) -> list[dict]:
    return [s for s in result.port_samples if s["queue"] >= 0]


def _measured(samples: list[dict]) -> list[dict]:
    return [s for s in samples if s["tags"].get("omitted") != "true"]


def _steps(result, kind: str = "STEP_ENDED") -> list[dict]:
    return [e for e in result.run_events if e["event_type"] == kind]


# --- real files -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [P4, OLD, UDP_R, MACOS])
def test_every_interval_and_stream_is_one_sample_and_the_streams_add_up_to_iperf3s_sum(kit, name):
    doc = _doc(REAL / name)
    r = kit.run("iperf3", REAL / name)
    assert not r.errors
    kit.assert_schema_valid(r)
    n_streams = len(doc["intervals"][0]["streams"])
    assert len(_streams(r)) == len(doc["intervals"]) * n_streams
    assert len(_whole(r)) == len(doc["intervals"])
    for interval, row in zip(doc["intervals"], _whole(r)):
        line = interval["sum"]
        assert row["tx_bytes"] + row["rx_bytes"] == line["bytes"] == sum(s["bytes"] for s in interval["streams"])
        # bits/s over the sum line's own seconds is iperf3's figure: the bytes are the same bytes
        assert row["tx_bytes"] + row["rx_bytes"] == pytest.approx(line["bits_per_second"] * line["seconds"] / 8,
                                                                  rel=1e-5)
    assert {s["kind"] for s in r.port_samples} == {"NIC"} and {s["link_speed_bps"] for s in r.port_samples} == {0}


def test_p4_file_figures(kit):
    r = kit.run("iperf3", REAL / P4)
    rows = _whole(r)
    # interval 0, by hand: 530881440 + 530750368 + 530685208 + 530685208
    assert rows[0]["tx_bytes"] == 2_123_002_224 and rows[0]["rx_bytes"] == 0
    assert rows[0]["ts_ms"] == 1_550_506_570_000 and rows[0]["interval_ms"] == 1000
    assert [s["tx_bytes"] for s in _streams(r)[:4]] == [530_881_440, 530_750_368, 530_685_208, 530_685_208]
    assert [s["queue"] for s in _streams(r)[:4]] == [0, 1, 2, 3]
    assert [s["tags"]["iperf3_socket"] for s in _streams(r)[:4]] == ["13", "15", "17", "19"]
    assert sum(s["tx_bytes"] for s in rows) == _doc(REAL / P4)["end"]["sum_sent"]["bytes"] == 131_590_680_944
    # retransmits: sockets 17 and 19 in interval 51, one each, = end.sum_sent.retransmits
    per_stream = sum(int(s["tags"].get("retransmits", 0)) for s in _streams(r))
    assert per_stream == sum(int(s["tags"]["retransmits"]) for s in rows) == 2
    assert [(s["ts_ms"] - 1_550_506_570_000, s["tags"]["iperf3_socket"]) for s in _streams(r)
            if s["tags"]["retransmits"] != "0"] == [(51_001, "17"), (51_001, "19")]  # starts 51.00071 and 51.00077 s
    s0 = _streams(r)[0]["tags"]
    assert (s0["rtt_us"], s0["rttvar_us"], s0["snd_cwnd_bytes"], s0["pmtu_bytes"]) == ("45", "45", "7014112", "1500")
    assert s0["bits_per_second"] == "4245892436.910109" and s0["direction"] == "tx"
    assert {s["host"] for s in r.port_samples} == {"mininet-pc"} and {s["port_id"] for s in r.port_samples} == {
        "10.0.0.1"}
    (step,) = _steps(r)
    assert step["load"]["workers_per_target"] == 4 and step["load"]["block_size_bytes"] == 131072
    assert step["load"]["read_pct"] == 0.0 and step["load"]["adapter"] == "iperf3 TCP"
    assert step["start_ms"] == 1_550_506_570_000 and step["end_ms"] == 1_550_506_630_002
    assert step["step_label"] == "TCP 4 streams"
    t = step["tags"]
    assert t["iperf3_client_cpu_total_pct"] == "49.70591834351505"
    assert t["iperf3_server_cpu_total_pct"] == "37.843069314427936"
    assert t["iperf3_client_sum_sent_retransmits"] == "2" and t["iperf3_client_sum_sent_bytes"] == "131590680944"


def test_old_file_has_no_sender_flags_so_a_client_sends(kit):
    r = kit.run("iperf3", REAL / OLD)
    assert not r.errors
    rows = _whole(r)
    assert [s["tx_bytes"] for s in rows][:2] == [118_766_408, 117_548_640] and {s["rx_bytes"] for s in rows} == {0}
    assert sum(s["tx_bytes"] for s in rows) == 1_520_994_808
    assert _streams(r)[0]["tags"]["bits_per_second"] == "950062000"  # printed 9.50062e+08
    assert {s["host"] for s in r.port_samples} == {"rhowelllx"}
    step = _steps(r)[0]
    assert step["tags"]["iperf3_client_cpu_total_pct"] == "1.66812"
    assert step["tags"]["iperf3_server_cpu_user_pct"] == "0.156562"
    assert (step["end_ms"] - step["start_ms"]) == 13_000


def test_udp_reverse_client_receives_datagrams_with_jitter_and_loss(kit):
    r = kit.run("iperf3", REAL / UDP_R)
    assert not r.errors
    rows = _whole(r)
    doc = _doc(REAL / UDP_R)
    assert {s["tx_bytes"] for s in rows} == {0}
    assert sum(s["rx_bytes"] for s in rows) == doc["end"]["sum_received"]["bytes"] == 44_048_160
    # received datagrams = packets - lost: 30421 - 1; each carries blksize 1448 bytes
    assert sum(s["rx_frames"] for s in rows) == 30_420 and 30_420 * 1448 == 44_048_160
    assert sum(int(s["tags"]["lost_packets"]) for s in _streams(r)) == doc["end"]["sum_received"]["lost_packets"] == 1
    first = _streams(r)[0]["tags"]
    assert (first["jitter_ms"], first["lost_percent"], first["direction"]) == ("0.33695417070836736",
                                                                               "0.0397456279809221", "rx")
    assert rows[0]["tags"]["rx_jitter_ms"] == "0.33695417070836736"
    step = _steps(r)[0]
    assert step["load"]["read_pct"] == 100.0 and step["load"]["adapter"] == "iperf3 UDP"
    assert step["load"]["config_labels"]["target_bitrate_bps"] == "32299999"
    assert step["load"]["config_labels"]["direction"] == "server->client"
    assert step["step_label"] == "UDP -R 1 stream -b 32.3M"
    assert {s["host"] for s in r.port_samples} == {"KyleOxide.local"}


def test_macos_sender_has_no_retransmit_figures(kit):
    r = kit.run("iperf3", REAL / MACOS)
    assert not r.errors
    assert sum(s["tx_bytes"] for s in _whole(r)) == 255_966_968
    assert not any("retransmits" in s["tags"] or "rtt_us" in s["tags"] for s in r.port_samples)


def test_files_of_a_sweep_are_one_run_per_sweep_along_the_streams(kit):
    # Three separate real tests, by time: 1 stream (2017), 4 streams (2019), 1 stream again (2023). One run steps
    # 1 -> 4 streams; the second 1-stream test repeats a load point, so it is a run of its own, with a warning.
    runs = import_runs("iperf3", [REAL / OLD, REAL / P4, REAL / MACOS], now_ms=kit.NOW_MS)
    assert [(r.sweep_axis, r.sweep_points, r.sweep) for r in runs] == [("numjobs", ["1", "4"], ""),
                                                                         ("numjobs", ["1"], "repetition 2")]
    assert [len(r.port_samples) for r in runs] == [26 + 300, 20]
    assert [{s["host"] for s in r.port_samples} for r in runs] == [{"rhowelllx", "mininet-pc"}, {"KyleOxide.local"}]
    assert "load points along numjobs repeat" in runs[0].errors[0].reason
    assert [e["load"]["workers_per_target"] for e in _steps(runs[0])] == [1, 4]


# --- 3.12 recordings --------------------------------------------------------------------------------------


def rec(name: str) -> Path:
    path = RECORDED / name
    assert path.is_file(), f"recorded fixture {name} missing"
    return path


def test_client_and_server_of_one_test_are_one_step_with_both_sides(kit):
    r = kit.run("iperf3", rec("tcp_p2_client.json"), rec("tcp_p2_server.json"), now_ms=LATER_MS)
    assert not r.errors
    kit.assert_schema_valid(r)
    (step,) = _steps(r)
    assert step["tags"]["iperf3_sides"] == "client,server"
    client, server = _doc(rec("tcp_p2_client.json")), _doc(rec("tcp_p2_server.json"))
    rows = _whole(r)
    sent = sum(s["tx_bytes"] for s in rows if s["tags"]["iperf3_role"] == "client")
    received = sum(s["rx_bytes"] for s in rows if s["tags"]["iperf3_role"] == "server")
    assert sent == client["end"]["sum_sent"]["bytes"] and received == server["end"]["sum_received"]["bytes"]
    assert len(_streams(r)) == 2 * 3 * 2  # 2 sides x 3 intervals x 2 streams
    # Both sides ran on host "vm" over 127.0.0.1: one port each, one whole-port row per interval, so a port's rate
    # (bytes over the rows' summed intervals, as port_utilization.sql and the Flink job compute it) is not halved.
    assert {s["host"] for s in rows} == {"vm"}
    assert sorted({s["port_id"] for s in rows}) == ["127.0.0.1/client", "127.0.0.1/server"]
    assert [len([s for s in rows if s["port_id"] == p]) for p in ("127.0.0.1/client", "127.0.0.1/server")] == [3, 3]
    # CPU: the client's own figures and what it heard of the server's; the server agrees on its own
    cpu = client["end"]["cpu_utilization_percent"]
    assert step["tags"]["iperf3_client_cpu_total_pct"] == repr(cpu["host_total"])
    assert step["tags"]["iperf3_server_cpu_total_pct"] == repr(cpu["remote_total"]) == repr(
        server["end"]["cpu_utilization_percent"]["host_total"])


def test_a_server_alone_does_not_invent_the_clients_cpu(kit):
    r = kit.run("iperf3", rec("tcp_p2_server.json"), now_ms=LATER_MS)
    tags = _steps(r)[0]["tags"]
    assert "iperf3_server_cpu_total_pct" in tags and not any(k.startswith("iperf3_client_cpu") for k in tags)
    assert {s["tags"]["direction"] for s in _streams(r)} == {"rx"}


@pytest.mark.parametrize("name,tx_side", [("tcp_reverse_p2_client.json", False),
                                          ("tcp_reverse_p2_server.json", True)])
def test_reverse_the_client_receives_and_the_server_sends(kit, name, tx_side):
    doc = _doc(rec(name))
    r = kit.run("iperf3", rec(name), now_ms=LATER_MS)
    rows = _whole(r)
    moved = sum(s["tx_bytes" if tx_side else "rx_bytes"] for s in rows)
    assert moved == sum(st["bytes"] for i in doc["intervals"] for st in i["streams"]) > 0
    assert sum(s["rx_bytes" if tx_side else "tx_bytes"] for s in rows) == 0
    assert _steps(r)[0]["load"]["read_pct"] == 100.0


def test_bidir_has_both_directions_in_one_row_equal_to_both_sum_lines(kit):
    doc = _doc(rec("tcp_bidir_p2_client.json"))
    r = kit.run("iperf3", rec("tcp_bidir_p2_client.json"), now_ms=LATER_MS)
    assert not r.errors
    rows = _whole(r)
    for interval, row in zip(doc["intervals"], rows):
        assert interval["sum"]["sender"] is True and interval["sum_bidir_reverse"]["sender"] is False
        assert row["tx_bytes"] == interval["sum"]["bytes"]
        assert row["rx_bytes"] == interval["sum_bidir_reverse"]["bytes"]
    assert sum(s["tx_bytes"] for s in rows) == doc["end"]["sum_sent"]["bytes"]
    assert sum(s["rx_bytes"] for s in rows) == doc["end"]["sum_received_bidir_reverse"]["bytes"]
    assert len(_streams(r)) == 3 * 4 and sorted({s["queue"] for s in _streams(r)}) == [0, 1, 2, 3]
    step = _steps(r)[0]
    assert step["load"]["read_pct"] == 50.0 and step["load"]["workers_per_target"] == 2
    assert step["step_label"] == "TCP --bidir 2 streams -b 300M"


def test_udp_sender_counts_datagrams_and_the_server_its_loss(kit):
    client, server = _doc(rec("udp_p2_client.json")), _doc(rec("udp_p2_server.json"))
    r = kit.run("iperf3", rec("udp_p2_client.json"), rec("udp_p2_server.json"), now_ms=LATER_MS)
    assert not r.errors
    c = [s for s in _whole(r) if s["tags"]["iperf3_role"] == "client"]
    s_ = [s for s in _whole(r) if s["tags"]["iperf3_role"] == "server"]
    assert sum(x["tx_frames"] for x in c) == client["end"]["sum_sent"]["packets"]
    assert sum(x["tx_bytes"] for x in c) == client["end"]["sum_sent"]["bytes"]
    assert sum(x["rx_bytes"] for x in s_) == server["end"]["sum_received"]["bytes"]
    lost = server["end"]["sum_received"]["lost_packets"]
    assert sum(x["rx_frames"] for x in s_) == server["end"]["sum_received"]["packets"] - lost


def test_omitted_warm_up_is_tagged_and_the_measured_window_starts_after_it(kit):
    doc = _doc(rec("tcp_omit1_client.json"))
    r = kit.run("iperf3", rec("tcp_omit1_client.json"), now_ms=LATER_MS)
    rows = _whole(r)
    assert [s["tags"].get("omitted") for s in rows] == ["true", None, None, None]
    assert sum(s["tx_bytes"] for s in _measured(rows)) == doc["end"]["sum_sent"]["bytes"]
    # iperf3 restarts its clock after -O: the first measured interval follows the warm-up without overlap
    warm_end = rows[0]["ts_ms"] + rows[0]["interval_ms"]
    assert rows[1]["ts_ms"] == warm_end + round(doc["intervals"][1]["sum"]["start"] * 1000)
    assert all(a["ts_ms"] + a["interval_ms"] <= b["ts_ms"] + 1 for a, b in zip(rows, rows[1:]))
    step = _steps(r)[0]
    t0 = doc["start"]["timestamp"]["timesecs"] * 1000
    assert step["start_ms"] == t0 + round(doc["intervals"][0]["sum"]["end"] * 1000) == rows[1]["ts_ms"] - round(
        doc["intervals"][1]["sum"]["start"] * 1000)
    assert step["end_ms"] == rows[-1]["ts_ms"] + rows[-1]["interval_ms"]


def test_server_output_nested_in_the_client_document_is_the_server_side(kit):
    r = kit.run("iperf3", rec("tcp_server_output_client.json"), now_ms=LATER_MS)
    assert not r.errors
    assert _steps(r)[0]["tags"]["iperf3_sides"] == "client,server"
    r2 = kit.run("iperf3", rec("tcp_server_output_client.json"), rec("tcp_server_output_server.json"),
                 now_ms=LATER_MS)
    assert len(r2.port_samples) == len(r.port_samples)  # the same side read twice counts once
    assert [i.severity for i in r2.errors] == ["warning"] and "already read" in r2.errors[0].reason


def test_recorded_sweep_is_one_run_along_the_streams_with_throughput_scaling(kit):
    runs = import_runs("iperf3", [RECORDED / "sweep"], now_ms=LATER_MS)
    (run,) = runs
    assert run.sweep_axis == "numjobs" and run.sweep_points == ["1", "2", "4"] and not run.errors
    steps = _steps(run)
    assert [e["load"]["workers_per_target"] for e in steps] == [1, 2, 4]
    for e in steps:
        rows = [s for s in _measured(_whole(run)) if s["step_index"] == e["step_index"]]
        gbps = sum(s["tx_bytes"] for s in rows) * 8 / ((e["end_ms"] - e["start_ms"]) / 1000) / 1e9
        # -b 200M is per stream
        assert gbps == pytest.approx(0.2 * e["load"]["workers_per_target"], rel=0.01)


def test_an_error_document_is_an_error_a_servers_shutdown_only_a_warning(kit):
    r = kit.run("iperf3", rec("error_refused_client.json"), now_ms=LATER_MS)
    assert r.port_samples == [] and r.run_events == []
    assert kit.errors_of(r) == ["error: " + str(rec("error_refused_client.json")) + ": iperf3 reported an error and "
                                "measured nothing: unable to connect to server: Connection refused"]
    log = kit.run("iperf3", rec("server_log_2tests.json"), now_ms=LATER_MS)
    assert not log.has_errors and len(_steps(log)) == 2
    assert "interrupt - the server has terminated" in log.errors[0].reason
    assert [e["load"]["read_pct"] for e in _steps(log)] == [0.0, 100.0]


# --- json-stream, truncation, times, link speed --------------------------------------------------------------


def test_json_stream_events_give_the_same_samples_as_the_document(kit):
    doc = _doc(rec("tcp_bidir_p2_client.json"))
    lines = [{"event": "start", "data": doc["start"]}, *({"event": "interval", "data": i} for i in doc["intervals"]),
             {"event": "end", "data": doc["end"]}]
    stream = "\n".join(json.dumps(x) for x in lines).encode()
    a = kit.run_bytes("iperf3", ("x.json", rec("tcp_bidir_p2_client.json").read_bytes()), now_ms=LATER_MS)
    b = kit.run_bytes("iperf3", ("x.json", stream), now_ms=LATER_MS)
    assert not b.errors
    key = lambda r: [(s["ts_ms"], s["queue"], s["tx_bytes"], s["rx_bytes"]) for s in r.port_samples]  # noqa: E731
    assert key(a) == key(b) and _steps(a)[0]["tags"] == _steps(b)[0]["tags"]
    # a stream cut after two intervals keeps them, with a warning
    cut = "\n".join(json.dumps(x) for x in lines[:3]).encode() + b'\n{"event":"interval","data":{"str'
    c = kit.run_bytes("iperf3", ("x.json", cut), now_ms=LATER_MS)
    assert len(_whole(c)) == 2 and not c.has_errors and c.errors


def test_a_truncated_document_keeps_every_complete_interval(kit):
    data = (REAL / P4).read_bytes()
    full = kit.run("iperf3", REAL / P4)
    cut = data[: data.index(b'"start":\t30.')]  # inside interval 30's first stream
    r = kit.run_bytes("iperf3", (P4, cut))
    assert r.has_errors and "truncated" in kit.errors_of(r)[0]
    keep = [(s["ts_ms"], s["queue"], s["tx_bytes"]) for s in r.port_samples]
    assert keep == [(s["ts_ms"], s["queue"], s["tx_bytes"]) for s in full.port_samples][: len(keep)]
    assert len(_whole(r)) == 30


def test_documents_of_one_file_and_times_from_timesecs(kit):
    docs = read_documents("log", rec("server_log_2tests.json").read_bytes(), Issues("log", []))
    assert [d.role for d in docs] == ["server", "server", "unknown"] and docs[2].error
    r = kit.run("iperf3", REAL / UDP_R)
    doc = _doc(REAL / UDP_R)
    s = _whole(r)[3]
    assert s["ts_ms"] == 1_695_899_263_000 + round(doc["intervals"][3]["sum"]["start"] * 1000)
    assert s["ts_ms"] + s["interval_ms"] == 1_695_899_263_000 + round(doc["intervals"][3]["sum"]["end"] * 1000)


@pytest.mark.parametrize("text,bps", [("10G", 10_000_000_000), ("2.5G", 2_500_000_000), ("25Gbit", 25 * 10 ** 9),
                                      ("100M", 100_000_000), ("1000000000", 10 ** 9), ("40 Gb/s", 40 * 10 ** 9),
                                      ("fast", None), ("", None), ("0", None), ("-1G", None)])
def test_parse_link_speed(text, bps):
    assert parse_link_speed(text) == bps


def test_link_speed_goes_on_every_sample_and_declares_the_port(kit):
    (run,) = import_runs("iperf3", [REAL / P4], now_ms=kit.NOW_MS)
    apply_link_speed(run, 40_000_000_000)
    kit.assert_schema_valid(run)
    assert {s["link_speed_bps"] for s in run.port_samples} == {40_000_000_000}
    started = run.run_events[0]
    assert started["event_type"] == "RUN_STARTED"
    assert started["links"] == [{"host": "mininet-pc", "port_id": "10.0.0.1", "kind": "NIC",
                                 "speed_bps": 40_000_000_000, "payload_bytes_per_s": 0, "full_duplex": True}]
