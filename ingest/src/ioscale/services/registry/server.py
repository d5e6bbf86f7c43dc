"""HTTP front of the registry: Confluent's REST paths, JSON bodies and error shapes.

Implemented (as Confluent answers them):

    GET    /                                        {}
    GET    /subjects                                ["s", ...]  ?deleted ?deletedOnly ?subjectPrefix
    POST   /subjects/{s}                            look a schema up: {"subject","version","id","schema"}
    DELETE /subjects/{s}                            soft delete (?permanent=true after it): [versions]
    GET    /subjects/{s}/versions                   [1, 2, ...]
    POST   /subjects/{s}/versions                   register: {"id": n}
    GET    /subjects/{s}/versions/{v|latest}        {"subject","version","id","schema"}
    GET    /subjects/{s}/versions/{v}/schema        the schema itself
    GET    /subjects/{s}/versions/{v}/referencedby  []
    DELETE /subjects/{s}/versions/{v}               soft delete (?permanent=true after it): v
    GET    /schemas/ids/{id}                        {"schema": "..."}  (?subject accepted; ?fetchMaxId)
    GET    /schemas/ids/{id}/schema                 the schema itself
    GET    /schemas/ids/{id}/versions               [{"subject","version"}]
    GET    /schemas/ids/{id}/subjects               ["s"]
    GET    /schemas/types                           ["AVRO"]
    GET|PUT|DELETE /config[/{s}]                    {"compatibilityLevel"} / {"compatibility"}
    POST   /compatibility/subjects/{s}/versions[/{v}]  {"is_compatible": bool} (+ messages if ?verbose)
    GET    /mode                                    {"mode": "READWRITE"}

Errors are ``{"error_code": n, "message": "..."}`` with Confluent's codes. Not implemented: schema
types other than AVRO, references, contexts, modes other than READWRITE, ``?normalize`` (accepted and
ignored), metadata and rule sets.

Python's ``http.server`` answers each request with two writes (headers, body); with Nagle's
algorithm on, the second waits for the client's delayed ACK (~40 ms per GET). ``disable_nagle_algorithm``
sets TCP_NODELAY; headers and body also go out in one ``sendall``.

A body with broken framing (a Content-Length that is not one decimal count, a bad chunk size, a
chunk longer than declared, a body cut short, both Content-Length and Transfer-Encoding) is answered
400 with the reason and the connection is closed: keeping it would read the rest of the body as the
next request.
"""

from __future__ import annotations

import json
import logging
import re
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from ioscale.services.registry.errors import SCHEMA_TOO_LARGE, RegistryError
from ioscale.services.registry.service import Registry

log = logging.getLogger("ioscale.registry.http")

CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"
MAX_BODY_BYTES = 16 * 1024 * 1024


_DECIMAL = re.compile(r"[0-9]{1,18}")
_HEX = re.compile(rb"[0-9A-Fa-f]{1,15}")
_MAX_LINE = 4096
_MAX_TRAILERS = 64


class FramingError(RegistryError):
    """The request body's framing is broken; answered, then the connection is closed."""

    def __init__(self, message: str, status: int = 400, error_code: int | None = None):
        super().__init__(status, status if error_code is None else error_code, message)

    @classmethod
    def too_large(cls) -> FramingError:
        """A body over MAX_BODY_BYTES, however it is framed: Confluent's answer to an oversized schema."""
        return cls("Register operation failed because schema is too large", status=422,
                   error_code=SCHEMA_TOO_LARGE)


class RawJson(str):
    """A body that is already JSON text (the ``/schema`` endpoints return the schema itself)."""


def _flag(query: dict[str, list[str]], name: str) -> bool:
    # JAX-RS boolean query params: "true" in any case is true, anything else false.
    values = query.get(name)
    return bool(values) and values[-1].strip().lower() == "true"


def _param(query: dict[str, list[str]], name: str) -> str | None:
    values = query.get(name)
    return values[-1] if values else None


def _schema_id(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise RegistryError(404, 404, "HTTP 404 Not Found") from None


NOT_FOUND = RegistryError(404, 404, "HTTP 404 Not Found")
NOT_ALLOWED = RegistryError(405, 405, "HTTP 405 Method Not Allowed")


def route(registry: Registry, method: str, segments: list[str], query: dict[str, list[str]], body: Any) -> Any:
    """Dispatch one request; returns the JSON-able answer or raises ``RegistryError``."""
    n = len(segments)
    head = segments[0] if segments else ""

    def allow(*methods: str) -> None:
        if method not in methods:
            raise NOT_ALLOWED

    if n == 0:
        allow("GET")
        return {}
    if head == "subjects":
        if n == 1:
            allow("GET")
            return registry.subjects(_flag(query, "deleted"), _flag(query, "deletedOnly"), _param(query, "subjectPrefix"))
        subject = segments[1]
        if n == 2:
            allow("POST", "DELETE")
            if method == "POST":
                return registry.lookup(subject, body, _flag(query, "deleted"))
            return registry.delete_subject(subject, _flag(query, "permanent"))
        if segments[2] != "versions":
            raise NOT_FOUND
        if n == 3:
            allow("GET", "POST")
            if method == "POST":
                return registry.register(subject, body)
            return registry.versions(subject, _flag(query, "deleted"), _flag(query, "deletedOnly"))
        version = segments[3]
        if n == 4:
            allow("GET", "DELETE")
            if method == "DELETE":
                return registry.delete_version(subject, version, _flag(query, "permanent"))
            return registry.version(subject, version, _flag(query, "deleted"))
        if n == 5 and segments[4] == "schema":
            allow("GET")
            return RawJson(registry.version_schema(subject, version, _flag(query, "deleted")))
        if n == 5 and segments[4] == "referencedby":
            allow("GET")
            return registry.referenced_by(subject, version)
        raise NOT_FOUND
    if head == "schemas":
        if n == 2 and segments[1] == "types":
            allow("GET")
            return ["AVRO"]
        if n >= 3 and segments[1] == "ids":
            schema_id = _schema_id(segments[2])
            allow("GET")
            if n == 3:
                return registry.schema_by_id(schema_id, _flag(query, "fetchMaxId"))
            if n == 4 and segments[3] == "schema":
                return RawJson(registry.schema_text_by_id(schema_id))
            if n == 4 and segments[3] == "versions":
                return registry.versions_by_id(schema_id, _flag(query, "deleted"))
            if n == 4 and segments[3] == "subjects":
                return registry.subjects_by_id(schema_id, _flag(query, "deleted"))
        raise NOT_FOUND
    if head == "config" and n <= 2:
        subject = segments[1] if n == 2 else None
        allow("GET", "PUT", "DELETE")
        if method == "GET":
            return registry.get_config(subject, _flag(query, "defaultToGlobal"))
        if method == "PUT":
            return registry.set_config(subject, body)
        return registry.delete_config(subject)
    if head == "compatibility" and n in (4, 5) and segments[1] == "subjects" and segments[3] == "versions":
        allow("POST")
        version = segments[4] if n == 5 else None
        return registry.test_compatibility(segments[2], version, body, _flag(query, "verbose"))
    if head == "mode" and n == 1:
        allow("GET")
        return {"mode": "READWRITE"}
    raise NOT_FOUND


class RegistryHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: clients reuse one connection
    disable_nagle_algorithm = True
    server_version = "ioscale-registry"
    sys_version = ""
    timeout = 120  # seconds an idle keep-alive connection may hold its thread

    server: "RegistryHTTPServer"

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PUT(self) -> None:
        self._handle("PUT")

    def do_DELETE(self) -> None:
        self._handle("DELETE")

    def _read_body(self) -> bytes:
        # Any framing error leaves an unknown part of the body unread: answering it and then reading on
        # would parse the rest of the body as the next request, so each one closes the connection.
        encodings = [v.strip().lower() for h in self.headers.get_all("Transfer-Encoding", []) for v in h.split(",")]
        lengths = self.headers.get_all("Content-Length", [])
        if encodings and lengths:
            raise FramingError("Both Transfer-Encoding and Content-Length: send one of them")
        if encodings:
            if encodings != ["chunked"]:
                raise FramingError(f"Unsupported Transfer-Encoding {', '.join(encodings)!r}: only 'chunked' is "
                                   "accepted", status=501)
            return self._read_chunked()
        if not lengths:
            return b""
        if len(set(lengths)) > 1 or not _DECIMAL.fullmatch(lengths[0].strip()):
            raise FramingError(f"Malformed Content-Length {', '.join(lengths)!r}: expected one decimal byte count")
        length = int(lengths[0])
        if length > MAX_BODY_BYTES:
            raise FramingError.too_large()
        body = self.rfile.read(length)
        if len(body) < length:
            raise FramingError(f"Body ended after {len(body)} of the {length} bytes its Content-Length announced")
        return body

    def _read_chunked(self) -> bytes:
        chunks, total = [], 0
        while True:
            line = self.rfile.readline(_MAX_LINE + 1)
            if len(line) > _MAX_LINE:
                raise FramingError(f"Chunk size line longer than {_MAX_LINE} bytes")
            size_text = line.split(b";", 1)[0].strip()
            if not _HEX.fullmatch(size_text):
                raise FramingError(f"Malformed chunk size {size_text[:40].decode('latin-1')!r}: expected hex digits"
                                   if line else "Body ended before its last (zero-size) chunk")
            size = int(size_text, 16)
            if size == 0:
                break
            total += size
            if total > MAX_BODY_BYTES:
                raise FramingError.too_large()
            chunk = self.rfile.read(size)
            if len(chunk) < size:
                raise FramingError(f"Body ended inside a chunk ({len(chunk)} of {size} bytes)")
            if self.rfile.readline(_MAX_LINE + 1) not in (b"\r\n", b"\n"):
                raise FramingError(f"Chunk of {size} bytes not followed by CRLF: its size does not match its data")
            chunks.append(chunk)
        for _ in range(_MAX_TRAILERS + 1):
            trailer = self.rfile.readline(_MAX_LINE + 1)
            if trailer in (b"\r\n", b"\n"):
                return b"".join(chunks)
            if not trailer or len(trailer) > _MAX_LINE:
                break
        raise FramingError("Chunked body not ended by an empty line after its trailers")

    def _handle(self, method: str) -> None:
        t0 = time.perf_counter()
        try:
            raw = self._read_body()
            body: Any = None
            if raw.strip():
                try:
                    body = json.loads(raw)
                except ValueError as e:
                    raise RegistryError(400, 400, f"Unrecognized JSON in request body: {e}") from None
            url = urlsplit(self.path)
            segments = [unquote(s) for s in url.path.split("/")[1:]]
            if segments and segments[-1] == "":
                segments.pop()  # tolerate a trailing slash
            answer = route(self.server.registry, method, segments, parse_qs(url.query), body)
            status = 200
        except FramingError as e:
            self.close_connection = True
            status, answer = e.status, e.body()
        except RegistryError as e:
            status, answer = e.status, e.body()
        except Exception:
            log.exception("%s %s failed", method, self.path)
            status, answer = 500, {"error_code": 500, "message": "Internal server error"}
        payload = (answer if isinstance(answer, RawJson) else json.dumps(answer, ensure_ascii=False)).encode()
        head = (
            f"HTTP/1.1 {status} {self.responses.get(status, ('',))[0]}\r\n"
            f"Content-Type: {CONTENT_TYPE}\r\n"
            f"Content-Length: {len(payload)}\r\n"
            + ("Connection: close\r\n" if self.close_connection else "")
            + "\r\n"
        ).encode("latin-1")
        self.wfile.write(head + payload)  # one write: see the module note on Nagle
        if method != "GET" or status >= 400:
            log.info("%s %s -> %d (%.1f ms)", method, self.path, status, (time.perf_counter() - t0) * 1000)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug(format, *args)  # per-request lines would dominate the log; _handle logs writes and errors


class RegistryHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], registry: Registry):
        self.registry = registry
        super().__init__(address, RegistryHandler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"


def make_server(registry: Registry, host: str = "127.0.0.1", port: int = 8081) -> RegistryHTTPServer:
    """Bind and listen (port 0: an ephemeral port, see ``server.url``); call ``serve_forever`` to answer."""
    return RegistryHTTPServer((host, port), registry)
