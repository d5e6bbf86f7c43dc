"""The contract every local-stack service implements, and the shared readiness wait.

Lifecycle driven by the launcher, each step idempotent so `stack up` can be re-run after any failure:

    install()   fetch pinned artifacts into <home>/dist (skipped when the install marker matches)
    prepare()   write config files, format storage once
    processes() the background processes to start (PID file + log file each)
    wait_ready() block until a real readiness check passes (not just an open port)
    configure() post-start work (topics, DDL, job submission, dashboard import): none here;
                ioscale.provision's subclasses add it (ioscale.provision.launcher names them)
    health()    one-line state for `stack status`
    endpoints() URLs and credential hints printed at the end of `up`
"""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ioscale.errors import StackError
from ioscale.paths import Subpath
from ioscale.stack import process
from ioscale.stack.process import ProcessSpec
from ioscale.stack.progress import Progress
from ioscale.stack.settings import StackSettings


@dataclass
class StackContext:
    settings: StackSettings
    secrets: dict[str, str]
    ui: Progress


@dataclass(frozen=True)
class Health:
    ok: bool
    detail: str


@dataclass(frozen=True)
class Endpoint:
    label: str
    value: str


class Component(ABC):
    name: str = ""
    #: bump to force a reinstall when the pinned artifacts change
    install_version: str = ""

    def __init__(self, ctx: StackContext):
        self.ctx = ctx
        self.settings = ctx.settings
        self.ui = ctx.ui

    # -- locations -------------------------------------------------------------------------------
    @property
    def dist(self) -> Path:
        return self.settings.dist_dir / self.name

    @property
    def data(self) -> Path:
        return self.settings.data_dir / self.name

    @property
    def log_file(self) -> Path:
        return self.settings.log_dir / f"{self.name}.log"

    @property
    def install_log(self) -> Path:
        return self.settings.log_dir / f"{self.name}-install.log"

    #: config files prepare() renders, under the data folder so resetting a service resets them too
    conf_dir = Subpath("data", "conf")

    def spec(self, suffix: str | None, argv: list[str], **kw) -> ProcessSpec:
        name = self.name if suffix is None else f"{self.name}-{suffix}"
        return ProcessSpec(
            name=name,
            argv=argv,
            log_file=self.settings.log_dir / f"{name}.log",
            pid_file=self.settings.run_dir / f"{name}.pid",
            **kw,
        )

    # -- install marker: written last, so a half-finished install is redone ------------------------
    @property
    def _marker(self) -> Path:
        return self.dist / ".installed.json"

    def is_installed(self) -> bool:
        try:
            return json.loads(self._marker.read_text()).get("version") == self.install_version
        except (FileNotFoundError, ValueError):
            return False

    def mark_installed(self) -> None:
        self._marker.parent.mkdir(parents=True, exist_ok=True)
        self._marker.write_text(json.dumps({"version": self.install_version, "at": time.time()}))

    # -- lifecycle -------------------------------------------------------------------------------
    @abstractmethod
    def install(self) -> None: ...

    def prepare(self) -> None:
        pass

    @abstractmethod
    def processes(self) -> list[ProcessSpec]: ...

    @abstractmethod
    def wait_ready(self, timeout_s: float) -> None: ...

    def configure(self) -> None:
        """Provision the running service; the stack only installs, runs and checks it (see ioscale.provision)."""

    @abstractmethod
    def health(self) -> Health: ...

    def endpoints(self) -> list[Endpoint]:
        return []

    # -- helpers ---------------------------------------------------------------------------------
    def wait_for(self, what: str, check: Callable[[], bool], timeout_s: float, interval_s: float = 0.5) -> None:
        """Poll ``check`` until true. Fails fast, with the log tail, if one of our processes died."""
        t0 = time.monotonic()
        next_beat = t0 + 10
        last_error: Exception | None = None
        while True:
            try:
                if check():
                    return
            except Exception as e:  # readiness probes fail in many ways while a service starts
                last_error = e
            for spec in self.processes():
                if not process.is_running(spec):
                    raise StackError(
                        self.name,
                        f"{spec.name} died while starting; last log lines:\n{process.tail(spec.log_file, 25)}",
                        str(spec.log_file),
                        "fix the cause above and re-run `ioscale stack up`",
                    )
            now = time.monotonic()
            if now - t0 > timeout_s:
                why = f" (last probe error: {last_error})" if last_error else ""
                raise StackError(
                    self.name,
                    f"not ready after {timeout_s:.0f}s waiting for {what}{why}",
                    str(self.processes()[0].log_file) if self.processes() else None,
                    "check the log, then re-run `ioscale stack up` (it resumes where it stopped)",
                )
            if now >= next_beat:
                self.ui.step(f"{self.name}: waiting for {what} ({now - t0:.0f}s)")
                next_beat = now + 10
            time.sleep(interval_s)
