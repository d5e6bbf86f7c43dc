"""Launcher behaviour with fake components: idempotent up, recovery, failures that name the culprit."""

import json
import socket
import sys
import types

import pytest

from ioscale.errors import StackError
from ioscale.stack import launcher as launcher_mod
from ioscale.stack import process
from ioscale.stack.component import Component, Health
from ioscale.stack.launcher import Launcher
from ioscale.stack.progress import SilentProgress
from ioscale.stack.settings import StackSettings

CALLS: list[str] = []


class FakeService(Component):
    """A real background process (python sleeping) so PID handling is exercised for real."""

    name = "fake"
    install_version = "1"
    argv = [sys.executable, "-c", "import time; time.sleep(120)"]
    ports: tuple[int, ...] = ()
    fail_install = False

    def install(self):
        CALLS.append("install")
        if type(self).fail_install:
            raise StackError(self.name, "download interrupted", str(self.install_log))
        self.mark_installed()

    def processes(self):
        conf = self.settings.home / "fake.conf"
        return [self.spec(None, self.argv, ports=self.ports, stop_timeout_s=5, config_files=(conf,))]

    def wait_ready(self, timeout_s):
        self.wait_for("nothing", lambda: True, timeout_s)

    def configure(self):
        CALLS.append("configure")

    def health(self):
        return Health(True, "fine")


class DyingService(FakeService):
    name = "dying"
    argv = [sys.executable, "-c", "import sys; print('boom: config invalid'); sys.exit(3)"]

    def wait_ready(self, timeout_s):
        self.wait_for("never", lambda: False, timeout_s=10, interval_s=0.1)


@pytest.fixture
def fake_stack(tmp_path, monkeypatch):
    CALLS.clear()
    FakeService.fail_install = False
    FakeService.ports = ()
    mod = types.ModuleType("fake_components")
    mod.FakeService, mod.DyingService = FakeService, DyingService
    monkeypatch.setitem(sys.modules, "fake_components", mod)
    monkeypatch.setattr(launcher_mod, "COMPONENTS", {"fake": "fake_components:FakeService",
                                                     "dying": "fake_components:DyingService"})
    settings = StackSettings.from_env({"IOSCALE_REPO": str(tmp_path), "IOSCALE_HOME": str(tmp_path / "home")})
    la = Launcher(settings, SilentProgress())
    yield la
    Launcher(settings, SilentProgress()).down()


def test_up_twice_starts_once_and_installs_once(fake_stack):
    fake_stack.up(["fake"])
    pid = process.read_pid(fake_stack.settings.run_dir / "fake.pid")
    assert pid
    fake_stack.up(["fake"])
    assert process.read_pid(fake_stack.settings.run_dir / "fake.pid") == pid
    assert CALLS.count("install") == 1
    assert CALLS.count("configure") == 2  # configure is idempotent and re-checked on every up


def test_up_restarts_a_process_whose_config_file_changed_and_only_then(fake_stack):
    """A process reads its config at start: `up` after the file changed restarts it (Superset's config did not
    take effect until someone stopped it by hand); the same file again leaves it running."""
    conf = fake_stack.settings.home / "fake.conf"
    conf.parent.mkdir(parents=True, exist_ok=True)
    conf.write_text("a = 1\n")
    fake_stack.up(["fake"])
    pid_file = fake_stack.settings.run_dir / "fake.pid"
    first = process.read_pid(pid_file)
    fake_stack.up(["fake"])
    assert process.read_pid(pid_file) == first
    conf.write_text("a = 2\n")
    fake_stack.up(["fake"])
    second = process.read_pid(pid_file)
    assert second and second != first and process._proc_start_time(first) is None


def test_a_process_started_before_fingerprints_is_left_running(fake_stack):
    fake_stack.up(["fake"])
    pid_file = fake_stack.settings.run_dir / "fake.pid"
    record = json.loads(pid_file.read_text())
    del record["config"]
    pid_file.write_text(json.dumps(record))
    (fake_stack.settings.home / "fake.conf").write_text("changed\n")
    fake_stack.up(["fake"])
    assert process.read_pid(pid_file) == record["pid"]


def test_down_stops_everything_and_status_reports_down(fake_stack):
    fake_stack.up(["fake"])
    pid = process.read_pid(fake_stack.settings.run_dir / "fake.pid")
    assert fake_stack.down() == ["fake"]
    assert process._proc_start_time(pid) is None
    [st] = fake_stack.status(["fake"])
    assert st.health is None and st.processes == [("fake", None)]


def test_half_finished_install_is_redone(fake_stack):
    FakeService.fail_install = True
    with pytest.raises(StackError, match="fake: download interrupted"):
        fake_stack.up(["fake"])
    FakeService.fail_install = False
    fake_stack.up(["fake"])
    assert CALLS.count("install") == 2


def test_process_dying_during_start_names_component_and_log(fake_stack):
    with pytest.raises(StackError) as e:
        fake_stack.up(["dying"])
    msg = str(e.value)
    assert msg.startswith("dying: ") and "died while starting" in msg
    assert "boom: config invalid" in msg  # the log tail is in the message
    assert str(fake_stack.settings.log_dir / "dying.log") in msg


def test_port_taken_gives_a_clear_error_then_up_recovers(fake_stack):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        FakeService.ports = (s.getsockname()[1],)
        with pytest.raises(StackError) as e:
            fake_stack.up(["fake"])
        assert "fake:" in str(e.value) and "already taken" in str(e.value)
        assert "IOSCALE_<NAME>_PORT" in e.value.hint
    fake_stack.up(["fake"])  # port free again: up recovers
    assert process.read_pid(fake_stack.settings.run_dir / "fake.pid")


def test_unknown_component_is_rejected(fake_stack):
    from ioscale.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown component"):
        fake_stack.up(["kafak"])


def test_down_without_secrets_works_on_fresh_state(fake_stack):
    assert not fake_stack.settings.secrets_file.exists()
    assert fake_stack.down() == []


def test_up_after_status_on_a_fresh_home_generates_secrets(fake_stack):
    """Regression: the test fixture asks for status first; `up` then ran with the empty secrets of that call."""
    assert not fake_stack.settings.secrets_file.exists()
    fake_stack.status(["fake"])
    comps = fake_stack.up(["fake"])
    assert comps[0].ctx.secrets.get("CLICKHOUSE_ADMIN_PASSWORD")
    assert fake_stack.settings.secrets_file.exists()
