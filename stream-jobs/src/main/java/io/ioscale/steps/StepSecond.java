package io.ioscale.steps;

import io.ioscale.records.CpuSample;
import io.ioscale.records.FleetRollupRow;
import io.ioscale.records.PortSample;
import java.util.ArrayList;
import java.util.List;

/**
 * One second of one step: the fleet rows of the samples that started in it (the step's own and those of
 * collectors that do not know the step), summed, with the second's CPU and port samples. Transient: built from
 * {@link StepAnalyzer.SecondState} for each evaluation.
 *
 * <p>Counts ({@code ops}, {@code bytes}, latency) are the samples'; rates ({@code iops}, {@code mbPerS},
 * {@code outstandingIos}) hold over {@code [tsMs, tsMs + spanMs)}: a sample longer than a second (a 5 s fio log
 * interval, a whole-step Iometer, DISKSPD or fio JSON result) spreads its I/O over the time it covers.
 */
final class StepSecond {
    final long tsMs;
    final List<FleetRollupRow> rows = new ArrayList<>(2);
    final List<CpuSample> cpu;
    final List<PortSample> port;
    long samples;
    long ops;
    long bytes;
    long latencyCount;
    long latencySumNs;
    long latencyMaxNs;
    /** Sum of the rows' mean I/Os in flight over their span. */
    double outstandingIos;
    /** Sum of the rows' rates over their span. */
    double iops;
    double mbPerS;
    /** The longest span of the second's rows: 1 s for per-second samples. */
    long spanMs = StepAnalyzer.SECOND_MS;

    StepSecond(long tsMs, List<CpuSample> cpu, List<PortSample> port) {
        this.tsMs = tsMs;
        this.cpu = cpu;
        this.port = port;
    }

    /** A second of I/O only (tests). */
    StepSecond(long tsMs) {
        this(tsMs, List.of(), List.of());
    }

    StepSecond add(FleetRollupRow r) {
        rows.add(r);
        samples += r.stats.samples;
        ops += r.stats.ops;
        bytes += r.stats.bytes;
        latencyCount += r.stats.latencyCount;
        latencySumNs += r.stats.latencySumNs;
        latencyMaxNs = Math.max(latencyMaxNs, r.stats.latencyMaxNs);
        outstandingIos += r.stats.outstandingIos;
        iops += r.stats.iops;
        mbPerS += r.stats.mbPerS;
        spanMs = Math.max(spanMs, r.stats.rateSpanMs());
        return this;
    }

    long endMs() {
        return tsMs + spanMs;
    }

    /** Milliseconds of [fromMs, toMs) this second's samples cover. */
    long overlapMs(long fromMs, long toMs) {
        return Math.max(0, Math.min(endMs(), toMs) - Math.max(tsMs, fromMs));
    }

    double meanLatencyNs() {
        return latencyCount > 0 ? (double) latencySumNs / latencyCount : Double.NaN;
    }
}
