package io.ioscale.analytics;

import java.io.Serializable;

/**
 * The outcome of one {@link SloObjective} on one histogram.
 *
 * @param objective the objective
 * @param status    PASS, BREACH, or INSUFFICIENT_SAMPLES (the histogram holds fewer than requiredN samples, so
 *                  the quantile is not known well enough to judge; never reported as a breach)
 * @param valueNs   the measured statistic, ns (for INSUFFICIENT_SAMPLES: the max, as LatencyHistogram reports it;
 *                  NaN when the histogram is empty)
 * @param n         samples in the histogram
 * @param requiredN samples the statistic needs (LatencyHistogram.requiredN: p99 1000, p99.999 10^6; 1 for mean
 *                  and max)
 * @param message   one line for logs and the run report
 */
public record SloResult(SloObjective objective, Status status, double valueNs, long n, long requiredN, String message)
        implements Serializable {

    public enum Status {
        PASS,
        BREACH,
        INSUFFICIENT_SAMPLES
    }

    public boolean breached() {
        return status == Status.BREACH;
    }
}
