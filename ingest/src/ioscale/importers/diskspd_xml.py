"""DISKSPD ``-Rxml`` output -> ``DiskspdRun`` (layout: microsoft/diskspd ``XmlResultParser.cpp``).

With ``-D`` each thread's ``<Target>`` carries an ``<Iops>`` series: ``<Bucket SampleMillisecond="k x bucket"
Read=.. Write=..>`` where Read/Write are that bucket's IOPS (count / bucket seconds, printed rounded) and, with
``-L``, the bucket's min/max/mean latency per direction. The series are summed over threads per target; the
run-wide ``<Iops>`` under ``<TimeSpan>`` is their merge and is not read.

A truncated or corrupt file is read as far as it goes: only elements whose end tag was seen are trusted,
so every complete ``<Thread>``/``<Target>``, ``<CPU>`` and latency ``<Bucket>`` before the damage is kept.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Callable

from ioscale.importers.common import (Issues, checked_count, checked_float, checked_pct, decode_text,
                                      quantile_from_percent)
from ioscale.importers.diskspd_model import (DIRECTIONS, MAX_SETTING, DiskspdRun, Interval, Percentiles, TargetResult,
                                             Timespan, add_percentile, check_version, cpu_row, ms_text_to_ns,
                                             parse_diskspd_time, settle_intervals)


class _Tree:
    """A possibly partial element tree: only elements whose end tag was read are trusted."""

    def __init__(self, root: ET.Element | None, done: set[int]):
        self.root = root
        self.done = done

    def complete(self, el: ET.Element | None) -> bool:
        return el is not None and id(el) in self.done

    def children(self, el: ET.Element | None, tag: str, *, complete: bool = True) -> list[ET.Element]:
        """Child elements named ``tag``; containers pass ``complete=False`` to accept a cut-off element
        (its complete descendants are still trusted)."""
        if el is None:
            return []
        return [c for c in el if c.tag == tag and (not complete or id(c) in self.done)]

    def child(self, el: ET.Element | None, tag: str) -> ET.Element | None:
        if el is None:
            return None
        for c in el:
            if c.tag == tag:
                return c
        return None

    def text(self, el: ET.Element | None, tag: str) -> str | None:
        c = self.child(el, tag)
        if c is None or id(c) not in self.done:
            return None
        return (c.text or "").strip()


def _read_xml(data: bytes, issues: Issues) -> _Tree:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        data = decode_text(data).encode("utf-8")
    if b"<!ENTITY" in data or b"<!DOCTYPE" in data:
        # DISKSPD never writes a DTD; refusing one avoids entity-expansion tricks on untrusted input.
        issues.error("DTD or entity declarations are not accepted in DISKSPD XML")
        return _Tree(None, set())
    parser = ET.XMLPullParser(events=("start", "end"))
    root: ET.Element | None = None
    done: set[int] = set()

    def drain() -> ET.ParseError | None:
        # XMLPullParser queues a syntax error and raises it from read_events(), after the good events.
        nonlocal root
        try:
            for event, el in parser.read_events():
                if event == "start" and root is None:
                    root = el
                elif event == "end":
                    done.add(id(el))
        except ET.ParseError as e:
            return e
        return None

    def report(e: ET.ParseError, what: str) -> None:
        issues.error(f"{what} XML ({e}); keeping the complete elements read before it",
                     line=getattr(e, "position", (None,))[0])

    def step(action: Callable[[], None]) -> ET.ParseError | None:
        """``parser.feed`` or ``parser.close``, then its events: the first syntax error, if any."""
        try:
            action()
        except ET.ParseError as e:
            drain()
            return e
        return drain()

    chunk = 1 << 16
    for offset in range(0, max(len(data), 1), chunk):
        err = step(lambda: parser.feed(data[offset:offset + chunk]))
        if err is not None:
            report(err, "malformed")
            return _Tree(root, done)
    err = step(parser.close)
    if err is not None:
        report(err, "truncated or malformed")
    return _Tree(root, done)


def parse_xml(data: bytes, issues: Issues, *, now_ms: int) -> DiskspdRun | None:
    tree = _read_xml(data, issues)
    root = tree.root
    if root is None:
        issues.error("no XML document found")
        return None
    if root.tag != "Results":
        issues.error(f"not a DISKSPD result: root element is <{root.tag}>, expected <Results>")
        return None
    run = DiskspdRun(fmt="xml")
    system = tree.child(root, "System")
    run.computer = tree.text(system, "ComputerName") or ""
    run.version = tree.text(tree.child(system, "Tool"), "Version") or ""
    check_version(run.version, issues, field="System/Tool/Version")
    run_time = tree.text(system, "RunTime")
    if run_time is not None:
        run.start_ms = parse_diskspd_time(run_time, issues, now_ms, field="System/RunTime")
    topo = tree.child(system, "ProcessorTopology")
    for g in tree.children(topo, "Group"):
        n = checked_count(g.get("ActiveProcessors"), issues, field="ProcessorTopology/Group@ActiveProcessors",
                          allow_missing=True)
        run.logical_processors += n or 0
    run.sockets = len(tree.children(topo, "Socket"))

    profile_spans = tree.children(tree.child(tree.child(root, "Profile"), "TimeSpans"), "TimeSpan",
                                  complete=False)
    for i, rts in enumerate(tree.children(root, "TimeSpan", complete=False)):
        where = f"TimeSpan[{i + 1}]"
        ts = Timespan(index=i)
        prof = profile_spans[i] if i < len(profile_spans) else None
        if prof is None:
            issues.warn("no profile for this timespan; load parameters unknown", field=where)
        else:
            _xml_profile(tree, prof, ts, issues, f"Profile/TimeSpans/{where}")
        err = tree.text(rts, "Error")
        if err:
            issues.error(f"DISKSPD reported: {err}", field=where)
            continue
        secs = checked_float(tree.text(rts, "TestTimeSeconds"), issues, field=f"{where}/TestTimeSeconds",
                             maximum=MAX_SETTING)
        if secs is None:
            continue
        ts.test_time_ms = round(secs * 1000)
        _xml_cpus(tree, rts, ts, issues, where)
        lat = tree.child(rts, "Latency")
        if lat is not None:
            ts.latency_measured = True
            chart = _xml_latency(tree, lat, issues, f"{where}/Latency")
            if chart:
                ts.charts[""] = chart
        for t_i, thread in enumerate(tree.children(rts, "Thread", complete=False)):
            for g_i, tgt in enumerate(tree.children(thread, "Target")):
                _xml_target(tree, tgt, ts, issues, f"{where}/Thread[{t_i + 1}]/Target[{g_i + 1}]")
        settle_intervals(ts, issues, where)
        run.timespans.append(ts)
    return run


def _xml_profile(tree: _Tree, prof: ET.Element, ts: Timespan, issues: Issues, where: str) -> None:
    def num(el: ET.Element | None, tag: str) -> float | None:
        return checked_float(tree.text(el, tag), issues, field=f"{where}/{tag}", allow_missing=True,
                             maximum=MAX_SETTING)

    ts.duration_s = num(prof, "Duration")
    ts.warmup_s = num(prof, "Warmup")
    ts.cooldown_s = num(prof, "Cooldown")
    ts.latency_measured = (tree.text(prof, "MeasureLatency") or "").lower() == "true"
    ts.bucket_ms = int(num(prof, "IoBucketDuration") or 0) or None
    thread_count = int(num(prof, "ThreadCount") or 0)
    targets = tree.children(tree.child(prof, "Targets"), "Target")
    if not targets:
        return
    for tgt in targets:
        path, bs = tree.text(tgt, "Path"), int(num(tgt, "BlockSize") or 0)
        if path and bs:
            ts.block_sizes.setdefault(path, set()).add(bs)
    t = targets[0]
    load = ts.load
    load.block_size_bytes = int(num(t, "BlockSize") or 0)
    load.outstanding = int(num(t, "RequestCount") or 0)
    load.threads_per_target = thread_count or int(num(t, "ThreadsPerFile") or 0)
    load.write_pct = checked_pct(tree.text(t, "WriteRatio"), issues, field=f"{where}/Target/WriteRatio",
                                 allow_missing=True)
    if tree.child(t, "Random") is not None:
        ratio = checked_pct(tree.text(t, "RandomRatio"), issues, field=f"{where}/Target/RandomRatio",
                            allow_missing=True)
        load.random_pct = 100.0 if ratio is None else ratio
    elif tree.child(t, "StrideSize") is not None:
        load.random_pct = 0.0
    if len(targets) > 1:
        load.labels["targets"] = str(len(targets))


def _xml_cpus(tree: _Tree, rts: ET.Element, ts: Timespan, issues: Issues, where: str) -> None:
    cu = tree.child(rts, "CpuUtilization")
    for n, cpu in enumerate(tree.children(cu, "CPU")):
        row = cpu_row(n, tree.text(cpu, "UsagePercent"), tree.text(cpu, "UserPercent"),
                       tree.text(cpu, "KernelPercent"), issues, f"{where}/CpuUtilization/CPU[{n + 1}]")
        if row is None:
            continue
        for tag in ("Socket", "Node", "Group", "Core", "Id"):
            v = tree.text(cpu, tag)
            if v is not None:
                row.tags[f"cpu_{tag.lower()}"] = v
        ts.cpus.append(row)
    avg = tree.child(cu, "Average")
    if tree.complete(avg):
        ts.cpu_avg = cpu_row(-1, tree.text(avg, "UsagePercent"), tree.text(avg, "UserPercent"),
                              tree.text(avg, "KernelPercent"), issues, f"{where}/CpuUtilization/Average")


def _xml_latency(tree: _Tree, lat: ET.Element, issues: Issues, where: str) -> dict[str, Percentiles]:
    chart: dict[str, Percentiles] = {}
    for b_i, bucket in enumerate(tree.children(lat, "Bucket")):
        p_text = tree.text(bucket, "Percentile")
        q = quantile_from_percent(p_text) if p_text is not None else None
        if q is None:
            issues.error(f"bad percentile {p_text!r}", field=f"{where}/Bucket[{b_i + 1}]/Percentile")
            continue
        for direction, tag in (("READ", "ReadMilliseconds"), ("WRITE", "WriteMilliseconds")):
            v = tree.text(bucket, tag)
            if v is None:
                continue
            ns = ms_text_to_ns(v, issues, f"{where}/Bucket[{b_i + 1}]/{tag}")
            if ns is None:
                continue
            add_percentile(chart.setdefault(direction, Percentiles()), q, ns)
    return chart


def _xml_target(tree: _Tree, tgt: ET.Element, ts: Timespan, issues: Issues, where: str) -> None:
    path = tree.text(tgt, "Path")
    if not path:
        issues.error("target without <Path>", field=where)
        return
    counts: dict[str, int] = {}
    for tag in ("ReadCount", "ReadBytes", "WriteCount", "WriteBytes"):
        n = checked_count(tree.text(tgt, tag), issues, field=f"{where}/{tag}")
        if n is None:
            return
        counts[tag] = n
    for total_tag, parts in (("IOCount", ("ReadCount", "WriteCount")), ("BytesCount", ("ReadBytes", "WriteBytes"))):
        total = checked_count(tree.text(tgt, total_tag), issues, field=f"{where}/{total_tag}", allow_missing=True)
        if total is not None and total != counts[parts[0]] + counts[parts[1]]:
            issues.warn(f"{total_tag} {total} != {parts[0]} + {parts[1]}", field=where)
    t = ts.targets.setdefault(path, TargetResult(path=path))
    t.threads += 1
    size = checked_count(tree.text(tgt, "FileSize"), issues, field=f"{where}/FileSize", allow_missing=True)
    if size is not None:
        t.file_size_bytes = size
    for direction, ctag, btag, ltag in (("READ", "ReadCount", "ReadBytes", "AverageReadLatencyMilliseconds"),
                                        ("WRITE", "WriteCount", "WriteBytes", "AverageWriteLatencyMilliseconds")):
        n = counts[ctag]
        t.ops[direction] += n
        t.bytes[direction] += counts[btag]
        if n == 0:
            continue
        mean = checked_float(tree.text(tgt, ltag), issues, field=f"{where}/{ltag}", allow_missing=True)
        prev = t.lat_sum_ms[direction]
        t.lat_sum_ms[direction] = None if (mean is None or prev is None) else prev + mean * n
    series = _xml_series(tree, tgt, ts, issues, f"{where}/Iops")
    if series is not None:
        t.threads_with_intervals += 1
        for end_ms, iv in series.items():
            t.intervals.setdefault(end_ms, Interval()).add(iv)


def _xml_series(tree: _Tree, tgt: ET.Element, ts: Timespan, issues: Issues, where: str) -> dict[int, Interval] | None:
    """One thread's ``-D`` series for one target: bucket end (ms) -> Interval; None when absent or damaged
    (a damaged bucket is reported and drops the thread's series, as a partial one would not add up)."""
    buckets = tree.children(tree.child(tgt, "Iops"), "Bucket")
    if not buckets:
        return None
    if ts.bucket_ms is None:
        # No <IoBucketDuration> in the profile: the first bucket ends one bucket length in.
        ts.bucket_ms = checked_count(buckets[0].get("SampleMillisecond"), issues, allow_missing=True,
                                     field=f"{where}/Bucket[1]@SampleMillisecond") or None
        if ts.bucket_ms is None:
            return None
    bucket = ts.bucket_ms
    out: dict[int, Interval] = {}
    for b_i, b in enumerate(buckets):
        bw = f"{where}/Bucket[{b_i + 1}]"
        end = checked_count(b.get("SampleMillisecond"), issues, field=f"{bw}@SampleMillisecond")
        if end is None:
            return None
        if end == 0 or end % bucket or end in out:
            issues.error(f"SampleMillisecond {end} is not a new multiple of the {bucket} ms bucket; this thread's "
                         "IOPS series is dropped", field=bw)
            return None
        iv = out[end] = Interval()
        for d, attr in zip(DIRECTIONS, ("Read", "Write")):
            rate = checked_float(b.get(attr), issues, field=f"{bw}@{attr}")
            if rate is None:
                return None
            # IOPS over the bucket -> its I/O count (exact for buckets up to 1 s: see settle_intervals)
            n = iv.ops[d] = round(rate * bucket / 1000)
            if not n or not ts.latency_measured:
                continue
            lat: dict[str, int | None] = {}
            for part in ("Min", "Max", "Avg"):
                text = b.get(f"{attr}{part}LatencyMilliseconds")
                lat[part] = None if text is None else ms_text_to_ns(text, issues, f"{bw}@{attr}{part}LatencyMilliseconds")
            iv.lat_sum_ns[d] = None if lat["Avg"] is None else lat["Avg"] * n
            iv.lat_min_ns[d], iv.lat_max_ns[d] = lat["Min"], lat["Max"]
    return out
