package io.ioscale.records;


/**
 * One row of {@code io_fleet_<grain>}: every source of one (run, step), reads and writes together, in one window.
 * The histogram is the merge of all the window's samples (equal to the histogram of every I/O), never a mean of
 * per-VM percentiles. Version = samples merged (see {@link RollupRow}).
 */
public class FleetRollupRow extends RollupRow {
    public static final String TABLE = "io_fleet";

    /** Distinct (host, VM, target) sources seen in the window. */
    public long sources;
    public IoStats stats = new IoStats();

    public FleetRollupRow() {}

    @Override
    protected String baseTable() {
        return TABLE;
    }

    @Override
    public long version() {
        return stats.samples;
    }

    @Override
    protected void writeColumns(RowFormat out) {
        out.uint32("sources", sources)
                .uint64("read_ops", stats.readOps)
                .uint64("write_ops", stats.writeOps)
                .uint64("read_bytes", stats.readBytes)
                .uint64("write_bytes", stats.writeBytes);
        stats.write(out);
    }

    @Override
    public String toString() {
        return table() + "(" + windowStartMs + ", " + runId + "/" + stepIndex + ", ops=" + stats.ops + ", samples="
                + stats.samples + ")";
    }
}
