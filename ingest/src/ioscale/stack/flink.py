"""Flink 2.2.1 session cluster (one JobManager, one TaskManager) that runs the ioscale stream jobs.

Flink's binary distribution is not on Maven Central, but PyPI's ``apache-flink`` plus
``apache-flink-libraries`` (installed with ``--no-deps``) carry a complete one: ``bin/``, ``lib/``
(with ``flink-dist-*.jar``), ``conf/``. Both processes are the JVMs ``bin/<role>.sh start-foreground`` would
``exec``, started directly from a record of their command lines (``flink_launch``: the scripts' own JVMs cost
~6 s per restart); without a valid record the scripts run, and ``exec`` the JVM in place of the shell. Either way
the PID we record is the JVM's and stopping the process group leaves no JVM behind.

Where things live (``<home>`` is ``StackSettings.home``):

    <home>/dist/flink/site/pyflink/     the distribution (FLINK_HOME)
    <home>/data/flink/conf/             FLINK_CONF_DIR: config.yaml rendered from stack/flink/config.yaml
    <home>/data/flink/launch.json       the JVMs' command lines, as the role scripts would run them
    <home>/data/flink/{tmp,web,blobs,work,checkpoints,savepoints}/
    <home>/logs/flink-{jobmanager,taskmanager}.log      console output (WARN and above)
    <home>/logs/flink-ioscale-<service>-0-<host>.log    Flink's full INFO logs (shown in the UI)

Jobs are ``ioscale.provision.flink``'s: it builds the stream-jobs jar and submits, redeploys and replays jobs
over the REST API. Here the REST API only answers readiness and ``stack status`` (``overview``, ``jobs``).
"""

from __future__ import annotations

import shutil
import stat
import subprocess
import string
from pathlib import Path
from typing import Any

import requests

from ioscale.errors import StackError
from ioscale.paths import Subpath
from ioscale.stack import process
from ioscale.stack.commands import run_logged
from ioscale.stack.component import Component, Endpoint, Health
from ioscale.stack import flink_launch, flink_state
from ioscale.stack.process import ProcessSpec
from ioscale.stack.settings import StackSettings

FLINK_VERSION = "2.2.1"
PIP_REQUIREMENTS = (f"apache-flink=={FLINK_VERSION}", f"apache-flink-libraries=={FLINK_VERSION}")
#: JobManager RPC port (TaskManagers register there). Overridable once settings know "flink_rpc".
DEFAULT_RPC_PORT = 6123
#: Under data/flink: runtime-only files (blob caches, io.tmp.dirs spill files, web uploads).
RUNTIME_CACHE_DIRS = ("tmp", "blobs", "web")
REST_TIMEOUT_S = 10.0

#: Job states in which a job of that name counts as deployed: submitting another would run it twice.
#: CANCELLING and the terminal states (FINISHED, CANCELED, FAILED, SUSPENDED) do not.
ACTIVE_JOB_STATES = frozenset({"INITIALIZING", "CREATED", "RUNNING", "FAILING", "RESTARTING", "RECONCILING"})

#: The jobs the local stack runs (defined in ioscale.provision.flink); `stack status` wants each RUNNING.
SAMPLE_MONITOR_JOB = "ioscale-sample-monitor"
ANALYTICS_JOB = "ioscale-analytics"
JOB_NAMES = (SAMPLE_MONITOR_JOB, ANALYTICS_JOB)


# -- pure helpers (unit-tested) ------------------------------------------------------------------------
def find_flink_home(root: Path) -> Path | None:
    """The directory under ``root`` that holds ``bin/jobmanager.sh`` and ``lib/flink-dist*.jar``."""
    candidates = [root / "pyflink"]  # where the 2.2.1 wheels put it; rglob only if that moves
    candidates += [p.parent.parent for p in sorted(root.rglob("bin/jobmanager.sh"))] if root.is_dir() else []
    for home in candidates:
        if (home / "bin" / "jobmanager.sh").is_file() and any((home / "lib").glob("flink-dist*.jar")):
            return home
    return None


def render_config(template: str, settings: StackSettings, data_dir: Path, rpc_port: int) -> str:
    """Fill ``stack/flink/config.yaml``'s ``${...}`` placeholders; a missing key raises ``KeyError``."""
    return string.Template(template).substitute(
        host=settings.host,
        rest_port=settings.port("flink"),
        rpc_port=rpc_port,
        data_dir=str(data_dir),
    )


def job_states(overview: dict[str, Any]) -> dict[str, str]:
    """Job name -> state from ``GET /jobs/overview``.

    A session cluster keeps finished jobs, so one name can appear several times (a FAILED run, then
    the RUNNING resubmission). An active job wins; otherwise the most recently started one.
    """
    def rank(job: dict[str, Any]) -> tuple[bool, int]:
        return job.get("state") in ACTIVE_JOB_STATES, job.get("start-time", 0)

    best: dict[str, dict[str, Any]] = {}
    for job in overview.get("jobs", []):
        name = job.get("name", "")
        if name not in best or rank(job) > rank(best[name]):
            best[name] = job
    return {name: job.get("state", "UNKNOWN") for name, job in best.items()}


def rest(base_url: str, method: str, path: str, timeout_s: float = REST_TIMEOUT_S, log_file: Path | None = None,
         **kw: Any) -> Any:
    """One call of Flink's REST API at ``base_url``: its JSON answer (None if empty); an error status raises
    StackError naming ``log_file`` (the JobManager's log, where there is one to read)."""
    r = requests.request(method, f"{base_url}{path}", timeout=timeout_s, **kw)
    if r.status_code >= 400:
        raise StackError("flink", f"REST {method} {path} answered {r.status_code}: {r.text[:500]}",
                         str(log_file) if log_file else None)
    return r.json() if r.content else None


class FlinkComponent(Component):
    name = "flink"
    install_version = "+".join(PIP_REQUIREMENTS)

    # -- locations ---------------------------------------------------------------------------------
    #: pip ``--target`` directory holding the two wheels' contents
    site_dir = Subpath("dist", "site")

    @property
    def flink_home(self) -> Path:
        # Not an error when absent: `stack down`/`status` build process specs without an install.
        return find_flink_home(self.site_dir) or self.site_dir / "pyflink"

    @property
    def rpc_port(self) -> int:
        return self.settings.ports.get("flink_rpc", DEFAULT_RPC_PORT)

    @property
    def rest_url(self) -> str:
        return self.settings.url("flink")

    # -- install -----------------------------------------------------------------------------------
    def install(self) -> None:
        if self.is_installed():
            return
        # Install into a staging directory and swap it in, so an interrupted install never leaves a
        # half-filled tree (which `pip --target` would refuse to overwrite).
        staging = self.dist / "site.partial"
        shutil.rmtree(staging, ignore_errors=True)
        self.dist.mkdir(parents=True, exist_ok=True)
        run_logged(
            self.name,
            f"installing Flink {FLINK_VERSION} distribution from PyPI wheels",
            [str(self.settings.venv_python), "-m", "pip", "install", "--no-deps", "--no-compile",
             "--disable-pip-version-check", "--target", str(staging), *PIP_REQUIREMENTS],
            self.install_log,
            self.ui,
            timeout_s=1800,
            hint="check access to the Python package index, then re-run `ioscale stack up`",
        )
        home = find_flink_home(staging)
        if home is None:
            raise StackError(self.name, "the installed wheels hold no bin/jobmanager.sh with lib/flink-dist*.jar",
                             str(self.install_log), "the pinned wheels may have changed layout; check the log")
        # Wheels do not always keep the executable bit of shell scripts.
        for script in (home / "bin").iterdir():
            if script.is_file():
                script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        shutil.rmtree(self.site_dir, ignore_errors=True)
        staging.replace(self.site_dir)
        self.mark_installed()

    # -- prepare -----------------------------------------------------------------------------------
    def prepare(self) -> None:
        template_dir = self.settings.repo / "stack" / "flink"
        rendered = render_config((template_dir / "config.yaml").read_text(), self.settings, self.data, self.rpc_port)
        self._stop_orphaned_taskmanager()
        self._clear_runtime_caches()
        flink_state.check(self.data)
        self.conf_dir.mkdir(parents=True, exist_ok=True)
        for sub in (*RUNTIME_CACHE_DIRS, "work", "checkpoints", "savepoints"):
            (self.data / sub).mkdir(parents=True, exist_ok=True)
        self.settings.log_dir.mkdir(parents=True, exist_ok=True)
        write_atomic(self.conf_dir / "config.yaml", rendered)
        write_atomic(self.conf_dir / "log4j-console.properties", (template_dir / "log4j-console.properties").read_text())
        self._record_launches()

    # -- the JVMs' command lines ---------------------------------------------------------------------
    launch_record = Subpath("data", "launch.json")

    def _launch_key(self) -> str:
        return flink_launch.cache_key(self.flink_home, self.conf_dir, self._env(), flink_launch.real_java())

    def _record_launches(self) -> None:
        """Capture what each role script would exec, once per configuration (~6 s; then 0.01 s)."""
        if not (self.flink_home / "bin" / "jobmanager.sh").is_file():
            return
        try:
            key = self._launch_key()
            if flink_launch.load(self.launch_record, key) is not None:
                return
            java = flink_launch.real_java()
            launches = {role: flink_launch.capture(self.flink_home, role, self._env(), self.data / "launch-capture",
                                                   java, self.data)
                        for role in flink_launch.ROLE_CLASSES}
        except (StackError, OSError, subprocess.SubprocessError) as e:
            # Not a reason to stop: without a record the role scripts start the JVMs, only slower.
            self.launch_record.unlink(missing_ok=True)
            self.ui.warn(f"{self.name}: starting the JVMs through Flink's scripts ({e})")
            return
        write_atomic(self.launch_record, flink_launch.encode(key, launches))

    def launches(self) -> dict[str, flink_launch.Launch] | None:
        if not self.launch_record.is_file():
            return None
        try:
            return flink_launch.load(self.launch_record, self._launch_key())
        except (OSError, StackError):
            return None

    def _clear_runtime_caches(self) -> None:
        """With no Flink process running, drop blob caches, spill files and uploads.

        Flink removes them on a clean shutdown; after a kill they stay (~20 MB of job jar per run).
        Jobs are resubmitted on `up` anyway; checkpoints are kept.
        """
        if any(process.is_running(spec) for spec in self.processes()):
            return
        for sub in RUNTIME_CACHE_DIRS:
            shutil.rmtree(self.data / sub, ignore_errors=True)

    def _stop_orphaned_taskmanager(self) -> None:
        """Stop a TaskManager that outlived its JobManager (a crash, a kill -9).

        Left alone it keeps running the old job's tasks, still reading Kafka next to the resubmitted
        job, and only re-registers after heartbeat.timeout (~50 s). Restarting it with the new
        JobManager takes seconds. It is killed, not stopped: its tasks' state is in the last checkpoint,
        which the resubmitted job restores, and a graceful stop waits on the JobManager that is gone.
        """
        jm, tm = self.processes()
        if not process.is_running(jm) and process.is_running(tm):
            self.ui.warn(f"{self.name}: restarting the TaskManager left running without its JobManager")
            process.stop(tm, timeout_s=0)

    # -- processes ---------------------------------------------------------------------------------
    def _env(self) -> dict[str, str]:
        home = self.flink_home
        # Set every directory Flink's scripts would otherwise take from a stray environment.
        return {
            "FLINK_HOME": str(home),
            "FLINK_CONF_DIR": str(self.conf_dir),
            "FLINK_LIB_DIR": str(home / "lib"),
            "FLINK_PLUGINS_DIR": str(home / "plugins"),
            "FLINK_OPT_DIR": str(home / "opt"),
            "FLINK_LOG_DIR": str(self.settings.log_dir),
            "FLINK_PID_DIR": str(self.settings.run_dir / "flink"),
            "FLINK_IDENT_STRING": "ioscale",  # log files: flink-ioscale-<service>-0-<host>.log
        }

    def processes(self) -> list[ProcessSpec]:
        bin_dir = self.flink_home / "bin"
        env = self._env()
        recorded = self.launches() or {}

        def command(role: str) -> tuple[list[str], dict[str, str]]:
            if role in recorded:
                return recorded[role].argv, {**env, **recorded[role].env}
            return [str(bin_dir / f"{role}.sh"), "start-foreground"], env

        jm_argv, jm_env = command("jobmanager")
        tm_argv, tm_env = command("taskmanager")
        return [
            self.spec("jobmanager", jm_argv, env=jm_env, cwd=self.data,
                      ports=(self.settings.port("flink"), self.rpc_port), stop_timeout_s=30.0),
            self.spec("taskmanager", tm_argv, env=tm_env, cwd=self.data, stop_timeout_s=30.0),
        ]

    # -- REST --------------------------------------------------------------------------------------
    def _rest(self, method: str, path: str, timeout_s: float = REST_TIMEOUT_S, **kw: Any) -> Any:
        return rest(self.rest_url, method, path, timeout_s, self._flink_log("standalonesession"), **kw)

    def _flink_log(self, service: str) -> Path:
        """Flink's own INFO log for ``service`` (standalonesession or taskexecutor); newest if several hosts."""
        found = sorted(self.settings.log_dir.glob(f"flink-ioscale-{service}-*.log"), key=lambda p: p.stat().st_mtime)
        return found[-1] if found else self.settings.log_dir / f"flink-ioscale-{service}-0.log"

    def overview(self) -> dict[str, Any]:
        return self._rest("GET", "/overview")

    def jobs(self) -> dict[str, str]:
        """Job name -> state (an active job wins over older runs of the same name)."""
        return job_states(self._rest("GET", "/jobs/overview"))

    # -- readiness ---------------------------------------------------------------------------------
    def wait_ready(self, timeout_s: float) -> None:
        self.wait_for("a TaskManager registered with the JobManager (REST /overview)",
                      lambda: self.overview().get("taskmanagers", 0) >= 1, timeout_s)

    # -- status ------------------------------------------------------------------------------------
    def health(self) -> Health:
        try:
            ov = self.overview()
            states = self.jobs()
        except (requests.RequestException, StackError) as e:
            return Health(False, f"REST API at {self.rest_url} not answering ({type(e).__name__})")
        tms = ov.get("taskmanagers", 0)
        wanted = list(JOB_NAMES)
        jobs = ", ".join(f"{n}={states.get(n, 'NOT SUBMITTED')}" for n in wanted)
        ok = tms >= 1 and all(states.get(n) == "RUNNING" for n in wanted)
        return Health(ok, f"{tms} TaskManager(s), {ov.get('slots-available', 0)}/{ov.get('slots-total', 0)} "
                          f"slots free; jobs: {jobs}")

    def endpoints(self) -> list[Endpoint]:
        return [Endpoint("Flink UI", f"{self.rest_url}/")]


def write_atomic(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)
