"""iperf3 JSON results (``-J``, and the event lines of ``--json-stream``) -> PortSamples and run events.

Layouts handled (iperf3 ``iperf_api.c`` JSON output, 3.0 to 3.14 seen in real files, 3.12 recorded here):

* One ``-J`` document per test: ``start`` (``connecting_to`` on a client, ``accepted_connection`` on a server,
  ``connected`` sockets, ``timestamp.timesecs``, ``cookie``, ``test_start``), ``intervals`` (per stream and
  ``sum``, plus ``sum_bidir_reverse`` with ``--bidir``) and ``end`` (``sum_sent`` / ``sum_received``,
  ``cpu_utilization_percent``). A server started with ``-s -J`` writes one document per test into the same
  file: each document is read. A client's ``--get-server-output`` document nests the server's
  (``server_output_json``): it is read as the server side of the same test.
* ``--json-stream`` (iperf3 >= 3.17): one ``{"event": "start"|"interval"|"end"|"error", "data": ...}`` object
  per line, assembled into the same document.
* Old files (3.0 to 3.6) have no ``sender`` flag on interval streams: the direction follows from the role and
  ``reverse`` (a client sends unless ``-R``). iperf3 3.6 repeats ``sock_bufsize`` keys with ``-P``: harmless,
  those fields are not read. Numbers may be printed with ``%g`` (``9.50062e+08``).

Mapping (schema/port_sample.avsc, kind NIC): the port is the local address the test used (``connected``
``local_host``; iperf3 names no interface, so none is invented; a test to itself over loopback adds the side,
``127.0.0.1/client``, so the two sides are not one port), on the host iperf3 ran on (the node name in
``system_info``, which is uname's ``sysname nodename release ...``). Per interval and stream one PortSample with
``queue`` = the stream's index (a TCP or UDP flow, like an RSS queue, carries a share of the port), and one
whole-port PortSample (``queue = -1``) with the sum over the streams, which equals iperf3's own ``sum`` line(s).
Bytes are iperf3's payload bytes (tag ``traffic_basis = iperf3_payload``): sent bytes are ``tx_bytes``, received
``rx_bytes``; UDP datagrams are frames (received = ``packets - lost_packets``). Per stream and interval the tags
keep iperf3's ``bits_per_second``, ``retransmits``, ``rtt_us``, ``rttvar_us``, ``snd_cwnd_bytes``,
``snd_wnd_bytes``, ``pmtu_bytes``, ``jitter_ms``, ``lost_packets``, ``lost_percent`` when the file has them.
``link_speed_bps`` is 0 (unknown) unless the user gives it (``apply_link_speed``, ``--link-speed``).

CPU: ``end.cpu_utilization_percent`` is the iperf3 *process's* user + system time over the test, in percent of
one CPU (getrusage over wall time), on this side (``host_*``) and the other (``remote_*``). CpuSample has no
process scope and its HOST total means "percent of all the host's CPUs", so the figures stay tags of the step's
events: ``iperf3_client_cpu_total_pct`` / ``_user_pct`` / ``_system_pct`` and the same for ``server``.

Steps: one step per test; the documents of one test (client and server side, by ``cookie``) are one step. The
load: ``workers_per_target`` = parallel streams (``-P``), ``block_size_bytes`` = ``blksize`` (``-l``),
``read_pct`` = share of the bytes flowing to the client (0 client sends, 100 ``-R``, 50 ``--bidir``),
``random_pct`` 0, ``adapter`` = ``iperf3 TCP`` / ``iperf3 UDP`` (so no sweep crosses protocols),
``outstanding_ios_per_target`` 0 (not a queue-depth tool), ``config_labels`` the rest (``-b`` target bitrate,
direction, TOS). Several files of a sweep thus split along ``numjobs`` (the streams) in ``sweeps.split_sweeps``.

Times: ``start.timestamp.timesecs`` (whole seconds, when the test connected) + each interval's offset, tag
``time_basis = timesecs``; without it the documents are laid end to end from ``start_ms`` (or the epoch), with a
warning. ``-O`` warm-up intervals carry ``omitted = true``; iperf3 restarts its clock after them, so the later
intervals are shifted by the warm-up, and the step's measured window (STEP_ENDED ``start_ms``..``end_ms``) starts
after it, as iperf3's end sums do.

Not mapped: ``end.streams`` per-stream totals (the intervals add up to them; kept as step tags only as sums),
``server_output_text`` (text), SCTP (read as TCP-like streams without retransmits).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from ioscale.importers import common
from ioscale.importers.common import (INT64_MAX, UNKNOWN_HOST, ImportResult, Issues, Source, StepSpan,
                                      checked_count, checked_time_ms, decode_text, derive_run_id,
                                      host_topology, run_events, step_load, to_number)
from ioscale.wire.records import LinkCapacity, PortSample, StepLoad

TOOL_TAG = "iperf3"
#: Sum lines of an interval (and of ``end``) that belong to one direction each.
_INTERVAL_SUMS = ("sum", "sum_bidir_reverse")
_END_SUMS = ("sum_sent", "sum_received", "sum_sent_bidir_reverse", "sum_received_bidir_reverse", "sum")
#: Per-stream interval fields kept as tags: (iperf3 key, tag name).
_STREAM_TAGS = (("bits_per_second", "bits_per_second"), ("retransmits", "retransmits"), ("rtt", "rtt_us"),
                ("rttvar", "rttvar_us"), ("snd_cwnd", "snd_cwnd_bytes"), ("snd_wnd", "snd_wnd_bytes"),
                ("pmtu", "pmtu_bytes"), ("jitter_ms", "jitter_ms"), ("lost_packets", "lost_packets"),
                ("lost_percent", "lost_percent"), ("out_of_order", "out_of_order"))
_CPU_KEYS = ("total", "user", "system")


# --- documents --------------------------------------------------------------------------------------------


@dataclass
class Iperf3Doc:
    """One iperf3 test as one side (client or server) saw it."""

    name: str
    start: dict[str, Any] = field(default_factory=dict)
    intervals: list[dict[str, Any]] = field(default_factory=list)
    end: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    #: the JSON ended early: ``end`` is missing and intervals may be cut
    truncated: bool = False

    @property
    def version(self) -> str:
        return str(self.start.get("version") or "")

    @property
    def role(self) -> str:
        if isinstance(self.start.get("accepted_connection"), dict):
            return "server"
        if isinstance(self.start.get("connecting_to"), dict):
            return "client"
        return "unknown"  # e.g. an error document written before any connection

    @property
    def cookie(self) -> str:
        return str(self.start.get("cookie") or "")

    @property
    def test_start(self) -> dict[str, Any]:
        ts = self.start.get("test_start")
        return ts if isinstance(ts, dict) else {}

    def setting(self, key: str) -> float:
        """A numeric ``test_start`` setting (0 when absent or unreadable)."""
        v = to_number(self.test_start.get(key))
        return v if v is not None and v >= 0 else 0.0

    @property
    def protocol(self) -> str:
        return str(self.test_start.get("protocol") or "TCP").upper()

    @property
    def reverse(self) -> bool:
        return bool(self.setting("reverse"))

    @property
    def bidir(self) -> bool:
        return bool(self.setting("bidir")) or any("sum_bidir_reverse" in i for i in self.intervals)

    @property
    def host(self) -> str:
        """uname's node name: ``system_info`` is ``sysname nodename release version machine``."""
        parts = str(self.start.get("system_info") or "").split()
        return parts[1] if len(parts) >= 2 else UNKNOWN_HOST

    @property
    def local_host(self) -> str:
        return self._connected("local_host")

    @property
    def remote_host(self) -> str:
        return self._connected("remote_host")

    def _connected(self, key: str) -> str:
        """``key`` of the first connection in start.connected that has it; empty when none has."""
        conns = self.start.get("connected")
        if isinstance(conns, list):
            for c in conns:
                if isinstance(c, dict) and c.get(key):
                    return str(c[key])
        return ""

    @property
    def port_id(self) -> str:
        """The local address; a test to itself (loopback) names the side too, since both sides' samples would
        otherwise be one port's, each interval counted twice in the port's rate."""
        if not self.local_host:
            return "unknown"
        if self.local_host == self.remote_host:
            return f"{self.local_host}/{self.role}"
        return self.local_host

    def default_sender(self) -> bool:
        """Direction of a stream whose interval has no ``sender`` flag (iperf3 < 3.7): a client sends unless -R."""
        return (self.role != "server") != self.reverse


def read_documents(name: str, data: bytes, issues: Issues) -> list[Iperf3Doc]:
    """Every iperf3 document in a file (one per test; a server's -J log holds several), in file order.

    A document cut short keeps its ``start`` and every complete interval (``truncated``); text around the JSON
    (iperf3 warnings) is skipped with a warning.
    """
    text = decode_text(data)
    dec = json.JSONDecoder()
    docs: list[Iperf3Doc] = []
    stream: list[tuple[str, Any]] = []
    pos, skipped_text = 0, False
    while True:
        brace = text.find("{", pos)
        if brace < 0:
            skipped_text = skipped_text or bool(text[pos:].strip())
            break
        if text[pos:brace].strip():
            skipped_text = True
        try:
            obj, pos = dec.raw_decode(text, brace)
        except (ValueError, RecursionError) as e:
            if stream:
                issues.warn(f"json-stream line {len(stream) + 1} is cut or malformed ({e}); the events before it "
                            "are kept", line=text.count("\n", 0, brace) + 1)
                break
            issues.error(f"malformed or truncated JSON ({e}); keeping the test's start and the complete "
                         "intervals before it", line=getattr(e, "lineno", None))
            doc = _recover(text, brace, f"{name}#{len(docs) + 1}" if docs else name)
            if doc is not None:
                docs.append(doc)
            break
        if not isinstance(obj, dict):
            issues.error("JSON value is not an object", line=text.count("\n", 0, brace) + 1)
            continue
        if "event" in obj and "data" in obj:
            stream.append((str(obj["event"]), obj["data"]))
            if obj["event"] in ("end", "error"):
                docs.append(_from_events(stream, _doc_name(name, docs)))
                stream = []
            continue
        docs.append(_from_obj(obj, _doc_name(name, docs)))
    if stream:
        doc = _from_events(stream, _doc_name(name, docs))
        doc.truncated = True
        docs.append(doc)
    if skipped_text:
        issues.warn("text outside the JSON document(s) ignored (iperf3 notes or warnings)")
    return _with_server_output(docs)


def _doc_name(name: str, docs: list[Iperf3Doc]) -> str:
    return f"{name}#{len(docs) + 1}" if docs else name


def _from_obj(obj: dict[str, Any], name: str) -> Iperf3Doc:
    doc = Iperf3Doc(name=name)
    doc.start = obj.get("start") if isinstance(obj.get("start"), dict) else {}
    doc.intervals = [i for i in obj.get("intervals") or [] if isinstance(i, dict)] \
        if isinstance(obj.get("intervals"), list) else []
    doc.end = obj.get("end") if isinstance(obj.get("end"), dict) else {}
    doc.error = str(obj.get("error") or "")
    server = obj.get("server_output_json")
    if isinstance(server, dict):
        # Kept on the document until _with_server_output turns it into the server side of the same test.
        doc.end = {**doc.end, "__server_output_json": server}
    return doc


def _from_events(events: list[tuple[str, Any]], name: str) -> Iperf3Doc:
    doc = Iperf3Doc(name=name)
    for kind, data in events:
        if kind == "start" and isinstance(data, dict):
            doc.start = data
        elif kind == "interval" and isinstance(data, dict):
            doc.intervals.append(data)
        elif kind == "end" and isinstance(data, dict):
            doc.end = data
        elif kind == "error":
            doc.error = str(data)
    doc.truncated = not doc.end and not doc.error
    return doc


def _with_server_output(docs: list[Iperf3Doc]) -> list[Iperf3Doc]:
    out: list[Iperf3Doc] = []
    for doc in docs:
        server = doc.end.pop("__server_output_json", None)
        out.append(doc)
        if isinstance(server, dict):
            out.append(_from_obj(server, f"{doc.name}#server_output_json"))
    return out


def _recover(text: str, brace: int, name: str) -> Iperf3Doc | None:
    """Best effort after a JSON error: the ``start`` object and each complete interval."""
    dec = json.JSONDecoder()
    doc = Iperf3Doc(name=name, truncated=True)
    start = common.salvaged_value(text, "start", dec, brace)
    if isinstance(start, dict):
        doc.start = start
    m = re.compile(r'"intervals"\s*:\s*\[').search(text, brace)
    if m:
        doc.intervals = [i for i in common.salvaged_objects(text, m.end(), dec) if isinstance(i, dict)]
    return doc if doc.start or doc.intervals else None


# --- records ----------------------------------------------------------------------------------------------


def port_sample(*, ts_ms: int, interval_ms: int, run_id: str, step_index: int, host: str, port_id: str,
                queue: int = -1, link_speed_bps: int = 0, rx_bytes: int = 0, tx_bytes: int = 0, rx_frames: int = 0,
                tx_frames: int = 0, tags: dict[str, str] | None = None) -> PortSample:
    """A NIC PortSample with every schema field, clamped into the Avro ranges (``common.port_sample``)."""
    return common.port_sample(ts_ms=ts_ms, interval_ms=interval_ms, run_id=run_id, step_index=step_index, host=host,
                              port_id=port_id, kind="NIC", queue=queue, link_speed_bps=link_speed_bps,
                              rx_bytes=rx_bytes, tx_bytes=tx_bytes, rx_frames=rx_frames, tx_frames=tx_frames, tags=tags)


def _text(v: Any) -> str:
    """A JSON number as text without losing digits (ints stay ints)."""
    f = to_number(v)
    if f is None:
        return str(v)
    return str(int(f)) if f == math.floor(f) and abs(f) < 2 ** 63 else repr(f)


class IntervalMapper:
    """Turns one document's intervals, one at a time and in order, into PortSamples (import and live runner)."""

    def __init__(self, doc: Iperf3Doc, issues: Issues, *, run_id: str, step_index: int, t0_ms: int,
                 time_basis: str, host: str | None = None, source: str | None = None):
        self.doc, self.issues = doc, issues
        self.run_id, self.step_index, self.t0_ms, self.time_basis = run_id, step_index, t0_ms, time_basis
        self.host = host or doc.host
        self.port_id = doc.port_id
        self.streams: dict[str, int] = {}
        #: seconds to add to interval times: iperf3 restarts its clock after the -O warm-up
        self.offset_s = 0.0
        self.last_omitted_end_s: float | None = None
        self.count = 0
        self.mismatch_reported = False
        self.base_tags = {"tool": TOOL_TAG, "iperf3_role": doc.role, "protocol": doc.protocol,
                          "time_basis": time_basis, "traffic_basis": "iperf3_payload",
                          "source_file": source or doc.name}
        #: bytes, retransmits and datagrams emitted per direction ("tx"/"rx"), measured intervals only
        self.measured: dict[str, dict[str, int]] = {"tx": {}, "rx": {}}
        #: last measured interval end, seconds on the (shifted) clock
        self.measured_end_s: float | None = None
        self.measured_start_s: float | None = None

    def _ms(self, seconds: float) -> int:
        return self.t0_ms + round((seconds + self.offset_s) * 1000)

    def samples(self, interval: dict[str, Any]) -> list[PortSample]:
        """The per-stream and whole-port samples of one interval; invalid streams are reported and skipped."""
        index = self.count
        self.count += 1
        where = f"intervals[{index}]"
        streams = interval.get("streams")
        if not isinstance(streams, list):
            self.issues.error("interval has no 'streams' list", field=where)
            return []
        sum_line = interval.get("sum") if isinstance(interval.get("sum"), dict) else {}
        omitted = any(bool(s.get("omitted")) for s in (sum_line, *(x for x in streams if isinstance(x, dict))))
        first_start = to_number(sum_line.get("start"))
        if first_start is None:
            first_start = min((to_number(s.get("start")) or 0.0 for s in streams if isinstance(s, dict)), default=0.0)
        if omitted:
            end = to_number(sum_line.get("end"))
            if end is not None:
                self.last_omitted_end_s = end + self.offset_s
        elif self.last_omitted_end_s is not None and first_start + 1e-3 < self.last_omitted_end_s - self.offset_s:
            # The first measured interval starts again near 0: iperf3 reset its clock at the end of the warm-up.
            self.offset_s = self.last_omitted_end_s
        if self.last_omitted_end_s is not None and not omitted:
            self.last_omitted_end_s = None
        out: list[PortSample] = []
        totals = {"tx": [0, 0, 0], "rx": [0, 0, 0]}  # bytes, frames, retransmits
        span: list[float] = []
        for k, s in enumerate(streams):
            w = f"{where}.streams[{k}]"
            if not isinstance(s, dict):
                self.issues.error("stream is not an object", field=w)
                continue
            start, end = to_number(s.get("start")), to_number(s.get("end"))
            nbytes = checked_count(s.get("bytes"), self.issues, field=f"{w}.bytes")
            if start is None or end is None or end < start or start < 0:
                self.issues.error(f"unreadable interval bounds start={s.get('start')!r} end={s.get('end')!r}",
                                  field=w)
                continue
            if nbytes is None:
                continue
            sender = s.get("sender") if isinstance(s.get("sender"), bool) else self.doc.default_sender()
            direction = "tx" if sender else "rx"
            socket = _text(s.get("socket", k))
            queue = self.streams.setdefault(f"{direction}:{socket}", len(self.streams))
            packets = checked_count(s.get("packets"), self.issues, field=f"{w}.packets", allow_missing=True) or 0
            lost = checked_count(s.get("lost_packets"), self.issues, field=f"{w}.lost_packets", allow_missing=True) or 0
            frames = packets if sender else max(packets - lost, 0)
            retrans = checked_count(s.get("retransmits"), self.issues, field=f"{w}.retransmits",
                                    allow_missing=True) or 0
            tags = {**self.base_tags, "iperf3_socket": socket, "iperf3_stream": str(queue), "direction": direction,
                    "queue_basis": "iperf3_stream"}
            for key, tag in _STREAM_TAGS:
                if key in s and to_number(s[key]) is not None:
                    tags[tag] = _text(s[key])
            if omitted:
                tags["omitted"] = "true"
            t0, t1 = self._ms(start), self._ms(end)
            out.append(port_sample(ts_ms=t0, interval_ms=t1 - t0, run_id=self.run_id, step_index=self.step_index,
                                   host=self.host, port_id=self.port_id, queue=queue,
                                   tx_bytes=nbytes if sender else 0, rx_bytes=0 if sender else nbytes,
                                   tx_frames=frames if sender else 0, rx_frames=0 if sender else frames, tags=tags))
            t = totals[direction]
            t[0] += nbytes
            t[1] += frames
            t[2] += retrans
            span += [start, end]
        if not out:
            return out
        self._check_sums(interval, totals, where)
        s0 = to_number(sum_line.get("start"))
        s1 = to_number(sum_line.get("end"))
        if s0 is None or s1 is None or s1 < s0:
            s0, s1 = min(span), max(span)
        tags = {**self.base_tags, "streams": str(len(out))}
        for key in _INTERVAL_SUMS:
            line = interval.get(key)
            if not isinstance(line, dict):
                continue
            d = "tx" if (line.get("sender") if isinstance(line.get("sender"), bool)
                         else self.doc.default_sender() != (key == "sum_bidir_reverse")) else "rx"
            for k2, tag in (("bits_per_second", "bits_per_second"), ("jitter_ms", "jitter_ms"),
                            ("lost_packets", "lost_packets"), ("lost_percent", "lost_percent")):
                if k2 in line and to_number(line[k2]) is not None:
                    tags[f"{d}_{tag}"] = _text(line[k2])
        if totals["tx"][2] or "retransmits" in sum_line:
            tags["retransmits"] = str(totals["tx"][2])
        if omitted:
            tags["omitted"] = "true"
        t0, t1 = self._ms(s0), self._ms(s1)
        out.append(port_sample(ts_ms=t0, interval_ms=t1 - t0, run_id=self.run_id, step_index=self.step_index,
                               host=self.host, port_id=self.port_id, queue=-1, tx_bytes=totals["tx"][0],
                               rx_bytes=totals["rx"][0], tx_frames=totals["tx"][1], rx_frames=totals["rx"][1],
                               tags=tags))
        if not omitted:
            for d in ("tx", "rx"):
                m = self.measured[d]
                m["bytes"] = m.get("bytes", 0) + totals[d][0]
                m["frames"] = m.get("frames", 0) + totals[d][1]
                m["retransmits"] = m.get("retransmits", 0) + totals[d][2]
            if self.measured_start_s is None:
                self.measured_start_s = s0 + self.offset_s
            self.measured_end_s = s1 + self.offset_s
        return out

    def _check_sums(self, interval: dict[str, Any], totals: dict[str, list[int]], where: str) -> None:
        """The streams must add up to iperf3's own sum line(s); say so once per document when they do not."""
        for key in _INTERVAL_SUMS:
            line = interval.get(key)
            if not isinstance(line, dict) or self.mismatch_reported:
                continue
            sender = line.get("sender") if isinstance(line.get("sender"), bool) \
                else self.doc.default_sender() != (key == "sum_bidir_reverse")
            nbytes = to_number(line.get("bytes"))
            got = totals["tx" if sender else "rx"][0]
            if nbytes is not None and int(nbytes) != got:
                self.mismatch_reported = True
                self.issues.warn(f"the streams add up to {got} bytes, iperf3's {key} line says {_text(nbytes)}; "
                                 "the samples follow the streams", field=f"{where}.{key}")

    def window_ms(self) -> tuple[int, int] | None:
        """The measured window (after any -O warm-up) on the epoch clock, once an interval was measured."""
        if self.measured_start_s is None or self.measured_end_s is None:
            return None
        return self.t0_ms + round(self.measured_start_s * 1000), self.t0_ms + round(self.measured_end_s * 1000)


def doc_t0(doc: Iperf3Doc, issues: Issues, now_ms: int) -> int | None:
    """Epoch ms of the test's start (``timestamp.timesecs``), or None when the file has no usable time."""
    ts = doc.start.get("timestamp")
    if not isinstance(ts, dict):
        return None
    secs = to_number(ts.get("timesecs"))
    if secs is None:
        issues.error("unreadable timestamp.timesecs", field="start.timestamp")
        return None
    return checked_time_ms(int(secs * 1000), issues, now_ms, field="start.timestamp.timesecs")


def doc_span_s(doc: Iperf3Doc) -> float:
    """The test's length in seconds: the last interval's end on a clock that runs through the -O warm-up."""
    offset, last_omitted, end = 0.0, None, None
    for i in doc.intervals:
        line = i.get("sum") if isinstance(i.get("sum"), dict) else {}
        s0, s1 = to_number(line.get("start")), to_number(line.get("end"))
        if s0 is None or s1 is None:
            continue
        if line.get("omitted"):
            last_omitted = s1 + offset
        elif last_omitted is not None and s0 + 1e-3 < last_omitted - offset:
            offset, last_omitted = last_omitted, None
        end = s1 + offset
    if end is not None:
        return end
    for key in _END_SUMS:
        line = doc.end.get(key)
        if isinstance(line, dict) and to_number(line.get("seconds")) is not None:
            return to_number(line["seconds"]) or 0.0
    return doc.setting("duration")


# --- steps ------------------------------------------------------------------------------------------------


def direction_of(doc: Iperf3Doc) -> tuple[str, float]:
    """(label, read_pct): where the bytes flow, seen from the client (read = toward the client)."""
    if doc.bidir:
        return "bidir", 50.0
    if doc.reverse:
        return "server->client", 100.0
    return "client->server", 0.0


def step_load_of(doc: Iperf3Doc) -> tuple[StepLoad, str]:
    """The StepLoad and label of a test from its ``test_start`` settings."""
    direction, read_pct = direction_of(doc)
    streams = int(doc.setting("num_streams")) or len({_text(s.get("socket")) for i in doc.intervals[:1]
                                                      for s in i.get("streams", []) if isinstance(s, dict)}) or 1
    blksize = int(doc.setting("blksize"))
    bitrate = int(doc.setting("target_bitrate"))
    labels = {"tool": TOOL_TAG, "protocol": doc.protocol, "direction": direction}
    if bitrate:
        labels["target_bitrate_bps"] = str(bitrate)
    if doc.setting("tos"):
        labels["tos"] = _text(doc.setting("tos"))
    if doc.setting("duration"):
        labels["duration_s"] = _text(doc.setting("duration"))
    load = step_load(vm_count=0, targets_per_vm=1, workers_per_target=streams, outstanding_ios_per_target=0,
                     block_size_bytes=blksize, read_pct=read_pct, random_pct=0.0, adapter=f"iperf3 {doc.protocol}",
                     config_labels=labels)
    parts = [doc.protocol, {"client->server": "", "server->client": "-R", "bidir": "--bidir"}[direction],
             f"{streams} stream{'s' if streams != 1 else ''}"]
    if bitrate:
        parts.append(f"-b {bitrate / 1e6:g}M")
    return load, " ".join(p for p in parts if p)


def step_tags(docs: Sequence[Iperf3Doc]) -> dict[str, str]:
    """End-of-test figures of a step's documents: CPU per side, end sums, congestion control, title."""
    tags: dict[str, str] = {}
    for doc in sorted(docs, key=lambda d: d.role != "client"):  # the client's figures win; both sides agree
        other = "server" if doc.role == "client" else "client"
        cpu = doc.end.get("cpu_utilization_percent")
        if isinstance(cpu, dict):
            # A server prints zeros for remote_*: only a client hears the other side's figures.
            sides = ((doc.role, "host"), (other, "remote")) if doc.role == "client" else ((doc.role, "host"),)
            for side, prefix in sides:
                for k in _CPU_KEYS:
                    v = to_number(cpu.get(f"{prefix}_{k}"))
                    if v is not None and v >= 0:
                        tags.setdefault(f"iperf3_{side}_cpu_{k}_pct", _text(v))
        for key in _END_SUMS:
            line = doc.end.get(key)
            if not isinstance(line, dict):
                continue
            for k in ("bytes", "bits_per_second", "retransmits", "lost_packets", "packets"):
                if k in line and to_number(line[k]) is not None:
                    tags.setdefault(f"iperf3_{doc.role}_{key}_{k}", _text(line[k]))
        for key in ("sender_tcp_congestion", "receiver_tcp_congestion"):
            if doc.end.get(key):
                tags.setdefault(f"iperf3_{key}", str(doc.end[key]))
        if doc.start.get("title"):
            tags.setdefault("iperf3_title", str(doc.start["title"])[:200])
        if doc.version:
            tags.setdefault(f"iperf3_{doc.role}_version", doc.version)
    return tags


# --- the importer -----------------------------------------------------------------------------------------


def import_iperf3(sources: Sequence[Source], run_id: str | None = None, *, start_ms: int | None = None,
                  now_ms: int) -> ImportResult:
    """Import iperf3 JSON files: one step per test (a test's client and server documents are one step)."""
    result = ImportResult(run_id=run_id or derive_run_id("IPERF3", sources))
    tests: dict[str, list[tuple[Iperf3Doc, Issues]]] = {}
    for name, data in sources:
        issues = Issues(name, result.errors)
        docs = read_documents(name, data, issues)
        if not docs:
            issues.error("no iperf3 JSON document in file")
        measured = any(d.intervals for d in docs)
        for n, doc in enumerate(docs):
            if doc.error and not doc.intervals:
                # A -s -J log ends with the server's own "interrupt - the server has terminated": not a failure.
                (issues.warn if measured else issues.error)(f"iperf3 reported an error and measured nothing: "
                                                            f"{doc.error}")
                continue
            if doc.error:
                issues.warn(f"iperf3 reported an error after {len(doc.intervals)} interval(s): {doc.error}; the "
                            "intervals are kept")
            if not doc.intervals:
                issues.error("no intervals in iperf3 document" + (f" {n + 1}" if len(docs) > 1 else ""))
                continue
            if doc.truncated and not doc.error:
                issues.warn(f"document ends early: {len(doc.intervals)} complete interval(s) kept, no end summary")
            key = doc.cookie or f"{name}#{n}"
            same = next((d for d, _ in tests.get(key, []) if d.role == doc.role), None)
            if same is not None:
                issues.warn(f"the {doc.role} side of test {key} was already read from {same.name}; this copy is "
                            "skipped")
                continue
            tests.setdefault(key, []).append((doc, issues))
    spans: list[StepSpan] = []
    hosts: dict[str, None] = {}
    cursor = start_ms or 0
    timed = sorted(tests.values(), key=lambda ds: min(_timesecs(d) for d, _ in ds))
    for step_index, members in enumerate(timed):
        windows: list[tuple[int, int]] = []
        for doc, issues in members:
            t0 = doc_t0(doc, issues, now_ms)
            basis = "timesecs"
            if t0 is None:
                issues.warn("no start.timestamp in document; its intervals are anchored at "
                            + ("the given start time" if start_ms is not None else "the Unix epoch")
                            + " and laid end to end with the other untimed tests")
                t0, basis = cursor, "anchor"
                cursor += round(doc_span_s(doc) * 1000)
            mapper = IntervalMapper(doc, issues, run_id=result.run_id, step_index=step_index, t0_ms=t0,
                                    time_basis=basis)
            for interval in doc.intervals:
                result.port_samples.extend(mapper.samples(interval))
            window = mapper.window_ms()
            if window is None:  # only -O warm-up intervals: the whole span, flagged by the samples' tags
                window = (t0, t0 + round(doc_span_s(doc) * 1000))
            windows.append(window)
            hosts[mapper.host] = None
        first = next((d for d, _ in members if d.role == "client"), members[0][0])
        load, label = step_load_of(first)
        spans.append(StepSpan(index=step_index, label=label, start_ms=min(w[0] for w in windows),
                              end_ms=max(w[1] for w in windows), load=load,
                              tags={**step_tags([d for d, _ in members]), "source_file": members[0][1].file,
                                    "iperf3_sides": ",".join(sorted(d.role for d, _ in members)),
                                    "time_basis": "timesecs" if all(_timesecs(d) < math.inf for d, _ in members)
                                    else "anchor"}))
    if spans:
        versions = sorted({d.version for ds in tests.values() for d, _ in ds if d.version})
        result.run_events = run_events(
            run_id=result.run_id, tool="LIVE",
            scenario=sources[0][0].rsplit("/", 1)[-1].rsplit(".", 1)[0],
            description=f"imported from {len(sources)} iperf3 JSON file(s)",
            hosts=[host_topology(h) for h in hosts], steps=spans,
            tags={"tool": TOOL_TAG, "iperf3_version": ",".join(versions)})
    return result


def _timesecs(doc: Iperf3Doc) -> float:
    ts = doc.start.get("timestamp")
    v = to_number(ts.get("timesecs")) if isinstance(ts, dict) else None
    return v if v is not None else math.inf


# --- link speed -------------------------------------------------------------------------------------------


_SPEED_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:bit|bps|b/s|b)?(?:/s)?\s*$", re.IGNORECASE)
_SPEED_MULT = {"": 1, "k": 10 ** 3, "m": 10 ** 6, "g": 10 ** 9, "t": 10 ** 12}


def parse_link_speed(text: str) -> int | None:
    """'10G', '25Gbit', '2.5G', '100M', '1000000000' -> bits per second (decimal, as link rates are sold)."""
    m = _SPEED_RE.match(text or "")
    if not m:
        return None
    bps = round(float(m.group(1)) * _SPEED_MULT[m.group(2).lower()])
    return bps if 0 < bps <= INT64_MAX else None


def apply_link_speed(result: ImportResult, speed_bps: int) -> None:
    """Set the line rate the user gave on every port sample, and declare each port on RUN_STARTED (links).

    The tests' files name no interface speed, so without this the link speed stays 0 (unknown) and no
    utilization is computed. A stream (queue >= 0) shares its port's capacity, as a NIC queue does.
    """
    ports: dict[tuple[str, str], None] = {}
    for s in result.port_samples:
        s["link_speed_bps"] = speed_bps
        s["tags"]["link_speed_basis"] = "user"
        ports[(s["host"], s["port_id"])] = None
    links = [LinkCapacity(host=h, port_id=p, kind="NIC", speed_bps=speed_bps, payload_bytes_per_s=0,
                          full_duplex=True) for h, p in ports]
    for ev in result.run_events:
        if ev["event_type"] == "RUN_STARTED":
            ev["links"] = list(links)


__all__ = ["Iperf3Doc", "IntervalMapper", "apply_link_speed", "direction_of", "doc_t0",
           "import_iperf3", "parse_link_speed", "port_sample", "read_documents", "step_load_of", "step_tags"]
