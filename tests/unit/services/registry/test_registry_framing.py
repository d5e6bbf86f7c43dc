"""Request framing over a raw socket against the real server: a broken body is answered 400 and the
connection closed, so the rest of the body is never read as a next request."""

from __future__ import annotations

import json
import socket

import pytest

SCHEMA = json.dumps({"schema": '"int"'}).encode()
# Smuggled inside each broken body: answered only if the server reads on after the framing error.
SMUGGLED = b"GET /mode HTTP/1.1\r\nHost: x\r\n\r\n"


def exchange(url: str, raw: bytes, shut_write: bool = False) -> list[tuple[int, dict[str, str], object]]:
    """Send raw bytes, read until the server closes (or 3 s pass), return every response in order."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=3) as sock:
        sock.sendall(raw)
        if shut_write:
            sock.shutdown(socket.SHUT_WR)
        data = b""
        try:
            while chunk := sock.recv(65536):
                data += chunk
        except TimeoutError:
            data += b"<still open>"
    answers = []
    while data.startswith(b"HTTP/1.1 "):
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        length = int(headers["content-length"])
        answers.append((int(lines[0].split()[1]), headers, json.loads(rest[:length])))
        data = rest[length:]
    assert data in (b"", b"<still open>")
    if data:
        answers.append((0, {}, "still open"))
    return answers


def post(headers: str, body: bytes) -> bytes:
    return (f"POST /subjects/s/versions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{headers}\r\n"
            .encode() + body)


@pytest.mark.parametrize("raw, status, fragment", [
    (post("Content-Length: abc\r\n", SMUGGLED), 400, "Malformed Content-Length 'abc'"),
    (post("Content-Length: -5\r\n", SMUGGLED), 400, "Malformed Content-Length '-5'"),
    (post("Content-Length: 0x10\r\n", SMUGGLED), 400, "Malformed Content-Length '0x10'"),
    (post("Content-Length: 2\r\nContent-Length: 33\r\n", b"{}" + SMUGGLED), 400, "Malformed Content-Length '2, 33'"),
    (post("Content-Length: 2, 33\r\n", b"{}" + SMUGGLED), 400, "Malformed Content-Length '2, 33'"),
    (post("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", b"0\r\n\r\n" + SMUGGLED), 400,
     "Both Transfer-Encoding and Content-Length"),
    (post("Transfer-Encoding: chunked\r\n", b"zz\r\n" + SMUGGLED), 400, "Malformed chunk size 'zz'"),
    (post("Transfer-Encoding: chunked\r\n", b"-5\r\n" + SMUGGLED), 400, "Malformed chunk size '-5'"),
    (post("Transfer-Encoding: chunked\r\n", b"0x3\r\nabc\r\n0\r\n\r\n" + SMUGGLED), 400, "Malformed chunk size '0x3'"),
    (post("Transfer-Encoding: chunked\r\n", b"\r\n" + SMUGGLED), 400, "Malformed chunk size ''"),
    (post("Transfer-Encoding: chunked\r\n", b"3\r\n" + SCHEMA + b"\r\n0\r\n\r\n" + SMUGGLED), 400,
     "Chunk of 3 bytes not followed by CRLF"),
    (post("Transfer-Encoding: chunked\r\n", b"1" * 5000 + b"\r\n" + SMUGGLED), 400, "Chunk size line longer than 4096"),
    (post("Transfer-Encoding: gzip, chunked\r\n", b"0\r\n\r\n" + SMUGGLED), 501,
     "Unsupported Transfer-Encoding 'gzip, chunked'"),
    (post("Transfer-Encoding: chunked\r\n", b"1000001\r\n" + SMUGGLED), 422,
     "Register operation failed because schema is too large"),
    (post("Content-Length: 16777217\r\n", SMUGGLED), 422, "Register operation failed because schema is too large"),
], ids=["cl-text", "cl-negative", "cl-hex", "cl-twice", "cl-list", "cl-and-te", "chunk-text", "chunk-negative",
        "chunk-0x", "chunk-empty", "chunk-overrun", "chunk-line-long", "te-gzip", "chunk-too-large", "cl-too-large"])
def test_framing_error_is_answered_once_then_closed(running, raw: bytes, status: int, fragment: str) -> None:
    answers = exchange(running.url, raw)
    assert len(answers) == 1, answers  # nothing after the framing error was read as a request
    got_status, headers, body = answers[0]
    assert got_status == status
    assert headers["connection"] == "close"
    assert body["error_code"] == (42209 if status == 422 else status)
    assert body["message"].startswith(fragment), body
    assert running.store.log == []


@pytest.mark.parametrize("raw, fragment", [
    (post("Content-Length: 100\r\n", SCHEMA), f"Body ended after {len(SCHEMA)} of the 100 bytes"),
    (post("Transfer-Encoding: chunked\r\n", b"64\r\n" + SCHEMA), f"Body ended inside a chunk ({len(SCHEMA)} of 100"),
    (post("Transfer-Encoding: chunked\r\n", b"%x\r\n" % len(SCHEMA) + SCHEMA + b"\r\n"),
     "Body ended before its last (zero-size) chunk"),
])
def test_body_cut_short_is_400_not_a_registration(running, raw: bytes, fragment: str) -> None:
    (status, headers, body), = exchange(running.url, raw, shut_write=True)
    assert (status, headers["connection"], body["error_code"]) == (400, "close", 400)
    assert body["message"].startswith(fragment), body
    assert running.store.log == []


def test_well_framed_bodies_keep_the_connection_alive(running) -> None:
    half = len(SCHEMA) // 2
    chunked = b"%x;ext=1\r\n%s\r\n%X\r\n%s\r\n0\r\nX-Trailer: 1\r\n\r\n" % (half, SCHEMA[:half], len(SCHEMA) - half,
                                                                          SCHEMA[half:])
    raw = (post("Transfer-Encoding: Chunked\r\n", chunked) + post(f"Content-Length: {len(SCHEMA)}\r\n", SCHEMA)
           + b"GET /subjects/s/versions HTTP/1.1\r\nHost: x\r\n\r\n")
    answers = exchange(running.url, raw)
    assert [(s, b) for s, _, b in answers] == [(200, {"id": 1}), (200, {"id": 1}), (200, [1]), (0, "still open")]
    assert all("connection" not in h for _, h, _ in answers[:3])
