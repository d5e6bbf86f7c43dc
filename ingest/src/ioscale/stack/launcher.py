"""`ioscale stack up|down|status|logs`: drives the components in dependency order.

Order matters: the registry stores schemas in Kafka; ClickHouse's Kafka tables need the broker and
the registry; Flink jobs read Kafka; Superset's datasets sit on ClickHouse tables.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Mapping
from dataclasses import dataclass

from ioscale.errors import ConfigError, StackError
from ioscale.stack import process
from ioscale.stack.component import Component, Health, StackContext
from ioscale.stack.process import PortTakenError, ProcessDiedError
from ioscale.stack.progress import Progress
from ioscale.stack.settings import StackSettings, load_secrets

#: name -> "module:Class", imported lazily so `stack status` does not load every client library. These only
#: install, run and check their service; ioscale.provision.launcher names the subclasses that also provision it.
COMPONENTS: dict[str, str] = {
    "kafka": "ioscale.stack.kafka:KafkaComponent",
    "registry": "ioscale.stack.registry:RegistryComponent",
    "clickhouse": "ioscale.stack.clickhouse:ClickHouseComponent",
    "flink": "ioscale.stack.flink:FlinkComponent",
    "superset": "ioscale.stack.superset:SupersetComponent",
}
READY_TIMEOUT_S = {"kafka": 90, "registry": 60, "clickhouse": 90, "flink": 120, "superset": 180}


def component_class(name: str, components: Mapping[str, str] | None = None) -> type[Component]:
    module, cls = (COMPONENTS if components is None else components)[name].split(":")
    return getattr(importlib.import_module(module), cls)


def select(names: list[str] | None, components: Mapping[str, str] | None = None) -> list[str]:
    components = COMPONENTS if components is None else components
    if not names:
        return list(components)
    unknown = [n for n in names if n not in components]
    if unknown:
        raise ConfigError(f"unknown component(s) {', '.join(unknown)}; choose from {', '.join(components)}")
    return [n for n in components if n in names]  # keep dependency order whatever the user typed


@dataclass
class ComponentStatus:
    name: str
    processes: list[tuple[str, int | None]]  # (process name, pid or None)
    health: Health | None


class Launcher:
    """Drives the components named in ``components`` ("module:Class" by name, in dependency order; default
    ``COMPONENTS``)."""

    def __init__(self, settings: StackSettings | None = None, ui: Progress | None = None,
                 components: Mapping[str, str] | None = None):
        self.components = components
        self.settings = settings or StackSettings.from_env()
        self.ui = ui or Progress()
        self._ctx: StackContext | None = None
        self._secrets_created = False

    def context(self, create_secrets: bool) -> StackContext:
        if self._ctx is not None and create_secrets and not self._secrets_created:
            # A context made by `status` on a fresh home has no secrets; `up` must generate them into the
            # same dict, since components already built hold a reference to it.
            self._ctx.secrets.update(load_secrets(self.settings, create=True))
            self._secrets_created = True
        if self._ctx is None:
            for d in (self.settings.home, self.settings.log_dir, self.settings.run_dir, self.settings.data_dir):
                d.mkdir(parents=True, exist_ok=True)
            try:
                secrets = load_secrets(self.settings, create=create_secrets)
            except ConfigError:
                secrets = {}  # never started: `down`/`status` still work, they need no credentials
            self._ctx = StackContext(self.settings, secrets, self.ui)
            self._secrets_created = create_secrets
        return self._ctx

    def component(self, name: str, create_secrets: bool = False) -> Component:
        return component_class(name, self.components)(self.context(create_secrets))

    # -- up ---------------------------------------------------------------------------------------
    def up(self, names: list[str] | None = None) -> list[Component]:
        t0 = time.monotonic()
        comps = [self.component(n, create_secrets=True) for n in select(names, self.components)]
        # Install everything first: the slow downloads happen before any service holds memory.
        for comp in comps:
            if comp.is_installed():
                self.ui.done(f"{comp.name}: installed")
            else:
                comp.install()
        for comp in comps:
            self._start(comp)
        self.ui.done(f"stack up in {time.monotonic() - t0:.0f}s")
        return comps

    def _start(self, comp: Component) -> None:
        comp.prepare()
        specs = comp.processes()
        for spec in specs:
            if process.config_changed(spec):
                self.ui.step(f"{comp.name}: restarting {spec.name}: its command line, environment or configuration "
                             "changed since it started")
                process.stop(spec)
        already = all(process.is_running(s) for s in specs)
        for spec in specs:
            try:
                pid = process.start(spec, self.settings.host)
            except PortTakenError as e:
                raise StackError(
                    comp.name, str(e), str(spec.log_file),
                    f"stop that process, or move {comp.name} to a free port with IOSCALE_<NAME>_PORT "
                    f"(see `ioscale stack status`)",
                ) from None
            except ProcessDiedError as e:
                raise StackError(comp.name, str(e), str(spec.log_file)) from None
            self.ui.step(f"{comp.name}: {spec.name} {'running' if already else 'started'} (pid {pid})")
        comp.wait_ready(READY_TIMEOUT_S.get(comp.name, 120))
        comp.configure()
        self.ui.done(f"{comp.name}: ready")

    # -- down -------------------------------------------------------------------------------------
    def down(self, names: list[str] | None = None) -> list[str]:
        stopped = []
        for name in reversed(select(names, self.components)):
            comp = self.component(name)
            for spec in reversed(comp.processes()):
                if process.stop(spec):
                    stopped.append(spec.name)
                    self.ui.done(f"{name}: stopped {spec.name}")
        return stopped

    # -- status -----------------------------------------------------------------------------------
    def status(self, names: list[str] | None = None) -> list[ComponentStatus]:
        out = []
        for name in select(names, self.components):
            comp = self.component(name)
            procs = [(s.name, process.read_pid(s.pid_file)) for s in comp.processes()]
            health = comp.health() if all(pid for _, pid in procs) else None
            out.append(ComponentStatus(name, procs, health))
        return out

    def endpoints(self, comps: list[Component]) -> list[tuple[str, str]]:
        rows = [(e.label, e.value) for c in comps for e in c.endpoints()]
        rows.append(("Credentials (generated)", str(self.settings.secrets_file)))
        rows.append(("Logs", str(self.settings.log_dir)))
        return rows
