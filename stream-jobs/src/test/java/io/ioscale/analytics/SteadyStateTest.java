package io.ioscale.analytics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.ioscale.analytics.SteadyStateWindow.Reason;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** SteadyState's worked example, the configured mode, and the unusable cases. */
class SteadyStateTest {
    private static final long T0 = 1_700_000_000_000L;

    /**
     * The documented series: 10 s ramp 0, 10K .. 90K IOPS; 60 s at 100K +/- 1 % (seed 7); second 70 partial
     * (40K). Latency 400 us while steady, 200 us in the ramp; 8 KiB I/Os.
     */
    private static List<FleetSecond> rampThenSteady() {
        Random r = new Random(7);
        List<FleetSecond> s = new ArrayList<>();
        for (int i = 0; i <= 70; i++) {
            double iops = i < 10 ? i * 10_000.0 : i < 70 ? 100_000 * (1 + 0.01 * r.nextGaussian()) : 40_000;
            s.add(new FleetSecond(T0 + i * 1000L, iops, iops * 8192 / 1e6, i < 10 ? 200_000 : 400_000));
        }
        return s;
    }

    @Test
    void detectsTheRampAndDropsThePartialLastSecondByTheStepBounds() {
        List<FleetSecond> series = rampThenSteady();
        SteadyStateWindow w = SteadyState.choose(series, T0, T0 + 70_400, SteadyStateConfig.defaults());
        assertThat(w.reason()).isEqualTo(Reason.DETECTED);
        assertThat(w.usable()).isTrue();
        assertThat(w.fromIndex()).isEqualTo(10);
        assertThat(w.toIndex()).isEqualTo(70);
        assertThat(w.seconds()).isEqualTo(60);
        assertThat(w.startMs()).isEqualTo(T0 + 10_000);
        assertThat(w.endMs()).isEqualTo(T0 + 70_000);
        assertThat(w.cv()).isLessThan(0.015);
        assertThat(w.detail()).contains("ramp-up detected: first steady 5 s window starts at second 10")
                .contains("1 second(s) outside the step");
        FleetSecond avg = w.average(series);
        assertThat(avg.iops()).isCloseTo(100_000, within(500.0));
        assertThat(avg.meanLatencyNs()).isCloseTo(400_000, within(1e-6));
        assertThat(avg.tsMs()).isEqualTo(T0 + 10_000);
        assertThat(w.slice(series)).hasSize(60);
    }

    @Test
    void withoutStepBoundsThePartialSecondIsFoundByItsLevel() {
        SteadyStateWindow w = SteadyState.choose(rampThenSteady(), SteadyStateConfig.defaults());
        assertThat(w.reason()).isEqualTo(Reason.DETECTED);
        assertThat(w.fromIndex()).isEqualTo(10);
        assertThat(w.toIndex()).isEqualTo(70);
        assertThat(w.detail()).contains("dropped 1 trailing second(s) under 80% of the reference");
    }

    @Test
    void theLastRampSecondIsNotTheStartEvenWhenItsWindowIsCalm() {
        // Ramp ends at 96K: window [9, 14) has CV < 0.05, but second 9 starts within 5 % only if >= 95K.
        List<FleetSecond> s = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            double iops = i < 9 ? i * 10_000.0 : i == 9 ? 94_000 : 100_000;
            s.add(new FleetSecond(T0 + i * 1000L, iops, 0, 100_000));
        }
        assertThat(SteadyState.choose(s, SteadyStateConfig.defaults()).fromIndex()).isEqualTo(10);
    }

    @Test
    void aStallInsideTheStepDoesNotCutTheWindow() {
        List<FleetSecond> s = new ArrayList<>(rampThenSteady());
        FleetSecond mid = s.get(40);
        s.set(40, new FleetSecond(mid.tsMs(), 60_000, 491.5, 900_000)); // one slow second
        SteadyStateWindow w = SteadyState.choose(s, T0, T0 + 70_400, SteadyStateConfig.defaults());
        assertThat(w.fromIndex()).isEqualTo(10);
        assertThat(w.toIndex()).isEqualTo(70);
        // The average latency weights each second by its I/Os: 59 x ~100K at 400 us, 60K at 900 us.
        assertThat(w.average(s).meanLatencyNs()).isCloseTo(
                (59 * 100_000 * 400_000.0 + 60_000 * 900_000.0) / (59 * 100_000 + 60_000), within(2_000.0));
    }

    @Test
    void configuredRampAndTail() {
        SteadyStateWindow w = SteadyState.choose(rampThenSteady(), T0, T0 + 70_400, SteadyStateConfig.configured(15, 5));
        // Step [0, 70.4 s): ramp ends at 15 s; the tail starts at 65.4 s, so the last whole second is [64, 65).
        assertThat(w.reason()).isEqualTo(Reason.CONFIGURED);
        assertThat(w.fromIndex()).isEqualTo(15);
        assertThat(w.toIndex()).isEqualTo(65);
        assertThat(w.startMs()).isEqualTo(T0 + 15_000);
        assertThat(w.endMs()).isEqualTo(T0 + 65_000);
        assertThat(w.detail()).startsWith("ramp-up 15 s configured; tail 5 s configured");

        SteadyStateWindow auto = SteadyState.choose(rampThenSteady(), T0, T0 + 70_400,
                SteadyStateConfig.configured(12, SteadyStateConfig.AUTO));
        assertThat(auto.reason()).isEqualTo(Reason.CONFIGURED);
        assertThat(auto.fromIndex()).isEqualTo(12);
        assertThat(auto.toIndex()).isEqualTo(70);
    }

    @Test
    void tooShortAndNotSteadyAreNotUsable() {
        List<FleetSecond> shortStep = rampThenSteady().subList(0, 16); // ramp + 6 steady seconds
        SteadyStateWindow w = SteadyState.choose(shortStep, SteadyStateConfig.defaults());
        assertThat(w.reason()).isEqualTo(Reason.TOO_SHORT);
        assertThat(w.usable()).isFalse();
        assertThat(w.fromIndex()).isEqualTo(10);
        assertThat(w.seconds()).isEqualTo(6);
        assertThat(w.detail()).startsWith("6 s left, under min-steady-s 10");

        SteadyStateWindow tiny = SteadyState.choose(rampThenSteady().subList(20, 23), SteadyStateConfig.defaults());
        assertThat(tiny.reason()).isEqualTo(Reason.TOO_SHORT);
        assertThat(tiny.detail()).startsWith("3 s is shorter than the 5 s detection window");

        SteadyStateWindow configuredShort = SteadyState.choose(rampThenSteady(), T0, T0 + 70_400,
                SteadyStateConfig.configured(60, 5));
        assertThat(configuredShort.reason()).isEqualTo(Reason.TOO_SHORT);
        assertThat(configuredShort.seconds()).isEqualTo(5);

        List<FleetSecond> sawtooth = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            sawtooth.add(new FleetSecond(T0 + i * 1000L, i % 2 == 0 ? 50_000 : 150_000, 0, Double.NaN));
        }
        SteadyStateWindow ns = SteadyState.choose(sawtooth, SteadyStateConfig.defaults());
        assertThat(ns.reason()).isEqualTo(Reason.NOT_STEADY);
        assertThat(ns.usable()).isFalse();
        assertThat(ns.seconds()).isEqualTo(60);
        assertThat(ns.cv()).isCloseTo(0.5, within(1e-9));
        assertThat(ns.average(sawtooth).meanLatencyNs()).isNaN();

        SteadyStateWindow none = SteadyState.choose(List.of(), T0, T0 + 10_000, SteadyStateConfig.defaults());
        assertThat(none.reason()).isEqualTo(Reason.TOO_SHORT);
        assertThat(none.seconds()).isZero();
        assertThat(none.startMs()).isEqualTo(T0);
        assertThat(none.average(List.of()).iops()).isZero();
    }

    @Test
    void rejectsAnUnorderedSeriesAndBadSettings() {
        List<FleetSecond> s = List.of(new FleetSecond(T0 + 1000, 1, 0, 1), new FleetSecond(T0, 1, 0, 1));
        assertThatThrownBy(() -> SteadyState.choose(s, SteadyStateConfig.defaults()))
                .hasMessageContaining("series not strictly ascending at position 1");
        SteadyStateConfig d = SteadyStateConfig.defaults();
        assertThatThrownBy(() -> new SteadyStateConfig(d.rampUpS(), d.tailS(), 1, d.maxCv(), d.levelTolerance(),
                d.partialFraction(), d.minSteadyS()))
                .hasMessage("steady-state setting 'window-s' must be in [2, 3600], got 1");
        assertThatThrownBy(() -> SteadyStateConfig.configured(0, -5))
                .hasMessageContaining("'tail-s' must be >= 0 or auto, got -5");
        assertThatThrownBy(() -> new SteadyStateConfig(d.rampUpS(), d.tailS(), d.windowS(), Double.NaN,
                d.levelTolerance(), d.partialFraction(), d.minSteadyS()))
                .hasMessage("steady-state setting 'max-cv' must be in [0, 10], got NaN");
        assertThatThrownBy(() -> new FleetSecond(T0, -1, 0, 0)).hasMessageContaining("iops must be");
    }
}
