package io.ioscale.records;


/**
 * A row of a rollup table {@code <table>_<grain>} (io_samples, io_fleet, cpu_samples, port_samples): one key of
 * one (run, step) in one event-time window. Every such table starts with {@code window_start, window_end, run_id,
 * step_index} and ends with {@code version, emitted_at}; a subclass writes the columns in between.
 *
 * <p>{@code version} = samples merged, which only grows as a window takes in late data: a re-fired window, or a
 * window replayed after a restart, writes the same identity again and ReplacingMergeTree keeps the newest.
 */
public abstract class RollupRow implements ResultRow {
    public Grain grain = Grain.S1;
    public long windowStartMs;
    public long windowEndMs;
    public String runId = "";
    public int stepIndex;
    public long emittedAtMs;
    /**
     * Emitted before the watermark closed the window (early firing, for freshness): the row so far. Not a column:
     * the final row has the same identity and a version at least as large. Consumers that judge whole seconds
     * (the step analyzer) take final rows only.
     */
    public boolean provisional;

    /** Table name without the grain suffix, e.g. {@code io_samples}. */
    protected abstract String baseTable();

    /** The ReplacingMergeTree version: samples merged into the row. */
    public abstract long version();

    /** The columns between {@code step_index} and {@code version}, in table order. */
    protected abstract void writeColumns(RowFormat out);

    /** Sets the window and (run, step) of the row and stamps it with the time it is made. */
    public void setWindow(Grain g, long startMs, String run, int step) {
        grain = g;
        windowStartMs = startMs;
        windowEndMs = startMs + g.windowMs();
        runId = run;
        stepIndex = step;
        emittedAtMs = System.currentTimeMillis();
    }

    @Override
    public String table() {
        return grain.table(baseTable());
    }

    @Override
    public final void write(RowFormat out) {
        out.beginRow()
                .dateTime64("window_start", windowStartMs)
                .dateTime64("window_end", windowEndMs)
                .lowCardinality("run_id", runId)
                .int32("step_index", stepIndex);
        writeColumns(out);
        out.uint64("version", version()).dateTime64("emitted_at", emittedAtMs).endRow();
    }
}
