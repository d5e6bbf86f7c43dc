"""Writes the hand-made importer test inputs in this directory (run once; the outputs are committed).

These are NOT real tool outputs: they are written from each tool's documented output layout (the source
files named below) with seeded random latencies, so that every number in them is internally consistent
(counts = sums of rows, means = sums / counts, percentiles of the same samples). The
real outputs live in tests/fixtures/real and are tested separately. Only the Iometer data is sized so
that Little's law holds (I/O count = queue depth x run time / mean latency); the DISKSPD and fio files use
small counts to stay small.

    DISKSPD XML     microsoft/diskspd XmlResultParser/XmlResultParser.cpp, Common/Common.cpp (profile)
    DISKSPD text    microsoft/diskspd ResultParser/ResultParser.cpp
    VMFleet names   microsoft/diskspd Frameworks/VMFleet/run-sweeptemplate.ps1, create-vmfleet.ps1
    fio json+       axboe/fio stat.c show_ddir_status / json+ bins (plat_idx_to_val keys)
    Iometer CSV     Iometer GalileoView.cpp, PageSetup.cpp, AccessSpecList.cpp, ManagerList.cpp,
                    Manager.cpp, Worker.cpp SaveResults (latency bins: iocore results-CSV header)
    perfmon CSV/TSV PDH CSV as typeperf/relog write it (header "(PDH-CSV 4.0) (zone)(bias)", quoted cells,
                    " " for a counter without a value); counter names from a real Hyper-V host's list
                    (tests/fixtures/real/vc_perfcounters_windows_hyperv_host.txt)
    esxtop CSV      esxtop -b batch output as ESXi writes it ("(PDH-CSV 4.0) (UTC)(0)", object names of
                    esxtop's batch mode: Physical Cpu, Group Cpu, Vcpu, Physical Disk Adapter, Physical Disk
                    SCSI Device, Virtual Disk, Network Port)

Written by hand instead (small enough to check every figure in the test): diskspd_2.2_xml_iops_series_*.xml,
the DISKSPD -D per-interval layout (XmlResultParser.cpp _PrintIops).

Usage: python tests/unit/importers/data/_generate.py   (from the repository root, with ingest/src on
PYTHONPATH for the fio bucket functions).
"""

from __future__ import annotations

import bisect
import json
import math
import random
from pathlib import Path

from ioscale.importers.fio_bins import plat_idx_to_val, plat_val_to_idx

HERE = Path(__file__).resolve().parent


def lognormal_us(rng: random.Random, n: int, median_us: float, sigma: float) -> list[float]:
    return sorted(rng.lognormvariate(math.log(median_us), sigma) for _ in range(n))


def pct(sorted_vals: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of sorted values."""
    if p <= 0:
        return sorted_vals[0]
    rank = max(1, math.ceil(p / 100 * len(sorted_vals)))
    return sorted_vals[min(rank, len(sorted_vals)) - 1]


# --- DISKSPD XML -----------------------------------------------------------------------------------------

XML_LEVELS = [("0", 0.0)] + [(str(p), float(p)) for p in range(1, 100)] + \
    [("99." + "9" * n, float("99." + "9" * n)) for n in range(1, 8)] + [("100", 100.0)]


def diskspd_xml(*, computer: str, run_time: str, timespans: list[dict], cpus: int = 2) -> str:
    """timespans: dicts with bs, qd, threads, write_pct, duration, warmup, cooldown, test_time, targets
    (list of (path, per-thread list of (reads_us, writes_us))), cpu (list of (usage, user, kernel))."""
    out = ["<Results>", "  <System>", f"    <ComputerName>{computer}</ComputerName>",
           "    <Tool>", "      <Version>2.0.21a</Version>", "      <VersionDate>2018/9/21</VersionDate>",
           "    </Tool>", f"    <RunTime>{run_time}</RunTime>", "    <ProcessorTopology>",
           f'      <Group Group="0" MaximumProcessors="{cpus}" ActiveProcessors="{cpus}" ActiveProcessorMask="0x3" />',
           '      <Node Node="0" Group="0" Processors="0x3" />', "      <Socket>",
           '        <Group Group="0" Processors="0x3" />', "      </Socket>", "    </ProcessorTopology>",
           "  </System>", "  <Profile>", "    <Progress>0</Progress>", "    <ResultFormat>xml</ResultFormat>",
           "    <Verbose>false</Verbose>", "    <TimeSpans>"]
    for ts in timespans:
        out += ["      <TimeSpan>", "        <CompletionRoutines>false</CompletionRoutines>",
                "        <MeasureLatency>true</MeasureLatency>", "        <CalculateIopsStdDev>true</CalculateIopsStdDev>",
                "        <DisableAffinity>false</DisableAffinity>", f"        <Duration>{ts['duration']}</Duration>",
                f"        <Warmup>{ts['warmup']}</Warmup>", f"        <Cooldown>{ts['cooldown']}</Cooldown>",
                "        <ThreadCount>0</ThreadCount>", "        <RequestCount>0</RequestCount>",
                "        <IoBucketDuration>1000</IoBucketDuration>", "        <RandSeed>0</RandSeed>",
                "        <Targets>"]
        for path, _ in ts["targets"]:
            out += ["          <Target>", f"            <Path>{path}</Path>",
                    f"            <BlockSize>{ts['bs']}</BlockSize>", "            <BaseFileOffset>0</BaseFileOffset>",
                    "            <SequentialScan>false</SequentialScan>", "            <RandomAccess>false</RandomAccess>",
                    "            <TemporaryFile>false</TemporaryFile>", "            <UseLargePages>false</UseLargePages>",
                    "            <DisableOSCache>true</DisableOSCache>", "            <WriteThrough>true</WriteThrough>",
                    "            <WriteBufferContent>", "              <Pattern>sequential</Pattern>",
                    "            </WriteBufferContent>", "            <ParallelAsyncIO>false</ParallelAsyncIO>",
                    f"            <Random>{ts['bs']}</Random>", "            <ThreadStride>0</ThreadStride>",
                    "            <MaxFileSize>0</MaxFileSize>", f"            <RequestCount>{ts['qd']}</RequestCount>",
                    f"            <WriteRatio>{ts['write_pct']}</WriteRatio>", "            <Throughput>0</Throughput>",
                    f"            <ThreadsPerFile>{ts['threads']}</ThreadsPerFile>", "            <IOPriority>3</IOPriority>",
                    "            <Weight>1</Weight>", "          </Target>"]
        out += ["        </Targets>", "      </TimeSpan>"]
    out += ["    </TimeSpans>", "  </Profile>"]
    for ts in timespans:
        out += ["  <TimeSpan>", f"    <TestTimeSeconds>{ts['test_time']:.2f}</TestTimeSeconds>",
                f"    <ThreadCount>{ts['threads'] * len(ts['targets'])}</ThreadCount>",
                "    <RequestCount>0</RequestCount>", f"    <ProcCount>{cpus}</ProcCount>", "    <CpuUtilization>"]
        for i, (usage, user, kernel) in enumerate(ts["cpu"]):
            out += ["      <CPU>", "        <Socket>0</Socket>", "        <Node>0</Node>", "        <Group>0</Group>",
                    f"        <Core>{i}</Core>", "        <EfficiencyClass>0</EfficiencyClass>", f"        <Id>{i}</Id>",
                    f"        <UsagePercent>{usage:.2f}</UsagePercent>", f"        <UserPercent>{user:.2f}</UserPercent>",
                    f"        <KernelPercent>{kernel:.2f}</KernelPercent>",
                    f"        <IdlePercent>{100 - usage:.2f}</IdlePercent>", "      </CPU>"]
        n = len(ts["cpu"])
        avg = [sum(c[k] for c in ts["cpu"]) / n for k in range(3)]
        out += ["      <Average>", f"        <UsagePercent>{avg[0]:.2f}</UsagePercent>",
                f"        <UserPercent>{avg[1]:.2f}</UserPercent>", f"        <KernelPercent>{avg[2]:.2f}</KernelPercent>",
                f"        <IdlePercent>{100 - avg[0]:.2f}</IdlePercent>", "      </Average>", "    </CpuUtilization>"]
        reads = sorted(v for _, th in ts["targets"] for r, _ in th for v in r)
        writes = sorted(v for _, th in ts["targets"] for _, w in th for v in w)
        total = sorted(reads + writes)
        out.append('    <Latency ReadHistoBuckets="0" WriteHistoBuckets="0" TotalHistoBuckets="0">')
        for label, key, vals in (("Read", "AverageReadMilliseconds", reads), ("Write", "AverageWriteMilliseconds", writes)):
            if vals:
                out.append(f"      <{key}>{sum(vals) / len(vals) / 1000:.3f}</{key}>")
        for text, p in XML_LEVELS:
            out += ["      <Bucket>", f"        <Percentile>{text}</Percentile>"]
            for tag, vals in (("ReadMilliseconds", reads), ("WriteMilliseconds", writes), ("TotalMilliseconds", total)):
                if vals:
                    v = vals[-1] if p == 100 else pct(vals, p)
                    out.append(f"        <{tag}>{v / 1000:.3f}</{tag}>")
            out.append("      </Bucket>")
        out.append("    </Latency>")
        for t_id in range(ts["threads"]):
            for path, threads in ts["targets"]:
                r, w = threads[t_id]
                out += ["    <Thread>", f"      <Id>{t_id}</Id>", "      <Target>", f"        <Path>{path}</Path>",
                        f"        <BytesCount>{(len(r) + len(w)) * ts['bs']}</BytesCount>",
                        "        <FileSize>1073741824</FileSize>", f"        <IOCount>{len(r) + len(w)}</IOCount>",
                        f"        <ReadBytes>{len(r) * ts['bs']}</ReadBytes>", f"        <ReadCount>{len(r)}</ReadCount>",
                        f"        <WriteBytes>{len(w) * ts['bs']}</WriteBytes>", f"        <WriteCount>{len(w)}</WriteCount>"]
                if r:
                    out.append(f"        <AverageReadLatencyMilliseconds>{sum(r) / len(r) / 1000:.3f}</AverageReadLatencyMilliseconds>")
                if w:
                    out.append(f"        <AverageWriteLatencyMilliseconds>{sum(w) / len(w) / 1000:.3f}</AverageWriteLatencyMilliseconds>")
                out += ["      </Target>", "    </Thread>"]
        out.append("  </TimeSpan>")
    out.append("</Results>")
    return "\n".join(out) + "\n"


def thread_ios(rng: random.Random, n: int, write_pct: int, median_us: float) -> tuple[list[float], list[float]]:
    nw = round(n * write_pct / 100)
    return (lognormal_us(rng, n - nw, median_us, 0.5), lognormal_us(rng, nw, median_us * 2, 0.6))


def make_diskspd_xml() -> None:
    rng = random.Random(11)
    spans = []
    for qd, median in ((8, 300.0), (32, 900.0)):
        targets = [(p, [thread_ios(rng, 3000, 30, median) for _ in range(2)])
                   for p in ("D:\\test\\file1.dat", "E:\\test\\file2.dat")]
        spans.append(dict(bs=8192, qd=qd, threads=2, write_pct=30, duration=60, warmup=10, cooldown=5,
                          test_time=60.01, targets=targets, cpu=[(35.5, 5.25, 30.25), (20.0, 4.0, 16.0)]))
    (HERE / "diskspd_2.0_xml_latency_2targets_2timespans.xml").write_text(
        diskspd_xml(computer="HOST-A", run_time="2024/03/01 12:00:00 UTC", timespans=spans))


# --- DISKSPD text with several targets ---------------------------------------------------------------------

TEXT_LEVELS = [("min", 0)] + [(f"{p}th", p) for p in (25, 50, 75, 90, 95, 99)] + \
    [(f"{n}-nines", float("99." + "9" * (n - 2))) for n in range(3, 10)] + [("max", 100)]


def text_chart(reads: list[float], writes: list[float]) -> list[str]:
    total = sorted(reads + writes)
    out = ["  %-ile |  Read (ms) | Write (ms) | Total (ms)", "----------------------------------------------"]
    for name, p in TEXT_LEVELS:
        def fmt(vals: list[float]) -> str:
            if not vals:
                return "N/A"
            v = vals[-1] if p == 100 else pct(vals, p)
            return f"{v / 1000:.3f}"
        out.append(f"{name:>7} | {fmt(reads):>10} | {fmt(writes):>10} | {fmt(total):>10}")
    return out


def make_diskspd_text() -> None:
    rng = random.Random(12)
    bs, secs = 4096, 20.0
    files = [("D:\\a.dat", [thread_ios(rng, 2000, 20, 250.0)]), ("E:\\b.dat", [thread_ios(rng, 1500, 20, 400.0)])]
    lines = ["", "Command Line: diskspd.exe -b4K -o2 -t1 -r -w20 -d20 -W3 -C2 -L -Rtext D:\\a.dat E:\\b.dat", "",
             "Input parameters:", "", "\ttimespan:   1", "\t-------------", "\tduration: 20s", "\twarm up time: 3s",
             "\tcool down time: 2s", "\tmeasuring latency", "\trandom seed: 0"]
    for path, _ in files:
        lines += [f"\tpath: '{path}'", "\t\tthink time: 0ms", "\t\tburst size: 0", "\t\tsoftware cache disabled",
                  "\t\thardware write cache disabled, writethrough on", "\t\tperforming mix test (read/write ratio: 80/20)",
                  f"\t\tblock size: {bs}", f"\t\tusing random I/O (alignment: {bs})",
                  "\t\tnumber of outstanding I/O operations: 2", "\t\tthread stride size: 0", "\t\tthreads per file: 1",
                  "\t\tusing I/O Completion Ports", "\t\tIO priority: normal"]
    lines += ["", "System information:", "", "\tcomputer name: TEXTHOST", "\tstart time: 2024/03/02 08:30:00 UTC", "",
              "Results for timespan 1:", "*" * 79, "", f"actual test time:\t{secs:.2f}s", "thread count:\t\t2",
              "proc count:\t\t2", "", "CPU |  Usage |  User  |  Kernel |  Idle", "-------------------------------------------",
              "   0|  12.50%|   2.50%|   10.00%|  87.50%", "   1|   7.50%|   1.50%|    6.00%|  92.50%",
              "-------------------------------------------", "avg.|  10.00%|   2.00%|    8.00%|  90.00%"]
    header = "thread |       bytes     |     I/Os     |    MiB/s   |  I/O per s |  AvgLat  | LatStdDev |  file"
    dash = "-" * 110
    for title, pick in (("Total IO", lambda r, w: r + w), ("Read IO", lambda r, w: r), ("Write IO", lambda r, w: w)):
        lines += ["", title, header, dash]
        tb = tn = 0
        for t_id, (path, threads) in enumerate(files):
            r, w = threads[0]
            vals = pick(r, w)
            n = len(vals)
            avg = sum(vals) / n / 1000 if n else 0.0
            sd = "  N/A" if not n else f"{0.1:8.3f}"
            lines.append(f"{t_id:6d} | {n * bs:15d} | {n:12d} | {n * bs / 1048576 / secs:10.2f} | {n / secs:10.2f} | "
                         f"{avg:8.3f} |  {sd} | {path} (1024MiB)")
            tb, tn = tb + n * bs, tn + n
        lines += [dash, f"total:   {tb:15d} | {tn:12d} | {tb / 1048576 / secs:10.2f} | {tn / secs:10.2f} |    0.000 |     0.100"]
    lines += ["", ""]
    for path, threads in files:
        lines += ["", path] + text_chart(*threads[0])
    all_r = sorted(v for _, th in files for v in th[0][0])
    all_w = sorted(v for _, th in files for v in th[0][1])
    lines += ["", "total:"] + text_chart(all_r, all_w)
    (HERE / "diskspd_text_2targets_per_target_percentiles.txt").write_text("\n".join(lines) + "\n")


# --- VMFleet sweep directory -----------------------------------------------------------------------------


def make_vmfleet() -> None:
    rng = random.Random(13)
    d = HERE / "vmfleet_sweep"
    d.mkdir(exist_ok=True)
    vms = [("NODE1", 1), ("NODE1", 2), ("NODE2", 1)]
    for step, (qd, median, minute) in enumerate(((1, 200.0, 0), (32, 2500.0, 10))):
        for k, (host, n) in enumerate(vms):
            vm = f"vm-base-{host}-{n}"
            slow = 2.5 if k == 2 else 1.0  # one slow VM, as in FIELD-NOTES' fleet experiment
            threads = [thread_ios(rng, 4000 if qd == 1 else 12000, 30, median * slow)]
            span = dict(bs=4096, qd=qd, threads=1, write_pct=30, duration=60, warmup=30, cooldown=30,
                        test_time=60.00, targets=[("C:\\run\\testfile1.dat", threads)], cpu=[(40.0 + k, 8.0, 32.0 + k)])
            name = f"result-b4t1o{qd}w30pr-base-{vm}+{vm}.xml"
            (d / name).write_text(diskspd_xml(computer=f"GUEST{step}{k}", cpus=1,
                                              run_time=f"2024/04/01 09:{minute:02d}:{k:02d} UTC", timespans=[span]))


def make_vmfleet_grid() -> None:
    """A VMFleet sweep over block size x mix x queue depth, one VM per point: four sweeps along the queue depth."""
    rng = random.Random(16)
    d = HERE / "vmfleet_bs_mix_qd"
    d.mkdir(exist_ok=True)
    minute = 0
    for b in (4, 64):
        for w in (0, 30):
            for qd in (1, 8):
                vm = "vm-base-NODE1-1"
                span = dict(bs=b * 1024, qd=qd, threads=1, write_pct=w, duration=60, warmup=30, cooldown=30,
                            test_time=60.00, targets=[("C:\\run\\testfile1.dat",
                                                       [thread_ios(rng, 200 * qd, w, 150.0 * qd * b / 4)])],
                            cpu=[(30.0 + qd, 6.0, 24.0 + qd)])
                (d / f"result-b{b}t1o{qd}w{w}pr-base-{vm}+{vm}.xml").write_text(
                    diskspd_xml(computer="GUEST", cpus=1, run_time=f"2024/05/01 {9 + minute // 60:02d}:{minute % 60:02d}:00 UTC",
                                timespans=[span]))
                minute += 2


# --- fio json+ -------------------------------------------------------------------------------------------


def fio_dir(samples_ns: list[float], runtime_ms: int, bs: int, unit: int, ns_layout: bool) -> dict:
    """One fio direction object; unit = 1 (ns layout) or 1000 (us layout, fio 2.x)."""
    if not samples_ns:
        samples_ns = []
    nr = (29 if ns_layout else 19) * 64
    vals = [int(v // unit) for v in samples_ns]  # fio's unit: ns or us
    bins: dict[int, int] = {}
    for v in vals:
        key = plat_idx_to_val(plat_val_to_idx(v, nr))
        bins[key] = bins.get(key, 0) + 1
    n = len(vals)
    io_bytes = n * bs
    clat = {"min": min(vals) if vals else 0, "max": max(vals) if vals else 0,
            "mean": round(sum(vals) / n, 6) if n else 0.0, "stddev": 0.0}
    if ns_layout:
        clat["N"] = n
    srt = sorted(vals)
    if n:
        clat["percentile"] = {f"{p:f}": plat_idx_to_val(plat_val_to_idx(pct(srt, p), nr))
                              for p in (1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99)}
        clat["bins"] = {str(k): c for k, c in sorted(bins.items())}
    lat = dict(clat, mean=round(clat["mean"] * 1.02, 6) if n else 0.0)
    lat.pop("percentile", None)
    lat.pop("bins", None)
    d: dict = {"io_bytes": io_bytes if ns_layout else io_bytes >> 10}
    if ns_layout:
        d["io_kbytes"] = io_bytes >> 10
        d["bw_bytes"] = io_bytes * 1000 // runtime_ms if runtime_ms else 0
    d.update({"bw": (io_bytes * 1000 // runtime_ms >> 10) if runtime_ms else 0,
              "iops": round(n * 1000 / runtime_ms, 6) if runtime_ms else 0.0, "runtime": runtime_ms if n else 0,
              "total_ios": n, "short_ios": 0, "drop_ios": 0})
    d["clat_ns" if ns_layout else "clat"] = clat
    d["lat_ns" if ns_layout else "lat"] = lat
    return d


def make_fio_jsonplus() -> None:
    rng = random.Random(14)
    t0 = 1_712_000_000_000
    jobs = []
    # group 0: two clones of a 70/30 randrw job, no group_reporting -> two entries with the same name
    for clone in range(2):
        reads = [v * 1000 for v in lognormal_us(rng, 7000, 150.0, 0.5)]
        writes = [v * 1000 for v in lognormal_us(rng, 3000, 400.0, 0.7)]
        jobs.append({"jobname": "randrw70", "groupid": 0, "error": 0, "eta": 0, "elapsed": 31,
                     "job_start": t0 + clone, "job options": {"rw": "randrw", "rwmixread": "70", "bs": "4k",
                                                              "iodepth": "4", "numjobs": "2"},
                     "read": fio_dir(reads, 10000, 4096, 1, True), "write": fio_dir(writes, 10000, 4096, 1, True),
                     "trim": fio_dir([], 0, 4096, 1, True), "usr_cpu": 3.5, "sys_cpu": 11.25})
    reads = [v * 1000 for v in lognormal_us(rng, 20000, 90.0, 0.4)]
    jobs.append({"jobname": "seqread", "groupid": 1, "error": 0, "eta": 0, "elapsed": 31, "job_start": t0 + 20500,
                 "job options": {"rw": "read", "bs": "128k", "iodepth": "16"},
                 "read": fio_dir(reads, 10000, 131072, 1, True), "write": fio_dir([], 0, 131072, 1, True),
                 "trim": fio_dir([], 0, 131072, 1, True), "usr_cpu": 1.0, "sys_cpu": 5.0})
    doc = {"fio version": "fio-3.36", "timestamp": (t0 + 31000) // 1000, "timestamp_ms": t0 + 31000,
           "time": "Mon Apr  1 19:33:51 2024", "global options": {"filename": "/dev/nvme0n1", "direct": "1",
                                                                 "ioengine": "io_uring", "time_based": "1"},
           "jobs": jobs}
    (HERE / "fio-3.36_jsonplus_2groups.json").write_text(json.dumps(doc, indent=2) + "\n")

    # fio 2.x json+: microsecond layout, io_bytes in KiB, bins keyed by microsecond bucket values
    writes = [v * 1000 for v in lognormal_us(rng, 5000, 800.0, 0.6)]
    job = {"jobname": "randwrite-2x", "groupid": 0, "error": 0, "eta": 0, "elapsed": 11,
           "job options": {"rw": "randwrite", "bs": "8k", "iodepth": "8"},
           "read": fio_dir([], 0, 8192, 1000, False), "write": fio_dir(writes, 10000, 8192, 1000, False),
           "trim": fio_dir([], 0, 8192, 1000, False), "usr_cpu": 0.5, "sys_cpu": 2.0}
    doc = {"fio version": "fio-2.21", "timestamp": 1_500_000_011, "timestamp_ms": 1_500_000_011_000,
           "time": "Fri Jul 14 02:40:11 2017", "global options": {"filename": "/dev/sdb", "ioengine": "libaio"},
           "jobs": [job]}
    (HERE / "fio-2.21_jsonplus_usec.json").write_text(json.dumps(doc, indent=2) + "\n")


def make_fio_benchfio() -> None:
    """A directory as fio-plot's bench-fio writes it (bench_fio/benchlib/runfio.py): one fio JSON per
    (rw, iodepth, numjobs), named <rw>-<iodepth>-<numjobs>.json, group_reporting (one job entry), plain json
    (no bins), run in bench-fio's loop order rw > iodepth > numjobs, 60 s each."""
    rng = random.Random(17)
    d = HERE / "fio_benchfio_4k"
    d.mkdir(exist_ok=True)
    t0 = 1_714_000_000_000
    k = 0
    for mode in ("randread", "randwrite"):
        for iodepth in (1, 2, 4, 16):
            for numjobs in (1, 2):
                n = 100 * iodepth * numjobs
                lat = [v * 1000 for v in lognormal_us(rng, n, 80.0 * iodepth, 0.4)]
                runtime = 60_000
                rd = fio_dir(lat if mode == "randread" else [], runtime, 4096, 1, True)
                wr = fio_dir(lat if mode == "randwrite" else [], runtime, 4096, 1, True)
                for dd in (rd, wr):
                    dd.get("clat_ns", {}).pop("bins", None)
                start = t0 + k * 61_000
                job = {"jobname": "iotest", "groupid": 0, "error": 0, "eta": 0, "elapsed": 61, "job_start": start,
                       "job options": {"rw": mode, "blocksize": "4k", "ioengine": "libaio", "iodepth": str(iodepth),
                                       "numjobs": str(numjobs), "direct": "1", "filename": "/dev/nvme1n1",
                                       "group_reporting": "1", "runtime": "60"},
                       "read": rd, "write": wr, "trim": fio_dir([], 0, 4096, 1, True), "usr_cpu": 1.5, "sys_cpu": 6.0}
                doc = {"fio version": "fio-3.28", "timestamp": (start + 61_000) // 1000, "timestamp_ms": start + 61_000,
                       "time": "", "global options": {}, "jobs": [job]}
                (d / f"{mode}-{iodepth}-{numjobs}.json").write_text(json.dumps(doc, indent=2) + "\n")
                k += 1


# --- Iometer ---------------------------------------------------------------------------------------------

IOMETER_COLS_110 = (
    "Target Type,Target Name,Access Specification Name,# Managers,# Workers,# Disks,IOps,Read IOps,Write IOps,"
    "MiBps (Binary),Read MiBps (Binary),Write MiBps (Binary),MBps (Decimal),Read MBps (Decimal),Write MBps (Decimal),"
    "Transactions per Second,Connections per Second,Average Response Time,Average Read Response Time,"
    "Average Write Response Time,Average Transaction Time,Average Connection Time,Maximum Response Time,"
    "Maximum Read Response Time,Maximum Write Response Time,Maximum Transaction Time,Maximum Connection Time,"
    "Errors,Read Errors,Write Errors,Bytes Read,Bytes Written,Read I/Os,Write I/Os,Connections,"
    "Transactions per Connection,Total Raw Read Response Time,Total Raw Write Response Time,"
    "Total Raw Transaction Time,Total Raw Connection Time,Maximum Raw Read Response Time,"
    "Maximum Raw Write Response Time,Maximum Raw Transaction Time,Maximum Raw Connection Time,Total Raw Run Time,"
    "Starting Sector,Maximum Size,Queue Depth,% CPU Utilization,% User Time,% Privileged Time,% DPC Time,"
    "% Interrupt Time,Processor Speed,Interrupts per Second,CPU Effectiveness,Packets/Second,Packet Errors,"
    "Segments Retransmitted/Second,0 to 50 uS,50 to 100 uS,100 to 200 uS,200 to 500 uS,0.5 to 1 mS,1 to 2 mS,"
    "2 to 5 mS,5 to 10 mS,10 to 15 mS,15 to 20 mS,20 to 30 mS,30 to 50 mS,50 to 100 mS,100 to 200 mS,"
    "200 to 500 mS,0.5 to 1 S,1 to 2 s,2 to 4.7 s,4.7 to 5 s,5 to 10 s, >= 10 s").split(",")
IOMETER_COLS_2006 = [c.replace("MiBps (Binary)", "MBps") for c in IOMETER_COLS_110[:59]
                     if "(Decimal)" not in c]
BIN_EDGES_US = [0, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 15000, 20000, 30000, 50000, 100000, 200000,
                500000, 1000000, 2000000, 4700000, 5000000, 10000000]
TIMER = 10_000_000  # ticks per second (QueryPerformanceFrequency)


def io_stats(rng: random.Random, n_read: int, n_write: int, mean_r_ms: float, mean_w_ms: float) -> dict:
    reads = [rng.expovariate(1 / mean_r_ms) for _ in range(n_read)]
    writes = [rng.expovariate(1 / mean_w_ms) for _ in range(n_write)]
    bins = [0] * 21
    for v in reads + writes:
        bins[bisect.bisect_right(BIN_EDGES_US, v * 1000) - 1] += 1
    return {"reads": n_read, "writes": n_write, "sum_r_ms": sum(reads), "sum_w_ms": sum(writes),
            "max_r_ms": max(reads, default=0.0), "max_w_ms": max(writes, default=0.0), "bins": bins}


def iometer_row(cols: list[str], kind: str, name: str, spec: str, st: dict | None, run_s: float, *,
                managers: str = "", workers: str = "", disks: str = "", qd: str = "", raw: dict | None = None,
                cpu: tuple | None = None, irq: float | None = None, timer: bool = False, bs: int = 4096) -> str:
    v: dict[str, str] = {c: "" for c in cols}
    v.update({"Target Type": kind, "Target Name": name, "Access Specification Name": spec, "# Managers": managers,
              "# Workers": workers, "# Disks": disks})
    f6 = lambda x: f"{x:.6f}"  # noqa: E731
    if st is not None:
        r, w = st["reads"], st["writes"]
        br, bw = r * bs, w * bs
        ave = (st["sum_r_ms"] + st["sum_w_ms"]) / (r + w) if r + w else 0.0
        v.update({"IOps": f6((r + w) / run_s), "Read IOps": f6(r / run_s), "Write IOps": f6(w / run_s),
                  "Average Response Time": f6(ave), "Average Read Response Time": f6(st["sum_r_ms"] / r if r else 0),
                  "Average Write Response Time": f6(st["sum_w_ms"] / w if w else 0),
                  "Maximum Response Time": f6(max(st["max_r_ms"], st["max_w_ms"])),
                  "Maximum Read Response Time": f6(st["max_r_ms"]), "Maximum Write Response Time": f6(st["max_w_ms"]),
                  "Errors": "0", "Read Errors": "0", "Write Errors": "0", "Bytes Read": str(br),
                  "Bytes Written": str(bw), "Read I/Os": str(r), "Write I/Os": str(w), "Connections": "0",
                  "Transactions per Connection": "-1", "Queue Depth": qd, "Starting Sector": "0", "Maximum Size": "0"})
        for c, scale in (("MiBps (Binary)", 1048576), ("MBps (Decimal)", 1e6), ("MBps", 1048576)):
            if c in v:
                pre = c.split(" ")[0]
                v[c] = f6((br + bw) / scale / run_s)
                v[c.replace(pre, "Read " + pre)] = f6(br / scale / run_s)
                v[c.replace(pre, "Write " + pre)] = f6(bw / scale / run_s)
        for i, c in enumerate(c for c in cols if c.strip()[0].isdigit() or c.strip().startswith(">=")):
            v[c] = str(st["bins"][i])
    if raw is not None:
        v.update({"Total Raw Read Response Time": str(round(raw["sum_r_ms"] / 1000 * TIMER)),
                  "Total Raw Write Response Time": str(round(raw["sum_w_ms"] / 1000 * TIMER)),
                  "Total Raw Transaction Time": "0", "Total Raw Connection Time": "0",
                  "Maximum Raw Read Response Time": str(round(raw["max_r_ms"] / 1000 * TIMER)),
                  "Maximum Raw Write Response Time": str(round(raw["max_w_ms"] / 1000 * TIMER)),
                  "Maximum Raw Transaction Time": "0", "Maximum Raw Connection Time": "0",
                  "Total Raw Run Time": str(round(run_s * TIMER))})
    if cpu is not None:
        for c, x in zip(("% CPU Utilization", "% User Time", "% Privileged Time", "% DPC Time", "% Interrupt Time"), cpu):
            v[c] = f6(x)
        v["Interrupts per Second"] = f6(irq or 0.0)
    if timer:
        v["Processor Speed"] = str(TIMER)
    return ",".join(v[c] for c in cols)


def merge(*stats: dict) -> dict:
    out = {"reads": 0, "writes": 0, "sum_r_ms": 0.0, "sum_w_ms": 0.0, "max_r_ms": 0.0, "max_w_ms": 0.0, "bins": [0] * 21}
    for s in stats:
        for k in ("reads", "writes", "sum_r_ms", "sum_w_ms"):
            out[k] += s[k]
        out["max_r_ms"] = max(out["max_r_ms"], s["max_r_ms"])
        out["max_w_ms"] = max(out["max_w_ms"], s["max_w_ms"])
        out["bins"] = [a + b for a, b in zip(out["bins"], s["bins"])]
    return out


def make_iometer() -> None:
    rng = random.Random(15)
    spec = "4K; 70% Read; 100% random"
    lines: list[str] = []
    run_s = 60.0
    cpus = [(15.0, 3.0, 12.0, 4.0, 1.5, 15000.0), (10.0, 2.0, 8.0, 2.2, 0.9, 10000.0)]
    for block, (qd, base_ms, start, end) in enumerate(((1, 0.1, "10:00:00:000", "10:01:05:500"),
                                                        (4, 0.4, "10:01:10:000", "10:02:15:250"))):
        # QD x run time / mean latency I/Os per worker, so that Little's law holds (~0.1 ms x 600k = 60 s).
        w1 = io_stats(rng, 420000, 180000, base_ms * 0.8, base_ms * 1.47)
        w2 = io_stats(rng, 378000, 162000, base_ms * 0.9, base_ms * 1.6)
        mgr = merge(w1, w2)
        lines += ["'Test Type,Test Description", "3,qd-sweep", "'Version", "1.1.0", "'Time Stamp",
                  f"2019-05-02 {start}", "'Access specifications", "'Access specification name,default assignment",
                  f"{spec},0", "'size,% of size,% reads,% random,delay,burst,align,reply", "4096,100,70,100,0,1,0,0",
                  "'End access specifications", "'Results", "'" + ",".join(IOMETER_COLS_110)]
        mcpu = tuple(sum(c[k] for c in cpus) / 2 for k in range(5))
        lines.append(iometer_row(IOMETER_COLS_110, "ALL", "All", spec, mgr, run_s, managers="1", workers="2",
                                 disks="2", qd=str(qd), cpu=mcpu, irq=sum(c[5] for c in cpus)))
        lines.append(iometer_row(IOMETER_COLS_110, "MANAGER", "HOST1", spec, mgr, run_s, workers="2", disks="2",
                                 qd=str(qd), raw=mgr, cpu=mcpu, irq=sum(c[5] for c in cpus), timer=True))
        for i, c in enumerate(cpus):
            lines.append(iometer_row(IOMETER_COLS_110, "PROCESSOR", f"CPU {i}", "", None, run_s, cpu=c[:5],
                                     irq=c[5], timer=True))
        for wname, disk, st in (("Worker 1", "E: data1", w1), ("Worker 2", "F: data2", w2)):
            lines.append(iometer_row(IOMETER_COLS_110, "WORKER", wname, spec, st, run_s, disks="1", qd=str(qd),
                                     raw=st, timer=True))
            # Worker.cpp prints the worker's raw latency sums on its target rows too (reproduced here).
            lines.append(iometer_row(IOMETER_COLS_110, "DISK", disk, "", st, run_s, disks="1", qd=str(qd), raw=st,
                                     timer=True))
        lines += ["'Time Stamp", f"2019-05-02 {end}"]
    lines.append("'End Test")
    (HERE / "iometer_1.1.0_qd_cycling.csv").write_text("\n".join(lines) + "\n")

    # 2006 layout (no MiB/MB split, no latency bins), saved without target rows.
    st = io_stats(rng, 960000, 0, 0.25, 0.0)   # QD 8 x 30 s / 0.25 ms
    lines = ["'Test Type,Test Description", "0,", "'Version", "2006.07.27", "'Time Stamp", "2008-11-20 14:00:00:000",
             "'Access specifications", "'Access specification name,default assignment", "8K seq read,0",
             "'size,% of size,% reads,% random,delay,burst,align,reply", "8192,100,100,0,0,1,0,0",
             "'End access specifications", "'Results", "'" + ",".join(IOMETER_COLS_2006)]
    lines.append(iometer_row(IOMETER_COLS_2006, "ALL", "All", "8K seq read", st, 30.0, managers="1", workers="1",
                             disks="1", qd="8", cpu=(30.0, 5.0, 25.0, 6.0, 2.0), irq=8000.0, bs=8192))
    lines.append(iometer_row(IOMETER_COLS_2006, "MANAGER", "OLDBOX", "8K seq read", st, 30.0, workers="1", disks="1",
                             qd="8", raw=st, cpu=(30.0, 5.0, 25.0, 6.0, 2.0), irq=8000.0, timer=True, bs=8192))
    lines.append(iometer_row(IOMETER_COLS_2006, "PROCESSOR", "CPU 0", "", None, 30.0, cpu=(30.0, 5.0, 25.0, 6.0, 2.0),
                             irq=8000.0, timer=True))
    lines.append(iometer_row(IOMETER_COLS_2006, "WORKER", "Worker 1", "8K seq read", st, 30.0, disks="1", qd="8",
                             raw=st, timer=True, bs=8192))
    lines += ["'Time Stamp", "2008-11-20 14:00:40:000", "'End Test"]
    (HERE / "iometer_2006.07.27_no_targets.csv").write_text("\r\n".join(lines) + "\r\n")


def make_iometer_specs() -> None:
    """Three access specifications, each cycled through QD 1, 2, 4, 8 (test type 3, exponential stepping): one
    'Results block per (spec, QD), in Iometer's order (spec after spec, the cycling inside). The third spec has
    the first one's size and mix and differs only in alignment, so only its name tells them apart."""
    rng = random.Random(18)
    specs = (("4K random read", 4096, "4096,100,100,100,0,1,0,0", 100),
             ("64K seq write", 65536, "65536,100,0,0,0,1,0,0", 0),
             ("4K random read aligned 64K", 4096, "4096,100,100,100,0,1,65536,0", 100))
    lines: list[str] = []
    run_s = 10.0
    t = 0
    for name, bs, spec_line, read_pct in specs:
        for qd in (1, 2, 4, 8):
            mean_ms = 0.2 * qd ** 0.5 * (4 if bs > 4096 else 1)
            n = round(qd * run_s * 1000 / mean_ms)  # Little's law: QD x run time / mean latency
            st = io_stats(rng, n if read_pct else 0, 0 if read_pct else n, mean_ms, mean_ms)
            hh, mm, ss = (t // 3600), (t // 60) % 60, t % 60
            lines += ["'Test Type,Test Description", "3,spec-qd-cycle", "'Version", "1.1.0", "'Time Stamp",
                      f"2020-02-03 {10 + hh:02d}:{mm:02d}:{ss:02d}:000", "'Access specifications",
                      "'Access specification name,default assignment", f"{name},0",
                      "'size,% of size,% reads,% random,delay,burst,align,reply", spec_line,
                      "'End access specifications", "'Results", "'" + ",".join(IOMETER_COLS_110)]
            cpu = (20.0 + qd, 4.0, 16.0 + qd, 2.0, 1.0)
            lines.append(iometer_row(IOMETER_COLS_110, "ALL", "All", name, st, run_s, managers="1", workers="1",
                                     disks="1", qd=str(qd), cpu=cpu, irq=9000.0, bs=bs))
            lines.append(iometer_row(IOMETER_COLS_110, "MANAGER", "HOST2", name, st, run_s, workers="1", disks="1",
                                     qd=str(qd), raw=st, cpu=cpu, irq=9000.0, timer=True, bs=bs))
            lines.append(iometer_row(IOMETER_COLS_110, "PROCESSOR", "CPU 0", "", None, run_s, cpu=cpu, irq=9000.0,
                                     timer=True))
            lines.append(iometer_row(IOMETER_COLS_110, "WORKER", "Worker 1", name, st, run_s, disks="1", qd=str(qd),
                                     raw=st, timer=True, bs=bs))
            lines.append(iometer_row(IOMETER_COLS_110, "DISK", "E: data", "", st, run_s, disks="1", qd=str(qd), raw=st,
                                     timer=True, bs=bs))
            t += 12
            hh, mm, ss = (t // 3600), (t // 60) % 60, t % 60
            lines += ["'Time Stamp", f"2020-02-03 {10 + hh:02d}:{mm:02d}:{ss:02d}:500"]
            t += 3
    lines.append("'End Test")
    (HERE / "iometer_1.1.0_3specs_qd_cycling.csv").write_text("\n".join(lines) + "\n")


def _pdh_line(cells: list[str], sep: str = ",") -> str:
    return sep.join(f'"{c}"' for c in cells)


PERFMON_COLUMNS = [
    r"Processor Information(_Total)\% Processor Time", r"Processor Information(0,0)\% Processor Time",
    r"Processor Information(0,1)\% Processor Time", r"Processor Information(1,0)\% Processor Time",
    r"Processor Information(0,_Total)\% Processor Time", r"Processor Information(0,0)\% DPC Time",
    r"Processor Information(0,0)\Interrupts/sec", r"Processor Information(0,0)\DPCs Queued/sec",
    r"Processor(0)\% Processor Time", r"Processor(0)\% User Time",
    r"Hyper-V Hypervisor Logical Processor(_Total)\% Total Run Time",
    r"Hyper-V Hypervisor Logical Processor(Hv LP 0)\% Total Run Time",
    r"Hyper-V Hypervisor Logical Processor(Hv LP 0)\Total Interrupts/sec",
    r"Hyper-V Hypervisor Root Virtual Processor(Root VP 0)\% Total Run Time",
    r"Hyper-V Hypervisor Virtual Processor(vm01:Hv VP 0)\% Total Run Time",
    r"Hyper-V Hypervisor Virtual Processor(vm01:Hv VP 1)\% Total Run Time",
    r"PhysicalDisk(1 E:)\Disk Reads/sec", r"PhysicalDisk(1 E:)\Disk Writes/sec",
    r"PhysicalDisk(1 E:)\Disk Read Bytes/sec", r"PhysicalDisk(1 E:)\Disk Write Bytes/sec",
    r"PhysicalDisk(1 E:)\Avg. Disk sec/Read", r"PhysicalDisk(1 E:)\Avg. Disk sec/Write",
    r"PhysicalDisk(1 E:)\Avg. Disk Read Queue Length", r"PhysicalDisk(1 E:)\Avg. Disk Write Queue Length",
    r"PhysicalDisk(1 E:)\Disk Transfers/sec", r"PhysicalDisk(_Total)\Disk Reads/sec",
    r"Hyper-V Virtual Storage Device(C:-ClusterStorage-Volume1-vm01-vm01.vhdx)\Read Operations/Sec",
    r"Hyper-V Virtual Storage Device(C:-ClusterStorage-Volume1-vm01-vm01.vhdx)\Write Operations/Sec",
    r"Hyper-V Virtual Storage Device(C:-ClusterStorage-Volume1-vm01-vm01.vhdx)\Read Bytes/sec",
    r"Hyper-V Virtual Storage Device(C:-ClusterStorage-Volume1-vm01-vm01.vhdx)\Write Bytes/sec",
    r"Cluster CSV File System(Volume1)\Reads/sec", r"Cluster CSV File System(Volume1)\Writes/sec",
    r"Cluster CSV File System(Volume1)\Read Latency",
    r"Network Adapter(Mellanox ConnectX-4 Lx Ethernet Adapter #2)\Bytes Received/sec",
    r"Network Adapter(Mellanox ConnectX-4 Lx Ethernet Adapter #2)\Bytes Sent/sec",
    r"Network Adapter(Mellanox ConnectX-4 Lx Ethernet Adapter #2)\Packets Received/sec",
    r"Network Adapter(Mellanox ConnectX-4 Lx Ethernet Adapter #2)\Packets Received Errors",
    r"Network Adapter(Mellanox ConnectX-4 Lx Ethernet Adapter #2)\Current Bandwidth",
    r"Hyper-V Virtual Network Adapter(vm01_Network Adapter_4bd0b3b2-0d5f-4a7e-9b1c-6f0e2d7a9c11--2a4e)\Bytes Received/sec",
    r"Hyper-V Virtual Network Adapter(vm01_Network Adapter_4bd0b3b2-0d5f-4a7e-9b1c-6f0e2d7a9c11--2a4e)\Bytes Sent/sec",
    r"Hyper-V Virtual Switch(SETswitch)\Bytes Received/sec", r"Hyper-V Virtual Switch(SETswitch)\Bytes Sent/sec",
    r"Per Processor Network Interface Card Activity(2, Mellanox ConnectX-4 Lx Ethernet Adapter #2)\Received Packets/sec",
    r"Per Processor Network Interface Card Activity(2, Mellanox ConnectX-4 Lx Ethernet Adapter #2)\Interrupts/sec",
    r"Memory\Available MBytes", r"System\Context Switches/sec",
]
#: Rows: local time (W. Europe, bias -60), then one value per column; " " = no value (rates of the first row).
PERFMON_ROWS = [
    ("03/10/2026 14:00:00.125", [" "] * 16 + [" "] * 10 + [" "] * 4 + [" "] * 3 + [" ", " ", " ", "17", "25000000000"]
     + [" "] * 4 + [" ", " "] + ["61440", " "]),
    ("03/10/2026 14:00:15.125",
     ["41.5", "60.25", "22.75", "41.5", "41.5", "7.5", "12500.5", "9800", "60.25", "30.5",
      "55.125", "70", "15000", "48.5", "35", "45",
      "2000", "1000.5", "8192000", "4098048", "0.0015", "0.0042", "3.0", "4.2", "3000.5", "2000",
      "1500", "700", "6144000", "2867200",
      "1400", "600", "0.0021",
      "125000000", "2500000", "90000", "20", "25000000000",
      "1000000", "50000", "1200000", "60000",
      "80000", "7000.25",
      "61000", "25000"]),
    ("03/10/2026 14:00:30.130",
     ["100.2", "100.0", "99.9", "100.0", "100.0", "11", "20000", "15000", "100.0", "40",
      "90", "99", "16000.5", "95", "80", "90",
      "2500", " ", "10240000", " ", "0.0020", " ", "5.5", " ", "2500", "2500",
      "1600", "800", "6553600", "3276800",
      "1500", "700", "0.0025",
      "250000000", "5000000", "180000", "23", "25000000000",
      "2000000", "100000", "2400000", "120000",
      "160000", "14000",
      "60500", "26000"]),
]


def make_perfmon() -> None:
    header = ["(PDH-CSV 4.0) (W. Europe Standard Time)(-60)"] + [f"\\\\HV01\\{c}" for c in PERFMON_COLUMNS]
    for _, values in PERFMON_ROWS:
        assert len(values) == len(PERFMON_COLUMNS), len(values)
    lines = [_pdh_line(header)] + [_pdh_line([t, *v]) for t, v in PERFMON_ROWS]
    # typeperf ends its output with two messages that are no rows.
    (HERE / "perfmon_hyperv_host.csv").write_text("\r\n".join(lines + ["Exiting, please wait...",
                                                                       "The command completed successfully."]) + "\r\n")
    tsv_header = ["(PDH-TSV 4.0) (Pacific Standard Time)(480)"] + header[1:]
    lines = [_pdh_line(tsv_header, "\t")] + [_pdh_line([t, *v], "\t") for t, v in PERFMON_ROWS]
    (HERE / "perfmon_relog.tsv").write_text("\r\n".join(lines) + "\r\n")


ESXTOP_COLUMNS = [
    r"Physical Cpu(0)\% Processor Time", r"Physical Cpu(0)\% Util Time", r"Physical Cpu(0)\% Core Util Time",
    r"Physical Cpu(1)\% Util Time", r"Physical Cpu(_Total)\% Util Time", r"Physical Cpu(_Total)\% Processor Time",
    r"Physical Cpu Load\Cpu Load (1 Minute Avg)",
    r"Group Cpu(1:system)\% Used", r"Group Cpu(2017:hostd.2099)\% Used",
    r"Group Cpu(1234:vm-sql (2))\Members", r"Group Cpu(1234:vm-sql (2))\% Used", r"Group Cpu(1234:vm-sql (2))\% Ready",
    r"Group Cpu(1234:vm-sql (2))\% Wait", r"Group Cpu(1234:vm-sql (2))\% CoStop",
    r"Vcpu(1234:vm-sql (2):1240:vmx-vcpu-0:vm-sql (2))\% Used",
    r"Vcpu(1234:vm-sql (2):1241:vmx-vcpu-1:vm-sql (2))\% Used",
    r"Physical Disk Adapter(vmhba2)\Commands/sec", r"Physical Disk Adapter(vmhba2)\Reads/sec",
    r"Physical Disk Adapter(vmhba2)\Writes/sec", r"Physical Disk Adapter(vmhba2)\MBytes Read/sec",
    r"Physical Disk Adapter(vmhba2)\MBytes Written/sec",
    r"Physical Disk Adapter(vmhba2)\Average Driver MilliSec/Command",
    r"Physical Disk Adapter(vmhba2)\Average Kernel MilliSec/Command",
    r"Physical Disk Adapter(vmhba2)\Average Guest MilliSec/Command",
    r"Physical Disk Adapter(vmhba2)\Average Queue MilliSec/Command",
    r"Physical Disk Adapter(vmhba2)\Average Guest MilliSec/Read",
    r"Physical Disk Adapter(vmhba2)\Average Driver MilliSec/Read",
    r"Physical Disk SCSI Device(naa.600508b1001c4d5e)\Reads/sec",
    r"Physical Disk SCSI Device(naa.600508b1001c4d5e)\Writes/sec",
    r"Physical Disk SCSI Device(naa.600508b1001c4d5e)\MBytes Read/sec",
    r"Physical Disk SCSI Device(naa.600508b1001c4d5e)\MBytes Written/sec",
    r"Virtual Disk(vm-sql (2))\Reads/sec", r"Virtual Disk(vm-sql (2):scsi0:1)\Reads/sec",
    r"Virtual Disk(vm-sql (2):scsi0:1)\Writes/sec", r"Virtual Disk(vm-sql (2):scsi0:1)\MBytes Read/sec",
    r"Virtual Disk(vm-sql (2):scsi0:1)\Average MilliSec/Read",
    r"Network Port(DvsPortset-0:50331650:vmnic0)\Packets Transmitted/sec",
    r"Network Port(DvsPortset-0:50331650:vmnic0)\MBits Transmitted/sec",
    r"Network Port(DvsPortset-0:50331650:vmnic0)\Packets Received/sec",
    r"Network Port(DvsPortset-0:50331650:vmnic0)\MBits Received/sec",
    r"Network Port(DvsPortset-0:50331650:vmnic0)\% Received Packets Dropped",
    r"Network Port(DvsPortset-0:50331662:vm-sql (2).eth0)\MBits Transmitted/sec",
    r"Network Port(DvsPortset-0:50331662:vm-sql (2).eth0)\MBits Received/sec",
    r"Memory\Free MBytes",
]
ESXTOP_ROWS = [
    ("05/15/2018 02:13:06", ["55.1", "48.2", "60.3", "30.5", "39.35", "45.0", "0.81", "3.5", "0.2",
                             "6", "150.4", "2.25", "240.1", "0.5", "80.2", "70.2",
                             "12000", "8000", "4000", "62.5", "31.25", "4.5", "0.25", "4.75", "0.1", "5.2", "4.9",
                             "7000", "3500", "54.6875", "27.34375",
                             "6000", "5900", "2950", "23.046875", "6.1",
                             "90000", "1080.5", "60000", "720.25", "0.5", "100.5", "200.25", "2048"]),
    ("05/15/2018 02:13:11", ["58.2", "50.6", "61.0", "33.0", "41.8", "47.5", "0.82", "3.6", "0.2",
                             "6", "180.0", "3.5", "210.0", "1.0", "90.0", "85.0",
                             "14000", "9000", "5000", "70.3125", "39.0625", "9.5", "3.25", "12.75", "2.9", "13.1", "9.8",
                             "8000", "4500", "62.5", "35.15625",
                             "7100", "7000", "3500", "27.34375", "13.3",
                             "95000", "1140.0", "62000", "744.0", "1.0", "110.0", "210.0", "2040"]),
    ("05/15/2018 02:13:16", ["60.0", "52.0", "62.0", "35.0", "43.5", "49.0", "0.83", "3.7", "0.3",
                             "6", "200.0", "4.0", "190.0", "1.5", "100.0", "100.0",
                             "15000", " ", " ", "75", "40", "10.0", "4.0", "14.0", "3.5", "14.5", "10.2",
                             "8500", "5000", "66.40625", "39.0625",
                             "7600", "7500", "3750", "29.296875", "14.0",
                             "99000", "1188.0", "64000", "768.0", "0", "115.0", "220.0", "2030"]),
]


def make_esxtop() -> None:
    header = ["(PDH-CSV 4.0) (UTC)(0)"] + [f"\\\\esx01.lab.local\\{c}" for c in ESXTOP_COLUMNS]
    for _, values in ESXTOP_ROWS:
        assert len(values) == len(ESXTOP_COLUMNS), len(values)
    lines = [_pdh_line(header)] + [_pdh_line([t, *v]) for t, v in ESXTOP_ROWS]
    (HERE / "esxtop_batch_vmhba_vm.csv").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    make_diskspd_xml()
    make_diskspd_text()
    make_vmfleet()
    make_fio_jsonplus()
    make_iometer()
    make_vmfleet_grid()
    make_fio_benchfio()
    make_iometer_specs()
    make_perfmon()
    make_esxtop()
