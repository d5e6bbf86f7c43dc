"""Alert delivery: once per (alert_id, version), to stdout and a real HTTP webhook, surviving webhook failures."""

import io
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ioscale.services.notifier import Notifier, WebhookSender, format_alert

ALERT = {"alert_id": "r1/3/saturation/live/port h1/fc0 RX", "kind": "saturation", "severity": "warning",
         "run_id": "r1", "step_index": 3, "resource": "port h1/fc0 RX", "version": 20,
         "evidence": "port h1/fc0 RX at 97.0% of its 800.0 MB/s payload rate"}


@pytest.fixture
def webhook():
    received, statuses = [], []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            received.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(statuses.pop(0) if statuses else 200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/hook", received, statuses
    server.shutdown()


def test_alert_is_printed_and_posted_once_per_version(webhook):
    url, received, _ = webhook
    out = io.StringIO()
    n = Notifier(out, WebhookSender(url, backoff_s=0.01))
    payload = json.dumps(ALERT).encode()
    assert n.handle(payload) is True
    assert n.handle(payload) is False  # a replayed window re-emits the same version: delivered once
    assert n.handle(json.dumps({**ALERT, "version": 21}).encode()) is True  # an updated alert is news
    assert out.getvalue().count("saturation run=r1 step=3") == 2
    assert [r["alert"]["version"] for r in received] == [20, 21]
    assert received[0]["text"] == format_alert(ALERT)


def test_webhook_errors_are_retried_then_counted(webhook):
    url, received, statuses = webhook
    statuses.extend([500, 503])  # two failures, then success
    n = Notifier(io.StringIO(), WebhookSender(url, retries=3, backoff_s=0.01))
    n.handle(json.dumps(ALERT).encode())
    assert len(received) == 3 and n.webhook_failures == 0
    statuses.extend([500, 500, 500])
    n.handle(json.dumps({**ALERT, "version": 99}).encode())
    assert n.webhook_failures == 1 and n.delivered == 2  # still printed: Kafka and ClickHouse keep it too


def test_unreachable_webhook_does_not_stop_delivery():
    n = Notifier(io.StringIO(), WebhookSender("http://127.0.0.1:9/none", retries=2, backoff_s=0.01))
    assert n.handle(json.dumps(ALERT).encode()) is True
    assert n.webhook_failures == 1


def test_undecodable_payload_is_counted_not_fatal():
    n = Notifier(io.StringIO())
    assert n.handle(b"\x00garbage") is False
    assert n.handle(b'{"no_id": 1}') is False
    assert n.undecodable == 2 and n.delivered == 0


@pytest.mark.parametrize("severity, shown", [(None, "UNKNOWN"), (3, "3"), (2.5, "2.5"), (["x"], '["x"]'),
                                             ("", "UNKNOWN"), ("critical", "CRITICAL")])
def test_any_severity_is_printed_and_posted_as_given(webhook, severity, shown):
    url, received, _ = webhook
    out = io.StringIO()
    n = Notifier(out, WebhookSender(url, backoff_s=0.01))
    assert n.handle(json.dumps({**ALERT, "severity": severity}).encode()) is True
    assert out.getvalue() == f"[{shown:<8}] saturation run=r1 step=3 resource=port h1/fc0 RX: {ALERT['evidence']}\n"
    assert [r["alert"]["severity"] for r in received] == [severity]
    assert received[0]["text"] == out.getvalue().rstrip("\n")


def test_missing_severity_is_unknown():
    out = io.StringIO()
    alert = {k: v for k, v in ALERT.items() if k != "severity"}
    assert Notifier(out).handle(json.dumps(alert).encode()) is True
    assert out.getvalue().startswith("[UNKNOWN ] saturation run=r1")


def test_follower_reports_each_bad_message_once_with_its_offset_and_goes_on(capsys):
    """Real confluent_kafka Messages, as the consumer hands them over: the bad ones never stop the follower."""
    from confluent_kafka import Message

    values = [b"\x00garbage", b"[1, 2]", b'"text"', b"17", b"null", None, b'{"no_id": 1}',
              json.dumps({**ALERT, "version": "x"}).encode(), json.dumps({**ALERT, "severity": None}).encode(),
              json.dumps({**ALERT, "severity": 7, "version": 21}).encode(), b"\xff\xfe not utf-8",
              b'{"alert_id": "a", "severity": NaN}']
    out = io.StringIO()
    n = Notifier(out)
    delivered = [n.handle_message(Message(topic="ioscale.alerts", partition=0, offset=100 + i, value=v))
                 for i, v in enumerate(values)]
    assert delivered == [False] * 8 + [True, True, False, False]
    assert (n.delivered, n.undecodable) == (2, 10)
    assert out.getvalue().splitlines()[0].startswith("[UNKNOWN ] saturation")
    assert out.getvalue().splitlines()[1].startswith("[7       ] saturation")
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 10
    offsets = [100, 101, 102, 103, 104, 105, 106, 107, 110, 111]
    for line, offset in zip(err, offsets):
        assert line.startswith(f"[notifier] skipped ioscale.alerts partition 0 offset {offset}: ")
    assert "not JSON" in err[0] and "JSON array, not an object" in err[1] and "JSON string, not an object" in err[2]
    assert "JSON number, not" in err[3] and "JSON null, not" in err[4] and "no value" in err[5]
    assert "without alert_id" in err[6] and "version 'x' is not an integer" in err[7] and "not JSON" in err[8]
    assert "not JSON (NaN is not a JSON value" in err[9]


def test_a_watcher_without_kafka_says_so_every_few_seconds_not_twice_a_second(capfd):
    """A real consumer against a port nothing listens on: librdkafka's own log (a line per failed connection,
    twice a second, straight to fd 2) stays off; the watcher's status line comes after STATUS_AFTER_S, then every
    STATUS_EVERY_S."""
    import socket

    from ioscale.services.notifier import watch
    from ioscale.wire.producer import STATUS_AFTER_S, STATUS_EVERY_S

    with socket.socket() as s:  # a port that was free a moment ago: connections are refused
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    seconds = STATUS_AFTER_S + STATUS_EVERY_S + 2
    watch(f"127.0.0.1:{port}", Notifier(io.StringIO()), max_seconds=seconds)
    err = capfd.readouterr().err.splitlines()
    assert [line for line in err if "rdkafka" in line or "Connect to" in line and "[notifier]" not in line] == []
    status = [line for line in err if line.startswith(f"[notifier] Kafka at 127.0.0.1:{port} unreachable for ")]
    assert len(status) == 2, err
    assert "Connection refused" in status[0] and status[0].endswith("waiting for alerts once it is back")


def test_kafka_back_is_said_once_after_a_spell_was_reported():
    from confluent_kafka import KafkaError

    from ioscale.services.notifier import KafkaReach

    now = [100.0]
    err = io.StringIO()
    reach = KafkaReach("127.0.0.1:9092", err, clock=lambda: now[0])
    reach.on_error(KafkaError(KafkaError._TRANSPORT, "127.0.0.1:9092/bootstrap: Connect to ipv4#127.0.0.1:9092 "
                                                     "failed: Connection refused"))
    for t in (101.0, 102.5, 105.0, 107.4, 107.6):
        now[0] = t
        reach.tick()
    down = {"brokers": {"b": {"state": "TRY_CONNECT"}}}
    reach.on_stats(json.dumps(down))
    now[0] = 110.0
    reach.on_stats(json.dumps({"brokers": {"b": {"state": "UP"}}}))
    reach.on_stats(json.dumps({"brokers": {"b": {"state": "UP"}}}))
    assert err.getvalue().splitlines() == [
        "[notifier] Kafka at 127.0.0.1:9092 unreachable for 2 s (Connect to ipv4#127.0.0.1:9092 failed: Connection "
        "refused); waiting for alerts once it is back",
        "[notifier] Kafka at 127.0.0.1:9092 unreachable for 8 s (Connect to ipv4#127.0.0.1:9092 failed: Connection "
        "refused); waiting for alerts once it is back",
        "[notifier] Kafka at 127.0.0.1:9092 reachable again after 10 s"]
