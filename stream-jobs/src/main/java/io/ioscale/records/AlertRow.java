package io.ioscale.records;


/**
 * A saturation or SLO-breach event: one row of {@code alerts} and, as the same JSON object, one message on the
 * Kafka topic {@code ioscale.alerts} (key = {@link #alertId}).
 *
 * <p>{@code alert_id} is deterministic: {@code <run_id>/<step>/<kind>/<phase>/<resource>}. A step re-evaluated
 * with late data, or a replay after a restart, re-sends the same id: the table (ReplacingMergeTree on that
 * identity, version = samples behind the verdict) keeps one row, and Kafka consumers de-duplicate on the key.
 * {@code phase} is {@code live} (raised while the step runs, as soon as its steady state is long enough) or
 * {@code final} (at the step's end, over its whole steady state).
 */
public class AlertRow implements ResultRow {
    public static final String TABLE = "alerts";
    public static final String SATURATION = "saturation";
    public static final String SLO_BREACH = "slo_breach";
    public static final String LIVE = "live";
    public static final String FINAL = "final";

    public String alertId = "";
    /** saturation or slo_breach. */
    public String kind = "";
    public String phase = LIVE;
    /** warning or critical. */
    public String severity = "warning";
    public String runId = "";
    public int stepIndex;
    /** What is saturated or breached: "port host/port RX", "cpu host", "device", "latency p99.999". */
    public String resource = "";
    /** The measured value behind the alert (utilization %, latency ns, ...); NaN when not a single number. */
    public double value = Double.NaN;
    /** The threshold it was compared with; NaN when not a single number. */
    public double threshold = Double.NaN;
    /** One sentence with the numbers. */
    public String evidence = "";
    /** Event time the verdict refers to (the step's end, or the end of the steady window so far), UTC ms. */
    public long eventTsMs;
    public long samples;
    public long emittedAtMs;

    public AlertRow() {}

    public static String id(String runId, int stepIndex, String kind, String phase, String resource) {
        return runId + "/" + stepIndex + "/" + kind + "/" + phase + "/" + resource;
    }

    @Override
    public String table() {
        return TABLE;
    }

    @Override
    public void write(RowFormat out) {
        out.beginRow()
                .string("alert_id", alertId)
                .lowCardinality("kind", kind)
                .lowCardinality("phase", phase)
                .lowCardinality("severity", severity)
                .lowCardinality("run_id", runId)
                .int32("step_index", stepIndex)
                .lowCardinality("resource", resource)
                .nullableFloat64("value", value)
                .nullableFloat64("threshold", threshold)
                .string("evidence", evidence)
                .dateTime64("event_ts", eventTsMs)
                .uint64("version", samples)
                .dateTime64("emitted_at", emittedAtMs)
                .endRow();
    }

    @Override
    public String toString() {
        return "alert(" + alertId + ": " + evidence + ")";
    }
}
