"""Open ioscale's Superset dashboards in a real browser: log in, load a dashboard, wait until every chart has
rendered, and report per chart whether it shows data, an error or nothing (tests, benchmarks, screenshots).

The browser is Debian's chromium driven by Python playwright (``playwright==1.58.0``); playwright's own browser
download is never used (``executable_path``), so nothing is fetched at run time. Flags: headless, no sandbox
(containers), no GPU, and no background traffic (QUIC, component updates, sync, first-run pages), with a fresh
profile per session.

A dashboard counts as loaded when (1) every chart of its layout has received its /api/v1/chart/data answer,
(2) no chart shows a loading indicator, and (3) every chart holds what its type draws (an ECharts canvas, a table
row, or the handlebars output) or an error / "no results" message. The time reported is from the navigation
start to that moment, as a user would see it.
"""

from __future__ import annotations

import json
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import quote

from ioscale.stack import process
from ioscale.stack.superset import dashboard_url

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
)
#: Wide enough for two charts side by side with readable axes; tall enough that the dashboard's virtualised
#: grid renders every chart at once (Superset defers charts outside the viewport): the tests' window.
VIEWPORT = {"width": 1600, "height": 4200}
#: A window a user has: what the dashboards benchmark loads in, scrolling to reach the charts below it.
USER_VIEWPORT = {"width": 1600, "height": 1000}

# Evaluated in the page: one entry per chart holder of the dashboard grid.
_CHART_STATES_JS = """
() => Array.from(document.querySelectorAll('[data-test="chart-grid-component"]')).map(el => {
  const title = (el.querySelector('[data-test="editable-title"], .header-title, [data-test="slice-header"] .editable-title')
                 || {}).textContent || '';
  const text = el.innerText || '';
  const loading = !!el.querySelector('[data-test="loading-indicator"], .loading, [aria-label="Loading"]');
  const error = !!el.querySelector('[data-test="error-message"], .ant-alert-error, [role="alert"]');
  const empty = /No results were returned|No data/i.test(text);
  const canvas = el.querySelector('canvas');
  const drawn = !!(canvas && canvas.width > 0) || !!el.querySelector('table tbody tr')
                || !!el.querySelector('.ioscale-headline');
  const box = el.getBoundingClientRect();
  const in_view = box.bottom > 0 && box.top < window.innerHeight;
  return {title: title.trim(), loading, error, empty, drawn, in_view, text: text.slice(0, 400)};
})
"""


@dataclass
class ChartState:
    title: str
    loading: bool
    error: bool
    empty: bool
    drawn: bool
    text: str
    in_view: bool = True

    @property
    def ok(self) -> bool:
        return self.drawn and not (self.loading or self.error or self.empty)


@dataclass
class DashboardLoad:
    slug: str
    load_s: float
    charts: list[ChartState]
    chart_data: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # slice_id -> result list
    #: Chart-data requests the page sent for this dashboard's charts until it had loaded, and how many of them it
    #: aborted (a chart asked again before its answer came: a filter value applied more than once).
    requests: int = 0
    aborted: int = 0
    #: With ``scroll``: when every chart of the first screen was drawn, how many there were, and how many chart
    #: requests the page had sent by then (more than that many: it queried charts below the fold before needed).
    first_screen_s: float | None = None
    first_screen_charts: int = 0
    requests_first_screen: int = 0

    @property
    def failed(self) -> list[ChartState]:
        return [c for c in self.charts if not c.ok]


class SupersetBrowser:
    """One chromium session logged in to Superset."""

    def __init__(self, base_url: str, user: str, password: str, *, executable: str = CHROMIUM,
                 viewport: dict[str, int] = VIEWPORT):
        self.base_url = base_url.rstrip("/")
        self._user, self._password, self._executable, self.viewport = user, password, executable, viewport
        self._pw = self._ctx = self.page = None
        self._csrf: str | None = None

    def __enter__(self) -> "SupersetBrowser":
        from playwright.sync_api import sync_playwright  # imported here: only browser tests need playwright

        self._pw = sync_playwright().start()
        self._profile = tempfile.TemporaryDirectory(prefix="ioscale-chromium-")
        self._ctx = self._pw.chromium.launch_persistent_context(
            self._profile.name, executable_path=self._executable, args=list(CHROMIUM_FLAGS), headless=True,
            viewport=self.viewport, device_scale_factor=1,
        )
        self.page = self._ctx.new_page()
        self.login()
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self._ctx is not None:
                self._ctx.close()
        finally:
            if self._pw is not None:
                self._pw.stop()
            self._profile.cleanup()

    def cpu_s(self) -> float:
        """CPU seconds this session's chromium processes have used so far (renderer, GPU, network...): what a
        load costs the browser, which a busy machine does not inflate the way it inflates wall time."""
        marker = f"--user-data-dir={self._profile.name}".encode()
        used = 0.0
        for proc in Path("/proc").glob("[0-9]*"):
            try:
                if marker not in (proc / "cmdline").read_bytes():
                    continue
            except OSError:  # exited meanwhile
                continue
            fields = process.proc_stat(proc.name)
            if fields is not None:
                used += process.cpu_seconds(fields)
        return used

    def login(self, attempts: int = 3, timeout_s: float = 20.0) -> None:
        """Log in through the form. Now and then the form's POST leaves the page on /login (Superset logs
        "Failed to add user to db session"; seen right after a bundle import): the form is sent again."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        page = self.page
        for attempt in range(1, attempts + 1):
            page.goto(f"{self.base_url}/login/")
            page.fill("[data-test=username-input]", self._user)
            page.fill("[data-test=password-input]", self._password)
            page.click("[data-test=login-button]")
            try:
                page.wait_for_url(lambda url: "/login" not in url, timeout=timeout_s * 1000, wait_until="commit")
                return
            except PlaywrightTimeout:
                if attempt == attempts:
                    raise

    def dashboard_id(self, slug: str) -> int | None:
        """The dashboard's numeric id (chart queries carry it in their URL), through the logged-in page."""
        r = self.page.request.get(f"{self.base_url}/api/v1/dashboard/{slug}")
        return r.json()["result"]["id"] if r.ok else None

    def filter_state_key(self, dashboard_id: int, filters: dict[str, tuple[str, list[Any]]]) -> str:
        """Store native filter values as Superset does for a shared link (``?native_filters_key=``).

        For dashboards whose filters have no "select first value" (the comparison's runs and baseline). Where
        one has (requiredFirst), Superset 6.1 requests every chart three times when a key (or a
        ``?native_filters=`` rison state) sets it: the filter re-applies the value twice as its options arrive and
        the page aborts the earlier requests. Those dashboards open on a run through ``?run=`` instead
        (:func:`ioscale.stack.superset.dashboard_url`).
        """
        page = self.page
        if self._csrf is None:  # one token serves the whole logged-in session
            self._csrf = page.request.get(f"{self.base_url}/api/v1/security/csrf_token/").json()["result"]
        csrf = self._csrf
        r = page.request.post(f"{self.base_url}/api/v1/dashboard/{dashboard_id}/filter_state",
                              data=json.dumps({"value": json.dumps(_filter_state(filters))}),
                              headers={"Content-Type": "application/json", "X-CSRFToken": csrf,
                                       "Referer": self.base_url})
        if not r.ok:
            raise RuntimeError(f"Superset refused the filter state: HTTP {r.status} {r.text()[:300]}")
        return r.json()["key"]

    def open_dashboard(self, slug: str, filters: dict[str, tuple[str, list[Any]]] | None = None, *,
                       run: str | None = None, expected_charts: int, timeout_s: float = 60.0,
                       scroll: bool = False) -> DashboardLoad:
        """Load /superset/dashboard/<slug>/ on ``run`` (``?run=``, the link ``ioscale`` prints) or with native
        filter values {filter_id: (column, values)}, and wait until all ``expected_charts`` charts have rendered
        (or shown an error). ``scroll``: as a user reads a dashboard taller than the window, once the charts in view
        are drawn (the first screen, timed on its own) scroll on by most of a window, until every chart is."""
        dashboard_id = self.dashboard_id(slug)
        url = dashboard_url(self.base_url, slug, run)
        url += ("&" if "?" in url else "?") + "standalone=1"
        if filters and dashboard_id is not None:
            url += "&native_filters_key=" + quote(self.filter_state_key(dashboard_id, filters))
        page = self.page
        # Leave the previous dashboard first: its refresh timer and late chart queries must not overlap this load.
        page.goto("about:blank")
        answered: dict[int, list[dict[str, Any]]] = {}

        def on_response(resp: Any) -> None:
            # Only this dashboard's chart queries: a dashboard left behind may still be refreshing, and the
            # filter bar's value queries carry no slice_id.
            if "/api/v1/chart/data" not in resp.url or resp.request.method != "POST":
                return
            try:
                body = resp.request.post_data_json or {}
                slice_id = (body.get("form_data") or {}).get("slice_id")
                if slice_id is None or dashboard_id is None or f"dashboard_id={dashboard_id}" not in resp.url:
                    return
                answered[slice_id] = resp.json().get("result", []) if resp.ok else [{"error": resp.status}]
            except Exception:  # noqa: BLE001 -- a body already gone (page moved on): the DOM check decides
                return

        sent, aborted = [0], [0]

        def chart_request(req: Any) -> int | None:
            if "/api/v1/chart/data" not in req.url or req.method != "POST" or dashboard_id is None \
                    or f"dashboard_id={dashboard_id}" not in req.url:
                return None
            try:
                return ((req.post_data_json or {}).get("form_data") or {}).get("slice_id")
            except Exception:  # noqa: BLE001 -- not JSON: not a chart query
                return None

        def on_request(req: Any) -> None:
            sent[0] += chart_request(req) is not None

        def on_failed(req: Any) -> None:
            aborted[0] += chart_request(req) is not None

        page.on("response", on_response)
        page.on("request", on_request)
        page.on("requestfailed", on_failed)
        t0 = time.monotonic()
        first: tuple[float, int, int] | None = None

        def done(state: ChartState) -> bool:
            return not state.loading and (state.drawn or state.error or state.empty)

        try:
            page.goto(url, wait_until="commit")
            deadline = t0 + timeout_s
            states: list[ChartState] = []
            while time.monotonic() < deadline:
                states = [ChartState(**s) for s in page.evaluate(_CHART_STATES_JS)]
                if (len(answered) >= expected_charts and len(states) >= expected_charts
                        and all(done(s) for s in states)):
                    break
                in_view = [s for s in states if s.in_view]
                if scroll and len(states) >= expected_charts and in_view and all(done(s) for s in in_view):
                    if first is None:
                        first = (time.monotonic() - t0, len(in_view), sent[0])
                    page.evaluate("() => window.scrollBy(0, Math.round(window.innerHeight * 0.8))")
                page.wait_for_timeout(50)
            load_s = time.monotonic() - t0
        finally:
            page.remove_listener("response", on_response)
            page.remove_listener("request", on_request)
            page.remove_listener("requestfailed", on_failed)
        load = DashboardLoad(slug, load_s, states, dict(answered), requests=sent[0], aborted=aborted[0])
        if scroll and first is None:  # the whole dashboard was in the first screen
            first = (load_s, len(states), sent[0])
        if first is not None:
            load.first_screen_s, load.first_screen_charts, load.requests_first_screen = first
        return load

    def screenshot(self, path: Path, settle_s: float = 1.5) -> Path:
        """Full-page PNG of what is on screen, cropped to the dashboard's height."""
        page = self.page
        page.wait_for_timeout(int(settle_s * 1000))  # ECharts animates its series for ~1 s
        # The page is as tall as the viewport; the dashboard ends below its last chart or markdown.
        height = page.evaluate(
            "() => Math.ceil(Math.max(0, ...Array.from(document.querySelectorAll("
            "'[data-test=\"chart-grid-component\"], [data-test=\"dashboard-markdown-editor\"], .dashboard-markdown'))"
            ".map(e => e.getBoundingClientRect().bottom + window.scrollY)) + 24)")
        path.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(path), clip={"x": 0, "y": 0, "width": self.viewport["width"],
                                               "height": min(max(int(height), 600), self.viewport["height"])})
        return path


def _filter_state(filters: dict[str, tuple[str, list[Any]]]) -> dict[str, Any]:
    """Native filter values as Superset's data mask: {filter_id: {extraFormData, filterState, ...}}."""
    return {fid: {"id": fid, "extraFormData": {"filters": [{"col": column, "op": "IN", "val": list(values)}]},
                  "filterState": {"value": list(values)}, "ownState": {}}
            for fid, (column, values) in filters.items()}


@contextmanager
def browser(settings: Any, secrets: dict[str, str], viewport: dict[str, int] = VIEWPORT) -> Iterator[SupersetBrowser]:
    from ioscale.stack.settings import SUPERSET_ADMIN_USER

    with SupersetBrowser(settings.url("superset"), SUPERSET_ADMIN_USER, secrets["SUPERSET_ADMIN_PASSWORD"],
                         viewport=viewport) as b:
        yield b


def _main() -> None:  # python devtools/superset_browser.py <slug> <expected charts> [run id | filter json] [png]
    import sys

    from ioscale.stack.settings import StackSettings, load_secrets

    s = StackSettings.from_env()
    arg = sys.argv[3] if len(sys.argv) > 3 else None
    filters = {k: tuple(v) for k, v in json.loads(arg).items()} if arg and arg.startswith("{") else None
    run = arg if arg and filters is None else None
    with browser(s, load_secrets(s)) as b:
        for attempt in range(2):
            load = b.open_dashboard(sys.argv[1], filters, run=run, expected_charts=int(sys.argv[2]))
            print(f"load {load.load_s:.2f}s, {len(load.charts)} charts, failed: "
                  f"{[(c.title, c.error, c.empty, c.drawn, c.text[:200]) for c in load.failed]}")
        if len(sys.argv) > 4:
            print(b.screenshot(Path(sys.argv[4])))


if __name__ == "__main__":
    _main()
