"""The server wrapper's shutdown helpers, on real sockets in this process (no ClickHouse needed)."""

from __future__ import annotations

import socket
from pathlib import Path

from ioscale.services import clickhouse_server as srv


def test_hang_up_clients_cuts_accepted_connections_only_on_our_ports() -> None:
    with socket.create_server(("127.0.0.1", 0)) as ours, socket.create_server(("127.0.0.1", 0)) as other:
        port, other_port = ours.getsockname()[1], other.getsockname()[1]
        client = socket.create_connection(("127.0.0.1", port))
        bystander = socket.create_connection(("127.0.0.1", other_port))
        accepted, _ = ours.accept()
        kept, _ = other.accept()
        try:
            assert srv.client_connection_fds({port}) == [accepted.fileno()]
            assert srv.hang_up_clients({port}) == 1
            client.settimeout(2)
            assert client.recv(1) == b""  # the peer sees an orderly hang-up
            assert accepted.fileno() != -1  # shut down, not closed: its owner still closes it
            kept.sendall(b"x")
            assert bystander.recv(1) == b"x"  # other ports untouched
            assert ours.fileno() != -1  # the listening socket is not a client connection
        finally:
            for s in (client, bystander, accepted, kept):
                s.close()


def test_listen_ports_come_from_config(tmp_path: Path) -> None:
    cfg = tmp_path / "config.xml"
    cfg.write_text("<clickhouse><http_port>18123</http_port><tcp_port>19000</tcp_port></clickhouse>")
    assert srv.listen_ports(cfg) == {18123, 19000}


class _SigInfo:
    def __init__(self, signo: int):
        self.si_signo = signo


def test_wait_for_stop_ignores_what_a_ptrace_attach_hands_back() -> None:
    """Regression: py-spy attaching to the server made sigtimedwait return a record with a garbage signal
    number (-2072547592), and the server shut down (then crashed naming the signal)."""
    import signal

    returned = iter([None, _SigInfo(-2072547592), _SigInfo(0), None, _SigInfo(signal.SIGTERM)])
    calls: list[float] = []

    def fake_wait(signals: set, timeout_s: float):
        calls.append(timeout_s)
        return next(returned)

    assert srv.wait_for_stop(lambda: True, fake_wait) == signal.SIGTERM
    assert len(calls) == 5


def test_wait_for_stop_returns_none_when_the_engine_ends_by_itself() -> None:
    alive = iter([True, True, False])
    assert srv.wait_for_stop(lambda: next(alive), lambda signals, timeout_s: None) is None
