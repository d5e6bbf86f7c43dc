"""ClickHouse 26.9 as a foreground server process, on chdb-core's embedded clickhouse-local engine.

    python -m ioscale.services.clickhouse_server --config <dir>/config.xml
    python -m ioscale.services.clickhouse_server --check          # load the engine, print versions, exit
    ... [--wait-for-space LIB]                                     # writes wait on a full disk (see load_engine)

PyPI's ``chdb-core`` carries the real ClickHouse engine. Its public API is in-process only, but its
private ``_chdb.query(sql, fmt, path=...)`` runs clickhouse-local's LocalServer, which serves real
HTTP and native TCP once ``SYSTEM START LISTEN`` ran. How this module uses it, and why:

- The listeners live only while that one ``query`` call runs, so the call is a multi-statement
  query that starts both listeners and then blocks in an idle keep-alive SELECT. The keep-alive
  filters ``system.numbers`` through a Python UDF that waits on a stop flag (one row per block, at
  most ``POLL_S`` per row); ``LIMIT 1`` ends the query normally once the flag is set, and the
  LocalServer then shuts its engine down (tables, merges, status file) before the call returns.
  (Its Kafka consumers go without a LeaveGroup; config.xml shortens their session timeout.)
- The call's output format becomes the default format of HTTP answers: TabSeparated, as in
  clickhouse-server.
- The engine's own in-process session logs in as ``default`` with an empty password (hard-coded
  in LocalConnection). users.xml limits that user to one session, which the engine holds for its
  whole life, so ``default`` cannot be used over HTTP or TCP.
- ``import chdb`` runs ``chdb/__init__.py``, which opens and closes an engine at import time; after
  that the Kafka table engine fails with "Shutdown was called". The extension module is therefore
  loaded straight from its file, without importing the ``chdb`` package.
- LocalServer reads ``./config.xml`` only (no config-file argument reaches it through ``query``):
  the process changes into the config's directory first.
- The engine installs its own signal handlers. SIGTERM/SIGINT are blocked before it starts (its
  threads inherit the mask) and taken synchronously with ``sigtimedwait`` by the main thread, so
  a stop request always reaches us, whoever installed handlers.
- On stop, idle client connections would make the engine skip its own shutdown (see
  ``hang_up_clients``); they are shut down from here.
- LocalServer ignores ``<timezone>``: the process exports it as ``TZ`` before loading the engine.
- ``<os_threads_nice_value_merge_mutate>`` never took effect: LocalServer leaves it at 0, and with
  CAP_SYS_NICE (root) the engine sets each merge thread back to 0 whenever it starts a task; without
  it the engine does nothing. So the process drops CAP_SYS_NICE before the engine starts (its threads
  inherit that), and sets the nice value of the engine's ``MergeMutate`` threads itself, checking every
  second at ~3 ms of CPU (raising a nice value needs no privilege; the engine's pools may start new threads).
  The threads that consume the Kafka-engine tables get ``<ioscale_kafka_consumer_nice>`` the same way.
- One LocalServer per process; data persists under ``<path>`` across restarts.

Pin both ``chdb==4.4.0`` and ``chdb-core==26.9.0``: the entry point used here is private.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.machinery
import importlib.metadata
import importlib.util
import os
import signal
import socket
import sys
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Mapping

#: Longest the keep-alive query waits per row before it re-checks the stop flag.
POLL_S = 0.5
#: How long a requested stop may take before we stop waiting for a clean engine shutdown.
SHUTDOWN_GRACE_S = 20.0
STOP_SIGNALS = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP}
_RTLD_DEEPBIND = 0x00008
KEEP_ALIVE_UDF = "ioscale_stop_requested"
#: Engine threads that <os_threads_nice_value_merge_mutate> is meant for (thread names as in /proc).
MERGE_THREAD_NAMES = frozenset({"MergeMutate"})
#: Engine threads that run the Kafka-engine tables' consumption and the views it feeds (the raw path): named
#: RuntimeData in this build. Found by their CPU: ~50 % of ClickHouse's during a raw-only catch-up, ~1 % under
#: a load of queries and inserts with no Kafka traffic. Their nice value is <ioscale_kafka_consumer_nice>.
KAFKA_CONSUMER_THREAD_NAMES = frozenset({"RuntimeData"})
CAP_SYS_NICE = 23
_LINUX_CAPABILITY_VERSION_3 = 0x20080522


def log(msg: str) -> None:
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} ioscale.clickhouse_server: {msg}", flush=True)


def engine_path() -> Path:
    """Path of chdb's ``_chdb.abi3.so``, found without executing ``chdb/__init__.py``."""
    spec = importlib.util.find_spec("chdb")  # a top-level find_spec does not import the package
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the chdb package is not installed in this Python environment")
    for location in spec.submodule_search_locations:
        candidate = Path(location) / "_chdb.abi3.so"
        if candidate.exists():
            return candidate
    raise RuntimeError(f"no _chdb.abi3.so under {list(spec.submodule_search_locations)} (is chdb-core installed?)")


def load_engine(wait_for_space: Path | None = None) -> ModuleType:
    """Load the ``chdb._chdb`` extension module from its file, leaving the ``chdb`` package unimported.

    ``wait_for_space``: the library built from ``stack/clickhouse/wait_for_space.c``; the engine's writes that
    meet a full disk then wait for space instead of leaving parts it reports as written empty (see that file).
    """
    so = engine_path()
    # chdb/__init__.py preloads the library with RTLD_DEEPBIND so it binds to its own allocator and
    # C++ runtime rather than to symbols already in the interpreter; do the same.
    ctypes.CDLL(str(so), mode=sys.getdlopenflags() | _RTLD_DEEPBIND)
    if wait_for_space is not None:
        hooked = ctypes.CDLL(str(wait_for_space)).ioscale_wait_for_space_hook(str(so).encode())
        if hooked <= 0:
            raise RuntimeError(f"{wait_for_space} could not guard the engine's writes (code {hooked}); "
                               "rebuild it with `ioscale stack up clickhouse`")
        log(f"engine writes wait for space on a full disk ({hooked} imports guarded)")
    loader = importlib.machinery.ExtensionFileLoader("chdb._chdb", str(so))
    spec = importlib.util.spec_from_file_location("chdb._chdb", str(so), loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def data_path(config_file: Path) -> Path:
    """The ``<path>`` element of config.xml: where databases live."""
    root = ET.parse(config_file).getroot()
    text = (root.findtext("path") or "").strip()
    if not text:
        raise ValueError(f"{config_file} has no <path> element")
    return Path(text)


def listen_ports(config_file: Path) -> set[int]:
    """The HTTP and native ports of config.xml."""
    root = ET.parse(config_file).getroot()
    return {int(root.findtext(tag)) for tag in ("http_port", "tcp_port") if root.findtext(tag)}


def thread_nice_values(config_file: Path) -> dict[str, int]:
    """The nice value config.xml asks for, per engine thread name: ``<os_threads_nice_value_merge_mutate>`` for
    the merge threads, ``<ioscale_kafka_consumer_nice>`` (read by this wrapper only) for the raw path's."""
    root = ET.parse(config_file).getroot()
    wanted: dict[str, int] = {}
    for names, element in ((MERGE_THREAD_NAMES, "os_threads_nice_value_merge_mutate"),
                           (KAFKA_CONSUMER_THREAD_NAMES, "ioscale_kafka_consumer_nice")):
        text = (root.findtext(element) or "").strip()
        if text:
            wanted.update(dict.fromkeys(names, int(text)))
    return wanted


def renice_threads(nice_by_name: Mapping[str, int], proc: Path = Path("/proc/self")) -> int:
    """Gives this process's threads named in ``nice_by_name`` that nice value when they have a lower one.

    Only ever raises a value (lower priority), which needs no privilege. Returns how many threads changed.
    Plain os calls, one pass for every name: it runs every second, at ~3 ms of CPU for ~300 threads.
    """
    wanted = {name.encode(): nice for name, nice in nice_by_name.items()}
    tasks = f"{proc}/task"
    changed = 0
    for tid in os.listdir(tasks):
        try:
            fd = os.open(f"{tasks}/{tid}/comm", os.O_RDONLY)
            try:
                name = os.read(fd, 64).rstrip(b"\n")
            finally:
                os.close(fd)
            nice = wanted.get(name)
            if nice is not None and os.getpriority(os.PRIO_PROCESS, int(tid)) < nice:
                os.setpriority(os.PRIO_PROCESS, int(tid), nice)
                changed += 1
        except (FileNotFoundError, ProcessLookupError):  # the thread ended while we looked
            continue
    return changed


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def drop_capability(cap: int) -> bool:
    """Removes ``cap`` from the calling thread's effective and permitted capabilities (threads it starts
    afterwards inherit the result). True if it had the capability and no longer has it."""
    libc = ctypes.CDLL(None, use_errno=True)
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        return False
    word, bit = divmod(cap, 32)
    if not (data[word].effective >> bit) & 1:
        return False
    data[word].effective &= ~(1 << bit)
    data[word].permitted &= ~(1 << bit)
    return libc.capset(ctypes.byref(header), data) == 0


def client_connection_fds(ports: set[int], proc: Path = Path("/proc/self")) -> list[int]:
    """This process's file descriptors of accepted client connections on ``ports`` (open or half-closed)."""
    inode_to_fd: dict[str, int] = {}
    for entry in (proc / "fd").iterdir():
        try:
            target = os.readlink(entry)
        except OSError:  # closed while we looked
            continue
        if target.startswith("socket:["):
            inode_to_fd[target[8:-1]] = int(entry.name)
    fds = []
    for table in ("tcp", "tcp6"):
        try:
            lines = (proc / "net" / table).read_text().splitlines()[1:]
        except FileNotFoundError:
            continue
        for line in lines:
            fields = line.split()
            local_port = int(fields[1].rsplit(":", 1)[1], 16)
            # 01 ESTABLISHED, 08 CLOSE_WAIT (client gone, server side still open)
            if fields[3] in ("01", "08") and local_port in ports and fields[9] in inode_to_fd:
                fds.append(inode_to_fd[fields[9]])
    return fds


def hang_up_clients(ports: set[int]) -> int:
    """Shut down (not close: the engine's threads own the descriptors) every client connection.

    At shutdown the engine stops its listeners, then waits up to ``shutdown_wait_unfinished`` for
    open connections, and if any remain it leaves with ``_exit(0)``, skipping its own shutdown:
    Kafka consumers never leave their group (the next start waits out the session timeout before
    it gets partitions) and nothing is flushed. Idle keep-alive connections from connection pools
    (clickhouse-connect, Superset, the Flink sink) always remain, so we hang them up ourselves.
    """
    count = 0
    for fd in client_connection_fds(ports):
        try:
            sock = socket.socket(fileno=fd)
        except OSError:  # descriptor went away meanwhile
            continue
        try:
            sock.shutdown(socket.SHUT_RDWR)
            count += 1
        except OSError:
            pass
        finally:
            sock.detach()  # never close it from here
    return count


def server_timezone(config_file: Path) -> str | None:
    """The ``<timezone>`` element of config.xml, if any."""
    text = (ET.parse(config_file).getroot().findtext("timezone") or "").strip()
    return text or None


def serve_sql() -> str:
    """The one multi-statement query that runs the server: listeners up, then idle until stopped."""
    return (
        "SYSTEM START LISTEN HTTP; "
        "SYSTEM START LISTEN TCP; "
        f"SELECT number FROM system.numbers WHERE {KEEP_ALIVE_UDF}(number) LIMIT 1 "
        "SETTINGS max_block_size = 1, max_threads = 1, max_execution_time = 0"
    )


def versions() -> dict[str, str]:
    return {name: importlib.metadata.version(name) for name in ("chdb", "chdb-core")}


def check(wait_for_space: Path | None = None) -> int:
    """Load the engine and run one query in memory: proves the venv can serve (used by install)."""
    engine = load_engine(wait_for_space)
    result = engine.query("SELECT version()", "CSV")
    if result.has_error():
        print(f"engine failed: {result.error_message()}", file=sys.stderr)
        return 1
    v = versions()
    print(f"engine={result.bytes().decode().strip().strip(chr(34))} chdb={v['chdb']} "
          f"chdb-core={v['chdb-core']} library={engine_path()}")
    return 0


def wait_for_stop(engine_alive: Callable[[], bool],
                  wait: Callable[[set[signal.Signals], float], Any] = signal.sigtimedwait,
                  on_tick: Callable[[], None] = lambda: None) -> int | None:
    """Blocks until a stop signal arrives (its number) or the engine ends by itself (None); calls
    ``on_tick`` about once a second meanwhile.

    Anything else ``sigtimedwait`` returns is ignored: a debugger or profiler attaching with ptrace (py-spy,
    gdb) interrupts the wait and can hand back a record whose signal number is garbage, which once stopped
    the server as if it had been asked to.
    """
    while engine_alive():
        info = wait(STOP_SIGNALS, 1.0)
        if info is not None and info.si_signo in STOP_SIGNALS:
            return info.si_signo
        on_tick()
    return None


def serve(config_file: Path, wait_for_space: Path | None = None) -> int:
    """Run the server until SIGTERM/SIGINT/SIGHUP; exits the process (0 after a clean stop, 1 otherwise)."""
    config_file = config_file.resolve()
    if config_file.name != "config.xml":
        log(f"the config must be named config.xml (LocalServer reads ./config.xml), got {config_file}")
        return 2
    path = data_path(config_file)
    path.mkdir(parents=True, exist_ok=True)
    os.chdir(config_file.parent)
    # LocalServer ignores <timezone> and takes the server zone from the environment: apply it
    # before the engine loads, so the host's TZ never leaks into DateTime rendering.
    tz = server_timezone(config_file)
    if tz:
        os.environ["TZ"] = tz
        time.tzset()

    # Before any engine thread exists, so every thread it starts inherits the blocked mask.
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    nice_values = thread_nice_values(config_file)
    # ... and the lack of CAP_SYS_NICE: with it, the engine resets its merge threads to nice 0 at every task.
    if nice_values and drop_capability(CAP_SYS_NICE):
        log("CAP_SYS_NICE dropped: engine threads keep the nice values set below")

    t0 = time.monotonic()
    engine = load_engine(wait_for_space)
    if wait_for_space is None:
        log("no --wait-for-space library: a write that meets a full disk can leave a part empty")
    stop = threading.Event()

    def stop_requested(_number: int) -> int:
        # Runs in an engine thread, one row at a time; Event.wait releases the GIL while it waits.
        return 1 if stop.wait(POLL_S) else 0

    engine.create_function(KEEP_ALIVE_UDF, stop_requested, ["UInt64"], "UInt8")
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            # The output format becomes the default format of HTTP answers: TabSeparated, as in
            # clickhouse-server (clients such as clickhouse-connect parse untyped answers as TSV).
            outcome["result"] = engine.query(serve_sql(), "TabSeparated", path=str(path))
        except BaseException as e:  # surfaced by the main thread
            outcome["error"] = e

    worker = threading.Thread(target=run, name="clickhouse-local", daemon=True)
    worker.start()
    log(f"engine {versions()['chdb-core']} loaded in {time.monotonic() - t0:.1f}s; "
        f"serving {path} with {config_file}")

    def tick() -> None:  # about once a second: the engine's pools may start new threads
        if nice_values and (changed := renice_threads(nice_values)):
            wanted = ", ".join(f"{name} {nice}" for name, nice in nice_values.items())
            log(f"{changed} thread(s) set to their nice value ({wanted})")

    received = wait_for_stop(worker.is_alive, on_tick=tick)

    if received is None:  # the query ended without being asked to: the listeners are gone
        result = outcome.get("result")
        why = outcome.get("error") or (result.error_message() if result is not None and result.has_error() else
                                       "the engine's error, if any, is printed above and in the server's error log")
        log(f"engine stopped unexpectedly: {why}")
        sys.stdout.flush()
        os._exit(1)  # as below: no interpreter teardown around a finished engine

    t_stop = time.monotonic()
    log(f"{signal.Signals(received).name} received, shutting down")
    stop.set()
    ports = listen_ports(config_file)
    hung_up = 0
    while worker.is_alive() and time.monotonic() - t_stop < SHUTDOWN_GRACE_S:
        hung_up += hang_up_clients(ports)
        worker.join(0.1)
    if hung_up:
        log(f"hung up {hung_up} client connection(s) so the engine could shut down cleanly")
    if worker.is_alive():
        log(f"engine did not stop within {SHUTDOWN_GRACE_S:.0f}s; exiting without a clean shutdown")
        os._exit(1)
    result = outcome.get("result")
    if result is not None and result.has_error():
        log(f"keep-alive query ended with an error during shutdown: {result.error_message()}")
    log(f"stopped in {time.monotonic() - t_stop:.1f}s")
    sys.stdout.flush()
    # The engine is already shut down; skip interpreter teardown, which would race its static
    # destructors against Python's own finalisation for no benefit.
    os._exit(0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ioscale.services.clickhouse_server", description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--config", type=Path, help="path to the rendered config.xml")
    group.add_argument("--check", action="store_true", help="load the engine, print its version, exit")
    parser.add_argument("--wait-for-space", type=Path, metavar="LIB",
                        help="library built from stack/clickhouse/wait_for_space.c: writes wait on a full disk")
    args = parser.parse_args(argv)
    if args.check:
        return check(args.wait_for_space)
    return serve(args.config, args.wait_for_space)


if __name__ == "__main__":
    sys.exit(main())
