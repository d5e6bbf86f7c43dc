package io.ioscale.records;

import io.ioscale.sinks.RowFormat;

/**
 * One row of {@code io_fleet_<grain>}: every source of one (run, step), reads and writes together, in one window.
 * The histogram is the merge of all the window's samples (equal to the histogram of every I/O), never a mean of
 * per-VM percentiles. Version = samples merged (see {@link IoRollup}).
 */
public class FleetRollup implements ResultRow {
    public static final String TABLE = "io_fleet";

    public Grain grain = Grain.S1;
    public long windowStartMs;
    public long windowEndMs;
    public String runId = "";
    public int stepIndex;
    /** Distinct (host, VM, target) sources seen in the window. */
    public long sources;
    public IoStats stats = new IoStats();
    public long emittedAtMs;

    public FleetRollup() {}

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
                .uint32("sources", sources)
                .uint64("read_ops", stats.readOps)
                .uint64("write_ops", stats.writeOps)
                .uint64("read_bytes", stats.readBytes)
                .uint64("write_bytes", stats.writeBytes);
        stats.write(out);
        out.uint64("version", version()).dateTime64("emitted_at", emittedAtMs).endRow();
    }

    @Override
    public String toString() {
        return table() + "(" + windowStartMs + ", " + runId + "/" + stepIndex + ", ops=" + stats.ops + ", samples="
                + stats.samples + ")";
    }
}
