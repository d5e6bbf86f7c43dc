"""The Kafka and schema registry endpoints of the commands that send or read records: flags, defaulting to the
local stack's."""

from __future__ import annotations

import argparse


def endpoints(args: argparse.Namespace) -> tuple[str, str]:
    from ioscale.stack.settings import StackSettings

    settings = StackSettings.from_env()
    return (args.bootstrap or settings.kafka_bootstrap, args.registry_url or settings.url("registry"))


def add_endpoint_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bootstrap", help="Kafka bootstrap servers (default: the local stack's)")
    p.add_argument("--registry-url", help="schema registry URL (default: the local stack's)")
