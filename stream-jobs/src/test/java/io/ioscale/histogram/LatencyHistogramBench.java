package io.ioscale.histogram;

import java.util.Random;
import java.util.function.LongSupplier;

/**
 * Micro-benchmark of {@link LatencyHistogram}: ns per record, per merge, per quantile. The Python twin is
 * bench/histogram_bench.py and prints the same figures on the same data shapes. Not JMH: a plain main with
 * warm-up rounds and the best of several timed rounds, enough to compare orders of magnitude.
 *
 * <p>Run after {@code mvn test-compile}:
 * {@code java -cp stream-jobs/target/classes:stream-jobs/target/test-classes io.ioscale.histogram.LatencyHistogramBench}
 */
public final class LatencyHistogramBench {
    private static final double[] LEVELS = {0, 0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999, 1};
    private static long sink; // consumed results, so the JIT cannot drop the work

    private LatencyHistogramBench() {}

    /** Best ns per op over timed rounds, after warm-up rounds; body returns a value to consume. */
    private static double bestNs(LongSupplier body, long opsPerRound) {
        for (int i = 0; i < 15; i++) {
            sink += body.getAsLong();
        }
        double best = Double.MAX_VALUE;
        for (int i = 0; i < 10; i++) {
            long start = System.nanoTime();
            sink += body.getAsLong();
            best = Math.min(best, (System.nanoTime() - start) / (double) opsPerRound);
        }
        return best;
    }

    /** A lognormal histogram grown until it has {@code target} non-empty buckets, as the Python bench does. */
    private static LatencyHistogram withBuckets(int target, long seed) {
        Random rng = new Random(seed);
        LatencyHistogram h = new LatencyHistogram();
        while (h.toSparse().indexes().length < target) {
            long[] batch = new long[2000];
            for (int i = 0; i < batch.length; i++) {
                batch[i] = (long) Math.exp(Math.log(300_000) + 1.6 * rng.nextGaussian());
            }
            h.recordMany(batch);
        }
        return h;
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        Random rng = new Random(1);
        long[] values = new long[n];
        long[] counts = new long[n];
        for (int i = 0; i < n; i++) {
            values[i] = (long) Math.exp(Math.log(200_000) + rng.nextGaussian());
            counts[i] = 1 + rng.nextInt(9);
        }
        LatencyHistogram a = withBuckets(1000, 2);
        LatencyHistogram b = withBuckets(1000, 3);
        SparseBuckets sparse = a.toSparse();
        byte[] data = a.toBytes();
        int rounds = 2000;

        System.out.printf("LatencyHistogram, Java %s (%s)%n", System.getProperty("java.version"),
                System.getProperty("java.vm.name"));
        print("record() loop, ns/record", bestNs(() -> {
            LatencyHistogram h = new LatencyHistogram();
            for (long v : values) {
                h.record(v);
            }
            return h.count();
        }, n));
        print("recordMany(values), ns/record", bestNs(() -> {
            LatencyHistogram h = new LatencyHistogram();
            h.recordMany(values);
            return h.count();
        }, n));
        print("recordMany(values, counts), ns/pair", bestNs(() -> {
            LatencyHistogram h = new LatencyHistogram();
            h.recordMany(values, counts);
            return h.count();
        }, n));
        print("merge (" + sparse.indexes().length + " + " + b.toSparse().indexes().length + " buckets), ns/merge",
                bestNs(() -> {
                    LatencyHistogram target = a.copy();
                    for (int i = 0; i < rounds; i++) {
                        target.merge(b);
                    }
                    return target.count();
                }, rounds));
        print("quantile(0.99), ns/call", bestNs(() -> {
            long s = 0;
            for (int i = 0; i < rounds; i++) {
                s += a.quantile(0.99).valueNs();
            }
            return s;
        }, rounds));
        print("quantiles(" + LEVELS.length + " levels), ns/call", bestNs(() -> {
            long s = 0;
            for (int i = 0; i < rounds; i++) {
                s += a.quantiles(LEVELS).size();
            }
            return s;
        }, rounds));
        print("toSparse, ns/call", bestNs(() -> {
            long s = 0;
            for (int i = 0; i < rounds; i++) {
                s += a.toSparse().indexes().length;
            }
            return s;
        }, rounds));
        print("fromSparse, ns/call", bestNs(() -> {
            long s = 0;
            for (int i = 0; i < rounds; i++) {
                s += LatencyHistogram.fromSparse(sparse.indexes(), sparse.counts(), a.sumNs(), a.minNs(), a.maxNs())
                        .count();
            }
            return s;
        }, rounds));
        print("toBytes (" + data.length + " bytes), ns/call", bestNs(() -> {
            long s = 0;
            for (int i = 0; i < rounds; i++) {
                s += a.toBytes().length;
            }
            return s;
        }, rounds));
        print("fromBytes, ns/call", bestNs(() -> {
            long s = 0;
            for (int i = 0; i < rounds; i++) {
                s += LatencyHistogram.fromBytes(data).count();
            }
            return s;
        }, rounds));
        if (sink == 42) {
            System.out.println(); // never true in practice; keeps sink alive
        }
    }

    private static void print(String name, double ns) {
        System.out.printf("  %-48s %,12.1f%n", name, ns);
    }
}
