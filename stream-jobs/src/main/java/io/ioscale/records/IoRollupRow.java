package io.ioscale.records;


/**
 * One row of {@code io_samples_<grain>}: one source (run, step, host, VM, target, direction) in one window.
 * Version = samples merged (see {@link RollupRow}).
 */
public class IoRollupRow extends RollupRow {
    public static final String TABLE = "io_samples";

    public String host = "";
    public String vm = "";
    public String target = "";
    public String direction = "";
    public IoStats stats = new IoStats();

    public IoRollupRow() {}

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
        out.lowCardinality("host", host)
                .lowCardinality("vm", vm)
                .lowCardinality("target", target)
                .lowCardinality("direction", direction);
        stats.write(out);
    }

    @Override
    public String toString() {
        return table() + "(" + windowStartMs + ", " + runId + "/" + stepIndex + " " + host + "/" + vm + "/" + target
                + " " + direction + ", ops=" + stats.ops + ", samples=" + stats.samples + ")";
    }
}
