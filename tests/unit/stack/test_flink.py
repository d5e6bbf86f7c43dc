"""FlinkComponent without a cluster: config rendering, process specs, job states, runtime caches."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ioscale.stack import flink, flink_state
from ioscale.stack.component import StackContext
from ioscale.stack.flink import FlinkComponent, job_states, render_config
from ioscale.stack.progress import SilentProgress
from ioscale.stack.settings import StackSettings

REPO = Path(__file__).resolve().parents[3]
TEMPLATE = (REPO / "stack" / "flink" / "config.yaml").read_text()


def _settings(tmp_path: Path, **env: str) -> StackSettings:
    return StackSettings.from_env({"IOSCALE_REPO": str(REPO), "IOSCALE_HOME": str(tmp_path / "state"), **env})


def _component(tmp_path: Path, **env: str) -> FlinkComponent:
    return FlinkComponent(StackContext(_settings(tmp_path, **env), {}, SilentProgress()))


# -- config rendering ------------------------------------------------------------------------------
def test_rendered_config_binds_everything_to_loopback_on_the_flink_port(tmp_path):
    s = _settings(tmp_path)
    conf = yaml.safe_load(render_config(TEMPLATE, s, tmp_path / "data", 6123))
    for key in ("rest.address", "rest.bind-address", "jobmanager.rpc.address", "jobmanager.bind-host",
                "taskmanager.host", "taskmanager.bind-host"):
        assert conf[key] == "127.0.0.1", key
    assert conf["rest.port"] == 8082
    assert conf["jobmanager.rpc.port"] == 6123
    # Ephemeral ports are fine only because the bind-host keys above keep them on loopback.
    assert str(conf["blob.server.port"]) == "0" and str(conf["taskmanager.rpc.port"]) == "0"


def test_rendered_config_sizes_one_taskmanager_with_four_slots(tmp_path):
    conf = yaml.safe_load(render_config(TEMPLATE, _settings(tmp_path), tmp_path / "data", 6123))
    assert conf["jobmanager.memory.process.size"] == "1024m"
    assert conf["taskmanager.memory.process.size"] == "2048m"
    assert conf["taskmanager.numberOfTaskSlots"] == 4
    assert "--add-opens=java.base/java.util=ALL-UNNAMED" in conf["env.java.opts.all"]  # Java 17
    # Short GC pauses for the live rollups; the GC log path is relative to the TaskManager's working directory
    # (the data dir), so a home path with spaces cannot split the options.
    tm_opts = conf["env.java.opts.taskmanager"].split()
    assert "-XX:MaxGCPauseMillis=50" in tm_opts
    assert "-Xlog:gc:file=../../logs/flink-taskmanager-gc.log:time,uptime:filecount=2,filesize=10m" in tm_opts
    # Shuffled records (the fleet's few partials a second) wait at most 20 ms in a network buffer, not 100.
    assert conf["execution.buffer-timeout.interval"] == "20 ms"


def test_rendered_config_keeps_runtime_files_under_the_data_dir(tmp_path):
    data = tmp_path / "with space" / "flink"
    conf = yaml.safe_load(render_config(TEMPLATE, _settings(tmp_path), data, 6123))
    for key in ("io.tmp.dirs", "web.tmpdir", "blob.storage.directory", "process.working-dir", "web.upload.dir"):
        assert conf[key].startswith(f"{data}/"), key
    assert conf["execution.checkpointing.dir"] == f"file://{data}/checkpoints"
    assert "$" not in render_config(TEMPLATE, _settings(tmp_path), data, 6123)


def test_rendered_config_follows_port_and_host_settings(tmp_path):
    s = _settings(tmp_path, IOSCALE_FLINK_PORT="18082", IOSCALE_HOST="127.0.0.2")
    conf = yaml.safe_load(render_config(TEMPLATE, s, tmp_path, 16123))
    assert conf["rest.port"] == 18082 and conf["jobmanager.rpc.port"] == 16123
    assert conf["rest.bind-address"] == conf["taskmanager.bind-host"] == "127.0.0.2"


def test_unknown_placeholder_fails_loudly(tmp_path):
    with pytest.raises(KeyError):
        render_config("rest.port: ${flink_port}\n", _settings(tmp_path), tmp_path, 6123)


def test_prepare_writes_conf_dir_and_is_idempotent(tmp_path):
    c = _component(tmp_path)
    c.prepare()
    c.prepare()
    conf = yaml.safe_load((c.conf_dir / "config.yaml").read_text())
    assert c.conf_dir == c.settings.home / "data" / "flink" / "conf"
    assert conf["io.tmp.dirs"] == str(c.data / "tmp") and (c.data / "tmp").is_dir()
    log4j = (c.conf_dir / "log4j-console.properties").read_text()
    assert "${sys:console.log.level:-WARN}" in log4j and "${sys:log.file}" in log4j
    assert sorted(p.name for p in c.conf_dir.iterdir()) == ["config.yaml", "log4j-console.properties"]


# -- processes -------------------------------------------------------------------------------------
def test_processes_run_both_roles_in_the_foreground_with_our_dirs(tmp_path):
    c = _component(tmp_path)
    jm, tm = c.processes()
    assert (jm.name, tm.name) == ("flink-jobmanager", "flink-taskmanager")
    assert jm.argv[0].endswith("bin/jobmanager.sh") and jm.argv[1:] == ["start-foreground"]
    assert tm.argv[0].endswith("bin/taskmanager.sh") and tm.argv[1:] == ["start-foreground"]
    assert jm.ports == (8082, 6123)
    for spec in (jm, tm):
        assert spec.env["FLINK_CONF_DIR"] == str(c.conf_dir)
        assert spec.env["FLINK_LOG_DIR"] == str(c.settings.log_dir)
        assert spec.env["FLINK_PID_DIR"].startswith(str(c.settings.run_dir))
        assert spec.log_file == c.settings.log_dir / f"{spec.name}.log"
        assert spec.pid_file == c.settings.run_dir / f"{spec.name}.pid"


def test_find_flink_home_needs_scripts_and_the_dist_jar(tmp_path):
    home = tmp_path / "site" / "pyflink"
    (home / "bin").mkdir(parents=True)
    (home / "lib").mkdir()
    (home / "bin" / "jobmanager.sh").write_text("#!/bin/sh\n")
    assert flink.find_flink_home(tmp_path / "site") is None
    (home / "lib" / "flink-dist-2.2.1.jar").write_bytes(b"")
    assert flink.find_flink_home(tmp_path / "site") == home
    assert flink.find_flink_home(tmp_path / "missing") is None


# -- job states ------------------------------------------------------------------------------------
def _job(name: str, state: str, start: int) -> dict:
    return {"jid": f"{name}-{start}", "name": name, "state": state, "start-time": start}


def test_job_states_prefers_the_active_run_over_newer_ended_ones():
    overview = {"jobs": [_job("a", "RUNNING", 100), _job("a", "FAILED", 200), _job("b", "CANCELED", 50)]}
    assert job_states(overview) == {"a": "RUNNING", "b": "CANCELED"}


def test_job_states_reports_the_newest_of_ended_runs():
    overview = {"jobs": [_job("a", "FAILED", 300), _job("a", "CANCELED", 100)]}
    assert job_states(overview) == {"a": "FAILED"}
    assert job_states({"jobs": []}) == {}


@pytest.mark.parametrize(
    "jm_running,tm_running,stopped",
    [(False, True, ["flink-taskmanager"]), (True, True, []), (False, False, []), (True, False, [])],
)
def test_prepare_stops_only_a_taskmanager_orphaned_by_its_jobmanager(tmp_path, monkeypatch, jm_running, tm_running,
                                                                     stopped):
    c = _component(tmp_path)
    running = {"flink-jobmanager": jm_running, "flink-taskmanager": tm_running}
    calls: list[str] = []
    monkeypatch.setattr(flink.process, "is_running", lambda spec: running[spec.name])
    monkeypatch.setattr(flink.process, "stop", lambda spec, timeout_s=None: calls.append((spec.name, timeout_s)))
    c.prepare()
    assert calls == [(name, 0) for name in stopped]  # killed at once: nothing of it is worth a graceful stop


@pytest.mark.parametrize("jm_running,kept", [(False, False), (True, True)])
def test_prepare_clears_runtime_caches_only_when_flink_is_down(tmp_path, monkeypatch, jm_running, kept):
    c = _component(tmp_path)
    monkeypatch.setattr(flink.process, "is_running", lambda spec: jm_running and spec.name == "flink-jobmanager")
    flink_state.check(c.data)  # the checkpoint below is of these jobs' state format
    for rel in ("blobs/job_1/blob_p-1", "tmp/spill", "web/upload/x_ioscale-stream-jobs.jar", "checkpoints/j1/chk-3/m"):
        (c.data / rel).parent.mkdir(parents=True, exist_ok=True)
        (c.data / rel).write_text("x")
    c.prepare()
    for rel in ("blobs/job_1/blob_p-1", "tmp/spill", "web/upload/x_ioscale-stream-jobs.jar"):
        assert (c.data / rel).exists() == kept, rel
    assert (c.data / "checkpoints/j1/chk-3/m").exists()
    assert (c.data / "tmp").is_dir() and (c.data / "blobs").is_dir()


# -- the JVMs' command lines, captured from the role scripts ---------------------------------------
# A distribution whose role scripts do what Flink's do in outline: run java for a helper (BashJavaUtils), export
# what they computed, then exec java with the service class.
FAKE_ROLE_SCRIPT = """#!/bin/bash
sized=$("$JAVA_HOME/bin/java" -classpath x org.apache.flink.runtime.util.bash.BashJavaUtils GET_JM_RESOURCE_PARAMS)
export JVM_ARGS="$sized"
echo $$ >> "$FLINK_PID_DIR/flink-$FLINK_IDENT_STRING-%(role)s.pid"
exec "$JAVA_HOME/bin/java" $JVM_ARGS "-Dlog.file=$FLINK_LOG_DIR/%(role)s.log" -classpath lib/* %(cls)s --configDir "$FLINK_CONF_DIR"
"""
# The real java's stand-in: answers the helper, and would start the service (which a capture must never do).
FAKE_JAVA = """#!/bin/sh
echo "$*" >> "$(dirname "$0")/../calls"
case "$*" in *BashJavaUtils*) echo "-Xmx64m -Xms64m";; *) echo started >> "$(dirname "$0")/../started";; esac
"""


def _fake_distribution(c: FlinkComponent, tmp_path: Path, monkeypatch) -> Path:
    from ioscale.stack import flink_launch

    home = c.site_dir / "pyflink"
    (home / "bin").mkdir(parents=True)
    (home / "lib").mkdir()
    (home / "lib" / "flink-dist-2.2.1.jar").write_bytes(b"jar")
    for role, cls in flink_launch.ROLE_CLASSES.items():
        script = home / "bin" / f"{role}.sh"
        script.write_text(FAKE_ROLE_SCRIPT % {"role": role, "cls": cls})
        script.chmod(0o755)
    jdk = tmp_path / "jdk"
    (jdk / "bin").mkdir(parents=True)
    (jdk / "bin" / "java").write_text(FAKE_JAVA)
    (jdk / "bin" / "java").chmod(0o755)
    monkeypatch.setenv("JAVA_HOME", str(jdk))
    return jdk


def test_prepare_records_the_jvm_each_role_script_would_exec_and_processes_start_it(tmp_path, monkeypatch):
    c = _component(tmp_path)
    jdk = _fake_distribution(c, tmp_path, monkeypatch)
    c.prepare()
    assert not (jdk / "started").exists()  # the capture never starts a service
    jm, tm = c.processes()
    assert jm.argv == [str(jdk / "bin" / "java"), "-Xmx64m", "-Xms64m", f"-Dlog.file={c.settings.log_dir}/jobmanager.log",
                       "-classpath", "lib/*", "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
                       "--configDir", str(c.conf_dir)]
    assert tm.argv[-3:] == ["org.apache.flink.runtime.taskexecutor.TaskManagerRunner", "--configDir", str(c.conf_dir)]
    for spec in (jm, tm):
        assert spec.env["JVM_ARGS"] == "-Xmx64m -Xms64m"       # what the script exported
        assert spec.env["FLINK_CONF_DIR"] == str(c.conf_dir)  # what the component sets
        assert spec.env["JAVA_HOME"] == str(jdk)              # the real one, not the capture's stand-in
        assert spec.env["FLINK_PID_DIR"].startswith(str(c.settings.run_dir))
        assert not any(k.startswith("IOSCALE_CAPTURE") or k == "IOSCALE_REAL_JAVA" for k in spec.env)
    # The capture's PID file went with its private directory: the service's own holds none.
    pid_dir = c.settings.run_dir / "flink"
    assert not pid_dir.exists() or not list(pid_dir.glob("flink-*.pid"))


def test_a_second_prepare_reuses_the_record_and_a_changed_configuration_captures_again(tmp_path, monkeypatch):
    c = _component(tmp_path)
    jdk = _fake_distribution(c, tmp_path, monkeypatch)
    c.prepare()
    helper_calls = len((jdk / "calls").read_text().splitlines())
    assert helper_calls == 2  # one BashJavaUtils run per role
    c.prepare()
    assert len((jdk / "calls").read_text().splitlines()) == helper_calls
    # A changed input of the scripts: until prepare records again, the scripts start the JVMs (never a stale record).
    monkeypatch.setenv("FLINK_ENV_JAVA_OPTS", "-Dsomething=else")
    assert c.processes()[0].argv[0].endswith("bin/jobmanager.sh")
    c.prepare()
    assert len((jdk / "calls").read_text().splitlines()) == 2 * helper_calls
    assert c.processes()[0].argv[0] == str(jdk / "bin" / "java")


def test_a_capture_that_fails_leaves_the_scripts_to_start_the_jvms(tmp_path, monkeypatch):
    c = _component(tmp_path)
    _fake_distribution(c, tmp_path, monkeypatch)
    (c.site_dir / "pyflink" / "bin" / "taskmanager.sh").write_text("#!/bin/sh\necho no java today >&2; exit 3\n")
    c.prepare()
    jm, tm = c.processes()
    assert jm.argv[0].endswith("bin/jobmanager.sh") and tm.argv[0].endswith("bin/taskmanager.sh")
    assert not c.launch_record.exists()
