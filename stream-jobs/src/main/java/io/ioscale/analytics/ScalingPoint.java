package io.ioscale.analytics;

import java.io.Serializable;

/**
 * One row of a scaling curve: a step and how it compares with the previous step and with linear scaling from
 * the first step. Percentages are in percent (40.0 = +40 %); figures that have no previous step or an unknown
 * input are NaN. See {@link ScalingCurve} for the formulas and a worked table.
 *
 * @param step              the step summary
 * @param throughput        the judged throughput (IOPS or MB/s, {@link ScalingCurve#metric()})
 * @param loadIncreasePct   (load_k / load_k-1 - 1) x 100
 * @param throughputGainPct (X_k / X_k-1 - 1) x 100: "gain over the previous step"
 * @param marginalGainRatio throughputGainPct / loadIncreasePct: 1 = the added load scaled linearly, 0 = it
 *                          added nothing; NaN when the load did not increase
 * @param scalingEfficiency X_k / (X_1 x load_k / load_1): 1 = linear from the first step; 1 at the first step
 * @param latencyGrowthPct  (meanLatency_k / meanLatency_k-1 - 1) x 100
 * @param littlesLaw        outstanding I/Os vs IOPS x mean latency (always on IOPS, whatever the metric)
 */
public record ScalingPoint(StepSummary step, double throughput, double loadIncreasePct, double throughputGainPct,
                           double marginalGainRatio, double scalingEfficiency, double latencyGrowthPct,
                           LittlesLaw littlesLaw) implements Serializable {

    public int stepIndex() {
        return step.stepIndex();
    }

    public double load() {
        return step.load();
    }

    /** Whether there is a previous step to compare with (false for the first point). */
    public boolean hasPrevious() {
        return !Double.isNaN(loadIncreasePct);
    }
}
