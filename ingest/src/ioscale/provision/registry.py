"""The schema registry's subjects: every Avro schema of ``schema/`` registered once the registry answers."""

from __future__ import annotations

from ioscale.stack.registry import RegistryComponent
from ioscale.wire import schemas


class RegistrySchemas(RegistryComponent):
    """The registry with ioscale's schemas."""

    def configure(self) -> None:
        # Producers register on first use too; registering here means ClickHouse's Kafka tables and
        # Flink find every schema before the first record, and an incompatible change fails `up` loudly.
        registered = schemas.register_all(self.url)
        self.ui.done(f"registry: {len(registered)} schemas registered "
                     f"({', '.join(f'{r.subject}={r.schema_id}' for r in registered)})")
