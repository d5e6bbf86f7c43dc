"""DISKSPD ``-Rtext`` output -> ``DiskspdRun`` (layout: microsoft/diskspd ``ResultParser.cpp``).

Line-oriented: each section (input parameters, system information, CPU table, Total/Read/Write I/O tables,
percentile tables) is recognised by its header, table columns by their names, so a damaged line costs that
line only. Handles the 2.2 layout too (``Node | Group | Core | CPU`` CPU table, ``Total latency
distribution:``, ``N/A`` columns) and load parameters given only on the ``Command Line:``.

No time series here: with ``-D`` the text output prints only the IOPS standard deviation per thread, never the
per-interval buckets (those are in ``-Rxml`` only, see ``diskspd_xml``).
"""

from __future__ import annotations

import re
import shlex

from ioscale.importers.common import (Issues, checked_count, checked_float, checked_pct, parse_size_bytes,
                                      quantile_from_percent)
from ioscale.importers.diskspd_model import (MAX_SETTING, DiskspdRun, Percentiles, TargetResult, Timespan,
                                             add_percentile, cpu_row, ms_text_to_ns, parse_diskspd_time)

_PCT_NAMES = {"min": "0", "25th": "25", "50th": "50", "75th": "75", "90th": "90", "95th": "95",
              "99th": "99", "max": "100"}
_NINES_RE = re.compile(r"^(\d)-nines$")
_FILE_SIZE_RE = re.compile(r"^(.*?)\s+\((\d+)(B|KiB|MiB|GiB|TiB)\)\s*$")
_SIZE_UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}


def _percent_for_name(name: str) -> str | None:
    if name in _PCT_NAMES:
        return _PCT_NAMES[name]
    m = _NINES_RE.match(name)
    if m:
        n = int(m.group(1))
        return "99." + "9" * (n - 2) if n >= 3 else None
    return None


def parse_text(text: str, issues: Issues, *, now_ms: int) -> DiskspdRun | None:
    lines = text.splitlines()
    if not any("Results for timespan" in ln or "Input parameters:" in ln or "Command Line:" in ln
               for ln in lines[:400] + lines[-2000:]):
        issues.error("not a DISKSPD result: no 'Command Line:', 'Input parameters:' or 'Results for timespan'")
        return None
    run = DiskspdRun(fmt="text")
    profiles: list[Timespan] = []   # from "Input parameters" / the command line, by timespan
    cmd_profile: Timespan | None = None
    current: Timespan | None = None
    section: str | None = None      # TOTAL / READ / WRITE while inside an I/O table
    header: list[str] = []
    chart_scope: str | None = None
    prev_nonempty = ""
    i = 0
    while i < len(lines):
        raw = lines[i]
        line_no = i + 1
        s = raw.strip()
        i += 1
        if not s:
            continue
        try:
            if s.startswith("Command Line:"):
                cmd_profile = _profile_from_cmdline(s[len("Command Line:"):].strip(), issues, line_no)
            elif s.startswith("timespan:") and current is None:
                profiles.append(Timespan(index=len(profiles)))
            elif current is None and profiles and _profile_line(s, profiles[-1], issues, line_no):
                pass
            elif s.startswith("computer name:"):
                run.computer = s.split(":", 1)[1].strip()
            elif s.startswith("start time:"):
                run.start_ms = parse_diskspd_time(s.split(":", 1)[1], issues, now_ms, line=line_no)
            elif s.startswith("cpu count:"):
                n = checked_count(s.split(":", 1)[1], issues, line=line_no, field="cpu count")
                run.logical_processors = n or run.logical_processors
            elif s.startswith("socket count:"):
                n = checked_count(s.split(":", 1)[1], issues, line=line_no, field="socket count")
                run.sockets = n or run.sockets
            elif s.startswith("Results for timespan"):
                current = Timespan(index=len(run.timespans))
                run.timespans.append(current)
                section, chart_scope = None, None
            elif current is None:
                pass
            elif s.startswith("actual test time:"):
                secs = checked_float(s.split(":", 1)[1].strip().rstrip("s"), issues, line=line_no,
                                     field="actual test time", maximum=MAX_SETTING)
                if secs is not None:
                    current.test_time_ms = round(secs * 1000)
            elif s.startswith("thread count:"):
                current.declared_threads = checked_count(s.split(":", 1)[1], issues, line=line_no,
                                                         field="thread count")
            elif s.startswith("proc count:") and not run.logical_processors:
                run.logical_processors = checked_count(s.split(":", 1)[1], issues, line=line_no,
                                                       field="proc count") or 0
            elif "|" in s and "Usage" in s and "CPU" in s:
                i = _text_cpu_table(lines, i, s, current, issues)
            elif s in ("Total IO", "Read IO", "Write IO"):
                section = {"Total IO": "TOTAL", "Read IO": "READ", "Write IO": "WRITE"}[s]
            elif s.startswith("thread") and "|" in s and section:
                header = [h.strip() for h in s.split("|")]
            elif section and "|" in s and s.split("|")[0].strip().isdigit():
                _text_io_row(s, header, section, current, issues, line_no)
            elif s.startswith("total:") and section and "|" in s:
                section = None
            elif s.startswith("%-ile"):
                scope = prev_nonempty.strip()
                chart_scope = "" if scope in ("total:", "Total latency distribution:") else scope
                current.latency_measured = True
            elif chart_scope is not None and "|" in s and _percent_for_name(s.split("|")[0].strip()):
                _text_chart_row(s, chart_scope, current, issues, line_no)
        except (ValueError, IndexError, ArithmeticError) as e:
            # A garbled line must not sink the file; report it and move on.
            issues.error(f"unreadable line: {e}", line=line_no)
        if not set(s) <= set("-*"):
            prev_nonempty = s
    for ts in run.timespans:
        if ts.declared_threads and ts.thread_ids and ts.declared_threads != len(ts.thread_ids):
            issues.warn(f"header says {ts.declared_threads} threads but the I/O tables list "
                        f"{len(ts.thread_ids)}", field=f"timespan {ts.index + 1}")
        if run.logical_processors and ts.cpus and len(ts.cpus) < run.logical_processors:
            issues.warn(f"CPU table lists {len(ts.cpus)} of {run.logical_processors} CPUs",
                        field=f"timespan {ts.index + 1}")
        prof = profiles[ts.index] if ts.index < len(profiles) else cmd_profile
        if prof is not None:
            ts.load = prof.load
            ts.duration_s, ts.warmup_s, ts.cooldown_s = prof.duration_s, prof.warmup_s, prof.cooldown_s
            ts.latency_measured = ts.latency_measured or prof.latency_measured
    return run


def _profile_line(s: str, prof: Timespan, issues: Issues, line_no: int) -> bool:
    load = prof.load
    m = re.match(r"^(duration|warm up time|cool down time):\s*(\S+?)s$", s)
    if m:
        v = checked_float(m.group(2), issues, line=line_no, field=m.group(1), maximum=MAX_SETTING)
        setattr(prof, {"duration": "duration_s", "warm up time": "warmup_s",
                       "cool down time": "cooldown_s"}[m.group(1)], v)
        return True
    if s == "measuring latency":
        prof.latency_measured = True
        return True
    if s == "performing read test":
        load.write_pct = 0.0
        return True
    if s == "performing write test":
        load.write_pct = 100.0
        return True
    m = re.match(r"^performing mix test \(read/write ratio: (\d+)/(\d+)\)$", s)
    if m:
        load.write_pct = checked_pct(m.group(2), issues, line=line_no, field="write ratio")
        return True
    m = re.match(r"^block size: (\d+)$", s)
    if m:
        load.block_size_bytes = int(m.group(1))
        return True
    if s.startswith("using random I/O"):
        load.random_pct = 100.0 if load.random_pct is None else load.random_pct
        return True
    if s.startswith("using sequential I/O") or s.startswith("using interlocked sequential I/O"):
        load.random_pct = 0.0
        return True
    m = re.match(r"^number of outstanding I/O operations: (\d+)$", s)
    if m:
        load.outstanding = int(m.group(1))
        return True
    m = re.match(r"^threads per file: (\d+)$", s)
    if m:
        load.threads_per_target = int(m.group(1))
        return True
    return False


def _profile_from_cmdline(cmd: str, issues: Issues, line_no: int) -> Timespan:
    """Load parameters from a DISKSPD command line (the 2.x text header may carry only this)."""
    prof = Timespan(index=0)
    load = prof.load
    try:
        args = shlex.split(cmd, posix=False)
    except ValueError:
        args = cmd.split()
    load.random_pct = 0.0  # DISKSPD's default access pattern is sequential
    load.write_pct = 0.0
    for a in args[1:]:
        if not a.startswith("-") or len(a) < 2:
            continue
        sw, val = a[1], a[2:]
        if sw == "b":
            load.block_size_bytes = parse_size_bytes(val) or load.block_size_bytes
        elif sw == "o" and val.isdigit():
            load.outstanding = int(val)
        elif sw in ("t", "F") and val.isdigit():
            load.threads_per_target = int(val)
        elif sw == "w" and val.isdigit():
            load.write_pct = checked_pct(val, issues, line=line_no, field="-w")
        elif sw == "r":
            if val.startswith("s") and val[1:].isdigit():
                load.random_pct = float(int(val[1:]))
            else:
                load.random_pct = 100.0
        elif sw == "d" and val.isdigit():
            prof.duration_s = float(val)
        elif sw == "W" and val.isdigit():
            prof.warmup_s = float(val)
        elif sw == "C" and val.isdigit():
            prof.cooldown_s = float(val)
        elif sw == "L" and not val:
            prof.latency_measured = True
    if prof.warmup_s is None:
        prof.warmup_s = 5.0  # DISKSPD's default -W
    load.labels["load_source"] = "command_line"
    return prof


def _text_cpu_table(lines: list[str], i: int, header_line: str, ts: Timespan, issues: Issues) -> int:
    """Parse the CPU table whose header is ``header_line``; returns the index after the table.

    Layouts: ``CPU | Usage | User | Kernel | Idle`` (one processor group), ``Group | CPU | ...`` and,
    since 2.2, ``Node | Group | Core | CPU | ...``; rows end with a dashed line and an ``avg.`` row.
    """
    cols = [c.strip().lower() for c in header_line.split("|")]
    n = 0
    while i < len(lines):
        s = lines[i].strip()
        line_no = i + 1
        i += 1
        if not s:
            break
        if set(s) <= set("-"):
            continue
        parts = [p.strip() for p in s.split("|")]
        if parts[0].endswith("avg."):
            vals = dict(zip(("usage", "user", "kernel", "idle"), parts[-4:]))
            ts.cpu_avg = cpu_row(-1, vals.get("usage"), vals.get("user"), vals.get("kernel"), issues,
                                  "CPU avg.", line=line_no)
            break
        if len(parts) != len(cols):
            issues.error(f"CPU row has {len(parts)} columns, header has {len(cols)}", line=line_no)
            continue
        vals = dict(zip(cols, parts))
        row = cpu_row(n, vals.get("usage"), vals.get("user"), vals.get("kernel"), issues, "CPU",
                       line=line_no)
        if row is not None:
            for key in ("node", "group", "core", "cpu"):
                if key in vals:
                    row.tags[f"cpu_{'id' if key == 'cpu' else key}"] = vals[key]
            ts.cpus.append(row)
            n += 1
    return i


def _text_io_row(s: str, header: list[str], section: str, ts: Timespan, issues: Issues, line_no: int) -> None:
    parts = [p.strip() for p in s.split("|")]
    if not header or len(parts) != len(header):
        issues.error(f"I/O row has {len(parts)} columns, header has {len(header)}", line=line_no)
        return
    vals = dict(zip(header, parts))
    if section == "TOTAL":
        return  # Read IO + Write IO carry the same numbers split by direction.
    m = _FILE_SIZE_RE.match(vals.get("file", ""))
    path = m.group(1) if m else vals.get("file", "")
    if not path:
        issues.error("I/O row without a file", line=line_no)
        return
    nbytes = checked_count(vals.get("bytes"), issues, line=line_no, field=f"{section} bytes")
    nops = checked_count(vals.get("I/Os"), issues, line=line_no, field=f"{section} I/Os")
    if nbytes is None or nops is None:
        return
    t = ts.targets.setdefault(path, TargetResult(path=path))
    if section == "READ":
        t.threads += 1
        ts.thread_ids.add(int(parts[0]))
    if m:
        t.file_size_bytes = int(m.group(2)) * _SIZE_UNITS[m.group(3)]
    t.ops[section] += nops
    t.bytes[section] += nbytes
    if nops:
        mean = checked_float(vals.get("AvgLat"), issues, line=line_no, field=f"{section} AvgLat",
                             allow_missing=True)
        prev = t.lat_sum_ms[section]
        t.lat_sum_ms[section] = None if (mean is None or prev is None) else prev + mean * nops


def _text_chart_row(s: str, scope: str, ts: Timespan, issues: Issues, line_no: int) -> None:
    parts = [p.strip() for p in s.split("|")]
    if len(parts) < 3:
        issues.error("percentile row with fewer than 3 columns", line=line_no)
        return
    q = quantile_from_percent(_percent_for_name(parts[0]) or "")
    if q is None:
        return
    chart = ts.charts.setdefault(scope, {})
    for direction, v in (("READ", parts[1]), ("WRITE", parts[2])):
        if v == "N/A":
            continue
        ns = ms_text_to_ns(v, issues, f"{parts[0]} {direction.lower()}", line=line_no)
        if ns is not None:
            add_percentile(chart.setdefault(direction, Percentiles()), q, ns)
