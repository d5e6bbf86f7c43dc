package io.ioscale.analytics;

import io.ioscale.histogram.LatencyHistogram;
import io.ioscale.histogram.QuantileResult;
import java.io.Serializable;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Latency objectives (QoS, SLOs) from a compact string, evaluated on a step's or a window's merged
 * {@link LatencyHistogram}.
 *
 * <h2>Compact form</h2>
 * <pre>
 *   spec      := objective ( ("," | ";") objective )*
 *   objective := statistic ("&lt;" | "&lt;=") number unit          (spaces anywhere between tokens)
 *   statistic := "mean" | "max" | "p" number                   (one token, 0 &lt; number &lt; 100: p50, p99.999)
 *   unit      := "ns" | "us" | "µs" | "ms" | "s"
 * </pre>
 * Case-insensitive; the number is &gt; 0 and may have a fraction ({@code 0.5ms}). Example:
 * {@code "p99.999 < 2 ms, p99 < 500us; mean <= 1ms"}. An empty spec, an empty objective, an unknown
 * statistic, a quantile out of (0, 100), another operator, a missing or unknown unit, or a non-positive bound
 * is rejected with an {@link IllegalArgumentException} that quotes the bad objective and names the bad part.
 *
 * <h2>Evaluation</h2>
 * mean = sum_ns / count (exact); max = the exact max; pX = {@code LatencyHistogram.quantile(X / 100)} (the
 * bucket representative, within 1/256 of the exact quantile). The value is compared with the bound as written.
 * A statistic with fewer samples than {@code LatencyHistogram.requiredN(q)} (ten beyond the quantile:
 * p99 needs 1,000, p99.999 needs 10^6; mean and max need 1) is INSUFFICIENT_SAMPLES, never BREACH: with 10^5
 * samples "p99.999" is the max, and one stall would be reported as a five-nines breach.
 *
 * <h2>Worked example</h2>
 * Spec {@code p99.999 < 2ms, p99 < 500us}; a step of 999,999 I/Os at 200 us with 20 at 5 ms: p99 = 200 us, PASS
 * (n = 10^6 - 1 &gt;= 1000); p99.999 needs 10^6: INSUFFICIENT_SAMPLES (max 5 ms). One more I/O at 200 us makes
 * n = 10^6: p99.999 is the sample at rank 999,990, one of the 5 ms ones (reported as its bucket's 4.9971 ms):
 * BREACH.
 *
 * <p>Immutable and {@link Serializable} (ship it into a Flink operator).
 */
public final class SloEvaluator implements Serializable {
    private static final long serialVersionUID = 1L;

    // statistic token, comparison operator (any, so a wrong one is named), bound with its unit.
    private static final Pattern OBJECTIVE = Pattern.compile("^\\s*([^<>=!\\s]+)\\s*(<=|>=|==|!=|<|>|=)?\\s*(.*?)\\s*$");
    private static final Pattern PERCENTILE = Pattern.compile("^p[0-9]+(\\.[0-9]+)?$");
    private static final Pattern BOUND = Pattern.compile("^([+-]?[0-9]*\\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\\s*(.*)$");

    private final List<SloObjective> objectives;

    private SloEvaluator(List<SloObjective> objectives) {
        this.objectives = List.copyOf(objectives);
    }

    public List<SloObjective> objectives() {
        return objectives;
    }

    /** Parses the compact form above. */
    public static SloEvaluator parse(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("empty SLO spec: expected e.g. 'p99.999 < 2ms, p99 < 500us'");
        }
        List<SloObjective> out = new ArrayList<>();
        String[] parts = spec.split("[,;]", -1);
        for (String part : parts) {
            out.add(parseObjective(part));
        }
        return new SloEvaluator(out);
    }

    private static SloObjective parseObjective(String raw) {
        String text = raw.trim();
        if (text.isEmpty()) {
            throw new IllegalArgumentException("empty objective in SLO spec (two separators in a row, or a trailing one)");
        }
        String bad = "bad SLO objective '" + text + "': ";
        Matcher m = OBJECTIVE.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException(bad + "expected <statistic> < <number><unit>");
        }
        String token = m.group(1).toLowerCase(Locale.ROOT);
        SloObjective.Statistic statistic;
        double q;
        if (token.equals("mean") || token.equals("avg")) {
            statistic = SloObjective.Statistic.MEAN;
            q = Double.NaN;
        } else if (token.equals("max")) {
            statistic = SloObjective.Statistic.MAX;
            q = 1.0;
        } else if (PERCENTILE.matcher(token).matches()) {
            BigDecimal pct = new BigDecimal(token.substring(1));
            if (pct.signum() <= 0 || pct.compareTo(BigDecimal.valueOf(100)) >= 0) {
                throw new IllegalArgumentException(bad + "percentile " + token + " is not in (0, 100)");
            }
            statistic = SloObjective.Statistic.QUANTILE;
            q = pct.movePointLeft(2).doubleValue(); // exact decimal: p99.999 -> 0.99999
        } else {
            throw new IllegalArgumentException(bad + "unknown statistic '" + m.group(1)
                    + "' (use mean, max or pNN such as p99, p99.999)");
        }
        String op = m.group(2);
        if (op == null) {
            throw new IllegalArgumentException(bad + "missing operator after '" + m.group(1) + "' (use < or <=)");
        }
        if (!op.equals("<") && !op.equals("<=")) {
            throw new IllegalArgumentException(bad + "unsupported operator '" + op
                    + "' (objectives are upper bounds: use < or <=)");
        }
        String rest = m.group(3);
        Matcher b = BOUND.matcher(rest);
        if (!b.matches()) {
            throw new IllegalArgumentException(bad + "bound '" + rest + "' is not a number with a unit (e.g. 2ms)");
        }
        double value = Double.parseDouble(b.group(1));
        String unit = b.group(2).trim().toLowerCase(Locale.ROOT);
        double perUnitNs = switch (unit) {
            case "ns" -> 1;
            case "us", "µs", "μs" -> 1e3;
            case "ms" -> 1e6;
            case "s" -> 1e9;
            case "" -> throw new IllegalArgumentException(bad + "missing unit after " + b.group(1)
                    + " (use ns, us, ms or s)");
            default -> throw new IllegalArgumentException(bad + "unknown unit '" + b.group(2).trim()
                    + "' (use ns, us, ms or s)");
        };
        if (!(value > 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(bad + "bound " + b.group(1) + " must be a number > 0");
        }
        return new SloObjective(statistic, q, op.equals("<="), value * perUnitNs, text);
    }

    /** Evaluates every objective on the histogram, in spec order. */
    public List<SloResult> evaluate(LatencyHistogram histogram) {
        List<SloResult> out = new ArrayList<>(objectives.size());
        for (SloObjective o : objectives) {
            out.add(evaluate(o, histogram));
        }
        return out;
    }

    /** The worst status over results: BREACH over INSUFFICIENT_SAMPLES over PASS. */
    public static SloResult.Status overall(List<SloResult> results) {
        SloResult.Status worst = SloResult.Status.PASS;
        for (SloResult r : results) {
            if (r.status() == SloResult.Status.BREACH) {
                return SloResult.Status.BREACH;
            }
            if (r.status() == SloResult.Status.INSUFFICIENT_SAMPLES) {
                worst = SloResult.Status.INSUFFICIENT_SAMPLES;
            }
        }
        return worst;
    }

    static SloResult evaluate(SloObjective o, LatencyHistogram h) {
        long n = h.count();
        double value;
        long required;
        boolean tooFew;
        switch (o.statistic()) {
            case MEAN -> {
                required = 1;
                tooFew = n < 1;
                value = n == 0 ? Double.NaN : (double) h.sumNs() / n;
            }
            case MAX -> {
                required = 1;
                tooFew = n < 1;
                value = n == 0 ? Double.NaN : h.maxNs();
            }
            default -> {
                QuantileResult r = h.quantile(o.q());
                required = r.requiredN();
                tooFew = r.tooFewSamples();
                value = n == 0 ? Double.NaN : r.valueNs();
            }
        }
        String head = o.canonical() + ": ";
        if (tooFew) {
            return new SloResult(o, SloResult.Status.INSUFFICIENT_SAMPLES, value, n, required,
                    head + "insufficient samples (n = " + n + ", needs " + required + ")"
                            + (n > 0 ? "; max so far " + formatNs(value) : ""));
        }
        boolean met = o.isMet(value);
        return new SloResult(o, met ? SloResult.Status.PASS : SloResult.Status.BREACH, value, n, required,
                head + (met ? "met" : "BREACHED") + ", measured " + formatNs(value) + " (n = " + n + ")");
    }

    /** 2000000 -> "2 ms", 500000 -> "500 us", 1500 -> "1.5 us". */
    static String formatNs(double ns) {
        if (Double.isNaN(ns)) {
            return "n/a";
        }
        String unit;
        double v;
        if (ns >= 1e9) {
            unit = "s";
            v = ns / 1e9;
        } else if (ns >= 1e6) {
            unit = "ms";
            v = ns / 1e6;
        } else if (ns >= 1e3) {
            unit = "us";
            v = ns / 1e3;
        } else {
            unit = "ns";
            v = ns;
        }
        String s = String.format(Locale.ROOT, "%.4f", v).replaceAll("0+$", "");
        if (s.endsWith(".")) {
            s = s.substring(0, s.length() - 1);
        }
        return s + " " + unit;
    }

    @Override
    public String toString() {
        List<String> parts = new ArrayList<>();
        for (SloObjective o : objectives) {
            parts.add(o.canonical());
        }
        return String.join(", ", parts);
    }
}
