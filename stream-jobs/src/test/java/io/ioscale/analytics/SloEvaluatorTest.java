package io.ioscale.analytics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.ioscale.analytics.SloResult.Status;
import io.ioscale.histogram.LatencyHistogram;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The compact form, its errors, and the too-few-samples rule (p99.999 needs 10^6 samples). */
class SloEvaluatorTest {

    @Test
    void parsesTheCompactForm() {
        SloEvaluator e = SloEvaluator.parse(" p99.999 < 2 ms, p99<500us; mean <= 1ms ,max<1s, P50 < 250 µs ");
        List<SloObjective> o = e.objectives();
        assertThat(o).hasSize(5);
        assertThat(o.get(0).statistic()).isEqualTo(SloObjective.Statistic.QUANTILE);
        assertThat(o.get(0).q()).isEqualTo(0.99999);
        assertThat(o.get(0).thresholdNs()).isEqualTo(2e6);
        assertThat(o.get(0).inclusive()).isFalse();
        assertThat(o.get(0).text()).isEqualTo("p99.999 < 2 ms");
        assertThat(o.get(1).q()).isEqualTo(0.99);
        assertThat(o.get(1).thresholdNs()).isEqualTo(500_000);
        assertThat(o.get(2).statistic()).isEqualTo(SloObjective.Statistic.MEAN);
        assertThat(o.get(2).inclusive()).isTrue();
        assertThat(o.get(3).statistic()).isEqualTo(SloObjective.Statistic.MAX);
        assertThat(o.get(3).thresholdNs()).isEqualTo(1e9);
        assertThat(o.get(4).q()).isEqualTo(0.5);
        assertThat(o.get(4).thresholdNs()).isEqualTo(250_000);
        assertThat(e.toString()).isEqualTo("p99.999 < 2 ms, p99 < 500 us, mean <= 1 ms, max < 1 s, p50 < 250 us");
        assertThat(SloEvaluator.parse("p99.9 < 0.5ms").objectives().get(0).thresholdNs()).isEqualTo(500_000);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "''                  | empty SLO spec",
            "p99 < 2ms,          | empty objective in SLO spec",
            "p99 < 2mx           | bad SLO objective 'p99 < 2mx': unknown unit 'mx' (use ns, us, ms or s)",
            "p99 < 2             | bad SLO objective 'p99 < 2': missing unit after 2 (use ns, us, ms or s)",
            "p100 < 1ms          | bad SLO objective 'p100 < 1ms': percentile p100 is not in (0, 100)",
            "p0 < 1ms            | bad SLO objective 'p0 < 1ms': percentile p0 is not in (0, 100)",
            "p99 > 1ms           | bad SLO objective 'p99 > 1ms': unsupported operator '>' (objectives are upper bounds: use < or <=)",
            "p99 2ms             | bad SLO objective 'p99 2ms': missing operator after 'p99' (use < or <=)",
            "median < 1ms        | bad SLO objective 'median < 1ms': unknown statistic 'median' (use mean, max or pNN such as p99, p99.999)",
            "p99x < 1ms          | bad SLO objective 'p99x < 1ms': unknown statistic 'p99x'",
            "p99 < -1ms          | bad SLO objective 'p99 < -1ms': bound -1 must be a number > 0",
            "p99 < 0ms           | bad SLO objective 'p99 < 0ms': bound 0 must be a number > 0",
            "p99 < ms            | bad SLO objective 'p99 < ms': bound 'ms' is not a number with a unit (e.g. 2ms)",
            "p99 < 1ms; mean < x | bad SLO objective 'mean < x': bound 'x' is not a number with a unit",
    })
    void rejectsBadSpecsNamingTheBadPart(String spec, String message) {
        assertThatThrownBy(() -> SloEvaluator.parse(spec))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    /** n I/Os: n - slow at 200 us, slow at 5 ms. */
    private static LatencyHistogram step(long n, long slow) {
        LatencyHistogram h = new LatencyHistogram();
        h.record(200_000, n - slow);
        h.record(5_000_000, slow);
        return h;
    }

    @Test
    void fiveNinesNeedsAMillionSamplesBeforeItCanBreach() {
        SloEvaluator e = SloEvaluator.parse("p99.999 < 2ms, p99 < 500us");

        List<SloResult> before = e.evaluate(step(999_999, 20));
        assertThat(before.get(0).status()).isEqualTo(Status.INSUFFICIENT_SAMPLES);
        assertThat(before.get(0).n()).isEqualTo(999_999);
        assertThat(before.get(0).requiredN()).isEqualTo(1_000_000);
        assertThat(before.get(0).valueNs()).isEqualTo(5e6); // the max, as the histogram reports it
        assertThat(before.get(0).message())
                .isEqualTo("p99.999 < 2 ms: insufficient samples (n = 999999, needs 1000000); max so far 5 ms");
        assertThat(before.get(1).status()).isEqualTo(Status.PASS);
        assertThat(SloEvaluator.overall(before)).isEqualTo(Status.INSUFFICIENT_SAMPLES);

        List<SloResult> at = e.evaluate(step(1_000_000, 20)); // rank 999,990 falls in the 20 slow ones
        assertThat(at.get(0).status()).isEqualTo(Status.BREACH);
        assertThat(at.get(0).breached()).isTrue();
        assertThat(at.get(0).valueNs()).isCloseTo(5e6, within(5e6 / 256));
        // The bucket representative of 5 ms (within 1/256), not the raw value.
        assertThat(at.get(0).message()).isEqualTo("p99.999 < 2 ms: BREACHED, measured 4.9971 ms (n = 1000000)");
        assertThat(SloEvaluator.overall(at)).isEqualTo(Status.BREACH);

        List<SloResult> fewSlow = e.evaluate(step(1_000_000, 5)); // 5 slow: rank 999,990 is still 200 us
        assertThat(fewSlow.get(0).status()).isEqualTo(Status.PASS);
        assertThat(fewSlow.get(0).valueNs()).isCloseTo(200_000, within(200_000 / 256.0));
        assertThat(SloEvaluator.overall(fewSlow)).isEqualTo(Status.PASS);
    }

    @Test
    void p99NeedsAThousandSamples() {
        SloEvaluator e = SloEvaluator.parse("p99 < 500us");
        assertThat(e.evaluate(step(999, 100)).get(0).status()).isEqualTo(Status.INSUFFICIENT_SAMPLES);
        assertThat(e.evaluate(step(1000, 100)).get(0).status()).isEqualTo(Status.BREACH);
        assertThat(e.evaluate(step(1000, 10)).get(0).status()).isEqualTo(Status.PASS); // rank 990 is 200 us
        assertThat(e.evaluate(step(1000, 11)).get(0).status()).isEqualTo(Status.BREACH);
    }

    @Test
    void meanAndMaxAreExactAndNeedOneSample() {
        SloEvaluator e = SloEvaluator.parse("mean < 300us, max <= 5ms, mean <= 249 us");
        List<SloResult> r = e.evaluate(step(100, 1)); // mean = 0.99 x 200 us + 0.01 x 5 ms = 248 us
        assertThat(r.get(0).valueNs()).isCloseTo(248_000, within(1e-6));
        assertThat(r.get(0).status()).isEqualTo(Status.PASS);
        assertThat(r.get(1).valueNs()).isEqualTo(5e6);
        assertThat(r.get(1).status()).isEqualTo(Status.PASS); // <= is inclusive
        assertThat(r.get(2).status()).isEqualTo(Status.PASS);
        assertThat(SloEvaluator.parse("max < 5ms").evaluate(step(100, 1)).get(0).status()).isEqualTo(Status.BREACH);

        List<SloResult> empty = e.evaluate(new LatencyHistogram());
        assertThat(empty).extracting(SloResult::status).containsOnly(Status.INSUFFICIENT_SAMPLES);
        assertThat(empty.get(0).valueNs()).isNaN();
        assertThat(empty.get(0).message()).isEqualTo("mean < 300 us: insufficient samples (n = 0, needs 1)");
    }

    @Test
    void evaluatesAMergedWindowNotPerVmFigures() {
        // Two VMs' histograms merged: one fast, one with the tail. The fleet p99 is judged on the merge.
        LatencyHistogram fast = step(600_000, 0);
        LatencyHistogram slow = step(400_000, 20);
        LatencyHistogram fleet = fast.copy().merge(slow);
        SloEvaluator e = SloEvaluator.parse("p99.999 < 2ms");
        assertThat(e.evaluate(fast).get(0).status()).isEqualTo(Status.INSUFFICIENT_SAMPLES);
        assertThat(e.evaluate(slow).get(0).status()).isEqualTo(Status.INSUFFICIENT_SAMPLES);
        assertThat(e.evaluate(fleet).get(0).status()).isEqualTo(Status.BREACH);
    }
}
