"""The server wrapper gives the engine's merge threads the nice value config.xml asks for (the engine itself
cannot without CAP_SYS_NICE): on real threads of this process, named as the engine names its own."""

from __future__ import annotations

import ctypes
import os
import threading
from pathlib import Path

from ioscale.stack import clickhouse_server as srv

PR_SET_NAME = 15


def _named_thread(name: str, started: threading.Event, done: threading.Event, tid: list[int]) -> threading.Thread:
    def body() -> None:
        # The OS-level name, as the engine's pools set theirs (Python's thread name stays in Python).
        ctypes.CDLL(None).prctl(PR_SET_NAME, name.encode(), 0, 0, 0)
        tid.append(threading.get_native_id())
        started.set()
        done.wait(10)

    return threading.Thread(target=body, daemon=True)


def test_merge_threads_get_the_configured_nice_value_and_nothing_else_changes() -> None:
    base = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    want = min(base + 3, 19)
    started, other_started, done = threading.Event(), threading.Event(), threading.Event()
    merge_tid: list[int] = []
    other_tid: list[int] = []
    merge = _named_thread("MergeMutate", started, done, merge_tid)
    other = _named_thread("HTTPHandler", other_started, done, other_tid)
    merge.start()
    other.start()
    try:
        assert started.wait(5) and other_started.wait(5)
        assert srv.renice_threads(srv.MERGE_THREAD_NAMES, want) == 1
        assert os.getpriority(os.PRIO_PROCESS, merge_tid[0]) == want
        assert os.getpriority(os.PRIO_PROCESS, other_tid[0]) == base
        assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == base
        # Checked again: nothing left to change; and a lower value never lowers it (that needs privilege).
        assert srv.renice_threads(srv.MERGE_THREAD_NAMES, want) == 0
        assert srv.renice_threads(srv.MERGE_THREAD_NAMES, base) == 0
        assert os.getpriority(os.PRIO_PROCESS, merge_tid[0]) == want
    finally:
        done.set()
        merge.join(5)
        other.join(5)


def test_merge_nice_value_comes_from_config(tmp_path: Path) -> None:
    cfg = tmp_path / "config.xml"
    cfg.write_text("<clickhouse><os_threads_nice_value_merge_mutate>10</os_threads_nice_value_merge_mutate>"
                   "</clickhouse>")
    assert srv.merge_nice_value(cfg) == 10
    cfg.write_text("<clickhouse><http_port>8123</http_port></clickhouse>")
    assert srv.merge_nice_value(cfg) is None


def test_the_shipped_config_asks_for_nice_merges() -> None:
    template = Path(__file__).resolve().parents[3] / "stack" / "clickhouse" / "config.xml.tmpl"
    assert "<os_threads_nice_value_merge_mutate>10</os_threads_nice_value_merge_mutate>" in template.read_text()


def test_wait_for_stop_ticks_while_it_waits() -> None:
    ticks: list[int] = []
    alive = iter([True, True, True, False])
    assert srv.wait_for_stop(lambda: next(alive), lambda signals, timeout_s: None,
                             on_tick=lambda: ticks.append(1)) is None
    assert len(ticks) == 3


_DROP_CHECK = """
import os, sys, threading
from ioscale.stack import clickhouse_server as srv
had = int(open("/proc/self/status").read().split("CapEff:")[1].split()[0], 16) >> srv.CAP_SYS_NICE & 1
dropped = srv.drop_capability(srv.CAP_SYS_NICE)
result = {}
def later():  # a thread started afterwards, as the engine's are: raised, it cannot come back down
    tid = threading.get_native_id()
    status = open(f"/proc/self/task/{tid}/status").read()
    result["cap"] = int(status.split("CapEff:")[1].split()[0], 16) >> srv.CAP_SYS_NICE & 1
    base = os.getpriority(os.PRIO_PROCESS, tid)
    os.setpriority(os.PRIO_PROCESS, tid, min(base + 2, 19))
    try:
        os.setpriority(os.PRIO_PROCESS, tid, base)
        result["lowered"] = 1
    except PermissionError:
        result["lowered"] = 0
t = threading.Thread(target=later); t.start(); t.join()
print(had, int(dropped), result["cap"], result["lowered"])
"""


def test_dropping_cap_sys_nice_keeps_a_raised_nice_value_raised() -> None:
    # In a child process: the test process keeps its capabilities.
    import subprocess
    import sys

    had, dropped, cap, lowered = map(int, subprocess.run([sys.executable, "-c", _DROP_CHECK], check=True,
                                                         capture_output=True, text=True).stdout.split())
    if had:   # root with CAP_SYS_NICE (as here): dropped, and the engine could no longer lower a nice value
        assert (dropped, cap, lowered) == (1, 0, 0)
    else:     # an ordinary user: nothing to drop, and lowering was never allowed
        assert (dropped, cap, lowered) == (0, 0, 0)
