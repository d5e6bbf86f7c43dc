package io.ioscale.analytics;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * The scaling curve of a run: one {@link ScalingPoint} per step, in the order given (run order, which is the
 * order the steps' steady states become known).
 *
 * <h2>What it computes, for step k against step k-1 and the first step 1</h2>
 * <pre>
 *   loadIncreasePct   = (load_k / load_k-1 - 1) x 100
 *   throughputGainPct = (X_k / X_k-1 - 1) x 100                       (X = IOPS or MB/s, the metric)
 *   marginalGainRatio = throughputGainPct / loadIncreasePct           (NaN unless the load increased)
 *   scalingEfficiency = X_k / (X_1 x load_k / load_1)                 (vs linear scaling from step 1)
 *   latencyGrowthPct  = (R_k / R_k-1 - 1) x 100                       (R = mean latency)
 *   littlesLaw        = outstanding vs IOPS x R                        ({@link LittlesLaw})
 * </pre>
 * A step is compared with the step before it in the list even if its load is not larger (a run that sweeps
 * queue depth and then VM count); the marginal ratio is then NaN and the saturation detector skips the step.
 *
 * <h2>Worked example: seed 000, 8 KB random 75/25, 1-4 workers x 30 outstanding on one 8 Gbps FC port</h2>
 * <pre>
 *   load  IOPS      gain    marginal  efficiency  mean latency  latency growth  Little (120 = 4 x 30)
 *   1      73,000      -        -       1.000       411.0 us          -           30.0 vs 30
 *   2     102,200   +40.0%    0.40      0.700       587.1 us       +42.9%         60.0 vs 60
 *   3     122,640   +20.0%    0.40      0.560       733.9 us       +25.0%         90.0 vs 90
 *   4     128,772    +5.0%    0.15      0.441       931.9 us       +27.0%        120.0 vs 120
 * </pre>
 */
public final class ScalingCurve implements Serializable {
    private static final long serialVersionUID = 1L;

    private final ThroughputMetric metric;
    private final List<ScalingPoint> points;

    private ScalingCurve(ThroughputMetric metric, List<ScalingPoint> points) {
        this.metric = metric;
        this.points = List.copyOf(points);
    }

    /** IOPS curve, Little's-law tolerance {@link LittlesLaw#DEFAULT_TOLERANCE}. */
    public static ScalingCurve of(List<StepSummary> steps) {
        return of(steps, ThroughputMetric.IOPS, LittlesLaw.DEFAULT_TOLERANCE);
    }

    public static ScalingCurve of(List<StepSummary> steps, ThroughputMetric metric, double littlesLawTolerance) {
        List<ScalingPoint> out = new ArrayList<>(steps.size());
        StepSummary first = null;
        StepSummary previous = null;
        for (StepSummary step : steps) {
            double x = metric.of(step);
            LittlesLaw little = LittlesLaw.check(step.iops(), step.meanLatencyNs(), step.outstandingIos(),
                    littlesLawTolerance);
            if (first == null) {
                first = step;
                out.add(new ScalingPoint(step, x, Double.NaN, Double.NaN, Double.NaN, 1.0, Double.NaN, little));
            } else {
                double loadIncreasePct = (step.load() / previous.load() - 1) * 100;
                double xPrev = metric.of(previous);
                double gainPct = xPrev > 0 ? (x / xPrev - 1) * 100 : Double.NaN;
                double marginal = loadIncreasePct > 0 ? gainPct / loadIncreasePct : Double.NaN;
                double x1 = metric.of(first);
                double efficiency = x1 > 0 ? x / (x1 * step.load() / first.load()) : Double.NaN;
                double latencyGrowthPct = previous.meanLatencyNs() > 0
                        ? (step.meanLatencyNs() / previous.meanLatencyNs() - 1) * 100 : Double.NaN;
                out.add(new ScalingPoint(step, x, loadIncreasePct, gainPct, marginal, efficiency, latencyGrowthPct,
                        little));
            }
            previous = step;
        }
        return new ScalingCurve(metric, out);
    }

    public ThroughputMetric metric() {
        return metric;
    }

    public List<ScalingPoint> points() {
        return points;
    }

    public int size() {
        return points.size();
    }

    public ScalingPoint get(int position) {
        return points.get(position);
    }

    /** The last point; throws when the curve is empty. */
    public ScalingPoint latest() {
        if (points.isEmpty()) {
            throw new IllegalStateException("empty scaling curve");
        }
        return points.get(points.size() - 1);
    }

    /** USL fit of (load, throughput) over every step ({@link UslFit#fit(double[], double[])}). */
    public UslFit usl() {
        double[] n = new double[points.size()];
        double[] x = new double[points.size()];
        for (int i = 0; i < n.length; i++) {
            n[i] = points.get(i).load();
            x[i] = points.get(i).throughput();
        }
        return UslFit.fit(n, x);
    }
}
