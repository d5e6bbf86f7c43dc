package io.ioscale.analytics;

import java.io.Serializable;
import java.util.Locale;

/**
 * One latency objective, e.g. {@code p99.999 < 2 ms}; parsed by {@link SloEvaluator#parse(String)}.
 *
 * @param statistic   MEAN, MAX or QUANTILE
 * @param q           the quantile level for QUANTILE (0.99999 for p99.999); 1 for MAX, NaN for MEAN
 * @param inclusive   {@code <=} (true) or {@code <} (false)
 * @param thresholdNs the bound, ns
 * @param text        the objective as written (trimmed), for messages
 */
public record SloObjective(Statistic statistic, double q, boolean inclusive, double thresholdNs, String text)
        implements Serializable {

    public enum Statistic {
        MEAN,
        MAX,
        QUANTILE
    }

    /** Whether a measured value meets the bound. */
    public boolean isMet(double valueNs) {
        return inclusive ? valueNs <= thresholdNs : valueNs < thresholdNs;
    }

    /** "p99.999 < 2 ms" style canonical form. */
    public String canonical() {
        String stat = switch (statistic) {
            case MEAN -> "mean";
            case MAX -> "max";
            case QUANTILE -> "p" + stripZeros(q * 100);
        };
        return stat + (inclusive ? " <= " : " < ") + SloEvaluator.formatNs(thresholdNs);
    }

    private static String stripZeros(double pct) {
        String s = String.format(Locale.ROOT, "%.6f", pct);
        s = s.replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }

    @Override
    public String toString() {
        return canonical();
    }
}
