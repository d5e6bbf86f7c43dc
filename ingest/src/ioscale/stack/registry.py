"""The schema registry: ioscale's own Confluent-compatible server (``ioscale.services.registry``), one Python process.

Nothing to download: the code ships in the ioscale package. It keeps its schemas in Kafka (topic
``_schemas``), so it starts after the broker, and it listens only once it has read that topic to
the end: an answer to ``GET /subjects`` means every earlier schema is served with its old id.
"""

from __future__ import annotations

import json
import urllib.request

from ioscale.stack.component import Component, Endpoint, Health
from ioscale.stack.process import ProcessSpec

SCHEMAS_TOPIC = "_schemas"
PROBE_TIMEOUT_S = 3.0


class RegistryComponent(Component):
    name = "registry"
    install_version = "ioscale-registry-1"  # code in this package; nothing to fetch

    @property
    def url(self) -> str:
        return self.settings.url("registry")

    def install(self) -> None:
        if not self.is_installed():
            self.mark_installed()

    def processes(self) -> list[ProcessSpec]:
        port = self.settings.port("registry")
        return [
            self.spec(
                None,
                [str(self.settings.venv_python), "-m", "ioscale.services.registry",
                 "--host", self.settings.host, "--port", str(port),
                 "--bootstrap", self.settings.kafka_bootstrap, "--topic", SCHEMAS_TOPIC],
                env={"PYTHONUNBUFFERED": "1"},  # log lines reach the log file as they happen
                ports=(port,),
                stop_timeout_s=10.0,
            )
        ]

    def _get(self, path: str):
        req = urllib.request.Request(self.url + path, headers={"Accept": "application/vnd.schemaregistry.v1+json"})
        with urllib.request.urlopen(req, timeout=PROBE_TIMEOUT_S) as resp:
            return resp.status, json.loads(resp.read())

    def _subjects_answer(self) -> bool:
        status, body = self._get("/subjects")
        return status == 200 and isinstance(body, list)

    def wait_ready(self, timeout_s: float) -> None:
        self.wait_for("GET /subjects", self._subjects_answer, timeout_s)

    def health(self) -> Health:
        try:
            _, subjects = self._get("/subjects")
            _, config = self._get("/config")
        except Exception as e:  # connection refused, timeout, bad JSON
            return Health(False, f"not answering at {self.url} ({e})")
        return Health(True, f"{len(subjects)} subjects, compatibility {config.get('compatibilityLevel')}")

    def endpoints(self) -> list[Endpoint]:
        return [Endpoint("Schema registry (Confluent API)", self.url)]
