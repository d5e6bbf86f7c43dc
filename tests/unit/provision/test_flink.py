"""FlinkJobs and its JobSubmitter without a cluster: jar staleness, submit and redeploy decisions, job arguments,
checkpoints. The REST side is JobSubmitter's, so its methods are what the fake clusters replace."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fake_flink import fake_rest

from ioscale.provision import flink
from ioscale.provision.flink import FlinkJobs, JobSubmitter, StreamJob, jar_is_stale, should_submit
from ioscale.stack.component import StackContext
from ioscale.stack.progress import SilentProgress
from ioscale.stack.settings import StackSettings

REPO = Path(__file__).resolve().parents[3]


def _settings(tmp_path: Path, **env: str) -> StackSettings:
    return StackSettings.from_env({"IOSCALE_REPO": str(REPO), "IOSCALE_HOME": str(tmp_path / "state"), **env})


def _component(tmp_path: Path, **env: str) -> FlinkJobs:
    return FlinkJobs(StackContext(_settings(tmp_path, **env), {}, SilentProgress()))


# -- should the jar be rebuilt ---------------------------------------------------------------------
@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "stream-jobs"
    for rel in ("pom.xml", "src/main/java/io/ioscale/jobs/Job.java", "src/main/resources/x.properties",
                "src/test/java/io/ioscale/JobTest.java", "target/ioscale-stream-jobs.jar"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(rel)
    for p in root.rglob("*"):
        if p.is_file():
            os.utime(p, (1_000, 1_000))
    os.utime(root / "target" / "ioscale-stream-jobs.jar", (2_000, 2_000))
    return root


def _jar(project: Path) -> Path:
    return project / "target" / "ioscale-stream-jobs.jar"


def test_fresh_jar_is_not_rebuilt(project):
    assert not jar_is_stale(_jar(project), project)


def test_missing_jar_is_built(project):
    _jar(project).unlink()
    assert jar_is_stale(_jar(project), project)


@pytest.mark.parametrize("rel", ["pom.xml", "src/main/java/io/ioscale/jobs/Job.java", "src/main/resources/x.properties"])
def test_newer_source_or_pom_rebuilds(project, rel):
    os.utime(project / rel, (3_000, 3_000))
    assert jar_is_stale(_jar(project), project)


def test_newer_source_file_added_later_rebuilds(project):
    new = project / "src/main/java/io/ioscale/functions/New.java"
    new.parent.mkdir(parents=True)
    new.write_text("class New {}")
    assert jar_is_stale(_jar(project), project)


def test_newer_schema_rebuilds_the_jar_that_carries_it(project):
    schema = project.parent / "schema" / "io_sample.avsc"
    schema.parent.mkdir()
    schema.write_text("{}")
    os.utime(schema, (3_000, 3_000))
    assert jar_is_stale(_jar(project), project)


def test_test_sources_do_not_rebuild_the_jar(project):
    os.utime(project / "src/test/java/io/ioscale/JobTest.java", (3_000, 3_000))
    assert not jar_is_stale(_jar(project), project)


# -- should the job be submitted -------------------------------------------------------------------
@pytest.mark.parametrize("state", ["RUNNING", "CREATED", "RESTARTING", "INITIALIZING"])
def test_active_job_is_not_submitted_again(state):
    assert not should_submit({"ioscale-sample-monitor": state}, "ioscale-sample-monitor")


@pytest.mark.parametrize("state", ["FAILED", "CANCELED", "FINISHED", "CANCELLING", None])
def test_absent_or_ended_job_is_submitted(state):
    states = {} if state is None else {"ioscale-sample-monitor": state}
    assert should_submit(states, "ioscale-sample-monitor")


def _overview(**states: str) -> dict:
    return {"jobs": [{"name": n, "jid": f"id-{n}", "state": st, "start-time": 1} for n, st in states.items()]}


def _current_jar(c, monkeypatch, tmp_path) -> Path:
    jar = tmp_path / "ioscale-stream-jobs.jar"
    jar.write_bytes(b"PK current")
    monkeypatch.setattr(FlinkJobs, "job_jar", property(lambda self: jar))
    monkeypatch.setattr(flink, "jar_is_stale", lambda jar, project: False)
    return jar


def test_configure_submits_only_jobs_that_are_not_active(tmp_path, monkeypatch):
    c = _component(tmp_path)
    _current_jar(c, monkeypatch, tmp_path)
    calls: list[str] = []
    monkeypatch.setattr(c, "build_job_jar", lambda: calls.append("build"))
    monkeypatch.setattr(JobSubmitter, "upload_jar", lambda self: "jar")
    monkeypatch.setattr(JobSubmitter, "submit", lambda self, job, jar_id=None: calls.append(job.name))

    overview = _overview(**{"ioscale-sample-monitor": "RUNNING", "ioscale-analytics": "RUNNING"})
    monkeypatch.setattr(JobSubmitter, "_rest", lambda self, method, path, **kw: overview)
    c.submit_jobs()
    assert calls == []  # running jobs: neither Maven nor a submission

    overview = _overview(**{"ioscale-sample-monitor": "FAILED", "ioscale-analytics": "RUNNING", "other": "RUNNING"})
    c.submit_jobs()
    assert calls == ["build", "ioscale-sample-monitor"]


def _job_and_record(tmp_path, **record):
    job = StreamJob("a", "E", ("--slo", "p99 < 1 ms", "--x", "1"))
    base = {"job_id": "j1", "program_args": list(job.program_args), "jar_sha256": "abc"}
    return job, {**base, **record}


def test_a_current_deployment_is_left_running(tmp_path):
    job, record = _job_and_record(tmp_path)
    assert flink.redeploy_reasons(record, "j1", job, sources_changed=False, jar_sha256="abc") == []


def test_changed_sources_a_rebuilt_jar_or_changed_arguments_redeploy(tmp_path):
    job, record = _job_and_record(tmp_path)
    assert flink.redeploy_reasons(record, "j1", job, True, None) == ["stream-jobs sources changed"]
    assert flink.redeploy_reasons(record, "j1", job, False, "def") == ["the job jar was rebuilt"]
    _, old = _job_and_record(tmp_path, program_args=["--slo", "p99 < 10 ms", "--x", "1"])
    assert flink.redeploy_reasons(old, "j1", job, False, "abc") == ["arguments changed: slo"]
    _, old = _job_and_record(tmp_path, program_args=["--x", "1"])  # a setting added to analytics.conf
    assert flink.redeploy_reasons(old, "j1", job, False, "abc") == ["arguments changed: slo"]


def test_a_changed_parallelism_redeploys_and_no_parallelism_is_the_records_of_before(tmp_path):
    job, record = _job_and_record(tmp_path)  # a record written before parallelism was a setting
    assert flink.redeploy_reasons(record, "j1", job, False, "abc") == []
    wide = StreamJob("a", "E", job.program_args, parallelism=2)
    assert flink.redeploy_reasons(record, "j1", wide, False, "abc") == ["parallelism changed: default -> 2"]
    assert flink.redeploy_reasons({**record, "parallelism": 2}, "j1", wide, False, "abc") == []


def test_a_job_without_a_record_is_redeployed_only_for_changed_sources(tmp_path):
    job, record = _job_and_record(tmp_path, program_args=["--other"], jar_sha256="zzz")
    assert flink.redeploy_reasons(None, "j1", job, False, "abc") == []
    assert flink.redeploy_reasons(None, "j1", job, True, None) == ["stream-jobs sources changed"]
    assert flink.redeploy_reasons(record, "j2", job, False, "abc") == []  # our record is of an older run
    assert flink.redeploy_reasons(record, "j2", job, True, None) == ["stream-jobs sources changed"]


def test_configure_redeploys_a_running_job_whose_settings_changed(tmp_path, monkeypatch):
    c = _component(tmp_path)
    jar = _current_jar(c, monkeypatch, tmp_path)
    jobs = {j.name: j for j in flink.stream_jobs(c.settings)}
    for name in jobs:  # both were submitted by us, with the jar on disk
        c.submitter._record_deployment(jobs[name], f"id-{name}")
    calls: list = []
    monkeypatch.setattr(c, "build_job_jar", lambda: calls.append("build"))
    monkeypatch.setattr(JobSubmitter, "redeploy",
                        lambda self, job, job_id, reasons, jar_id=None: calls.append((job.name, job_id, reasons)))
    monkeypatch.setattr(JobSubmitter, "submit", lambda self, job, jar_id=None: calls.append(job.name))
    monkeypatch.setattr(JobSubmitter, "upload_jar", lambda self: "jar")
    overview = _overview(**{name: "RUNNING" for name in jobs})
    monkeypatch.setattr(JobSubmitter, "_rest", lambda self, method, path, **kw: overview)
    c.submit_jobs()
    assert calls == []

    from ioscale.provision import analytics_config
    analytics_config.save(c.settings.home, {"slo": "p99.999 < 2 ms"})
    c.submit_jobs()
    assert calls == ["build", ("ioscale-analytics", "id-ioscale-analytics", ["arguments changed: slo"])]

    calls.clear()
    jar.write_bytes(b"PK rebuilt by mvn package")  # e.g. a developer's build: both runs are out of date
    c.submit_jobs()
    assert [x[0] for x in calls[1:]] == ["ioscale-analytics", "ioscale-sample-monitor"]
    assert calls[2][2] == ["the job jar was rebuilt"]


def _savepoint_cluster(c, monkeypatch, tmp_path, savepoint_ok: bool):
    sp_dir = c.data_dir / "savepoints" / "a"
    old_sp = sp_dir / "savepoint-old"
    old_sp.mkdir(parents=True)
    new_sp = sp_dir / "savepoint-new"
    calls: list = []
    submitted: list = []

    def fake_rest(self, method: str, path: str, timeout_s: float = 0, **kw):
        calls.append((method, path, kw.get("json")))
        if path == "/jobs/j1/stop":
            return {"request-id": "t1"}
        if path == "/jobs/j1/savepoints/t1":
            if not savepoint_ok:
                return {"status": {"id": "COMPLETED"},
                        "operation": {"failure-cause": {"stack-trace": "CheckpointException: task not ready\n..."}}}
            new_sp.mkdir()
            return {"status": {"id": "COMPLETED"}, "operation": {"location": "file:" + str(new_sp)}}
        if path == "/jobs/j1":
            return {"state": "FINISHED" if savepoint_ok else "CANCELED"}
        return None

    monkeypatch.setattr(JobSubmitter, "_rest", fake_rest)
    monkeypatch.setattr(flink.time, "sleep", lambda s: None)
    monkeypatch.setattr(JobSubmitter, "submit",
                        lambda self, job, restore=None, jar_id=None: submitted.append(restore) or "j2")
    return calls, submitted, old_sp, new_sp


def test_redeploy_stops_with_a_savepoint_and_restores_it(tmp_path, monkeypatch):
    c = _component(tmp_path).submitter
    calls, submitted, old_sp, new_sp = _savepoint_cluster(c, monkeypatch, tmp_path, savepoint_ok=True)
    assert c.redeploy(StreamJob("a", "E", ()), "j1", ["arguments changed: slo"]) == "j2"
    assert calls[0] == ("POST", "/jobs/j1/stop", {"targetDirectory": (c.data_dir / "savepoints" / "a").as_uri(),
                                                  "drain": False})
    assert submitted == [new_sp]
    assert new_sp.exists() and not old_sp.exists()  # the restored savepoint supersedes older ones


def test_redeploy_cancels_and_restores_the_checkpoint_when_the_savepoint_fails(tmp_path, monkeypatch):
    c = _component(tmp_path).submitter
    calls, submitted, old_sp, _ = _savepoint_cluster(c, monkeypatch, tmp_path, savepoint_ok=False)
    assert c.redeploy(StreamJob("a", "E", ()), "j1", ["the job jar was rebuilt"]) == "j2"
    assert ("PATCH", "/jobs/j1?mode=cancel", None) in calls
    assert submitted == [None]  # submit falls back to the newest retained checkpoint
    assert old_sp.exists()


def test_submit_records_what_it_deployed_for_the_stack_jobs_only(tmp_path, monkeypatch):
    c = _component(tmp_path)
    _fake_cluster(c, monkeypatch, tmp_path, ["RUNNING", "RUNNING"])
    job = StreamJob("ioscale-analytics", "E", ("--x", "1"))
    c.submit(job)
    record = c.submitter._deployment("ioscale-analytics")
    assert record == {"job_id": "j1", "program_args": ["--x", "1"], "jar_sha256": flink.file_sha256(c.job_jar)}
    c.submit(StreamJob("ioscale-replay-r1", "E", ()))  # a one-off (ioscale analyze) leaves no record
    assert c.submitter._deployment("ioscale-replay-r1") is None


def test_analytics_settings_reach_the_job_arguments(tmp_path):
    from ioscale.provision import analytics_config
    s = _settings(tmp_path)
    analytics_config.save(s.home, {"saturation": "port-utilization-pct=90", "slo": "p99.999 < 2 ms"})
    job = {j.name: j for j in flink.stream_jobs(s)}["ioscale-analytics"]
    assert job.program_args[-4:] == ("--slo", "p99.999 < 2 ms", "--saturation", "port-utilization-pct=90")


def test_stream_jobs_point_at_the_stack_kafka(tmp_path):
    jobs = {j.name: j for j in flink.stream_jobs(_settings(tmp_path, IOSCALE_KAFKA_PORT="19092"))}
    assert jobs["ioscale-sample-monitor"] == StreamJob(
        "ioscale-sample-monitor", "io.ioscale.jobs.SampleMonitorJob",
        ("--kafka-bootstrap", "127.0.0.1:19092", "--topic", "ioscale.io_samples"),
    )
    assert sorted(jobs) == ["ioscale-analytics", "ioscale-sample-monitor"]


def test_analytics_job_gets_the_stack_services_and_no_password_in_its_arguments(tmp_path):
    s = _settings(tmp_path, IOSCALE_KAFKA_PORT="19092", IOSCALE_CLICKHOUSE_HTTP_PORT="18123",
                  IOSCALE_REGISTRY_PORT="18081")
    job = {j.name: j for j in flink.stream_jobs(s)}["ioscale-analytics"]
    args = dict(zip(job.program_args[::2], job.program_args[1::2]))
    assert job.entry_class == "io.ioscale.jobs.AnalyticsJob"
    assert args["--kafka-bootstrap"] == "127.0.0.1:19092"
    assert args["--registry-url"] == "http://127.0.0.1:18081"
    assert args["--clickhouse-url"] == "http://127.0.0.1:18123"
    assert args["--clickhouse-user"] == "ioscale_flink"
    assert args["--clickhouse-password-file"] == str(s.secrets_file)
    assert "--clickhouse-password" not in args
    assert job.checkpoint_dir == s.home / "data" / "flink" / "checkpoints" / "ioscale-analytics"
    assert args["--checkpoint-dir"] == job.checkpoint_dir.as_uri()


def _checkpoint(root: Path, job_id: str, n: int, mtime: float, complete: bool = True) -> Path:
    d = root / job_id / f"chk-{n}"
    d.mkdir(parents=True)
    if complete:
        (d / "_metadata").write_bytes(b"m")
        os.utime(d / "_metadata", (mtime, mtime))
    return d


def test_latest_checkpoint_is_the_newest_complete_one(tmp_path):
    root = tmp_path / "cp"
    assert flink.latest_checkpoint(root) is None
    assert flink.latest_checkpoint(None) is None
    _checkpoint(root, "old", 7, 1_000)
    newest = _checkpoint(root, "new", 3, 2_000)
    _checkpoint(root, "new", 4, 3_000, complete=False)  # cut short: no _metadata
    assert flink.latest_checkpoint(root) == newest


def test_stale_checkpoint_dirs_are_the_other_runs(tmp_path):
    root = tmp_path / "cp"
    for job_id in ("a", "b", "c"):
        _checkpoint(root, job_id, 1, 1_000)
    assert [p.name for p in flink.stale_checkpoint_dirs(root, {"b", "c"})] == ["a"]
    assert flink.stale_checkpoint_dirs(tmp_path / "missing", set()) == []


def _fake_cluster(c, monkeypatch, tmp_path, run_states: list[str]):
    """A REST API whose runs end in run_states (one per /run); returns the bodies posted to /run."""
    jar = tmp_path / "ioscale-stream-jobs.jar"
    jar.write_bytes(b"PK")
    monkeypatch.setattr(FlinkJobs, "job_jar", property(lambda self: jar))
    monkeypatch.setattr(flink.time, "sleep", lambda s: None)
    bodies: list[dict] = []
    monkeypatch.setattr(JobSubmitter, "_rest", fake_rest(bodies, run_states=run_states))
    return bodies


def test_submit_restores_the_newest_checkpoint_and_prunes_older_runs(tmp_path, monkeypatch):
    c = _component(tmp_path)
    root = tmp_path / "cp"
    _checkpoint(root, "older", 9, 1_000)
    newest = _checkpoint(root, "previous", 12, 2_000)
    bodies = _fake_cluster(c, monkeypatch, tmp_path, ["RUNNING"])
    assert c.submit(StreamJob("a", "E", ("--x", "1"), checkpoint_dir=root)) == "j1"
    assert bodies == [{"entryClass": "E", "programArgsList": ["--x", "1"], "savepointPath": newest.as_uri(),
                       "allowNonRestoredState": False}]
    assert sorted(p.name for p in root.iterdir()) == ["previous"]  # kept until the new run checkpoints


def test_a_set_parallelism_goes_with_the_submission_and_into_the_record(tmp_path, monkeypatch):
    # A jar run over REST takes the cluster's parallelism.default of 1, whatever the cluster says: it is sent.
    c = _component(tmp_path)
    bodies = _fake_cluster(c, monkeypatch, tmp_path, ["RUNNING", "RUNNING"])
    c.submitter.submit(StreamJob("ioscale-analytics", "E", (), parallelism=2))
    c.submitter.submit(StreamJob("ioscale-sample-monitor", "E", ()))
    assert bodies[0]["parallelism"] == 2 and "parallelism" not in bodies[1]
    assert c.submitter._deployment("ioscale-analytics")["parallelism"] == 2
    assert "parallelism" not in c.submitter._deployment("ioscale-sample-monitor")


def test_submit_starts_fresh_when_the_restore_fails(tmp_path, monkeypatch):
    c = _component(tmp_path)
    root = tmp_path / "cp"
    _checkpoint(root, "previous", 12, 2_000)
    bodies = _fake_cluster(c, monkeypatch, tmp_path, ["FAILED", "RUNNING"])
    assert c.submit(StreamJob("a", "E", (), checkpoint_dir=root)) == "j2"
    assert "savepointPath" in bodies[0] and "savepointPath" not in bodies[1]
    # the checkpoint that could not be restored goes, or every later `up` would try it again
    assert not (root / "previous").exists()


def test_submit_replaces_old_uploads_and_runs_the_entry_class(tmp_path, monkeypatch):
    c = _component(tmp_path)
    jar = tmp_path / "ioscale-stream-jobs.jar"
    jar.write_bytes(b"PK")
    monkeypatch.setattr(FlinkJobs, "job_jar", property(lambda self: jar))
    calls: list[tuple[str, str]] = []
    states = iter(["CREATED", "RUNNING"])

    def fake_rest(self, method: str, path: str, timeout_s: float = 0, **kw):
        calls.append((method, path))
        if (method, path) == ("GET", "/jars"):
            return {"files": [{"id": "old_ioscale-stream-jobs.jar", "name": "ioscale-stream-jobs.jar"},
                              {"id": "x_other.jar", "name": "other.jar"}]}
        if path == "/jars/upload":
            assert kw["files"]["jarfile"][0] == "ioscale-stream-jobs.jar"
            return {"filename": "/d/web/upload/new_ioscale-stream-jobs.jar", "status": "success"}
        if path.endswith("/run"):
            assert kw["json"] == {"entryClass": "E", "programArgsList": ["--a", "1"]}
            return {"jobid": "j1"}
        if path == "/jobs/j1":
            return {"state": next(states)}
        return None

    monkeypatch.setattr(JobSubmitter, "_rest", fake_rest)
    monkeypatch.setattr(flink.time, "sleep", lambda s: None)
    assert c.submit(StreamJob("n", "E", ("--a", "1"))) == "j1"
    assert calls == [("GET", "/jars"), ("DELETE", "/jars/old_ioscale-stream-jobs.jar"), ("POST", "/jars/upload"),
                     ("POST", "/jars/new_ioscale-stream-jobs.jar/run"), ("GET", "/jobs/j1"), ("GET", "/jobs/j1")]


def test_configure_uploads_the_jar_once_and_submits_the_analytics_job_first(tmp_path, monkeypatch):
    # After a JobManager crash both jobs are resubmitted: one upload, and the job users wait for goes first.
    c = _component(tmp_path)
    jar = tmp_path / "ioscale-stream-jobs.jar"
    jar.write_bytes(b"PK")
    monkeypatch.setattr(FlinkJobs, "job_jar", property(lambda self: jar))
    monkeypatch.setattr(FlinkJobs, "build_job_jar", lambda self: None)
    monkeypatch.setattr(flink, "jar_is_stale", lambda jar, project: False)
    monkeypatch.setattr(flink.time, "sleep", lambda s: None)
    calls: list[tuple[str, str]] = []
    runs: list[str] = []

    def fake_rest(self, method: str, path: str, timeout_s: float = 0, **kw):
        calls.append((method, path))
        if path == "/jobs/overview":
            return {"jobs": []}
        if path == "/jars":
            return {"files": []}
        if path == "/jars/upload":
            return {"filename": "/u/a_ioscale-stream-jobs.jar"}
        if path.endswith("/run"):
            runs.append(kw["json"]["entryClass"])
            return {"jobid": f"j{len(runs)}"}
        polls[path] = polls.get(path, 0) + 1
        deployed = polls[path] > 2  # the job runs at once, its tasks a few polls later
        return {"state": "RUNNING", "vertices": [{"status": "RUNNING"}, {"status": "RUNNING" if deployed else
                                                                          "INITIALIZING"}]}

    polls: dict[str, int] = {}
    monkeypatch.setattr(JobSubmitter, "_rest", fake_rest)
    monkeypatch.setattr(c, "processes", lambda: [])
    c.submit_jobs()
    assert calls.count(("POST", "/jars/upload")) == 1
    assert runs == ["io.ioscale.jobs.AnalyticsJob", "io.ioscale.jobs.SampleMonitorJob"]
    # the monitor's tasks start once the analytics job's all run (they would compete with its restore)
    monitor_run = calls.index(("POST", "/jars/a_ioscale-stream-jobs.jar/run"), calls.index(
        ("POST", "/jars/a_ioscale-stream-jobs.jar/run")) + 1)
    assert calls[:monitor_run].count(("GET", "/jobs/j1")) == 3


def test_submit_reports_the_root_cause_of_a_failed_job(tmp_path, monkeypatch):
    from ioscale.errors import StackError

    c = _component(tmp_path)
    jar = tmp_path / "ioscale-stream-jobs.jar"
    jar.write_bytes(b"PK")
    monkeypatch.setattr(FlinkJobs, "job_jar", property(lambda self: jar))
    replies = {
        "/jars": {"files": []},
        "/jars/upload": {"filename": "/u/a_ioscale-stream-jobs.jar"},
        "/jars/a_ioscale-stream-jobs.jar/run": {"jobid": "j2"},
        "/jobs/j2": {"state": "FAILED"},
        "/jobs/j2/exceptions": {"rootException": "java.lang.IllegalArgumentException: unknown argument --x\n\tat ..."},
    }
    monkeypatch.setattr(JobSubmitter, "_rest", lambda self, method, path, timeout_s=0, **kw: replies[path])
    with pytest.raises(StackError, match="FAILED.*unknown argument --x"):
        c.submit(StreamJob("n", "E", ()))


def test_jobs_built_from_other_endpoints_differ_from_the_local_stacks_only_in_those(tmp_path):
    from ioscale.provision import analytics_config
    s = _settings(tmp_path)
    analytics_config.save(s.home, {"slo": "p99.999 < 2 ms"})
    local = flink.stream_jobs(s)
    where = flink.JobEndpoints("kafka:29092", "http://schema-registry:8081", "http://clickhouse:8123",
                               Path("/flink-data/submit/clickhouse.env"), Path("/flink-data/checkpoints"),
                               {"slo": "p99.999 < 2 ms"})
    other = flink.stream_jobs_for(where)
    assert [(j.name, j.entry_class) for j in other] == [(j.name, j.entry_class) for j in local]
    endpoint_flags = {"--kafka-bootstrap", "--registry-url", "--clickhouse-url", "--clickhouse-password-file",
                      "--checkpoint-dir"}
    for mine, theirs in zip(local, other):
        assert mine.program_args[::2] == theirs.program_args[::2]
        assert {f for f, a, b in zip(mine.program_args[::2], mine.program_args[1::2], theirs.program_args[1::2])
                if a != b} <= endpoint_flags
    assert other[0].checkpoint_dir == Path("/flink-data/checkpoints/ioscale-analytics")
    assert other[1].checkpoint_dir is None


def test_configure_passes_the_jar_staleness_and_the_maven_build_to_the_submitter(tmp_path, monkeypatch):
    c = _component(tmp_path)
    seen: list = []
    monkeypatch.setattr(JobSubmitter, "submit_jobs",
                        lambda self, sources_changed=False, build=None: seen.append((self, sources_changed, build)))
    monkeypatch.setattr(flink, "jar_is_stale", lambda jar, project: True)
    c.submit_jobs()
    ((submitter, stale, build),) = seen
    assert stale and build == c.build_job_jar
    assert (submitter.rest_url, submitter.jar, submitter.data_dir) == (c.rest_url, c.job_jar, c.data)
    assert submitter.jobs == flink.stream_jobs(c.settings)


def test_the_submitter_waits_for_a_taskmanager_through_a_starting_jobmanager(tmp_path, monkeypatch):
    import requests

    from ioscale.errors import StackError

    answers = iter([requests.ConnectionError("refused"), {"taskmanagers": 0}, {"taskmanagers": 1}])

    def rest(self, method, path, timeout_s=0, **kw):
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    monkeypatch.setattr(JobSubmitter, "_rest", rest)
    monkeypatch.setattr(flink.time, "sleep", lambda s: None)
    s = JobSubmitter("http://flink:8081", tmp_path / "jobs.jar", tmp_path, [], SilentProgress())
    s.wait_taskmanager(timeout_s=60)
    monkeypatch.setattr(JobSubmitter, "_rest", lambda self, method, path, **kw: {"taskmanagers": 0})
    clock = iter(range(0, 1000, 10))
    monkeypatch.setattr(flink.time, "monotonic", lambda: next(clock))
    with pytest.raises(StackError, match="not ready after 60s waiting for a TaskManager"):
        s.wait_taskmanager(timeout_s=60)
