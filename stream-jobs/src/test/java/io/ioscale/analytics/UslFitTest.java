package io.ioscale.analytics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Known answers: synthetic USL, Amdahl and linear curves (exact and with seeded noise), the seed curves, and a
 * measured fio sweep.
 */
class UslFitTest {
    private static final double[] N = {1, 2, 4, 8, 12, 16, 24, 32, 40, 48};

    private static double usl(double lambda, double sigma, double kappa, double n) {
        return lambda * n / (1 + sigma * (n - 1) + kappa * n * (n - 1));
    }

    /** X(N) for each N, times (1 + noise x a standard Gaussian) from Random(seed); noise 0 = exact. */
    private static double[] curve(DoubleUnaryOperator x, double noise, long seed) {
        Random r = new Random(seed);
        double[] out = new double[N.length];
        for (int i = 0; i < N.length; i++) {
            out[i] = x.applyAsDouble(N[i]) * (1 + noise * r.nextGaussian());
        }
        return out;
    }

    @Test
    void recoversExactParametersAndThePeak() {
        UslFit f = UslFit.fit(N, curve(n -> usl(1000, 0.05, 0.001, n), 0, 0));
        assertThat(f.fitted()).isTrue();
        assertThat(f.reason()).isEqualTo("ok");
        assertThat(f.lambda()).isCloseTo(1000, within(1e-6));
        assertThat(f.sigma()).isCloseTo(0.05, within(1e-9));
        assertThat(f.kappa()).isCloseTo(0.001, within(1e-11));
        assertThat(f.rSquared()).isCloseTo(1.0, within(1e-12));
        assertThat(f.peakN()).isCloseTo(Math.sqrt(0.95 / 0.001), within(1e-6)); // 30.82
        assertThat(f.peakX()).isCloseTo(usl(1000, 0.05, 0.001, Math.sqrt(950)), within(1e-6)); // 9038
        assertThat(f.peakExtrapolated()).isFalse();
        assertThat(f.predict(48)).isCloseTo(8562.25, within(0.01));
        assertThat(f.points()).isEqualTo(10);
        assertThat(f.maxN()).isEqualTo(48);
    }

    @Test
    void recoversParametersUnderTwoPercentNoiseSeed42() {
        UslFit f = UslFit.fit(N, curve(n -> usl(1000, 0.05, 0.001, n), 0.02, 42));
        // Measured: lambda 1021.4, sigma 0.0559, kappa 0.000905, R^2 0.9982, N* 32.3.
        assertThat(f.lambda()).isCloseTo(1021.44, within(0.01));
        assertThat(f.sigma()).isCloseTo(0.0559457, within(1e-6));
        assertThat(f.kappa()).isCloseTo(0.000905237, within(1e-9));
        assertThat(f.rSquared()).isGreaterThan(0.998);
        assertThat(f.peakN()).isCloseTo(32.29, within(0.01));
    }

    /** Any seed: 50 seeds measured at sigma +/- 0.015, kappa +/- 23 %, lambda +/- 9 %, N* +/- 14 %. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
    void recoversParametersUnderNoiseForManySeeds(long seed) {
        UslFit f = UslFit.fit(N, curve(n -> usl(1000, 0.05, 0.001, n), 0.02, seed));
        assertThat(f.sigma()).isCloseTo(0.05, within(0.02));
        assertThat(f.kappa()).isCloseTo(0.001, within(0.0003));
        assertThat(f.lambda()).isCloseTo(1000, within(100.0));
        assertThat(f.peakN()).isCloseTo(30.82, within(4.5));
        assertThat(f.rSquared()).isGreaterThan(0.99);
    }

    @Test
    void linearCurveHasNoContentionNoCoherencyAndNoPeak() {
        UslFit f = UslFit.fit(N, curve(n -> 500 * n, 0, 0));
        assertThat(f.lambda()).isCloseTo(500, within(1e-9));
        assertThat(f.sigma()).isZero();
        assertThat(f.kappa()).isZero();
        assertThat(f.rSquared()).isCloseTo(1.0, within(1e-12));
        assertThat(f.peakN()).isInfinite();
        assertThat(f.peakX()).isInfinite();
        assertThat(f.peakExtrapolated()).isFalse(); // no finite peak at all

        UslFit noisy = UslFit.fit(N, curve(n -> 500 * n, 0.02, 42));
        assertThat(noisy.sigma()).isZero(); // bounds hold: no negative contention for a noisy straight line
        assertThat(noisy.kappa()).isZero();
        assertThat(noisy.lambda()).isCloseTo(502.26, within(0.01));
    }

    @Test
    void amdahlCurveHasNoPeakAndTheAsymptoteLambdaOverSigma() {
        UslFit f = UslFit.fit(N, curve(n -> usl(1000, 0.1, 0, n), 0, 0));
        assertThat(f.sigma()).isCloseTo(0.1, within(1e-9));
        assertThat(f.kappa()).isZero();
        assertThat(f.peakN()).isInfinite();
        assertThat(f.peakX()).isCloseTo(10_000, within(1e-4));

        UslFit noisy = UslFit.fit(N, curve(n -> usl(1000, 0.1, 0, n), 0.02, 42));
        assertThat(noisy.sigma()).isCloseTo(0.0975, within(0.0005));
        assertThat(noisy.kappa()).isZero();
        assertThat(noisy.peakX()).isCloseTo(10_065, within(1.0));
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
    void noisyAmdahlNeverPredictsAPeakInsideTheTestedRange(long seed) {
        UslFit f = UslFit.fit(N, curve(n -> usl(1000, 0.1, 0, n), 0.02, seed));
        assertThat(f.sigma()).isCloseTo(0.1, within(0.015));
        assertThat(f.kappa()).isLessThan(2e-4);
        assertThat(f.peakN()).isGreaterThan(2 * 48.0); // infinite, or an extrapolation far past the data
    }

    @Test
    void flatCurveIsFullContention() {
        double[] x = curve(n -> 700, 0, 0);
        UslFit f = UslFit.fit(N, x);
        assertThat(f.lambda()).isCloseTo(700, within(1e-6));
        assertThat(f.sigma()).isCloseTo(1.0, within(1e-9));
        assertThat(f.kappa()).isZero();
        assertThat(f.rSquared()).isEqualTo(1.0); // SST = 0, fitted exactly
        assertThat(f.peakN()).isEqualTo(1.0);
        assertThat(f.peakX()).isCloseTo(700, within(1e-6));

        UslFit noisy = UslFit.fit(N, curve(n -> 700, 0.02, 42));
        assertThat(noisy.sigma()).isGreaterThan(0.9);
        assertThat(noisy.peakN()).isEqualTo(1.0);
    }

    @Test
    void retrogradeCurveFromTheStartHasSigmaAboveOne() {
        UslFit f = UslFit.fit(N, curve(n -> usl(1000, 1.5, 0, n), 0, 0));
        assertThat(f.sigma()).isCloseTo(1.5, within(1e-9));
        assertThat(f.peakN()).isEqualTo(1.0);
        assertThat(f.peakX()).isCloseTo(1000, within(1e-6));
    }

    @Test
    void seed000EightKbCurve() {
        UslFit f = ScalingCurve.of(SeedCurves.seed000(800e6, 45)).usl();
        // Four points converging on the HBA's wire speed: a strong contention term and a peak just past the data.
        assertThat(f.lambda()).isCloseTo(72_344, within(1.0));
        assertThat(f.sigma()).isCloseTo(0.3688, within(1e-4));
        assertThat(f.kappa()).isCloseTo(0.010557, within(1e-6));
        assertThat(f.rSquared()).isCloseTo(0.9951, within(1e-4));
        assertThat(f.peakN()).isCloseTo(7.73, within(0.01));
        assertThat(f.peakX()).isCloseTo(138_727, within(1.0));
        assertThat(f.peakExtrapolated()).isTrue();
    }

    @Test
    void seed003StorageSpacesDirectCurve() {
        UslFit f = ScalingCurve.of(SeedCurves.seed003(SeedCurves::cpuLow, 30)).usl();
        // Linear to 30 VMs per node then a plateau: no contention, coherency puts the peak at ~64 VMs per node.
        assertThat(f.lambda()).isCloseTo(16_091, within(1.0));
        assertThat(f.sigma()).isZero();
        assertThat(f.kappa()).isCloseTo(2.44707e-4, within(1e-9));
        assertThat(f.rSquared()).isCloseTo(0.9955, within(1e-4));
        assertThat(f.peakN()).isCloseTo(63.93, within(0.01));
        assertThat(f.peakX()).isCloseTo(518_361, within(1.0)); // the report's "just over 500K IOPS"
    }

    /**
     * A measured iodepth sweep: fio 3.33 on the build VM (virtio disk, ext4, two vCPUs shared with other work),
     * 2026-11-28, read.iops (rounded) of {@code fio --name=q --filename=/tmp/usl.dat --size=256M --rw=randread --bs=4k
     * --ioengine=libaio --direct=1 --time_based --runtime=5 --iodepth=N --output-format=json+} per N
     * (bench/usl_fit_comparison.md has this sweep's two noisier neighbours).
     */
    @Test
    void fioIodepthSweep() {
        double[] iodepth = {1, 2, 4, 8, 16, 32, 64};
        double[] iops = {15_178, 28_197, 55_523, 72_181, 79_718, 90_489, 97_392};
        UslFit f = UslFit.fit(iodepth, iops);
        // All three coefficients free at the optimum: contention from the start, coherency past the tested range.
        assertThat(f.lambda()).isCloseTo(19_413.08, within(0.05));
        assertThat(f.sigma()).isCloseTo(0.181850, within(1e-6));
        assertThat(f.kappa()).isCloseTo(1.06794e-4, within(1e-9));
        assertThat(f.rSquared()).isCloseTo(0.983435, within(1e-6));
        assertThat(f.peakN()).isCloseTo(87.53, within(0.01));
        assertThat(f.peakX()).isCloseTo(96_853.1, within(0.1));
        assertThat(f.peakExtrapolated()).isTrue();
    }

    @Test
    void tooFewOrBadPointsAreNotFittedWithAReason() {
        UslFit two = UslFit.fit(new double[] {1, 2}, new double[] {100, 190});
        assertThat(two.fitted()).isFalse();
        assertThat(two.reason()).isEqualTo("need at least 3 distinct N, got 2");
        assertThat(two.lambda()).isNaN();
        assertThat(two.predict(3)).isNaN();
        assertThat(two.toString()).isEqualTo("USL not fitted: need at least 3 distinct N, got 2");

        assertThat(UslFit.fit(new double[] {1, 1, 2, 2}, new double[] {100, 101, 190, 191}).reason())
                .isEqualTo("need at least 3 distinct N, got 2");
        assertThat(UslFit.fit(new double[] {}, new double[] {}).reason()).isEqualTo("need at least 3 distinct N, got 0");
        assertThat(UslFit.fit(new double[] {1, 2, 3}, new double[] {0, 0, 0}).reason()).isEqualTo("all throughput is zero");
        assertThat(UslFit.fit(new double[] {0.5, 2, 3}, new double[] {1, 2, 3}).reason())
                .isEqualTo("point 0 has N=0.5 < 1 (USL load starts at 1)");
        assertThat(UslFit.fit(new double[] {1, 2, 3}, new double[] {1, Double.NaN, 3}).reason())
                .isEqualTo("point 1 is not finite (N=2.0, X=NaN)");
        assertThat(UslFit.fit(new double[] {1, 2, 3}, new double[] {1, 2, -3}).reason())
                .isEqualTo("point 2 has negative X=-3.0");
        assertThatThrownBy(() -> UslFit.fit(new double[] {1, 2}, new double[] {1}))
                .hasMessage("N and X differ in length (2 != 1)");
    }

    @Test
    void threePointsAreEnoughAndRepeatedNAreAveragedByLeastSquares() {
        UslFit f = UslFit.fit(new double[] {1, 2, 4}, new double[] {
                usl(100, 0.1, 0.01, 1), usl(100, 0.1, 0.01, 2), usl(100, 0.1, 0.01, 4)});
        assertThat(f.sigma()).isCloseTo(0.1, within(1e-7));
        assertThat(f.kappa()).isCloseTo(0.01, within(1e-8));

        UslFit rep = UslFit.fit(new double[] {1, 1, 2, 2, 4, 4}, new double[] {99, 101, 190, 192, 300, 302});
        assertThat(rep.fitted()).isTrue();
        assertThat(rep.predict(1)).isCloseTo(100, within(2.0));
    }
}
