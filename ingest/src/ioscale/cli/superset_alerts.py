"""`python -m ioscale.cli.superset_alerts`: create or update the Superset alerts of ``superset/alerts/``
(see ``ioscale.provision.superset_alerts``) where Superset runs Celery, e.g. docker-compose."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ioscale.errors import IoscaleError
from ioscale.provision import superset_alerts
from ioscale.provision.superset_alerts import Recipients, apply_alerts, check_alerts, load_alerts


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m ioscale.cli.superset_alerts",
                                description=superset_alerts.__doc__.splitlines()[0])
    p.add_argument("--superset-url", default="http://127.0.0.1:8088")
    p.add_argument("--user", default="admin")
    p.add_argument("--alerts-dir", type=Path, default=Path(__file__).resolve().parents[4] / "superset" / "alerts")
    p.add_argument("--email", action="append", default=[], help="recipient (repeat); else IOSCALE_ALERT_EMAILS")
    p.add_argument("--webhook", help="webhook URL; else IOSCALE_ALERT_WEBHOOK_URL")
    p.add_argument("--dry-run", action="store_true", help="show what would be created or updated")
    args = p.parse_args(argv)
    from ioscale.provision.superset import api_session_for
    from ioscale.provision.superset_bundle import load_sources

    password = os.environ.get("SUPERSET_ADMIN_PASSWORD", "")
    if not password:
        print("Error: SUPERSET_ADMIN_PASSWORD is not set", file=sys.stderr)
        return 2
    recipients = Recipients.from_env()
    recipients.emails += args.email
    recipients.webhook_url = args.webhook or recipients.webhook_url
    if not recipients.payload() and not args.dry_run:
        print("Error: no recipient: pass --email / --webhook or set IOSCALE_ALERT_EMAILS / "
              "IOSCALE_ALERT_WEBHOOK_URL", file=sys.stderr)
        return 2
    alerts = load_alerts(args.alerts_dir)
    problems = check_alerts(alerts, load_sources(args.alerts_dir.parent))
    if problems:
        print("Error: " + "\n  ".join(problems), file=sys.stderr)
        return 2
    try:
        session = api_session_for(args.superset_url, args.user, password)
        for name, action in apply_alerts(session, alerts, recipients, args.dry_run):
            print(f"{name}: {action}")
    except IoscaleError as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
