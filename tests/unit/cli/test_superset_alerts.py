"""`python -m ioscale.cli.superset_alerts`: what it refuses before it contacts Superset."""

from __future__ import annotations

from pathlib import Path

from ioscale.cli import superset_alerts as sa

REPO = Path(__file__).resolve().parents[3]
ALERTS = REPO / "superset" / "alerts"


def test_main_refuses_without_password_or_recipient(monkeypatch, capsys):
    monkeypatch.delenv("SUPERSET_ADMIN_PASSWORD", raising=False)
    assert sa.main(["--alerts-dir", str(ALERTS)]) == 2
    assert "SUPERSET_ADMIN_PASSWORD" in capsys.readouterr().err
    monkeypatch.setenv("SUPERSET_ADMIN_PASSWORD", "x")
    monkeypatch.delenv("IOSCALE_ALERT_EMAILS", raising=False)
    monkeypatch.delenv("IOSCALE_ALERT_WEBHOOK_URL", raising=False)
    assert sa.main(["--alerts-dir", str(ALERTS)]) == 2
    assert "no recipient" in capsys.readouterr().err
