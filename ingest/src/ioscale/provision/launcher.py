"""`ioscale stack up`: the stack's launcher with each service provisioned as soon as it answers.

The stack (``ioscale.stack``) installs, starts and checks the services; each class named here is its component
plus ``configure()``, which the launcher runs once the service is ready: topics, schemas, migrations, jobs,
dashboards. Same names and order as ``ioscale.stack.launcher.COMPONENTS`` (a unit test compares them).
"""

from __future__ import annotations

from ioscale.stack import launcher
from ioscale.stack.progress import Progress
from ioscale.stack.settings import StackSettings

COMPONENTS: dict[str, str] = {
    "kafka": "ioscale.provision.kafka:KafkaTopics",
    "registry": "ioscale.provision.registry:RegistrySchemas",
    "clickhouse": "ioscale.provision.clickhouse:ClickHouseSchema",
    "flink": "ioscale.provision.flink:FlinkJobs",
    "superset": "ioscale.provision.superset:SupersetDashboards",
}


class Launcher(launcher.Launcher):
    """The launcher of ``ioscale stack up|down|status|logs`` and ``ioscale demo``: the stack, provisioned."""

    def __init__(self, settings: StackSettings | None = None, ui: Progress | None = None):
        super().__init__(settings, ui, components=COMPONENTS)
