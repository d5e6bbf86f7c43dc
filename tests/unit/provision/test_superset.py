"""SupersetDashboards without services: what a re-import removes."""

from __future__ import annotations

import json
from pathlib import Path

from ioscale.provision.superset import SupersetDashboards
from ioscale.stack.component import StackContext
from ioscale.stack.progress import SilentProgress
from ioscale.stack.settings import StackSettings

REPO = Path(__file__).resolve().parents[3]


def _component(tmp_path) -> SupersetDashboards:
    """No secrets: pruning talks to the session it is given and records UUIDs under the data directory."""
    settings = StackSettings.from_env({"IOSCALE_REPO": str(REPO), "IOSCALE_HOME": str(tmp_path)})
    return SupersetDashboards(StackContext(settings, {}, SilentProgress()))


class _FakeSession:
    """Just enough of SupersetSession for SupersetDashboards._prune: lists objects, records deletions."""

    base_url = "http://superset"

    def __init__(self, objects: dict[str, dict[int, str]]):
        self.objects = objects  # resource -> {id: uuid}
        self.deleted: list[tuple[str, int]] = []

    def get(self, url: str, timeout: float):
        resource = url.split("/api/v1/")[1].split("/")[0]
        rows = [{"id": i, "uuid": u} for i, u in self.objects.get(resource, {}).items()]

        class R:
            status_code = 200

            def raise_for_status(self):
                pass

            def json(self):
                return {"result": rows}

        return R()

    def delete(self, url: str, timeout: float):
        resource, obj_id = url.split("/api/v1/")[1].split("/")[:2]
        self.deleted.append((resource, int(obj_id)))

        class R:
            status_code = 200
            text = ""

        return R()


def test_prune_deletes_only_what_an_earlier_import_created(tmp_path):
    c = _component(tmp_path)
    c.data.mkdir(parents=True)
    first = {"databases": ["db-1"], "datasets": ["ds-1", "ds-2"], "charts": ["ch-1", "ch-2"], "dashboards": ["da-1"]}
    session = _FakeSession({"chart": {1: "ch-1", 2: "ch-2", 9: "made-in-ui"}, "dataset": {1: "ds-1", 2: "ds-2"},
                            "dashboard": {1: "da-1"}, "database": {1: "db-1"}})
    assert c._prune(session, first) == 0  # nothing recorded yet: nothing to remove
    assert json.loads(c._imported_record.read_text())["charts"] == ["ch-1", "ch-2"]
    second = {**first, "charts": ["ch-1"], "datasets": ["ds-1"]}
    assert c._prune(session, second) == 2
    # dashboards before charts before datasets; the chart made in the UI is never touched
    assert session.deleted == [("chart", 2), ("dataset", 2)]
    assert json.loads(c._imported_record.read_text())["datasets"] == ["ds-1"]
