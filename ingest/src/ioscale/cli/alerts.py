"""`ioscale alerts`: follow the analytics job's alerts, print them and optionally POST them to a webhook."""

from __future__ import annotations

import argparse
import sys

from ioscale.cli.endpoints import add_endpoint_args, endpoints


def _cmd_alerts(args: argparse.Namespace) -> int:
    from ioscale.services.notifier import Notifier, WebhookSender, watch

    bootstrap, _ = endpoints(args)
    notifier = Notifier(webhook=WebhookSender(args.webhook) if args.webhook else None)
    try:
        watch(bootstrap, notifier, from_beginning=args.from_beginning, max_seconds=args.max_seconds,
              group_id=args.group)
    except KeyboardInterrupt:
        pass
    print(f"[notifier] delivered {notifier.delivered} alert(s), skipped {notifier.undecodable} message(s) that "
          f"were not alerts, webhook failures {notifier.webhook_failures}", file=sys.stderr)
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    al = sub.add_parser("alerts", help="follow saturation and SLO alerts: print them, optionally POST to a webhook")
    al.add_argument("--webhook", help="POST each alert as JSON ({text, alert}) to this URL")
    al.add_argument("--from-beginning", action="store_true", help="replay the alerts already in Kafka")
    al.add_argument("--group", help="consumer group: resume where this group left off")
    al.add_argument("--max-seconds", type=float, help="stop after this long (default: run until Ctrl-C)")
    add_endpoint_args(al)
    al.set_defaults(func=_cmd_alerts)
