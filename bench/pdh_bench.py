"""Streaming import of an esxtop-sized PDH CSV: MB/s parsed and peak RSS.

Run: .ioscale/venv/bin/python bench/pdh_bench.py [--mb 200] [--keep FILE]
Writes an esxtop -a -b like file (one host: 128 PCPUs, 400 VMs with 4 vCPUs, 8 vmhbas, 200 LUNs, 400 virtual disks,
420 network ports, plus Group Memory columns no mapping reads: ~40k columns, ~330 KB a row) into a temporary
directory, then imports it in a child process (so the peak RSS is the import's alone): once through the PDH
reader only, once through ``ioscale.importers.stream_import`` with a sink that counts records (no Kafka).
Rows repeat 8 random value templates under fresh timestamps: parsing costs the same as for all-random rows.
The last line is the headline: MB/s of the full import. Takes ~20-40 s on the project's 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ingest" / "src"))

HOST = "\\\\esx01.bench.local\\"


def columns() -> list[str]:
    cols = []
    for cpu in [*map(str, range(128)), "_Total"]:
        cols += [f"Physical Cpu({cpu})\\{c}" for c in ("% Processor Time", "% Util Time", "% Core Util Time")]
    group_counters = ("Members", "% Used", "% Run", "% System", "% Wait", "% VmWait", "% Ready", "% Idle", "% Overlap",
                      "% CoStop", "% Max Limited", "% Swap Wait")
    for vm in range(400):
        gid = 100000 + vm
        cols += [f"Group Cpu({gid}:vm-{vm:03d})\\{c}" for c in group_counters]
        for k in range(4):
            cols += [f"Vcpu({gid}:vm-{vm:03d}:{gid + 10 + k}:vmx-vcpu-{k}:vm-{vm:03d})\\{c}"
                     for c in group_counters[1:]]
        cols += [f"Group Memory({gid}:vm-{vm:03d})\\{c}" for c in ("Members", "Memory Size MBytes", "Touched MBytes",
                                                                   "Swapped MBytes", "Zipped MBytes")]
    dev = ("Commands/sec", "Reads/sec", "Writes/sec", "MBytes Read/sec", "MBytes Written/sec",
           "Average Driver MilliSec/Command", "Average Kernel MilliSec/Command", "Average Guest MilliSec/Command",
           "Average Queue MilliSec/Command", "Average Driver MilliSec/Read", "Average Kernel MilliSec/Read",
           "Average Guest MilliSec/Read", "Average Queue MilliSec/Read", "Average Driver MilliSec/Write",
           "Average Kernel MilliSec/Write", "Average Guest MilliSec/Write", "Average Queue MilliSec/Write",
           "Failed Commands/sec", "Failed Reads/sec", "Failed Writes/sec")
    cols += [f"Physical Disk Adapter(vmhba{n})\\{c}" for n in range(8) for c in dev]
    cols += [f"Physical Disk SCSI Device(naa.6000c29{n:09x})\\{c}" for n in range(200) for c in dev]
    cols += [f"Virtual Disk(vm-{vm:03d}:scsi0:0)\\{c}" for vm in range(400)
             for c in ("Commands/sec", "Reads/sec", "Writes/sec", "MBytes Read/sec", "MBytes Written/sec",
                       "Average MilliSec/Read", "Average MilliSec/Write", "Average MilliSec/Command")]
    port = ("Packets Transmitted/sec", "MBits Transmitted/sec", "Packets Received/sec", "MBits Received/sec",
            "% Outbound Packets Dropped", "% Received Packets Dropped", "Multicast Packets Transmitted/sec",
            "Multicast Packets Received/sec", "Broadcast Packets Transmitted/sec", "Broadcast Packets Received/sec")
    clients = [f"vmnic{n}" for n in range(4)] + [f"vmk{n}" for n in range(16)] + [f"vm-{vm:03d}.eth0" for vm in range(400)]
    cols += [f"Network Port(DvsPortset-0:{50331650 + i}:{c})\\{k}" for i, c in enumerate(clients) for k in port]
    return cols


def generate(path: Path, mb: int, seed: int = 7) -> tuple[int, int]:
    rng = random.Random(seed)
    cols = columns()
    header = ",".join(f'"{c}"' for c in ["(PDH-CSV 4.0) (UTC)(0)"] + [HOST + c for c in cols]) + "\r\n"
    templates = [",".join(f'"{rng.uniform(0, 99):.2f}"' for _ in cols) + "\r\n" for _ in range(8)]
    target = mb * 1_000_000
    rows = 0
    t0 = 1_700_000_000
    with open(path, "w", newline="") as f:
        f.write(header)
        size = len(header)
        while size < target:
            ts = time.strftime("%m/%d/%Y %H:%M:%S", time.gmtime(t0 + 5 * rows))
            line = f'"{ts}",' + templates[rows % 8]
            f.write(line)
            size += len(line)
            rows += 1
    return len(cols), rows


def parse(path: str, mode: str) -> dict:
    from ioscale.importers import stream_import
    from ioscale.importers.common import ImportIssue
    from ioscale.importers.pdh import IssueBudget, file_lines, read_pdh

    start = time.perf_counter()
    counts: dict[str, int] = {}
    if mode == "reader":
        errs: list[ImportIssue] = []
        with open(path, "rb") as f:
            _, rows = read_pdh(file_lines(f), IssueBudget(path, errs))
            counts["rows"] = sum(1 for _ in rows)
    else:
        def sink(topic: str, _rec: dict) -> None:
            counts[topic] = counts.get(topic, 0) + 1
        r = stream_import("esxtop", Path(path), sink, now_ms=2_000_000_000_000)
        counts["errors"] = sum(1 for i in r.errors if i.severity == "error")
        counts["rows"] = r.stats.rows
    elapsed = time.perf_counter() - start
    return {"mode": mode, "seconds": round(elapsed, 2), "records": counts,
            "mb_per_s": round(os.path.getsize(path) / 1e6 / elapsed, 1)}


def run_child(path: Path, mode: str) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    out = subprocess.run([sys.executable, __file__, "--parse", str(path), "--mode", mode], check=True,
                         capture_output=True, text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    res = json.loads(out)
    # ru_maxrss of children is the largest child so far (KiB on Linux): the reader-only child runs first and is smaller.
    res["peak_rss_mib"] = round(max(after, before) / 1024, 1)
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=200, help="file size to generate, 10^6 bytes (default 200)")
    ap.add_argument("--keep", help="write the file here and keep it")
    ap.add_argument("--parse", help=argparse.SUPPRESS)
    ap.add_argument("--mode", default="import", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.parse:
        print(json.dumps(parse(args.parse, args.mode)))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.keep) if args.keep else Path(tmp) / "esxtop_bench.csv"
        t = time.perf_counter()
        ncols, nrows = generate(path, args.mb)
        size = path.stat().st_size
        print(f"generated {size / 1e6:.0f} MB: {ncols} columns x {nrows} rows in {time.perf_counter() - t:.1f} s")
        reader = run_child(path, "reader")
        print(f"PDH reader only: {reader['mb_per_s']} MB/s ({reader['seconds']} s), peak RSS {reader['peak_rss_mib']} MiB")
        full = run_child(path, "import")
        recs = sum(v for k, v in full["records"].items() if k.startswith("ioscale."))
        print(f"esxtop import: {recs} records ({full['records']}), peak RSS {full['peak_rss_mib']} MiB")
        print(f"headline: {full['mb_per_s']} MB/s parsed (esxtop import, {size / 1e6:.0f} MB, {ncols} columns)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
