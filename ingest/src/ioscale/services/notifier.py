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
from typing import Any, TextIO

import requests

from ioscale.wire import topics


def format_alert(alert: dict[str, Any]) -> str:
    return (f"[{alert.get('severity', '?').upper():<8}] {alert.get('kind', '?')} run={alert.get('run_id')} "
            f"step={alert.get('step_index')} resource={alert.get('resource')}: {alert.get('evidence', '')}")


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

    def handle(self, payload: bytes) -> bool:
        try:
            alert = json.loads(payload)
            key = (str(alert["alert_id"]), int(alert.get("version", 0)))
        except (ValueError, KeyError, TypeError):
            self.undecodable += 1
            print(f"[notifier] skipped an undecodable alert ({payload[:80]!r})", file=sys.stderr)
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


def watch(bootstrap: str, notifier: Notifier, from_beginning: bool = False, max_seconds: float | None = None,
          group_id: str | None = None) -> None:
    from confluent_kafka import Consumer

    consumer = Consumer({
        "bootstrap.servers": bootstrap,
        # A fixed group resumes where it left off; without one, each watcher sees alerts from now (or all).
        "group.id": group_id or f"ioscale-notifier-{time.time_ns()}",
        "auto.offset.reset": "earliest" if from_beginning or group_id else "latest",
        "enable.auto.commit": True,
        "log_level": 3,
    })
    consumer.subscribe([topics.ALERTS])
    t0 = time.monotonic()
    try:
        while max_seconds is None or time.monotonic() - t0 < max_seconds:
            msg = consumer.poll(1.0)
            if msg is None or msg.error():
                continue
            notifier.handle(msg.value())
    finally:
        consumer.close()
