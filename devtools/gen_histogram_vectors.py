"""Writes schema/histogram_vectors.tsv, the golden vectors of latency histogram scheme 1.

Both test suites read that one file: tests/unit/test_histogram.py (pytest) and
stream-jobs/src/test/java/io/ioscale/histogram/LatencyHistogramTest.java (JUnit).

Independence from the code under test: this module does NOT import ioscale.histogram. It rebuilds the
scheme from its prose definition -- 256 buckets of width 1, then groups of 128 buckets whose width
doubles from one group to the next, until the buckets cover [0, 2^40) ns -- as a table of lower bounds,
and finds a value's bucket by binary search in that table, where ioscale.histogram and
LatencyHistogram.java use shifts and bit lengths. Quantiles are recomputed from the written definition
over a plain dict of bucket counts, and the binary encoding by its own varint writer. Rows in
HAND_CHECKED were worked out by hand (the arithmetic is in the comments); the generator asserts that the
table agrees with every one of them before it writes anything.

Usage (from the repository root):
    python devtools/gen_histogram_vectors.py            # rewrite schema/histogram_vectors.tsv
    python devtools/gen_histogram_vectors.py --check    # exit 1 if the file differs from a fresh render
"""

from __future__ import annotations

import argparse
import bisect
import math
import sys
from pathlib import Path

# --- the scheme, restated from its prose definition (not from ioscale.histogram) -------------------------
EXACT_BUCKETS = 256            # values 0..255 each get their own bucket
GROUP_SIZE = 128               # after that, every 128 buckets the width doubles
RANGE_END_NS = 1 << 40         # buckets cover [0, 2^40); larger values clamp into the last bucket
INT64_MAX = (1 << 63) - 1
SCHEME_ID = 1
ENCODING_VERSION = 1


def _build_lowers() -> list[int]:
    lowers: list[int] = []
    lower, width = 0, 1
    while lower < RANGE_END_NS:
        lowers.append(lower)
        lower += width
        if len(lowers) >= EXACT_BUCKETS and (len(lowers) - EXACT_BUCKETS) % GROUP_SIZE == 0:
            width *= 2
    if lower != RANGE_END_NS:
        raise AssertionError(f"bucket table ends at {lower}, not 2^40")
    return lowers


LOWERS = _build_lowers()
LAST_INDEX = len(LOWERS) - 1


def ref_index(value_ns: int) -> int:
    if value_ns < 0:
        raise ValueError("negative value")
    if value_ns >= RANGE_END_NS:
        return LAST_INDEX
    return bisect.bisect_right(LOWERS, value_ns) - 1


def ref_bounds(index: int) -> tuple[int, int]:
    upper = LOWERS[index + 1] if index < LAST_INDEX else RANGE_END_NS
    return LOWERS[index], upper


def ref_representative(index: int) -> int:
    lower, upper = ref_bounds(index)
    return lower + (upper - lower) // 2


# (value_ns, index, lower_ns, upper_ns, representative_ns), worked out by hand:
HAND_CHECKED = [
    (0, 0, 0, 1, 0),
    (1, 1, 1, 2, 1),
    (127, 127, 127, 128, 127),
    (128, 128, 128, 129, 128),
    (255, 255, 255, 256, 255),
    # 256: 9 bits, shift e = 9 - 8 = 1, 256 >> 1 = 128, index 128*1 + 128 = 256, width 2^1
    (256, 256, 256, 258, 257),
    (257, 256, 256, 258, 257),
    (258, 257, 258, 260, 259),
    # 511: e = 1, 511 >> 1 = 255, index 128 + 255 = 383, lower 255 << 1 = 510
    (511, 383, 510, 512, 511),
    # 512: 10 bits, e = 2, 512 >> 2 = 128, index 256 + 128 = 384, width 4
    (512, 384, 512, 516, 514),
    # 1000: e = 2, 1000 >> 2 = 250, index 256 + 250 = 506, lower 250 * 4 = 1000
    (1000, 506, 1000, 1004, 1002),
    (1003, 506, 1000, 1004, 1002),
    (1004, 507, 1004, 1008, 1006),
    # 1 ms: 20 bits, e = 12, 10^6 >> 12 = 244, index 1536 + 244 = 1780, lower 244 * 4096 = 999424
    (1_000_000, 1780, 999_424, 1_003_520, 1_001_472),
    # 60 s: 36 bits, e = 28, 6e10 >> 28 = 223, index 3584 + 223 = 3807, lower 223 * 2^28, half width 2^27
    (60_000_000_000, 3807, 59_861_106_688, 60_129_542_144, 59_995_324_416),
    # 2^40 - 1: 40 bits, e = 32, >> 32 = 255, index 4096 + 255 = 4351 (the last), lower 255 * 2^32
    ((1 << 40) - 1, 4351, 1_095_216_660_480, 1_099_511_627_776, 1_097_364_144_128),
]


def _check_hand_rows() -> None:
    for value, index, lower, upper, rep in HAND_CHECKED:
        got = (ref_index(value), *ref_bounds(ref_index(value)), ref_representative(ref_index(value)))
        if got != (index, lower, upper, rep):
            raise AssertionError(f"reference table disagrees with hand-checked row for {value}: {got}")
    if LAST_INDEX != 4351:
        raise AssertionError(f"last index {LAST_INDEX}, expected 4351")


# --- reference histogram ---------------------------------------------------------------------------------
class RefHist:
    def __init__(self) -> None:
        self.buckets: dict[int, int] = {}
        self.count = 0
        self.sum_ns = 0
        self.min_ns = 0
        self.max_ns = 0
        self.overflow_count = 0

    def add(self, value_ns: int, count: int) -> None:
        if count == 0:
            return
        index = ref_index(value_ns)
        self.buckets[index] = self.buckets.get(index, 0) + count
        if value_ns >= RANGE_END_NS:
            self.overflow_count += count
        self.min_ns = value_ns if self.count == 0 else min(self.min_ns, value_ns)
        self.max_ns = value_ns if self.count == 0 else max(self.max_ns, value_ns)
        self.count += count
        self.sum_ns += value_ns * count

    def merged(self, other: RefHist) -> RefHist:
        out = RefHist()
        for h in (self, other):
            for index, count in h.buckets.items():
                out.buckets[index] = out.buckets.get(index, 0) + count
            out.overflow_count += h.overflow_count
            out.sum_ns += h.sum_ns
            if h.count:
                out.min_ns = h.min_ns if out.count == 0 else min(out.min_ns, h.min_ns)
                out.max_ns = h.max_ns if out.count == 0 else max(out.max_ns, h.max_ns)
            out.count += h.count
        return out

    def sparse(self) -> tuple[list[int], list[int]]:
        indexes = sorted(self.buckets)
        return indexes, [self.buckets[i] for i in indexes]


def ref_required_n(q: float) -> int:
    # The documented rule: ~10 samples beyond the quantile; min and max need one sample. The (1 - 1e-9)
    # factor absorbs the binary rounding of 1 - q (else p90 would need 101).
    if q == 0.0 or q == 1.0:
        return 1
    return math.ceil(10.0 / (1.0 - q) * (1.0 - 1e-9))


def ref_quantile(h: RefHist, q: float) -> tuple[int, int, bool, int]:
    """(value_ns, n, too_few_samples, required_n) by the written definition."""
    need = ref_required_n(q)
    if h.count < need:
        return h.max_ns, h.count, True, need
    if q == 0.0:
        return h.min_ns, h.count, False, need
    if q == 1.0:
        return h.max_ns, h.count, False, need
    rank = min(max(math.ceil(q * h.count), 1), h.count)
    seen = 0
    for index in sorted(h.buckets):
        seen += h.buckets[index]
        if seen >= rank:
            value = min(max(ref_representative(index), h.min_ns), h.max_ns)
            return value, h.count, False, need
    raise AssertionError("rank beyond count")


def _varint(out: bytearray, value: int) -> None:
    if value < 0 or value > INT64_MAX:
        raise ValueError(value)
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return


def ref_encode(h: RefHist) -> bytes:
    out = bytearray([ENCODING_VERSION])
    for field in (SCHEME_ID, h.sum_ns, h.min_ns, h.max_ns, h.overflow_count, len(h.buckets)):
        _varint(out, field)
    previous = 0
    for index, count in zip(*h.sparse()):
        _varint(out, index - previous)
        _varint(out, count)
        previous = index
    return bytes(out)


# --- vector content --------------------------------------------------------------------------------------
def bucket_values() -> list[int]:
    values = {0, 1, 2, 100, 127, 128, 129, 255, 256, 257, 258, 383, 384, 511, 512, 1000, 1001, 1003, 1004}
    for k in range(8, 41):
        values |= {(1 << k) - 1, 1 << k, (1 << k) + 1}
    for k in range(3, 11):
        values |= {10**k, 2 * 10**k, 5 * 10**k}
    values |= {60_000_000_000, (1 << 40) - 1, 1 << 40, (1 << 40) + 1, 1 << 50, 1 << 62, INT64_MAX}
    values |= {v for v, *_ in HAND_CHECKED}
    return sorted(values)


QS = ["0", "0.5", "0.9", "0.99", "0.999", "0.9999", "0.99999", "1"]

# name -> recipe. Values are chosen off round numbers so representatives differ from the values; the
# two "latency" sources put cumulative counts exactly on the ranks of p99..p99.999 (>= is tested, not >).
HISTS: list[tuple[str, str]] = [
    ("empty", "record:"),
    ("single", "record:1000"),
    ("edges", "record:0,1,127,128,129,255,256,257,1000,1001,1003,1004"),
    ("zero_counts", "record:7*0,100*5,5000*3,100*2"),
    ("hundred", "record:" + ",".join(str(v) for v in range(1, 101))),
    ("small_too_few", "record:3000,1000,2000"),
    ("clamp_to_min", "record:1003000*20"),
    ("clamp_to_max", "record:999500*20"),
    ("overflow", f"record:1000,{(1 << 40) - 1},{1 << 40},{1 << 50}"),
    ("int64_max", f"record:{INT64_MAX}"),
    ("boundary_n", "record:1000*999999,2000"),
    ("boundary_n_minus_1", "record:1000*999998,2000"),
    ("latency_a", "record:51234*400000,78901*300000,123457*200000,210987*90000,512345*9000,"
                  "2345678*900,9876543*90,19999999*10"),
    ("latency_b", "record:128085*200000,197252*150000,308642*100000,527467*45000,1280862*4500,"
                  "5864195*450,24691357*45,47000001*5"),
    ("a_plus_b", "merge:latency_a+latency_b"),
    ("b_plus_a", "merge:latency_b+latency_a"),
    ("empty_plus_single", "merge:empty+single"),
    ("overflow_plus_edges_plus_hundred", "merge:overflow+edges+hundred"),
]

# Inputs from_sparse must reject, with a fragment both languages put in the message.
# (indexes, counts, sum_ns, min_ns, max_ns, overflow_count, message fragment)
BAD_SPARSE = [
    ("1,2", "1", 0, 1, 2, 0, "differ in length"),
    ("5,3", "1,1", 8, 3, 5, 0, "not strictly ascending"),
    ("3,3", "1,1", 6, 3, 3, 0, "not strictly ascending"),
    ("4352", "1", 5, 5, 5, 0, "out of range"),
    ("-1", "1", 5, 5, 5, 0, "out of range"),
    ("3", "-1", 3, 3, 3, 0, "negative count"),
    ("", "", 5, 0, 0, 0, "empty histogram"),
    ("3,5", "1,1", 8, 5, 3, 0, "min_ns"),
    ("3", "1", 3, -3, 3, 0, "min_ns"),
    ("3", "1", -3, 3, 3, 0, "sum_ns"),
    ("3", "1", 3, 3, 3, 1, "overflow_count"),
    ("4351", "1", 1 << 41, 1 << 41, 1 << 41, 2, "overflow_count"),
    ("4351", "1", 1_097_364_144_128, 1_097_364_144_128, 1_097_364_144_128, 1, "overflow_count"),
]

# Encodings from_bytes must reject: (hex, message fragment).
BAD_BYTES = [
    ("", "truncated"),
    ("02010000000000", "unsupported encoding version"),
    ("01020000000000", "unsupported scheme"),
    ("010100000000", "truncated"),
    ("0101000000000000", "trailing bytes"),
    ("01010a050500010500", "zero count"),
    ("0101ffffffffffffffffff01", "varint"),
    ("0101808080808080808080", "varint"),
    ("01010000000001802201", "out of range"),            # bucket index 4352 (varint 80 22)
    ("01010a0505000205010001", "not strictly ascending"),  # second delta 0: a repeated index
]

REJECT_VALUES = [(-1, 1, "negative value"), (-(1 << 40), 1, "negative value"), (5, -1, "negative count")]
BAD_QS = ["-0.1", "1.5", "NaN"]
REQUIRED_N_QS = ["0", "0.25", "0.5", "0.9", "0.95", "0.99", "0.999", "0.9999", "0.99999", "0.999999", "1"]

HEADER = """\
# Golden vectors of ioscale latency histogram scheme 1 (log-linear, 7 sub-bucket bits, nanoseconds).
# Read by tests/unit/test_histogram.py (pytest) and
# stream-jobs/src/test/java/io/ioscale/histogram/LatencyHistogramTest.java (JUnit); never retype them.
# Written by devtools/gen_histogram_vectors.py from an independent reference (a table of
# bucket bounds searched by bisection, not ioscale.histogram); do not edit by hand, rerun the generator.
#
# Format: UTF-8 text, one vector per line, fields separated by a single TAB. Lines starting with '#' and
# empty lines are ignored. Field 1 names the kind of vector. Lists are comma-separated, an empty field is an
# empty list. Booleans are 0/1. Quantile levels are decimal strings parsed to binary64 by each language.
#
# bucket      value_ns  index  lower_ns  upper_ns  representative_ns  overflow
#             record(value_ns) lands in bucket `index` = [lower_ns, upper_ns); overflow=1 when
#             value_ns > MAX_TRACKABLE_NS (2^40 - 1) and the value was clamped into the last bucket.
# reject      value_ns  count  message_fragment
#             record(value_ns, count) must fail with an error whose message contains the fragment.
# hist        name  recipe  indexes  counts  count  sum_ns  min_ns  max_ns  overflow_count  encoding_hex
#             recipe "record:v,v*c,..." records v (count c, default 1) in order into a new histogram;
#             recipe "merge:a+b+..." merges copies of earlier hist rows, left to right. Expected:
#             to_sparse() = (indexes, counts), the exact statistics, and to_bytes() as lowercase hex.
# quantile    name  q  value_ns  n  too_few_samples  required_n
#             quantile(q) of hist `name`.
# required_n  q  required_n
# bad_q       q             quantile(q) must fail (q outside [0, 1] or NaN).
# bad_sparse  indexes  counts  sum_ns  min_ns  max_ns  overflow_count  message_fragment
#             from_sparse(...) must fail with an error whose message contains the fragment.
# bad_bytes   encoding_hex  message_fragment
#             from_bytes(...) must fail with an error whose message contains the fragment.
"""


def _join(values: list[int]) -> str:
    return ",".join(str(v) for v in values)


def _run_recipe(recipe: str, built: dict[str, RefHist]) -> RefHist:
    kind, _, body = recipe.partition(":")
    if kind == "merge":
        out = RefHist()
        for name in body.split("+"):
            out = out.merged(built[name])
        return out
    if kind != "record":
        raise ValueError(recipe)
    h = RefHist()
    for item in filter(None, body.split(",")):
        value, _, count = item.partition("*")
        h.add(int(value), int(count) if count else 1)
    return h


def render() -> str:
    _check_hand_rows()
    lines = [HEADER]
    lines.append("# --- bucket: value -> bucket")
    for value in bucket_values():
        index = ref_index(value)
        lower, upper = ref_bounds(index)
        overflow = int(value >= RANGE_END_NS)
        lines.append(f"bucket\t{value}\t{index}\t{lower}\t{upper}\t{ref_representative(index)}\t{overflow}")
    lines.append("# --- reject: values and counts record() refuses")
    lines.extend(f"reject\t{v}\t{c}\t{msg}" for v, c, msg in REJECT_VALUES)
    lines.append("# --- hist: recorded or merged histograms -> sparse buckets, statistics, encoding")
    built: dict[str, RefHist] = {}
    for name, recipe in HISTS:
        h = built[name] = _run_recipe(recipe, built)
        indexes, counts = h.sparse()
        lines.append("\t".join([
            "hist", name, recipe, _join(indexes), _join(counts), str(h.count), str(h.sum_ns),
            str(h.min_ns), str(h.max_ns), str(h.overflow_count), ref_encode(h).hex(),
        ]))
    lines.append("# --- quantile: quantile(q) of each hist")
    for name, _ in HISTS:
        for q in QS:
            value, n, too_few, need = ref_quantile(built[name], float(q))
            lines.append(f"quantile\t{name}\t{q}\t{value}\t{n}\t{int(too_few)}\t{need}")
    lines.append("# --- required_n: samples needed before quantile(q) is reported rather than the max")
    lines.extend(f"required_n\t{q}\t{ref_required_n(float(q))}" for q in REQUIRED_N_QS)
    lines.append("# --- bad_q, bad_sparse, bad_bytes: inputs that must be rejected")
    lines.extend(f"bad_q\t{q}" for q in BAD_QS)
    for row in BAD_SPARSE:
        lines.append("bad_sparse\t" + "\t".join(str(f) for f in row))
    lines.extend(f"bad_bytes\t{hexa}\t{msg}" for hexa, msg in BAD_BYTES)
    return "\n".join(lines) + "\n"


def default_path() -> Path:
    return Path(__file__).resolve().parents[1] / "schema" / "histogram_vectors.tsv"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=default_path())
    parser.add_argument("--check", action="store_true", help="compare instead of writing; exit 1 on a difference")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = args.path.read_text(encoding="utf-8") if args.path.exists() else ""
        if current != text:
            print(f"{args.path} is stale: rerun python devtools/gen_histogram_vectors.py", file=sys.stderr)
            return 1
        return 0
    args.path.write_text(text, encoding="utf-8")
    print(f"wrote {args.path} ({text.count(chr(10))} lines)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
