"""ClickHouse's schema: ``sql/migrations`` applied in order once the server answers (see ``migrations``)."""

from __future__ import annotations

from ioscale.provision import migrations
from ioscale.stack.clickhouse import ClickHouseComponent, client
from ioscale.stack.settings import StackSettings


def migration_placeholders(settings: StackSettings) -> dict[str, str]:
    """Values for ``{{name}}`` in sql/migrations: what Kafka-engine tables need to find their sources."""
    return {
        "kafka_bootstrap": settings.kafka_bootstrap,
        "registry_url": settings.url("registry"),
    }


class ClickHouseSchema(ClickHouseComponent):
    """The server with ioscale's databases, tables and views."""

    def configure(self) -> None:
        with client(self.ctx, role="admin") as admin:
            report = migrations.apply(
                migrations.ClickHouseExecutor(admin),
                migrations.migrations_dir(self.settings),
                migration_placeholders(self.settings),
            )
        if report.applied:
            self.ui.done(f"clickhouse: applied {len(report.applied)} migration(s) and view(s): "
                         f"{', '.join(report.applied)}")
        else:
            views = sum(1 for name in report.skipped if migrations.view_folder(name) is not None)
            self.ui.done(f"clickhouse: schema up to date ({len(report.skipped) - views} migrations, {views} views)")
