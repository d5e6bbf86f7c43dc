package io.ioscale.histogram;

/**
 * One quantile of a {@link LatencyHistogram}; Python's {@code ioscale.histogram.QuantileResult}.
 *
 * @param q              the level asked for, in [0, 1]
 * @param valueNs        the quantile in nanoseconds; the exact max when {@code tooFewSamples} (0 when n == 0)
 * @param n              samples in the histogram
 * @param tooFewSamples  n &lt; requiredN: valueNs is the max, not a percentile, and must be shown as such
 * @param requiredN      samples the level needs, {@link LatencyHistogram#requiredN(double)}
 */
public record QuantileResult(double q, long valueNs, long n, boolean tooFewSamples, long requiredN)
        implements java.io.Serializable {}
