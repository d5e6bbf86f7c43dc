package io.ioscale.testing;

import io.ioscale.config.AnalyticsOptions;
import io.ioscale.histogram.LatencyHistogram;
import io.ioscale.histogram.SparseBuckets;
import io.ioscale.records.CpuSample;
import io.ioscale.records.FleetRollupRow;
import io.ioscale.records.Grain;
import io.ioscale.records.IoSample;
import io.ioscale.records.IoStats;
import io.ioscale.records.LatencyQuantiles;
import io.ioscale.records.PortSample;
import io.ioscale.records.RunEvent;
import io.ioscale.records.Sample;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/** Builders of test records from raw latencies, and the exact oracle the pipeline is checked against. */
public final class TestData {
    private TestData() {}

    /** The analytics job's options from these arguments, with a ClickHouse password (the one argument it needs). */
    public static AnalyticsOptions options(String... args) {
        String[] all = Arrays.copyOf(new String[] {"--clickhouse-password", "test"}, 2 + args.length);
        System.arraycopy(args, 0, all, 2, args.length);
        return AnalyticsOptions.fromArgs(all);
    }

    /** Lognormal-ish latencies around {@code medianNs}, with a rare slow tail, deterministic per seed. */
    public static long[] latencies(long seed, int n, long medianNs) {
        SplittableRandom r = new SplittableRandom(seed);
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
            double g = r.nextGaussian();
            double v = medianNs * Math.exp(0.4 * g);
            if (r.nextInt(200) == 0) {
                v *= 8; // a stall
            }
            out[i] = Math.max(1, Math.round(v));
        }
        return out;
    }

    /** A sample with every field the job's serializers write set (run 3 of "run", h1/vm7/sdb, WRITE). */
    public static IoSample serializedSample() {
        IoSample s = io("run", 3, 12_000, "h1", "vm7", "sdb", "WRITE", latencies(1, 500, 90_000), 8192, 3.5);
        s.errors = 2;
        return s;
    }

    /** An IoSample whose ops, latency statistics and sparse histogram all come from {@code latenciesNs}. */
    public static IoSample io(String runId, int step, long tsMs, String host, String vm, String target, String direction,
                              long[] latenciesNs, int blockBytes, double outstanding) {
        IoSample s = sample(new IoSample(), runId, step, tsMs, host);
        s.vm = vm;
        s.target = target;
        s.direction = direction;
        s.ops = latenciesNs.length;
        s.bytes = (long) latenciesNs.length * blockBytes;
        s.outstandingIos = outstanding;
        LatencyHistogram h = new LatencyHistogram();
        h.recordMany(latenciesNs);
        SparseBuckets sp = h.toSparse();
        s.latencyCount = h.count();
        s.latencySumNs = h.sumNs();
        s.latencyMinNs = h.minNs();
        s.latencyMaxNs = h.maxNs();
        s.setBuckets(sp);
        return s;
    }

    public static LatencyHistogram histogram(long[] values) {
        LatencyHistogram h = new LatencyHistogram();
        h.recordMany(values);
        return h;
    }

    /** Exact quantile of raw values under the histogram's rank rule: the ceil(q n)-th smallest. */
    public static long exactQuantile(long[] sortedValues, double q) {
        int n = sortedValues.length;
        long rank = Math.min(Math.max((long) Math.ceil(q * (double) n), 1), n);
        return sortedValues[(int) rank - 1];
    }

    public static long[] concat(List<long[]> parts) {
        int n = parts.stream().mapToInt(a -> a.length).sum();
        long[] out = new long[n];
        int i = 0;
        for (long[] p : parts) {
            System.arraycopy(p, 0, out, i, p.length);
            i += p.length;
        }
        return out;
    }

    public static long[] sorted(long[] values) {
        long[] s = values.clone();
        Arrays.sort(s);
        return s;
    }

    public static RunEvent runEvent(String type, String runId, long tsMs, int step) {
        RunEvent e = new RunEvent();
        e.eventType = type;
        e.runId = runId;
        e.tsMs = tsMs;
        e.stepIndex = step;
        e.tool = "SIMULATOR";
        return e;
    }

    public static RunEvent.StepLoad load(int vms, int qd) {
        RunEvent.StepLoad l = new RunEvent.StepLoad();
        l.vmCount = vms;
        l.targetsPerVm = 1;
        l.workersPerTarget = 1;
        l.outstandingIosPerTarget = qd;
        l.blockSizeBytes = 8192;
        l.readPct = 100;
        l.randomPct = 100;
        return l;
    }

    public static RunEvent.LinkCapacity link(String host, String portId, String kind, long speedBps, long payload) {
        RunEvent.LinkCapacity l = new RunEvent.LinkCapacity();
        l.host = host;
        l.portId = portId;
        l.kind = kind;
        l.speedBps = speedBps;
        l.payloadBytesPerS = payload;
        return l;
    }

    public static CpuSample cpu(String runId, int step, long tsMs, String host, String scope, double pct,
                                double interruptsPerS) {
        CpuSample c = sample(new CpuSample(), runId, step, tsMs, host);
        c.scope = scope;
        c.cpu = -1;
        c.logicalProcessors = 16;
        c.utilizationPct = pct;
        c.interruptsPerS = interruptsPerS;
        return c;
    }

    public static PortSample port(String runId, int step, long tsMs, String host, String portId, String kind,
                                  long speedBps, long rxBytes, long txBytes) {
        PortSample p = sample(new PortSample(), runId, step, tsMs, host);
        p.portId = portId;
        p.kind = kind;
        p.linkSpeedBps = speedBps;
        p.rxBytes = rxBytes;
        p.txBytes = txBytes;
        return p;
    }

    /** A 1 s sample of {@code host} in (run, step) starting at {@code tsMs}. */
    private static <S extends Sample> S sample(S s, String runId, int step, long tsMs, String host) {
        s.tsMs = tsMs;
        s.intervalMs = 1000;
        s.runId = runId;
        s.stepIndex = step;
        s.host = host;
        return s;
    }

    /** A 1 s fleet row (as the fleet window emits it) built from raw latencies. */
    public static FleetRollupRow fleetSecond(String runId, int step, long tsMs, long[] latenciesNs, int blockBytes,
                                          double outstanding) {
        return fleetSecond(runId, step, tsMs, 1000, latenciesNs, blockBytes, outstanding);
    }

    /** The 1 s fleet row of one sample that started at tsMs and spans intervalMs (a whole-step result, say). */
    public static FleetRollupRow fleetSecond(String runId, int step, long tsMs, long intervalMs, long[] latenciesNs,
                                          int blockBytes, double outstanding) {
        FleetRollupRow r = new FleetRollupRow();
        r.grain = Grain.S1;
        r.windowStartMs = tsMs;
        r.windowEndMs = tsMs + 1000;
        r.runId = runId;
        r.stepIndex = step;
        r.sources = 1;
        LatencyHistogram h = histogram(latenciesNs);
        long ops = latenciesNs.length;
        r.stats = IoStats.of(1, ops, ops * blockBytes, 0, ops, 0, ops * blockBytes, 0, outstanding * intervalMs,
                intervalMs, h.count(), h.sumNs(), h.minNs(), h.maxNs(), h, 1000);
        r.stats.quantiles = LatencyQuantiles.of(h);
        return r;
    }
}
