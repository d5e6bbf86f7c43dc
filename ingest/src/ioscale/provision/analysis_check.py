"""After `ioscale analyze RUN`: do the result tables hold every raw I/O sample of the run, once?

A replay that finishes can still have lost records (a source's first seconds counted as too late) or doubled
some, and its rows look plausible either way. So, per result table and step, the samples and ops the rows hold
are compared with what the raw samples of the run say they should be (the named query ``analysis_counts``:
what each table should hold, and why, is written there). Any difference is reported by table, step and amount,
and the command fails with its own exit status.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ioscale.errors import ExitStatus, IoscaleError

#: The I/O result tables the check covers, in the order it reports them.
RESULT_TABLES = ("io_samples_1s", "io_samples_10s", "io_samples_1m", "io_fleet_1s", "io_fleet_10s", "io_fleet_1m",
                 "scaling_curves")
QUERY = "analysis_counts"
#: What scaling_curves counts is not the step's every sample, so the totals come from a rollup.
_TOTALS_FROM = "io_samples_1s"


@dataclass(frozen=True)
class Counts:
    samples: int
    ops: int


NONE = Counts(0, 0)


@dataclass(frozen=True)
class Mismatch:
    """One measure of one (table, step) that differs; None: that side has no row for the step."""

    table: str
    step_index: int
    measure: str              # "samples" | "ops"
    expected: int | None
    got: int | None

    @property
    def difference(self) -> int:
        return (self.got or 0) - (self.expected or 0)


@dataclass(frozen=True)
class CheckResult:
    run_id: str
    tables: int
    steps: int
    samples: int              # raw samples of the run
    ops: int
    mismatches: tuple[Mismatch, ...]

    @property
    def ok(self) -> bool:
        return not self.mismatches


Key = tuple[str, int]


def compare(expected: Mapping[Key, Counts], got: Mapping[Key, Counts]) -> list[Mismatch]:
    """Every (table, step, measure) where got differs from expected, ordered by RESULT_TABLES then step.

    A key on one side only compares against zero counts (a rollup with no row for a step holds 0 samples), and
    its missing side is reported as None."""
    order = {t: i for i, t in enumerate(RESULT_TABLES)}
    out: list[Mismatch] = []
    for key in sorted(set(expected) | set(got), key=lambda k: (order.get(k[0], len(order)), k[0], k[1])):
        e, g = expected.get(key), got.get(key)
        for measure in ("samples", "ops"):
            want, have = getattr(e or NONE, measure), getattr(g or NONE, measure)
            if want != have:
                out.append(Mismatch(key[0], key[1], measure, None if e is None else want, None if g is None else have))
    return out


def split_rows(rows: Iterable[Sequence[Any]]) -> tuple[dict[Key, Counts], dict[Key, Counts]]:
    """``analysis_counts`` rows (table, step, expected samples, expected ops, got samples, got ops; NULL where a
    side has no row) as the two sides' counts."""
    expected: dict[Key, Counts] = {}
    got: dict[Key, Counts] = {}
    for table, step, e_samples, e_ops, g_samples, g_ops in rows:
        key = (str(table), int(step))
        if e_samples is not None:
            expected[key] = Counts(int(e_samples), int(e_ops or 0))
        if g_samples is not None:
            got[key] = Counts(int(g_samples), int(g_ops or 0))
    return expected, got


def summarize(run_id: str, expected: Mapping[Key, Counts], got: Mapping[Key, Counts]) -> CheckResult:
    raw = [c for (table, _), c in expected.items() if table == _TOTALS_FROM]
    if not raw:  # a network test: no I/O rollups, its step rows count the whole-port samples
        raw = [c for (table, _), c in expected.items() if table == "scaling_curves"]
    steps = {step for _, step in expected} | {step for _, step in got}
    return CheckResult(run_id, len(RESULT_TABLES), len(steps), sum(c.samples for c in raw), sum(c.ops for c in raw),
                       tuple(compare(expected, got)))


def check(ch: Any, run_id: str) -> CheckResult:
    """Run the comparison on ClickHouse (any account that reads the ioscale database)."""
    from ioscale.query import bind, execute, load

    query = load(QUERY)
    expected, got = split_rows(execute(query, bind(query, {"run_id": run_id}), ch).rows)
    if not expected and not got:
        raise IoscaleError(f"ClickHouse holds no I/O or port samples of run {run_id!r}",
                           "check the run id with `ioscale sql run_list`")
    return summarize(run_id, expected, got)


# --- reporting -------------------------------------------------------------------------------------------
class ResultCheckError(IoscaleError):
    """The result tables disagree with the raw tables: the analysis is incomplete (or doubled)."""

    exit_status = ExitStatus.RESULTS_DIFFER


def passed_line(result: CheckResult) -> str:
    return (f"checked {result.tables} tables x {result.steps} step{'s' if result.steps != 1 else ''}: "
            f"{result.samples:,} samples, {result.ops:,} ops, equal to the raw tables")


def mismatch_table(mismatches: Sequence[Mismatch]) -> str:
    """Fixed-width, numbers right-aligned; a side without a row reads 'no row'."""
    head = ("table", "step", "what", "expected", "got", "difference")
    rows = [(m.table, str(m.step_index), m.measure, _count(m.expected), _count(m.got), f"{m.difference:+,}")
            for m in mismatches]
    widths = [max(len(r[i]) for r in (head, *rows)) for i in range(len(head))]
    left = (True, False, True, False, False, False)
    return "\n".join("  ".join(v.ljust(w) if lj else v.rjust(w) for v, w, lj in zip(r, widths, left)).rstrip()
                     for r in (head, *rows))


def _count(n: int | None) -> str:
    return "no row" if n is None else f"{n:,}"


def failure(result: CheckResult) -> ResultCheckError:
    cells = {(m.table, m.step_index) for m in result.mismatches}
    tables = sorted({t for t, _ in cells}, key=RESULT_TABLES.index)
    message = (f"the analysis of {result.run_id} does not account for every raw I/O sample: "
               f"{len(cells)} (table, step) pair{'s' if len(cells) != 1 else ''} in {', '.join(tables)} "
               f"differ{'s' if len(cells) == 1 else ''} from the raw tables ({result.samples:,} samples, "
               f"{result.ops:,} ops)\n"
               + mismatch_table(result.mismatches))
    hint = (f"re-run `ioscale analyze {result.run_id}` (the replay rewrites the rows); if the raw tables were "
            f"still filling, wait until `ioscale sql run_ingest_status -p run_id={result.run_id}` stops moving. "
            f"To look again: `ioscale analyze {result.run_id} --check-only` or `ioscale sql {QUERY} -p "
            f"run_id={result.run_id}`. Samples the replay dropped as too late are counted in its job's "
            f"accumulators too-late.<table> (Flink UI, address in `ioscale stack status`)")
    return ResultCheckError(message, hint)
