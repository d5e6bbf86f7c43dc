"""The Kafka and schema registry endpoints of the commands that send or read records: flags, defaulting to the
local stack's."""

from __future__ import annotations

import argparse
from typing import Any


def endpoints(args: argparse.Namespace) -> tuple[str, str]:
    from ioscale.stack.settings import StackSettings

    settings = StackSettings.from_env()
    return (args.bootstrap or settings.kafka_bootstrap, args.registry_url or settings.url("registry"))


def add_endpoint_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bootstrap", help="Kafka bootstrap servers (default: the local stack's)")
    p.add_argument("--registry-url", help="schema registry URL (default: the local stack's)")


def _positive_seconds(text: str) -> float:
    value = float(text)
    if not 0.01 <= value <= 86400:  # librdkafka takes 0 as "never give up"
        raise argparse.ArgumentTypeError(f"{text} is not between 0.01 and 86400 seconds")
    return value


def add_producer_args(p: argparse.ArgumentParser) -> None:
    """The endpoints, and how long a record may wait for Kafka before the command gives up."""
    add_endpoint_args(p)
    p.add_argument("--delivery-timeout-s", type=_positive_seconds, default=120.0,
                   help="give up (exit status 7, with the counts delivered and not) when a record is still not "
                        "delivered this long after it was sent; meanwhile records wait in a bounded buffer "
                        "(default: 120)")


def make_producer(args: argparse.Namespace) -> Any:
    """The TelemetryProducer the command's flags ask for."""
    from ioscale.wire.producer import TelemetryProducer

    bootstrap, registry = endpoints(args)
    return TelemetryProducer(bootstrap, registry, {"delivery.timeout.ms": int(args.delivery_timeout_s * 1000)})
