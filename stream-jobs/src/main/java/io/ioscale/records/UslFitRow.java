package io.ioscale.records;


/**
 * One row of {@code usl_fits}: the Universal Scalability Law fitted to a run's steps completed so far
 * ({@link io.ioscale.analytics.UslFit}), one row per (run, last step included), so the fit's history as steps
 * complete stays queryable; the latest is the row with the largest {@code through_step}. Infinite peaks (no
 * contention peak) are NULL. Version = samples of the steps used.
 */
public class UslFitRow implements ResultRow {
    public static final String TABLE = "usl_fits";

    public String runId = "";
    public int throughStep;
    public int points;
    /** The throughput fitted, named as its scaling_curves column: iops or mb_per_s. */
    public String metric = "";
    public String loadAxis = "";
    public boolean fitted;
    public String reason = "";
    public double lambda = Double.NaN;
    public double sigma = Double.NaN;
    public double kappa = Double.NaN;
    public double rSquared = Double.NaN;
    public double peakN = Double.NaN;
    public double peakX = Double.NaN;
    public double maxN = Double.NaN;
    public boolean peakExtrapolated;
    public long eventTsMs;
    public long samples;
    public long emittedAtMs;

    public UslFitRow() {}

    @Override
    public String table() {
        return TABLE;
    }

    @Override
    public void write(RowFormat out) {
        out.beginRow()
                .lowCardinality("run_id", runId)
                .int32("through_step", throughStep)
                .uint32("points", points)
                .lowCardinality("metric", metric)
                .lowCardinality("load_axis", loadAxis)
                .bool("fitted", fitted)
                .string("reason", reason)
                .nullableFloat64("lambda", lambda)
                .nullableFloat64("sigma", sigma)
                .nullableFloat64("kappa", kappa)
                .nullableFloat64("r_squared", rSquared)
                .nullableFloat64("peak_n", peakN)
                .nullableFloat64("peak_x", peakX)
                .nullableFloat64("max_n", maxN)
                .bool("peak_extrapolated", peakExtrapolated)
                .dateTime64("event_ts", eventTsMs)
                .uint64("version", samples)
                .dateTime64("emitted_at", emittedAtMs)
                .endRow();
    }

    @Override
    public String toString() {
        return "usl_fits(" + runId + " through step " + throughStep + ", fitted=" + fitted + ", sigma=" + sigma
                + ", kappa=" + kappa + ")";
    }
}
