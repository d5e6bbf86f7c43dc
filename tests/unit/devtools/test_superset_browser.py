"""devtools/superset_browser.py without a browser: the native-filter state it opens dashboards with."""

from __future__ import annotations

import pytest

from superset_browser import CHROMIUM_FLAGS, ChartState, SupersetBrowser, _filter_state


def test_native_filter_values_become_superset_data_mask():
    state = _filter_state({"NATIVE_FILTER-run_id": ("run_id", ["sim-demo-1", "it's!"]),
                           "NATIVE_FILTER-step": ("step_index", [3])})
    assert state == {
        "NATIVE_FILTER-run_id": {"id": "NATIVE_FILTER-run_id", "ownState": {},
                                 "extraFormData": {"filters": [{"col": "run_id", "op": "IN", "val": ["sim-demo-1", "it's!"]}]},
                                 "filterState": {"value": ["sim-demo-1", "it's!"]}},
        "NATIVE_FILTER-step": {"id": "NATIVE_FILTER-step", "ownState": {},
                               "extraFormData": {"filters": [{"col": "step_index", "op": "IN", "val": [3]}]},
                               "filterState": {"value": [3]}}}


def test_a_chart_counts_as_drawn_only_without_error_spinner_or_empty_message():
    drawn = dict(title="t", loading=False, error=False, empty=False, drawn=True, text="")
    assert ChartState(**drawn).ok
    for flag in ("loading", "error", "empty"):
        assert not ChartState(**{**drawn, flag: True}).ok
    assert not ChartState(**{**drawn, "drawn": False}).ok


def test_chromium_runs_headless_sandboxless_and_quiet():
    assert {"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"} == set(CHROMIUM_FLAGS)


class _LoginPage:
    """A page whose login form keeps the browser on /login for the first ``stuck`` submissions."""

    def __init__(self, stuck: int):
        self.stuck, self.submitted, self.visited = stuck, 0, []

    def goto(self, url: str) -> None:
        self.visited.append(url)

    def fill(self, selector: str, value: str) -> None:
        pass

    def click(self, selector: str) -> None:
        self.submitted += 1

    def wait_for_url(self, predicate, timeout: float, wait_until: str) -> None:
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        if self.submitted <= self.stuck:
            raise PlaywrightTimeout("still on /login")
        assert predicate("http://superset/superset/welcome/")


def test_login_sends_the_form_again_when_it_stays_on_the_login_page():
    pytest.importorskip("playwright")
    b = SupersetBrowser("http://superset/", "admin", "pw")
    b.page = _LoginPage(stuck=1)
    b.login()
    assert b.page.submitted == 2 and b.page.visited == ["http://superset/login/"] * 2
    b.page = _LoginPage(stuck=5)
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    with pytest.raises(PlaywrightTimeout):
        b.login(attempts=3)
    assert b.page.submitted == 3
