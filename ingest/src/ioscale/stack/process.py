"""Background service processes: start with a PID file and a log file, find them again, stop them by PID.

Each service runs in its own session (process group), so stopping it also stops anything it forked
(Flink's shell wrappers, gunicorn workers). A PID file records the PID *and* the kernel's start time
of that process, so a stale file whose PID was reused by an unrelated process is recognised as stale.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class ProcessSpec:
    """One long-running process of a component."""

    name: str  # unique across the stack, e.g. "flink-jobmanager"
    argv: list[str]
    log_file: Path
    pid_file: Path
    env: dict[str, str] = field(default_factory=dict)  # added to os.environ
    cwd: Path | None = None
    ports: tuple[int, ...] = ()  # ports this process binds; checked free before start
    stop_timeout_s: float = 20.0
    #: files the process reads its configuration from once, at start (a change needs a restart)
    config_files: tuple[Path, ...] = ()

    def fingerprint(self) -> str:
        """What the process was started with: its command line, environment and config files' contents."""
        h = hashlib.sha256(json.dumps([self.argv, sorted(self.env.items())]).encode())
        for path in self.config_files:
            h.update(b"\0" + str(path).encode() + b"\0")
            try:
                h.update(path.read_bytes())
            except FileNotFoundError:
                h.update(b"(missing)")
        return h.hexdigest()


def proc_stat(pid: int | str) -> list[str] | None:
    """Fields 3 onwards of /proc/PID/stat (``[0]`` is field 3, the state), None if the process is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    # The command name (field 2) may hold spaces and parentheses: split after the last ')'.
    return raw[raw.rindex(")") + 2 :].split()


def cpu_seconds(fields: list[str]) -> float:
    """CPU seconds a process has used (user + system), from its :func:`proc_stat` fields."""
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # fields 14, 15: utime, stime


def _proc_start_time(pid: int) -> int | None:
    """Start time of ``pid`` in clock ticks since boot (field 22 of /proc/PID/stat), None if gone."""
    fields = proc_stat(pid)
    if fields is None or fields[0] == "Z":  # gone, or a zombie: exited, not yet reaped
        return None
    return int(fields[19])


def _live_record(pid_file: Path) -> dict | None:
    """The record of the live process ``pid_file`` names; removes the file if it is stale."""
    try:
        record = json.loads(pid_file.read_text())
        pid, started = int(record["pid"]), int(record["start_time"])
    except FileNotFoundError:
        return None
    except (ValueError, KeyError, TypeError):
        pid_file.unlink(missing_ok=True)  # unreadable: a crash mid-write; treat as stale
        return None
    if _proc_start_time(pid) != started:
        pid_file.unlink(missing_ok=True)
        return None
    return record


def read_pid(pid_file: Path) -> int | None:
    """PID of the live process recorded in ``pid_file``; removes the file if it is stale."""
    record = _live_record(pid_file)
    return None if record is None else int(record["pid"])


def config_changed(spec: ProcessSpec) -> bool:
    """Whether ``spec`` runs with another command line, environment or config than it would start with now.
    A process started before fingerprints were recorded counts as unchanged."""
    record = _live_record(spec.pid_file)
    return record is not None and "config" in record and record["config"] != spec.fingerprint()


def port_in_use(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


def port_owner(port: int) -> str | None:
    """Best-effort description of who listens on ``port`` (pid and command), from /proc."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except FileNotFoundError:
            continue
        for line in lines:
            parts = line.split()
            if parts[3] == "0A" and int(parts[1].rsplit(":", 1)[1], 16) == port:  # 0A = LISTEN
                inodes.add(parts[9])
    if not inodes:
        return None
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            for fd in (proc / "fd").iterdir():
                target = os.readlink(fd)
                if target.startswith("socket:[") and target[8:-1] in inodes:
                    cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                    return f"pid {proc.name}: {cmd.strip()[:120]}"
        except (FileNotFoundError, PermissionError, ProcessLookupError):
            continue
    return NO_PROCESS


#: port_owner when the socket listens but no process holds it: one that was killed and is still being torn down.
NO_PROCESS = "no process (one that is exiting?)"
#: How long start waits for such a socket to go. A ClickHouse server killed with -9 keeps its ports ~1-3 s while
#: the kernel unmaps its memory; a restart at once must not fail on that.
RELEASE_WAIT_S = 15.0


def wait_for_release(host: str, port: int) -> str | None:
    """None once ``port`` is free; the owner if a live process holds it (or the socket outlived RELEASE_WAIT_S)."""
    deadline = time.monotonic() + RELEASE_WAIT_S
    while port_in_use(host, port):
        owner = port_owner(port)
        if owner != NO_PROCESS or time.monotonic() > deadline:
            return owner or "another process"
        time.sleep(0.2)
    return None


def start(spec: ProcessSpec, host: str = "127.0.0.1") -> int:
    """Start ``spec`` in the background unless it already runs; return its PID.

    Raises ``PortTakenError`` if one of its ports is held by a process that is not this one.
    """
    pid = read_pid(spec.pid_file)
    if pid is not None:
        return pid
    for port in spec.ports:
        owner = wait_for_release(host, port)
        if owner is not None:
            raise PortTakenError(spec.name, port, owner)
    spec.log_file.parent.mkdir(parents=True, exist_ok=True)
    spec.pid_file.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **spec.env}
    with open(spec.log_file, "ab") as log:
        log.write(f"\n==== ioscale: starting {spec.name} at {time.strftime('%Y-%m-%d %H:%M:%S')} ====\n".encode())
        log.flush()
        proc = subprocess.Popen(
            spec.argv,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=spec.cwd,
            env=env,
            start_new_session=True,  # own process group: stop() signals the whole tree
        )
    started = None
    for _ in range(50):  # /proc entry appears immediately, but be patient on a loaded machine
        started = _proc_start_time(proc.pid)
        if started is not None:
            break
        time.sleep(0.01)
    if started is None:
        raise ProcessDiedError(spec.name, proc.poll())
    tmp = spec.pid_file.with_suffix(".tmp")
    tmp.write_text(json.dumps({"pid": proc.pid, "start_time": started, "argv": spec.argv[:3],
                               "config": spec.fingerprint()}))
    tmp.replace(spec.pid_file)
    return proc.pid


def is_running(spec: ProcessSpec) -> bool:
    return read_pid(spec.pid_file) is not None


def stop(spec: ProcessSpec, timeout_s: float | None = None) -> bool:
    """Stop the process (and its process group) recorded in the PID file: SIGTERM, then SIGKILL after
    ``timeout_s`` (default: the spec's stop_timeout_s; 0 kills at once). True if one was running."""
    pid = read_pid(spec.pid_file)
    if pid is None:
        return False
    _signal_group(pid, signal.SIGTERM if timeout_s != 0 else signal.SIGKILL)
    deadline = time.monotonic() + (spec.stop_timeout_s if timeout_s is None else timeout_s)
    while time.monotonic() < deadline:
        if _proc_start_time(pid) is None and not _group_alive(pid):
            break
        _reap(pid)
        time.sleep(0.1)
    else:
        _signal_group(pid, signal.SIGKILL)
        time.sleep(0.2)
    _reap(pid)
    spec.pid_file.unlink(missing_ok=True)
    return True


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)  # start_new_session made pid the group leader
    except ProcessLookupError:
        pass
    except PermissionError:
        os.kill(pid, sig)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        # killpg(…, 0) succeeds while zombies remain; check that a non-zombie member exists.
        for proc in Path("/proc").iterdir():
            if proc.name.isdigit():
                try:
                    raw = (proc / "stat").read_text()
                except (FileNotFoundError, ProcessLookupError, PermissionError):
                    continue
                fields = raw[raw.rindex(")") + 2 :].split()
                if int(fields[2]) == pgid and fields[0] != "Z":
                    return True
        return False
    except ProcessLookupError:
        return False


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def tail(path: Path, lines: int = 20) -> str:
    """Last ``lines`` lines of a log file, for error messages."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 64 * 1024))
            data = f.read().decode(errors="replace")
    except FileNotFoundError:
        return ""
    return "\n".join(data.splitlines()[-lines:])


class PortTakenError(Exception):
    def __init__(self, name: str, port: int, owner: str | None):
        super().__init__(f"port {port} needed by {name} is already taken by {owner or 'another process'}")
        self.name, self.port, self.owner = name, port, owner


class ProcessDiedError(Exception):
    def __init__(self, name: str, returncode: int | None):
        super().__init__(f"{name} exited at once (status {returncode})")
        self.name, self.returncode = name, returncode
