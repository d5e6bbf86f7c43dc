"""`ioscale report --pdf`: the report printed by chromium through playwright.

A module of its own: playwright's sync API runs one session per thread, and the browser test module keeps one
open for its figures.
"""

from __future__ import annotations

import shutil

import pytest

from report_stack import CHROMIUM, retried

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]
pytest.importorskip("playwright", reason="playwright==1.58.0 is not installed in the venv")
pytest.importorskip("matplotlib", reason="matplotlib==3.11.2 (ingest/pyproject.toml) is not installed")


def test_the_report_prints_to_pdf(ch, simulated, tmp_path):
    if shutil.which(CHROMIUM) is None:
        pytest.skip(f"{CHROMIUM} is not installed (apt install chromium)")
    import ioscale
    from ioscale.cli.report import fetch_runs, write_pdf
    from ioscale.report import html

    path = tmp_path / "report.html"
    path.write_text(html.render(retried(lambda: fetch_runs([simulated])), ioscale_version=ioscale.__version__))
    pdf = write_pdf(path, tmp_path / "report.pdf", CHROMIUM)
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF-") and data.count(b"/Type /Page") - data.count(b"/Type /Pages") >= 2
