"""Run the registry: ``python -m ioscale.services.registry --host 127.0.0.1 --port 8081 --bootstrap 127.0.0.1:9092``.

Start-up order is the readiness contract: the state is rebuilt from the topic first, and only then
is the port bound, so anything that can connect sees every schema registered before the restart.
Runs in the foreground; SIGTERM or SIGINT stop it after the request in flight.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import time

from ioscale.services.registry.compat import DEFAULT_LEVEL, LEVELS
from ioscale.services.registry.errors import StoreError
from ioscale.services.registry.server import make_server
from ioscale.services.registry.service import Registry
from ioscale.services.registry.store import DEFAULT_TOPIC, InMemoryStore, KafkaStore, SchemaStore
from ioscale.wire.topics import Replication

log = logging.getLogger("ioscale.registry")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m ioscale.services.registry", description="Confluent-compatible Avro schema registry")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8081, help="port to listen on (default 8081)")
    p.add_argument("--bootstrap", default="127.0.0.1:9092", help="Kafka bootstrap servers")
    p.add_argument("--topic", default=DEFAULT_TOPIC, help=f"compacted topic holding the schemas (default {DEFAULT_TOPIC})")
    p.add_argument("--compatibility", default=DEFAULT_LEVEL, choices=LEVELS,
                   help=f"global compatibility level until one is PUT to /config (default {DEFAULT_LEVEL})")
    p.add_argument("--kafka-timeout-s", type=float, default=30.0, help="timeout of one Kafka write or read")
    p.add_argument("--startup-timeout-s", type=float, default=45.0,
                   help="how long to wait for Kafka at start (below the launcher's 60 s readiness wait)")
    p.add_argument("--in-memory", action="store_true", help="keep schemas in memory only (lost at exit; for demos)")
    p.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    return p.parse_args(argv)


def _stop(signum: int, _frame: object) -> None:
    raise SystemExit(0)  # unwinds serve_forever in the main thread; the finally below closes cleanly


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=args.log_level, stream=sys.stdout,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    t0 = time.monotonic()
    store: SchemaStore
    try:
        if args.in_memory:
            store = InMemoryStore()
        else:
            # Replication of a topic it creates: IOSCALE_KAFKA_REPLICATION_FACTOR / _MIN_INSYNC_REPLICAS, as
            # `ioscale admin init` creates the others (one broker's when unset).
            store = KafkaStore(args.bootstrap, args.topic, timeout_s=args.kafka_timeout_s,
                               startup_timeout_s=args.startup_timeout_s, replication=Replication.from_env())
            stats = store.load_stats
            log.info("read %d records from %s (end offset %d) in %.2fs: %s",
                     stats.records, args.topic, stats.end_offset, stats.seconds, store.state.counts())
    except StoreError as e:
        log.error("cannot start: %s", e.message)
        return 2
    try:
        server = make_server(Registry(store, args.compatibility), args.host, args.port)
    except OSError as e:
        log.error("cannot listen on %s:%d: %s", args.host, args.port, e)
        store.close()
        return 3
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    log.info("listening on %s (%s, compatibility %s), ready %.2fs after start",
             server.url, store.describe(), args.compatibility, time.monotonic() - t0)
    try:
        server.serve_forever(poll_interval=0.5)
    finally:
        server.server_close()
        store.close()
        log.info("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
