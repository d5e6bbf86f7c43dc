"""Alert notifier: delivers saturation and SLO events from `ioscale.alerts` to stdout and a webhook.

The Flink job may emit an alert more than once (a re-fired window, a replay after restore); every
alert carries a stable `alert_id` and a `version`, so the notifier delivers each (id, version) once
per process. Webhook failures are retried with backoff, then reported, never fatal: the alert is
still in Kafka and in ClickHouse's `alerts` table.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

import requests
from confluent_kafka import KafkaError

from ioscale.wire import topics
from ioscale.wire.producer import STATUS_AFTER_S, STATUS_EVERY_S, UNREACHABLE_ERRORS

if TYPE_CHECKING:
    from confluent_kafka import Message


def _severity(value: Any) -> str:
    # The topic is JSON written by any producer: a null, number or list severity is shown, not fatal.
    if value is None or value == "":
        return "UNKNOWN"
    if isinstance(value, str):
        return value.upper()
    return json.dumps(value)


def format_alert(alert: dict[str, Any]) -> str:
    return (f"[{_severity(alert.get('severity')):<8}] {alert.get('kind', '?')} run={alert.get('run_id')} "
            f"step={alert.get('step_index')} resource={alert.get('resource')}: {alert.get('evidence', '')}")


_JSON_KINDS = {list: "array", str: "string", int: "number", float: "number", bool: "boolean", type(None): "null"}


def _reject_constant(name: str) -> Any:
    # Python's json reads NaN and Infinity, which are not JSON: the webhook could not post them on.
    raise ValueError(f"{name} is not a JSON value")


def _decode(payload: bytes | None) -> tuple[dict[str, Any] | None, tuple[str, int] | None, str]:
    """The alert, its (id, version) key, or why it cannot be delivered."""
    if payload is None:
        return None, None, "an empty message (no value)"
    try:
        alert = json.loads(payload, parse_constant=_reject_constant)
    except ValueError as e:  # UnicodeDecodeError included
        return None, None, f"not JSON ({e})"
    if not isinstance(alert, dict):
        return None, None, f"JSON {_JSON_KINDS.get(type(alert), 'value')}, not an object"
    if "alert_id" not in alert:
        return None, None, "an object without alert_id"
    try:
        version = int(alert.get("version", 0))
    except (ValueError, TypeError, OverflowError):
        return None, None, f"version {alert.get('version')!r} is not an integer"
    return alert, (str(alert["alert_id"]), version), ""


class WebhookSender:
    def __init__(self, url: str, retries: int = 3, backoff_s: float = 1.0, post: Callable[..., Any] = requests.post):
        self.url, self.retries, self.backoff_s, self._post = url, retries, backoff_s, post

    def __call__(self, alert: dict[str, Any]) -> bool:
        for attempt in range(self.retries):
            try:
                resp = self._post(self.url, json={"text": format_alert(alert), "alert": alert}, timeout=5)
                if 200 <= resp.status_code < 300:
                    return True
            except requests.RequestException:
                pass
            time.sleep(self.backoff_s * (2 ** attempt))
        return False


class Notifier:
    """Deduplicates and delivers alert payloads (bytes from the alerts topic)."""

    def __init__(self, out: TextIO = sys.stdout, webhook: WebhookSender | None = None):
        self.out, self.webhook = out, webhook
        self.seen: set[tuple[str, int]] = set()
        self.delivered = 0
        self.webhook_failures = 0
        self.undecodable = 0

    def handle(self, payload: bytes | None, where: str = "") -> bool:
        """Deliver one alert; a message that is not an alert object is reported once and skipped."""
        alert, key, reason = _decode(payload)
        if alert is None or key is None:
            self.undecodable += 1
            shown = "" if payload is None else f" {payload[:80]!r}"
            print(f"[notifier] skipped {where or 'a message'}: {reason}{shown}", file=sys.stderr)
            return False
        if key in self.seen:
            return False
        self.seen.add(key)
        print(format_alert(alert), file=self.out, flush=True)
        if self.webhook is not None and not self.webhook(alert):
            self.webhook_failures += 1
            print(f"[notifier] webhook {self.webhook.url} failed for {key[0]}", file=sys.stderr)
        self.delivered += 1
        return True

    def handle_message(self, msg: Message) -> bool:
        return self.handle(msg.value(), f"{msg.topic()} partition {msg.partition()} offset {msg.offset()}")


class KafkaReach:
    """Whether the watcher reaches Kafka, said once every STATUS_EVERY_S while it does not, and once when it is
    back: librdkafka's own log says it twice a second (a line per failed connection), so it is off, and its
    errors and statistics (a broker UP) tell the spell's start and end instead."""

    def __init__(self, bootstrap: str, err: TextIO | None = None, clock: Callable[[], float] = time.monotonic):
        self.bootstrap, self.err, self.clock = bootstrap, err or sys.stderr, clock
        self.since: float | None = None
        self.error = ""
        self.next_status = 0.0
        self.lines = 0

    def on_error(self, e: KafkaError) -> None:
        if e.code() not in UNREACHABLE_ERRORS:
            print(f"[notifier] Kafka error: {e.str()}", file=self.err, flush=True)
            return
        if e.code() != KafkaError._ALL_BROKERS_DOWN or not self.error:  # "1/1 brokers are down" says less
            self.error = e.str().split(": ", 1)[-1]
        if self.since is None:
            self.since = self.clock()
            self.next_status = self.since + STATUS_AFTER_S

    def on_stats(self, text: str) -> None:
        if self.since is not None and any(b.get("state") == "UP" for b in json.loads(text).get("brokers", {}).values()):
            if self.lines:
                print(f"[notifier] Kafka at {self.bootstrap} reachable again after {self.clock() - self.since:.0f} s",
                      file=self.err, flush=True)
            self.since, self.error, self.lines = None, "", 0

    def tick(self) -> None:
        now = self.clock()
        if self.since is not None and now >= self.next_status:
            self.next_status = now + STATUS_EVERY_S
            self.lines += 1
            print(f"[notifier] Kafka at {self.bootstrap} unreachable for {now - self.since:.0f} s ({self.error}); "
                  "waiting for alerts once it is back", file=self.err, flush=True)


def watch(bootstrap: str, notifier: Notifier, from_beginning: bool = False, max_seconds: float | None = None,
          group_id: str | None = None, err: TextIO | None = None) -> None:
    from confluent_kafka import Consumer

    reach = KafkaReach(bootstrap, err)
    consumer = Consumer({
        "bootstrap.servers": bootstrap,
        # A fixed group resumes where it left off; without one, each watcher sees alerts from now (or all).
        "group.id": group_id or f"ioscale-notifier-{time.time_ns()}",
        "auto.offset.reset": "earliest" if from_beginning or group_id else "latest",
        "enable.auto.commit": True,
        "log_level": 0,
        "error_cb": reach.on_error,
        "stats_cb": reach.on_stats,
        "statistics.interval.ms": 1000,
    })
    consumer.subscribe([topics.ALERTS])
    t0 = time.monotonic()
    try:
        while max_seconds is None or time.monotonic() - t0 < max_seconds:
            msg = consumer.poll(1.0)
            reach.tick()
            if msg is None or msg.error():
                continue
            notifier.handle_message(msg)
    finally:
        consumer.close()
