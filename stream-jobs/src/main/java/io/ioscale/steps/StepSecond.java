package io.ioscale.steps;

import io.ioscale.records.CpuSample;
import io.ioscale.records.FleetRollupRow;
import io.ioscale.records.PortSample;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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
    /** Whether the figures are the whole ports' payload ({@link #ofPorts}), not I/O samples'. */
    boolean portBasis;

    StepSecond(long tsMs, List<CpuSample> cpu, List<PortSample> port) {
        this.tsMs = tsMs;
        this.cpu = cpu;
        this.port = port;
    }

    /**
     * A second of a step without I/O samples (a network test): its throughput is the payload its whole ports
     * moved, the larger direction over all ports of a kind, the busiest kind. So a one-way test counts its bytes
     * once whether one end or both ends were recorded, and a host NIC with the virtual NICs behind it is not added
     * to them; both directions of a bidirectional test count when both ends were recorded. When a load generator
     * counted the traffic ({@link PortSample#tool}), only its samples count: the hosts' NIC counters beside them
     * see the same bytes again, with headers and other traffic. Frames stand for I/Os where the samples count them
     * (UDP datagrams); there is no latency.
     */
    static StepSecond ofPorts(long tsMs, List<CpuSample> cpu, List<PortSample> port) {
        StepSecond s = new StepSecond(tsMs, cpu, port);
        s.portBasis = true;
        boolean generated = port.stream().anyMatch(p -> !p.tool.isEmpty());
        Map<String, long[]> byKind = new TreeMap<>(); // kind -> rx bytes, tx bytes, rx frames, tx frames
        for (PortSample p : port) {
            if (generated && p.tool.isEmpty()) {
                continue;
            }
            long[] k = byKind.computeIfAbsent(p.kind, x -> new long[4]);
            k[0] += p.rxBytes;
            k[1] += p.txBytes;
            k[2] += p.rxFrames;
            k[3] += p.txFrames;
            s.samples++;
            s.spanMs = Math.max(s.spanMs, p.intervalMs);
        }
        for (long[] k : byKind.values()) {
            if (Math.max(k[0], k[1]) > s.bytes) {
                s.bytes = Math.max(k[0], k[1]);
                s.ops = Math.max(k[2], k[3]);
            }
        }
        s.iops = s.ops * 1000.0 / s.spanMs;
        s.mbPerS = s.bytes / 1e6 * 1000.0 / s.spanMs;
        return s;
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
