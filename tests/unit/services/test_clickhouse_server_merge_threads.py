"""The server wrapper gives the engine's merge threads, and the threads consuming its Kafka-engine tables, the
nice values config.xml asks for (the engine itself cannot without CAP_SYS_NICE): on real threads of this
process, named as the engine names its own."""

from __future__ import annotations

import ctypes
import os
import threading
from pathlib import Path

from ioscale.services import clickhouse_server as srv

PR_SET_NAME = 15


def _named_thread(name: str, started: threading.Event, done: threading.Event, tid: list[int]) -> threading.Thread:
    def body() -> None:
        # The OS-level name, as the engine's pools set theirs (Python's thread name stays in Python).
        ctypes.CDLL(None).prctl(PR_SET_NAME, name.encode(), 0, 0, 0)
        tid.append(threading.get_native_id())
        started.set()
        done.wait(10)

    return threading.Thread(target=body, daemon=True)


def test_named_threads_get_their_configured_nice_value_and_nothing_else_changes() -> None:
    base = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    merge_nice, kafka_nice = min(base + 3, 19), min(base + 2, 19)
    wanted = {"MergeMutate": merge_nice, "RuntimeData": kafka_nice}
    done = threading.Event()
    tids: dict[str, list[int]] = {}
    threads = []
    for name in ("MergeMutate", "RuntimeData", "HTTPHandler"):
        started = threading.Event()
        tids[name] = []
        threads.append((_named_thread(name, started, done, tids[name]), started))
    for thread, _ in threads:
        thread.start()
    try:
        assert all(started.wait(5) for _, started in threads)
        assert srv.renice_threads(wanted) == 2  # one pass sets both groups
        assert os.getpriority(os.PRIO_PROCESS, tids["MergeMutate"][0]) == merge_nice
        assert os.getpriority(os.PRIO_PROCESS, tids["RuntimeData"][0]) == kafka_nice
        assert os.getpriority(os.PRIO_PROCESS, tids["HTTPHandler"][0]) == base
        assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == base
        # Checked again: nothing left to change; and a lower value never lowers it (that needs privilege).
        assert srv.renice_threads(wanted) == 0
        assert srv.renice_threads({"MergeMutate": base, "RuntimeData": base}) == 0
        assert os.getpriority(os.PRIO_PROCESS, tids["MergeMutate"][0]) == merge_nice
    finally:
        done.set()
        for thread, _ in threads:
            thread.join(5)


def test_nice_values_come_from_config(tmp_path: Path) -> None:
    cfg = tmp_path / "config.xml"
    cfg.write_text("<clickhouse><os_threads_nice_value_merge_mutate>10</os_threads_nice_value_merge_mutate>"
                   "<ioscale_kafka_consumer_nice>5</ioscale_kafka_consumer_nice></clickhouse>")
    assert srv.thread_nice_values(cfg) == {"MergeMutate": 10, "RuntimeData": 5}
    cfg.write_text("<clickhouse><os_threads_nice_value_merge_mutate>10</os_threads_nice_value_merge_mutate>"
                   "</clickhouse>")
    assert srv.thread_nice_values(cfg) == {"MergeMutate": 10}
    cfg.write_text("<clickhouse><http_port>8123</http_port></clickhouse>")
    assert srv.thread_nice_values(cfg) == {}


def test_the_shipped_config_asks_for_nice_merges_only() -> None:
    template = Path(__file__).resolve().parents[3] / "stack" / "clickhouse" / "config.xml.tmpl"
    assert srv.thread_nice_values(template) == {"MergeMutate": 10}  # the raw path at nice 0 (see the template)


def test_wait_for_stop_ticks_while_it_waits() -> None:
    ticks: list[int] = []
    alive = iter([True, True, True, False])
    assert srv.wait_for_stop(lambda: next(alive), lambda signals, timeout_s: None,
                             on_tick=lambda: ticks.append(1)) is None
    assert len(ticks) == 3


_DROP_CHECK = """
import os, sys, threading
from ioscale.services import clickhouse_server as srv
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
