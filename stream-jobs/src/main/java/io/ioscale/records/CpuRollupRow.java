package io.ioscale.records;


/**
 * One row of {@code cpu_samples_<grain>}: one (run, step, host, VM, scope) in one window.
 *
 * <p>Figures come from the scope's total samples ({@code cpu = -1}), time-weighted:
 * {@code utilization_pct = sum(pct x interval_ms) / sum(interval_ms)}, likewise the other percentages and the
 * per-second rates. When a scope reports only per-CPU samples, the percentages are their time-weighted mean
 * over CPUs and the rates their sum over CPUs (divided by max(window, longest interval) like the I/O rates).
 * {@code max_cpu_utilization_pct}/{@code hottest_cpu} come from per-CPU samples (NULL/-1 without any): one CPU
 * pinned at 100 % by interrupts is a saturation the total hides.
 */
public class CpuRollupRow extends RollupRow {
    public static final String TABLE = "cpu_samples";

    public String host = "";
    public String vm = "";
    public String scope = "";
    public long samples;
    public long perCpuSamples;
    public int logicalProcessors;
    public double utilizationPct = Double.NaN;
    public double maxUtilizationPct = Double.NaN;
    public double userPct = Double.NaN;
    public double privilegedPct = Double.NaN;
    public double dpcPct = Double.NaN;
    public double interruptPct = Double.NaN;
    public double iowaitPct = Double.NaN;
    public double interruptsPerS = Double.NaN;
    public double dpcsPerS = Double.NaN;
    public double maxCpuUtilizationPct = Double.NaN;
    public int hottestCpu = -1;

    public CpuRollupRow() {}

    @Override
    protected String baseTable() {
        return TABLE;
    }

    @Override
    public long version() {
        return samples + perCpuSamples;
    }

    @Override
    protected void writeColumns(RowFormat out) {
        out.lowCardinality("host", host)
                .lowCardinality("vm", vm)
                .lowCardinality("scope", scope)
                .uint32("samples", samples)
                .uint32("per_cpu_samples", perCpuSamples)
                .uint16("logical_processors", logicalProcessors)
                .nullableFloat64("utilization_pct", utilizationPct)
                .nullableFloat64("max_utilization_pct", maxUtilizationPct)
                .nullableFloat64("user_pct", userPct)
                .nullableFloat64("privileged_pct", privilegedPct)
                .nullableFloat64("dpc_pct", dpcPct)
                .nullableFloat64("interrupt_pct", interruptPct)
                .nullableFloat64("iowait_pct", iowaitPct)
                .nullableFloat64("interrupts_per_s", interruptsPerS)
                .nullableFloat64("dpcs_per_s", dpcsPerS)
                .nullableFloat64("max_cpu_utilization_pct", maxCpuUtilizationPct)
                .int32("hottest_cpu", hottestCpu);
    }

    @Override
    public String toString() {
        return table() + "(" + windowStartMs + ", " + runId + "/" + stepIndex + " " + host + "/" + vm + " " + scope
                + ", util=" + utilizationPct + "%)";
    }
}
