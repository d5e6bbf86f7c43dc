import json
import os
import socket
import sys
import time
from pathlib import Path

import pytest

from ioscale.stack import process
from ioscale.stack.process import PortTakenError, ProcessSpec

SLEEPER = [sys.executable, "-c", "import time; time.sleep(60)"]
# A parent that forks a child and waits: stopping the parent must stop the child too.
FORKER = [sys.executable, "-c",
          "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); time.sleep(60)"]


def _spec(tmp_path: Path, argv=SLEEPER, name="svc", ports=()) -> ProcessSpec:
    return ProcessSpec(name=name, argv=argv, log_file=tmp_path / f"{name}.log",
                       pid_file=tmp_path / f"{name}.pid", ports=ports, stop_timeout_s=5)


def _alive(pid: int) -> bool:
    return process._proc_start_time(pid) is not None


def test_start_writes_pid_file_and_second_start_reuses(tmp_path):
    spec = _spec(tmp_path)
    pid = process.start(spec)
    try:
        record = json.loads(spec.pid_file.read_text())
        assert record["pid"] == pid and _alive(pid)
        assert process.start(spec) == pid  # idempotent: nothing started twice
    finally:
        assert process.stop(spec)
    assert not _alive(pid) and not spec.pid_file.exists()
    assert process.stop(spec) is False  # stopping twice is harmless


def test_stop_kills_the_whole_process_group(tmp_path):
    spec = _spec(tmp_path, FORKER)
    pid = process.start(spec)
    deadline = time.monotonic() + 5
    children = []
    while not children and time.monotonic() < deadline:
        children = [int(p) for p in os.listdir("/proc") if p.isdigit() and p != str(pid)
                    and _pgid(int(p)) == pid]
        time.sleep(0.05)
    assert children, "the forker should have a child in its group"
    process.stop(spec)
    time.sleep(0.2)
    assert not any(_alive(c) for c in children)


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except ProcessLookupError:
        return None


def test_stale_pid_file_of_dead_process_is_ignored_and_removed(tmp_path):
    spec = _spec(tmp_path)
    spec.pid_file.write_text(json.dumps({"pid": 999_999_9, "start_time": 1}))
    assert process.read_pid(spec.pid_file) is None
    assert not spec.pid_file.exists()


def test_pid_reused_by_another_process_is_not_ours(tmp_path):
    spec = _spec(tmp_path)
    # Our own PID is alive, but with another start time it is a different process: stale.
    spec.pid_file.write_text(json.dumps({"pid": os.getpid(), "start_time": 1}))
    assert process.read_pid(spec.pid_file) is None
    assert process.stop(spec) is False  # and we never signal it
    assert _alive(os.getpid())


def test_garbage_pid_file_is_treated_as_stale(tmp_path):
    spec = _spec(tmp_path)
    spec.pid_file.write_text("{half a json")
    assert process.read_pid(spec.pid_file) is None


def test_port_taken_by_a_foreign_process_is_reported_with_its_owner(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        spec = _spec(tmp_path, ports=(port,))
        with pytest.raises(PortTakenError) as e:
            process.start(spec)
        assert e.value.port == port
        assert f"pid {os.getpid()}" in str(e.value)
    assert not spec.pid_file.exists()


def test_tail_returns_last_lines(tmp_path):
    f = tmp_path / "x.log"
    f.write_text("".join(f"line {i}\n" for i in range(100)))
    assert process.tail(f, 3).splitlines() == ["line 97", "line 98", "line 99"]
    assert process.tail(tmp_path / "missing.log") == ""


def test_cpu_seconds_of_this_process_match_its_own_accounting() -> None:
    # Burn some CPU so the figure is not a rounding of zero, then compare with what the kernel tells os.times().
    deadline = time.process_time() + 0.3
    while time.process_time() < deadline:
        pass
    t = os.times()
    used = process.cpu_seconds(process.proc_stat(os.getpid()))
    tick = 1.0 / os.sysconf("SC_CLK_TCK")
    assert abs(used - (t.user + t.system)) <= 3 * tick  # the same counters, read a moment apart
    assert process.proc_stat(2**22 + 1) is None  # above pid_max: no such process


def test_start_waits_for_the_port_of_a_process_still_being_torn_down(tmp_path, monkeypatch):
    # After kill -9 a big server keeps its listening sockets for a moment with no process holding them (its fds
    # are gone from /proc): `ioscale stack up` at once must wait for them, not report the port taken.
    import threading

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    port = s.getsockname()[1]
    monkeypatch.setattr(process, "port_owner", lambda p: process.NO_PROCESS)
    threading.Timer(0.5, s.close).start()
    spec = _spec(tmp_path, ports=(port,))
    t0 = time.monotonic()
    pid = process.start(spec)
    try:
        assert time.monotonic() - t0 >= 0.4
        assert _alive(pid)
    finally:
        process.stop(spec)


def test_a_socket_no_process_releases_is_reported_after_the_wait(tmp_path, monkeypatch):
    monkeypatch.setattr(process, "port_owner", lambda p: process.NO_PROCESS)
    monkeypatch.setattr(process, "RELEASE_WAIT_S", 0.3)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(PortTakenError, match="no process"):
            process.start(_spec(tmp_path, ports=(port,)))


def test_stop_with_no_timeout_kills_at_once(tmp_path):
    # A process that ignores SIGTERM: a graceful stop would wait out its whole stop_timeout_s (5 s here).
    spec = _spec(tmp_path, argv=[sys.executable, "-c",
                                 "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"])
    pid = process.start(spec)
    time.sleep(0.3)
    t0 = time.monotonic()
    assert process.stop(spec, timeout_s=0)
    assert time.monotonic() - t0 < 1.0
    assert not _alive(pid)
