package io.ioscale.records;

import io.ioscale.sinks.RowFormat;

/**
 * One row of {@code io_samples_<grain>}: one source (run, step, host, VM, target, direction) in one window.
 * {@code version} = samples merged, so a re-fired window (late data) or a replay after a restart replaces the
 * row it extends in the ReplacingMergeTree rather than adding to it.
 */
public class IoRollup implements ResultRow {
    public static final String TABLE = "io_samples";

    public Grain grain = Grain.S1;
    public long windowStartMs;
    public long windowEndMs;
    public String runId = "";
    public int stepIndex;
    public String host = "";
    public String vm = "";
    public String target = "";
    public String direction = "";
    public IoStats stats = new IoStats();
    public long emittedAtMs;

    public IoRollup() {}

    public long version() {
        return stats.samples;
    }

    @Override
    public String table() {
        return grain.table(TABLE);
    }

    @Override
    public void write(RowFormat out) {
        out.beginRow()
                .dateTime64("window_start", windowStartMs)
                .dateTime64("window_end", windowEndMs)
                .lowCardinality("run_id", runId)
                .int32("step_index", stepIndex)
                .lowCardinality("host", host)
                .lowCardinality("vm", vm)
                .lowCardinality("target", target)
                .lowCardinality("direction", direction);
        stats.write(out);
        out.uint64("version", version()).dateTime64("emitted_at", emittedAtMs).endRow();
    }

    @Override
    public String toString() {
        return table() + "(" + windowStartMs + ", " + runId + "/" + stepIndex + " " + host + "/" + vm + "/" + target
                + " " + direction + ", ops=" + stats.ops + ", samples=" + stats.samples + ")";
    }
}
