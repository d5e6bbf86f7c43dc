"""Where ClickHouse's CPU goes on the raw path, per I/O sample: Avro parsing, each view of the Kafka queue, the
io_samples insert and each view on io_samples, measured one at a time on copies of the live definitions.

    .ioscale/venv/bin/python bench/raw_path_bench.py                  # 20k samples of ~180 buckets, 5 rounds
    .ioscale/venv/bin/python bench/raw_path_bench.py --latencies 20   # the simulator's ~19 buckets

Needs the running stack (`ioscale stack up`). Works in a scratch database (bench_raw_path, dropped at the end):
its tables and views are made from the live ones' CREATE statements (system.tables), so the figures follow the
migrations applied. The queue is a Null table with the Kafka engine's virtual columns as ordinary ones, filled
by an HTTP insert in the AvroConfluent format with the stack's schema registry, as the engine parses a message.
Each figure is the insert's CPU (ProfileEvents User + System time from system.query_log) per sample; the cases
run in turn, round after round, and the least of the rounds is shown (the least disturbed by the shared
machine). Merges are not included (see pipeline_bench.py for the whole stack, merges and all).

The last line is the headline: the raw path's CPU per sample, the views included, against the issue's share of
the stack target for ClickHouse (20 us per sample, rollup inserts and merges included).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import uuid
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pipeline_bench import SampleFactory  # noqa: E402

from ioscale.stack.clickhouse import client, user_and_password  # noqa: E402
from ioscale.stack.settings import StackSettings, load_secrets  # noqa: E402
from ioscale.wire import topics  # noqa: E402
from ioscale.wire.producer import TelemetryProducer  # noqa: E402

DB = "bench_raw_path"
TARGET_US = 20.0
#: The Kafka engine's virtual columns the queue's views read, as ordinary columns of the Null stand-in.
VIRTUALS = ("_topic String DEFAULT 'ioscale.io_samples'", "_partition UInt64", "_offset UInt64",
            "_error String", "_raw_message String")


def live_ddl(ch, name: str) -> str:
    ddl = ch.query("SELECT create_table_query FROM system.tables WHERE database = 'ioscale' AND name = {n:String}",
                   parameters={"n": name}).result_rows
    if not ddl:
        raise SystemExit(f"ioscale.{name} does not exist: run `ioscale stack up` first")
    return ddl[0][0].replace("ioscale.", f"{DB}.")


def views_of(ch, table: str) -> list[str]:
    """The materialized views that read ``table``."""
    return sorted(ch.query("SELECT dependencies_table FROM system.tables WHERE database = 'ioscale' AND name = {t:String}",
                           parameters={"t": table}).result_rows[0][0])


def retarget(view_ddl: str, source: str, new_source: str, target: str, new_target: str, name: str, new_name: str) -> str:
    ddl = view_ddl.replace(f"{DB}.{name}", f"{DB}.{new_name}", 1)
    ddl = re.sub(rf"\bTO {DB}\.{target}\b", f"TO {DB}.{new_target}", ddl, count=1)
    # aliased with the source's name: the rule fragments qualify their columns with it
    return re.sub(rf"\bFROM {DB}\.{source}\b", f"FROM {DB}.{new_source} AS {source}", ddl)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--samples", type=int, default=20_000, help="samples per insert (default 20k: a few Kafka blocks)")
    p.add_argument("--latencies", type=int, default=400,
                   help="I/Os per sample histogram: 400 gives ~180 buckets (default, fio-like), 20 the simulator's ~19")
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args()
    settings = StackSettings.from_env()
    secrets = load_secrets(settings)
    factory = SampleFactory(f"bench-raw-{uuid.uuid4().hex[:8]}", args.samples, latencies=args.latencies)
    encoder = TelemetryProducer(settings.kafka_bootstrap, settings.url("registry")).encoder(topics.IO_SAMPLES)
    frames = b"".join(encoder.encode(factory.sample(i, 1_700_000_000_000)) for i in range(args.samples))
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; {args.samples:,} samples of "
          f"{factory.mean_buckets():.0f} buckets, {len(frames) / args.samples:.0f} B of Avro each", flush=True)
    http = requests.Session()
    http.auth = user_and_password(secrets, "admin")
    url = settings.url("clickhouse_http")

    def avro_insert(table: str, query_id: str) -> None:
        q = (f"INSERT INTO {DB}.{table} SETTINGS format_avro_schema_registry_url = '{settings.url('registry')}', "
             "async_insert = 0, input_format_avro_allow_missing_fields = 1 FORMAT AvroConfluent")
        r = http.post(url, params={"query": q, "query_id": query_id}, data=frames, timeout=600)
        if r.status_code != 200:
            raise SystemExit(f"insert into {table} failed: {r.text[:500]}")

    with client(settings, secrets, "admin") as ch:
        ch.command(f"DROP DATABASE IF EXISTS {DB}")
        ch.command(f"CREATE DATABASE {DB}")
        try:
            cases: dict[str, object] = {}
            # The queue as a Null table with the engine's virtual columns; parsing alone, then each queue view
            # writing to a Null copy of its target.
            queue = live_ddl(ch, "io_samples_queue")
            columns = queue[queue.index("(") + 1:queue.rindex(")", 0, queue.index("ENGINE"))]
            ch.command(f"CREATE TABLE {DB}.queue_parse ({columns}, {', '.join(VIRTUALS)}) ENGINE = Null")
            cases["parse AvroConfluent"] = lambda q: avro_insert("queue_parse", q)
            for view in views_of(ch, "io_samples_queue"):
                ddl = live_ddl(ch, view)
                target = re.search(rf"\bTO {DB}\.(\w+)", ddl).group(1)
                ch.command(f"CREATE TABLE IF NOT EXISTS {DB}.{target}_null AS ioscale.{target} ENGINE = Null")
                ch.command(f"CREATE TABLE {DB}.queue_{view} AS {DB}.queue_parse")
                ch.command(retarget(ddl, "io_samples_queue", f"queue_{view}", target, f"{target}_null", view, f"v_{view}"))
                cases[f"parse + {view}"] = (lambda t: lambda q: avro_insert(t, q))(f"queue_{view}")
            # io_samples: the insert alone, then with each of its views (writing to a real copy of its target).
            ch.command(live_ddl(ch, "io_samples").replace(f"{DB}.io_samples", f"{DB}.src", 1)
                       .split("ENGINE")[0] + "ENGINE = Memory")
            ch.command(f"CREATE TABLE {DB}.src_queue AS {DB}.queue_parse ENGINE = Memory")
            avro_insert("src_queue", f"bench-raw-fill-{uuid.uuid4().hex[:8]}")
            main_view = live_ddl(ch, "io_samples_mv")
            select = main_view[main_view.index(" AS ", main_view.index("TO ")) + 4:]
            ch.command(f"INSERT INTO {DB}.src SELECT *, now64(3) FROM ({select.replace(f'{DB}.io_samples_queue', f'{DB}.src_queue AS io_samples_queue')})",
                       settings={"async_insert": 0})
            held = ch.query(f"SELECT count() FROM {DB}.src").result_rows[0][0]
            if held != args.samples:
                raise SystemExit(f"io_samples_mv kept {held} of {args.samples} samples: the samples break a rule")
            raw = live_ddl(ch, "io_samples")

            def insert(table: str):
                return lambda q: ch.command(f"INSERT INTO {DB}.{table} SELECT * FROM {DB}.src",
                                            settings={"query_id": q, "async_insert": 0})
            ch.command(raw.replace(f"{DB}.io_samples", f"{DB}.raw_plain", 1))
            cases["insert io_samples"] = insert("raw_plain")
            for view in views_of(ch, "io_samples"):
                ddl = live_ddl(ch, view)
                target = re.search(rf"\bTO {DB}\.(\w+)", ddl).group(1)
                ch.command(live_ddl(ch, target).replace(f"{DB}.{target}", f"{DB}.{target}_{view}", 1))
                ch.command(raw.replace(f"{DB}.io_samples", f"{DB}.raw_{view}", 1))
                ch.command(retarget(ddl, "io_samples", f"raw_{view}", target, f"{target}_{view}", view, f"v_{view}"))
                cases[f"insert io_samples + {view}"] = insert(f"raw_{view}")
            ids: dict[str, list[str]] = {name: [] for name in cases}
            for r in range(args.rounds):
                for name, run in cases.items():
                    qid = f"bench-raw-{uuid.uuid4().hex[:12]}"
                    run(qid)
                    ids[name].append(qid)
                print(f"  round {r + 1}/{args.rounds} done", flush=True)
            ch.command("SYSTEM FLUSH LOGS")
            best: dict[str, float] = {}
            for name, qids in ids.items():
                cpu = [row[0] for row in ch.query(
                    "SELECT ProfileEvents['UserTimeMicroseconds'] + ProfileEvents['SystemTimeMicroseconds'] "
                    "FROM system.query_log WHERE type = 'QueryFinish' AND query_id IN {q:Array(String)}",
                    parameters={"q": qids}).result_rows]
                best[name] = min(cpu) / args.samples
        finally:
            ch.command(f"DROP DATABASE IF EXISTS {DB}")
    parse = best["parse AvroConfluent"]
    plain = best["insert io_samples"]
    print("\nCPU per sample (least of the rounds), and what each part adds:")
    total = parse + plain
    for name, us in best.items():
        if name.startswith("parse + "):
            part = us - parse
        elif name.startswith("insert io_samples + "):
            part = us - plain
        else:
            part = us
        if name not in ("parse AvroConfluent", "insert io_samples"):
            total += part
        print(f"  {name:<48} {us:7.1f} us   adds {part:6.1f} us")
    print(f"\nraw path CPU per sample: {total:.1f} us (parse {parse:.1f}, io_samples insert {plain:.1f}, views "
          f"{total - parse - plain:.1f}; {factory.mean_buckets():.0f} buckets); ratio to the {TARGET_US:.0f} us "
          f"ClickHouse target: {total / TARGET_US:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
