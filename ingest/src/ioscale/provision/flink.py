"""The ioscale stream jobs on a Flink cluster: the local stack's (``ioscale.stack.flink``) or compose's.

One definition serves both: ``stream_jobs_for`` lists the jobs from where the cluster reaches the services
(``JobEndpoints``), and ``JobSubmitter`` submits, redeploys and restores them over the REST API, given only the
cluster's URL, the jar and a directory for its records. The local stack's ``FlinkJobs`` and compose's
``ioscale admin submit-jobs`` (``provision.external``) both delegate to it.

``FlinkJobs.configure()`` builds ``stream-jobs/target/ioscale-stream-jobs.jar`` when a source (or a schema in
``schema/``, which the jar carries) is newer than the jar and submits each job over the REST API unless a
job of that name is already active. An active job is redeployed when what it runs is out of date: the
stream-jobs sources changed, the jar was rebuilt since it was submitted, or its arguments changed (the analytics
settings in ``<home>/analytics.conf``, see ``analytics_config``). A redeploy stops the job with a savepoint and
submits the new one restoring it, so no window or offset is lost. What each job was submitted with is recorded
in ``<home>/data/flink/deployed/<job>.json``; for a job without a record only changed sources count.
The cluster has no HA store, so a restarted JobManager has no jobs and ``up`` submits them again:

- ``ioscale-sample-monitor`` resumes from the Kafka offsets committed by its last checkpoint (it keeps no
  state worth restoring);
- ``ioscale-analytics`` writes its checkpoints to ``<home>/data/flink/checkpoints/ioscale-analytics/<job id>/``
  and retains them when the cluster stops; it is resubmitted from the newest complete one (``savepointPath``),
  so its windows, steps and Kafka offsets continue where they were: nothing is lost, and what the restored
  job writes to ClickHouse again replaces the rows it had written (ReplacingMergeTree). If the restore fails
  (e.g. the job changed incompatibly) it starts fresh from the committed offsets, with a warning.

The analytics job logs in to ClickHouse as ``ioscale_flink``; it reads the password from
``secrets.env`` (``--clickhouse-password-file``), so the password is not in its arguments, which the Flink
REST API shows.

Under compose the same holds on the flink-data volume, mounted at one path in the JobManager, the TaskManager and
``flink-job-submit``: checkpoints in ``/flink-data/checkpoints/<job>/``, records and savepoints in
``/flink-data/submit/``, with the password file (``clickhouse.env``, 0600, the Flink user's). Its jar is built by
``stream-jobs-build`` on every ``up``; the build is reproducible, so the jar's sha256 changes with its content only.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from ioscale.errors import StackError
from ioscale.paths import Subpath
from ioscale.provision import analytics_config
from ioscale.stack import flink as stack_flink
from ioscale.stack.commands import run_logged
from ioscale.stack.flink import (ACTIVE_JOB_STATES, ANALYTICS_JOB, REST_TIMEOUT_S, SAMPLE_MONITOR_JOB, FlinkComponent,
                                 job_states, write_atomic)
from ioscale.stack.progress import Progress
from ioscale.stack.settings import CLICKHOUSE_USERS, StackSettings
from ioscale.wire import topics

JOB_JAR_NAME = "ioscale-stream-jobs.jar"
#: A stop-with-savepoint writes the whole window state; it waits for the running checkpoint, if any.
SAVEPOINT_TIMEOUT_S = 180.0
#: Upload and job submission run the job's main() in the JobManager: allow more than a plain GET.
SUBMIT_TIMEOUT_S = 120.0
#: Terminal states of one run of a job.
ENDED_JOB_STATES = frozenset({"FINISHED", "CANCELED", "FAILED"})


@dataclass(frozen=True)
class StreamJob:
    """One job of the stream-jobs jar: the name it runs under, its entry class, its arguments.

    ``checkpoint_dir``: where the job retains its checkpoints (``<dir>/<job id>/chk-<n>/``); when set, a
    submission restores the newest complete one. None: the job starts from its committed Kafka offsets.
    ``parallelism``: the run's, given with the submission (REST ``parallelism``); None: Flink's default, 1 for a
    jar run over REST whatever the cluster's ``parallelism.default`` (seen with Flink 2.2.1).
    """

    name: str
    entry_class: str
    program_args: tuple[str, ...]
    checkpoint_dir: Path | None = None
    parallelism: int | None = None


@dataclass(frozen=True)
class JobEndpoints:
    """Where the jobs reach their services and keep their state, as the Flink cluster sees them.

    ``clickhouse_password_file``: a ``KEY=VALUE`` file holding CLICKHOUSE_FLINK_PASSWORD, read by the job's main()
    in the JobManager (program arguments are visible over Flink's REST API, a file is not).
    ``checkpoint_root``: each job with checkpoints keeps them under ``<root>/<job name>``, a path the submitter
    reads too (the newest complete checkpoint is restored on submission).
    ``analytics``: the analytics job's tunables (``analytics_config``), passed as ``--key value``.
    ``parallelism``: every job's (``StreamJob.parallelism``); None leaves it to Flink, as the local stack does.
    """

    kafka_bootstrap: str
    registry_url: str
    clickhouse_url: str
    clickhouse_password_file: Path
    checkpoint_root: Path
    analytics: dict[str, str] = field(default_factory=dict)
    parallelism: int | None = None

    @classmethod
    def local(cls, settings: StackSettings) -> "JobEndpoints":
        """The local stack's services; the password stays in its secrets.env, the tunables in analytics.conf."""
        return cls(settings.kafka_bootstrap, settings.url("registry"), settings.url("clickhouse_http"),
                   settings.secrets_file, settings.data_dir / "flink" / "checkpoints",
                   analytics_config.load(settings.home))


def stream_jobs_for(endpoints: JobEndpoints) -> list[StreamJob]:
    """The stream jobs, with arguments pointing at ``endpoints``."""
    analytics_checkpoints = endpoints.checkpoint_root / ANALYTICS_JOB
    # The analytics job first: after a JobManager crash its results are what users wait for.
    return [
        StreamJob(
            name=ANALYTICS_JOB,
            entry_class="io.ioscale.jobs.AnalyticsJob",
            program_args=(
                "--kafka-bootstrap", endpoints.kafka_bootstrap,
                "--registry-url", endpoints.registry_url,
                "--clickhouse-url", endpoints.clickhouse_url,
                "--clickhouse-user", CLICKHOUSE_USERS["flink"],
                "--clickhouse-password-file", str(endpoints.clickhouse_password_file),
                "--checkpoint-dir", analytics_checkpoints.as_uri(),
                *analytics_config.program_args(endpoints.analytics),
            ),
            checkpoint_dir=analytics_checkpoints,
            parallelism=endpoints.parallelism,
        ),
        StreamJob(
            name=SAMPLE_MONITOR_JOB,
            entry_class="io.ioscale.jobs.SampleMonitorJob",
            program_args=("--kafka-bootstrap", endpoints.kafka_bootstrap, "--topic", topics.IO_SAMPLES),
            parallelism=endpoints.parallelism,
        ),
    ]


def stream_jobs(settings: StackSettings) -> list[StreamJob]:
    """The jobs the local stack runs, with arguments pointing at the local services."""
    return stream_jobs_for(JobEndpoints.local(settings))


# -- pure helpers (unit-tested) ------------------------------------------------------------------------
def jar_is_stale(jar: Path, project: Path) -> bool:
    """True when ``jar`` is missing or older than ``pom.xml``, any file under ``src/main``, or an Avro schema
    in ``../schema`` (the build copies them into the jar as the jobs' reader schemas)."""
    try:
        jar_mtime = jar.stat().st_mtime
    except FileNotFoundError:
        return True
    sources: Iterable[Path] = [
        project / "pom.xml",
        *(p for p in (project / "src" / "main").rglob("*") if p.is_file()),
        *(project.parent / "schema").glob("*.avsc"),
    ]
    return any(p.stat().st_mtime > jar_mtime for p in sources if p.exists())


def latest_checkpoint(directory: Path | None) -> Path | None:
    """The newest complete checkpoint under ``directory`` (``<job id>/chk-<n>/`` holding ``_metadata``).

    Flink writes ``_metadata`` last, so a checkpoint without it was cut short and is skipped.
    """
    if directory is None or not directory.is_dir():
        return None
    complete = [m.parent for m in directory.glob("*/chk-*/_metadata") if m.is_file()]
    if not complete:
        return None
    return max(complete, key=lambda d: ((d / "_metadata").stat().st_mtime, int(d.name.split("-", 1)[1])))


def stale_checkpoint_dirs(directory: Path, keep: set[str]) -> list[Path]:
    """Job directories under ``directory`` other than ``keep`` (job ids): runs a newer run has replaced."""
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.iterdir() if p.is_dir() and p.name not in keep)


def should_submit(states: dict[str, str], job_name: str) -> bool:
    return states.get(job_name) not in ACTIVE_JOB_STATES


def active_job_ids(overview: dict[str, Any]) -> dict[str, str]:
    """Job name -> id of its active run, from ``GET /jobs/overview`` (names without one are absent)."""
    active = [j for j in overview.get("jobs", []) if j.get("state") in ACTIVE_JOB_STATES]
    return {j["name"]: j["jid"] for j in sorted(active, key=lambda j: j.get("start-time", 0))}


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def redeploy_reasons(record: dict[str, Any] | None, job_id: str, job: StreamJob, sources_changed: bool,
                     jar_sha256: str | None) -> list[str]:
    """Why the active run ``job_id`` of ``job`` is out of date (empty: it is current, or not ours to judge).

    ``record`` is what ``submit`` wrote when it started a run. Without one for this run (an older ioscale
    submitted it, or someone by hand) its jar and arguments are unknown: only changed sources count.
    """
    if record is None or record.get("job_id") != job_id:
        return ["stream-jobs sources changed"] if sources_changed else []
    reasons = []
    if sources_changed:
        reasons.append("stream-jobs sources changed")
    elif jar_sha256 is not None and record.get("jar_sha256") != jar_sha256:
        reasons.append("the job jar was rebuilt")
    old, new = record.get("program_args", []), list(job.program_args)
    if old != new:
        changed = sorted({a for a in old + new if a.startswith("--")
                          and _arg_value(old, a) != _arg_value(new, a)})
        reasons.append("arguments changed: " + ", ".join(a.removeprefix("--") for a in changed))
    if record.get("parallelism") != job.parallelism:
        reasons.append(f"parallelism changed: {record.get('parallelism') or 'default'} -> {job.parallelism or 'default'}")
    return reasons


def _arg_value(args: list[str], flag: str) -> str | None:
    return args[args.index(flag) + 1] if flag in args and args.index(flag) + 1 < len(args) else None


def poll(what: str, check: Callable[[], bool], timeout_s: float, interval_s: float = 0.5) -> None:
    """Until ``check`` is true (an exception counts as not yet); StackError after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except Exception as e:  # the REST API of a starting JobManager fails in many ways
            last_error = e
        time.sleep(interval_s)
    why = f" (last error: {last_error})" if last_error else ""
    raise StackError("flink", f"not ready after {timeout_s:.0f}s waiting for {what}{why}")


class JobSubmitter:
    """Deploys ``jobs`` from ``jar`` on the Flink cluster whose REST API is at ``rest_url``.

    ``submit_jobs`` submits each job unless one of its name is active, and redeploys an active run that is out of
    date (``redeploy_reasons``). ``data_dir`` holds what it keeps: ``deployed/<job>.json`` (what each run was
    submitted with) and ``savepoints/<job>/``, which the JobManager writes, so it must be the same path there.
    A job's ``checkpoint_dir`` must be readable here at the path the cluster writes it.

    ``log_file`` (the JobManager's log) is named in errors where there is one; ``rerun`` is the command that tries
    again; ``wait_for`` polls (the local stack's also stops at a dead process).
    """

    name = "flink"

    def __init__(self, rest_url: str, jar: Path, data_dir: Path, jobs: Sequence[StreamJob], ui: Progress,
                 log_file: Path | None = None, rerun: str = "ioscale stack up",
                 wait_for: Callable[[str, Callable[[], bool], float, float], None] = poll):
        self.rest_url, self.jar, self.data_dir, self.jobs = rest_url, jar, data_dir, list(jobs)
        self.ui, self.log_file, self.rerun, self.wait_for = ui, log_file, rerun, wait_for

    def _rest(self, method: str, path: str, timeout_s: float = REST_TIMEOUT_S, **kw: Any) -> Any:
        return stack_flink.rest(self.rest_url, method, path, timeout_s, self.log_file, **kw)

    def _error(self, message: str, hint: str | None = None) -> StackError:
        return StackError(self.name, message, str(self.log_file) if self.log_file else None, hint)

    # -- REST: the cluster and one job ----------------------------------------------------------------
    def wait_taskmanager(self, timeout_s: float) -> None:
        """Until a TaskManager has registered (slots to run the jobs on)."""
        self.wait_for("a TaskManager registered with the JobManager (REST /overview)",
                      lambda: self._rest("GET", "/overview").get("taskmanagers", 0) >= 1, timeout_s, 0.5)

    def job_state(self, job_id: str) -> str:
        return self._rest("GET", f"/jobs/{job_id}").get("state", "UNKNOWN")

    def job_records(self, job_id: str) -> int:
        """Records the job's tasks have read and written so far, over all its vertices: grows while it works."""
        vertices = self._rest("GET", f"/jobs/{job_id}").get("vertices", [])
        return sum(int(v.get("metrics", {}).get(m, 0) or 0) for v in vertices for m in ("read-records", "write-records"))

    def wait_tasks_running(self, job_id: str, timeout_s: float) -> None:
        """Until every task of ``job_id`` runs (restored, sources reading); a job still short of that after
        ``timeout_s`` is left to go on (its state is Flink's to report), with a warning."""
        def running() -> bool:
            vertices = self._rest("GET", f"/jobs/{job_id}").get("vertices", [])
            return bool(vertices) and all(v.get("status") in {"RUNNING", "FINISHED"} for v in vertices)
        try:
            self.wait_for(f"the tasks of job {job_id} running", running, timeout_s, 0.25)
        except StackError as e:
            self.ui.warn(f"{self.name}: {e}")

    def cancel(self, job_id: str) -> None:
        self._rest("PATCH", f"/jobs/{job_id}?mode=cancel")

    # -- submit and redeploy the jobs -------------------------------------------------------------------
    def submit_jobs(self, sources_changed: bool = False, build: Callable[[], None] | None = None) -> None:
        """Submit the jobs that are not active and redeploy the active runs that are out of date.

        ``sources_changed``: the jar's sources are newer than the jar (then its sha256 does not count yet);
        ``build`` makes the jar, called only when something is to be (re)deployed.
        """
        overview = self._rest("GET", "/jobs/overview")
        states, ids = job_states(overview), active_job_ids(overview)
        to_submit = [job for job in self.jobs if should_submit(states, job.name)]
        jar_sha = file_sha256(self.jar) if not sources_changed else None
        to_redeploy: list[tuple[StreamJob, str, list[str]]] = []
        for job in self.jobs:
            if job in to_submit:
                continue
            reasons = redeploy_reasons(self._deployment(job.name), ids.get(job.name, ""), job, sources_changed,
                                       jar_sha)
            if reasons:
                to_redeploy.append((job, ids[job.name], reasons))
            else:
                self.ui.done(f"{self.name}: job {job.name} already {states[job.name]}")
        if (to_submit or to_redeploy) and build is not None:
            # Only now: a job that is current keeps its jar, so `up` on a running stack never waits for Maven.
            build()
        jar_id = self.upload_jar() if to_submit or to_redeploy else None
        for i, job in enumerate(to_submit):
            job_id = self.submit(job, jar_id=jar_id)
            if i + 1 < len(to_submit):
                # The next job's tasks would start beside these, restoring and catching up: on 2 cores that
                # delays the analytics job's first fresh row by seconds.
                self.wait_tasks_running(job_id, timeout_s=60.0)
        for job, job_id, reasons in to_redeploy:
            self.redeploy(job, job_id, reasons, jar_id=jar_id)

    # -- redeploy: stop with a savepoint, resubmit restoring it -----------------------------------------
    def _deployment_file(self, job_name: str) -> Path:
        return self.data_dir / "deployed" / f"{job_name}.json"

    def _deployment(self, job_name: str) -> dict[str, Any] | None:
        try:
            return json.loads(self._deployment_file(job_name).read_text())
        except (FileNotFoundError, ValueError):
            return None

    def _record_deployment(self, job: StreamJob, job_id: str) -> None:
        path = self._deployment_file(job.name)
        path.parent.mkdir(parents=True, exist_ok=True)
        record = {"job_id": job_id, "program_args": list(job.program_args), "jar_sha256": file_sha256(self.jar)}
        if job.parallelism is not None:  # absent = Flink's default, as in the records of before
            record["parallelism"] = job.parallelism
        write_atomic(path, json.dumps(record, indent=1))

    def redeploy(self, job: StreamJob, job_id: str, reasons: list[str], jar_id: str | None = None) -> str:
        """Replace the active run ``job_id`` of ``job``: stop it with a savepoint, submit the new jar and
        arguments restoring that savepoint. If the savepoint fails, the run is cancelled and the new one
        restores the newest retained checkpoint instead (``submit``'s default)."""
        self.ui.step(f"{self.name}: redeploying {job.name} ({'; '.join(reasons)})")
        try:
            savepoint = self.stop_with_savepoint(job_id, self.data_dir / "savepoints" / job.name)
        except StackError as e:
            self.ui.warn(f"{self.name}: {job.name} could not stop with a savepoint ({e}); cancelling it "
                         "and restoring its newest checkpoint")
            self._rest("PATCH", f"/jobs/{job_id}?mode=cancel")
            self._wait_job_ended(job_id)
            savepoint = None
        new_id = self.submit(job, restore=savepoint, jar_id=jar_id)
        if savepoint is not None:  # older savepoints of this job are superseded by the run restoring this one
            for old in savepoint.parent.glob("savepoint-*"):
                if old != savepoint:
                    shutil.rmtree(old, ignore_errors=True)
        return new_id

    def stop_with_savepoint(self, job_id: str, directory: Path) -> Path:
        """Stop ``job_id`` after a savepoint into ``directory`` (``POST /jobs/<id>/stop``); the savepoint's path."""
        directory.mkdir(parents=True, exist_ok=True)
        trigger = self._rest("POST", f"/jobs/{job_id}/stop",
                             json={"targetDirectory": directory.as_uri(), "drain": False})["request-id"]
        deadline = time.monotonic() + SAVEPOINT_TIMEOUT_S
        while time.monotonic() < deadline:
            status = self._rest("GET", f"/jobs/{job_id}/savepoints/{trigger}")
            if status.get("status", {}).get("id") == "COMPLETED":
                operation = status.get("operation") or {}
                if "location" not in operation:
                    cause = (operation.get("failure-cause") or {}).get("stack-trace", "").strip().splitlines()
                    raise self._error(f"savepoint of job {job_id} failed: {cause[0] if cause else '?'}")
                self._wait_job_ended(job_id)
                return Path(unquote(urlparse(operation["location"]).path))  # file:/... or file:///...
            time.sleep(0.5)
        raise self._error(f"savepoint of job {job_id} did not complete in {SAVEPOINT_TIMEOUT_S:.0f} s")

    def _wait_job_ended(self, job_id: str, timeout_s: float = 60.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.job_state(job_id) in ENDED_JOB_STATES:
                return
            time.sleep(0.5)
        raise self._error(f"job {job_id} did not end within {timeout_s:.0f} s")

    def upload_jar(self) -> str:
        """Upload the job jar, replacing earlier uploads of it; returns its id for ``submit``."""
        for old in self._rest("GET", "/jars").get("files", []):
            if old.get("name") == JOB_JAR_NAME:
                self._rest("DELETE", f"/jars/{old['id']}")
        with open(self.jar, "rb") as f:
            uploaded = self._rest("POST", "/jars/upload", timeout_s=SUBMIT_TIMEOUT_S,
                                  files={"jarfile": (JOB_JAR_NAME, f, "application/x-java-archive")})
        return Path(uploaded["filename"]).name

    def submit(self, job: StreamJob, running_timeout_s: float = 90.0, restore: Path | None = None,
               jar_id: str | None = None) -> str:
        """Run ``job`` from the uploaded jar ``jar_id`` (uploaded now if None); wait until it is RUNNING.

        The run restores ``restore`` (a savepoint) if given, else, for a job with a checkpoint directory, its
        newest complete checkpoint; if the restore fails, it is started fresh (from its committed Kafka
        offsets) with a warning rather than not at all.
        """
        t0 = time.monotonic()
        self.ui.step(f"{self.name}: submitting {job.name}")
        jar_id = jar_id or self.upload_jar()
        restore = restore or latest_checkpoint(job.checkpoint_dir)
        restored = restore  # what the running job actually came from
        if restore is not None:
            try:
                job_id = self._run(job, jar_id, restore, running_timeout_s)
            except StackError as e:
                self.ui.warn(f"{self.name}: {job.name} did not restore from {restore} ({e}); "
                             "starting it fresh from its committed Kafka offsets")
                job_id = self._run(job, jar_id, None, running_timeout_s)
                restored = None
        else:
            job_id = self._run(job, jar_id, None, running_timeout_s)
        if job.checkpoint_dir is not None:
            # Older runs' checkpoints are superseded once the new run is up (its own go to <dir>/<job id>); the one
            # it restored stays until the new run has checkpointed. One that failed to restore goes now, or every
            # later `up` would try it again.
            keep = {job_id} | ({restored.parent.name} if restored is not None else set())
            for stale in stale_checkpoint_dirs(job.checkpoint_dir, keep):
                shutil.rmtree(stale, ignore_errors=True)
        if job.name in {j.name for j in self.jobs}:  # not one-off jobs (ioscale analyze)
            self._record_deployment(job, job_id)
        how = f" from {restored.parent.name}/{restored.name}" if restored is not None else ""
        self.ui.done(f"{self.name}: {job.name} RUNNING as {job_id}{how} ({time.monotonic() - t0:.1f}s)")
        return job_id

    def _run(self, job: StreamJob, jar_id: str, restore: Path | None, running_timeout_s: float) -> str:
        body: dict[str, Any] = {"entryClass": job.entry_class, "programArgsList": list(job.program_args)}
        if restore is not None:
            body["savepointPath"] = restore.as_uri()
            body["allowNonRestoredState"] = False
        if job.parallelism is not None:
            body["parallelism"] = job.parallelism
        run = self._rest("POST", f"/jars/{jar_id}/run", timeout_s=SUBMIT_TIMEOUT_S, json=body)
        job_id = run["jobid"]
        deadline = time.monotonic() + running_timeout_s
        state = "UNKNOWN"
        while time.monotonic() < deadline:
            state = self.job_state(job_id)
            if state == "RUNNING":
                return job_id
            if state in ENDED_JOB_STATES:
                break
            time.sleep(0.5)
        root = (self._rest("GET", f"/jobs/{job_id}/exceptions").get("rootException") or "").strip()
        cause = f"; root cause: {root.splitlines()[0]}" if root else ""
        raise self._error(f"job {job.name} ({job_id}) is {state}, not RUNNING{cause}",
                          f"see the job's exceptions in the Flink UI; fix, then re-run `{self.rerun}`")


class FlinkJobs(FlinkComponent):
    """The Flink cluster with the ioscale jobs: ``configure()`` builds the jar and submits or redeploys them."""

    # -- locations ---------------------------------------------------------------------------------
    jobs_project = Subpath("settings.repo", "stream-jobs")
    job_jar = Subpath("jobs_project", "target", JOB_JAR_NAME)
    build_log = Subpath("settings.log_dir", "flink-jobs-build.log")
    _ready_timeout_s = 120.0  # wait_ready's, for the TaskManager that configure awaits

    @property
    def submitter(self) -> JobSubmitter:
        """The REST side, on this stack's cluster, jar, data directory and jobs (analytics.conf as it is now)."""
        return JobSubmitter(self.rest_url, self.job_jar, self.data, stream_jobs(self.settings), self.ui,
                            log_file=self._flink_log("standalonesession"), wait_for=self.wait_for)

    # -- REST: one job (ioscale analyze) ------------------------------------------------------------------
    def job_state(self, job_id: str) -> str:
        return self.submitter.job_state(job_id)

    def job_records(self, job_id: str) -> int:
        return self.submitter.job_records(job_id)

    def cancel(self, job_id: str) -> None:
        self.submitter.cancel(job_id)

    def submit(self, job: StreamJob, running_timeout_s: float = 90.0) -> str:
        return self.submitter.submit(job, running_timeout_s)

    # -- readiness: the TaskManager is awaited in configure ---------------------------------------------
    def wait_ready(self, timeout_s: float) -> None:
        """The JobManager's REST API answering. The TaskManager registers meanwhile (~2 s after a restart):
        ``configure`` uploads the jar and submits while it does, and waits for it before it returns."""
        self._ready_timeout_s = timeout_s
        self.wait_for("the JobManager's REST API (/overview)", lambda: "taskmanagers" in self.overview(), timeout_s)

    def configure(self) -> None:
        self.submit_jobs()
        super().wait_ready(self._ready_timeout_s)

    # -- configure: build and submit jobs ----------------------------------------------------------
    def submit_jobs(self) -> None:
        self.submitter.submit_jobs(sources_changed=jar_is_stale(self.job_jar, self.jobs_project),
                                   build=self.build_job_jar)

    def build_job_jar(self) -> None:
        if not jar_is_stale(self.job_jar, self.jobs_project):
            return
        mvn = shutil.which("mvn")
        if not mvn:
            raise StackError(self.name, "Maven (mvn) not found; it builds the stream-jobs jar",
                             hint="install Maven 3.8+ (apt-get install maven) and a Java 17 JDK")
        run_logged(
            self.name,
            "building stream-jobs jar with Maven",
            [mvn, "-B", "-q", "-f", str(self.jobs_project / "pom.xml"), "package", "-DskipTests"],
            self.build_log,
            self.ui,
            timeout_s=1200,
            hint="fix the build (run `mvn -f stream-jobs/pom.xml verify`), then re-run `ioscale stack up`",
        )
        if not self.job_jar.exists():
            raise StackError(self.name, f"the build finished but {self.job_jar} is missing", str(self.build_log))
