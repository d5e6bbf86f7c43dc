package io.ioscale.avro;

import io.ioscale.histogram.LatencyHistogram;
import io.ioscale.histogram.PackedBuckets;
import io.ioscale.histogram.SparseBuckets;
import io.ioscale.records.CpuSample;
import io.ioscale.records.IoSample;
import io.ioscale.records.PortSample;
import io.ioscale.records.RunEvent;
import io.ioscale.records.Sample;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericRecord;

/**
 * GenericRecords (resolved to the reader schemas in schema/*.avsc) to the jobs' POJOs, with the field rules
 * the rollups rely on checked here, once, so a bad record becomes a dead letter instead of failing a window:
 * counts and byte totals are &gt;= 0 and the sparse histogram is well formed (the rules of
 * {@link LatencyHistogram#fromSparse}).
 */
public final class AvroRecords {
    private AvroRecords() {}

    public static IoSample ioSample(GenericRecord r) {
        IoSample s = sample(new IoSample(), r);
        s.target = str(r, "target");
        s.direction = str(r, "direction");
        s.ops = (Long) r.get("ops");
        s.bytes = (Long) r.get("bytes");
        s.outstandingIos = (Double) r.get("outstanding_ios");
        s.errors = (Long) r.get("errors");
        s.latencyCount = (Long) r.get("latency_count");
        s.latencySumNs = (Long) r.get("latency_sum_ns");
        s.latencyMinNs = (Long) r.get("latency_min_ns");
        s.latencyMaxNs = (Long) r.get("latency_max_ns");
        s.latencyHistScheme = (Integer) r.get("latency_hist_scheme");
        s.decodedBuckets = new SparseBuckets(ints(r.get("latency_bucket_index")), longs(r.get("latency_bucket_count")));
        return check(s);
    }

    /**
     * The rules an IoSample must meet, whichever path decoded it; fills statistics from buckets if missing. The
     * decoded histogram ({@link IoSample#decodedBuckets}) is validated here and packed into
     * {@link IoSample#latencyBuckets}.
     */
    public static IoSample check(IoSample s) {
        nonNegative("ops", s.ops);
        nonNegative("bytes", s.bytes);
        nonNegativeFinite("outstanding_ios", s.outstandingIos);
        nonNegative("errors", s.errors);
        nonNegative("latency_count", s.latencyCount);
        nonNegative("latency_sum_ns", s.latencySumNs);
        nonNegative("latency_min_ns", s.latencyMinNs);
        nonNegative("latency_max_ns", s.latencyMaxNs);
        nonNegative("interval_ms", s.intervalMs);
        checkHistogram(s);
        return s;
    }

    /** The rules of {@link LatencyHistogram#fromSparse}, without building the histogram; then packs it. */
    static void checkHistogram(IoSample s) {
        SparseBuckets decoded = s.decodedBuckets;
        s.decodedBuckets = null;
        if (decoded == null) { // built in-process, already packed (valid by construction)
            if (s.hasHistogram() && s.latencyCount == 0) {
                fillStatisticsFromBuckets(s, s.buckets(), PackedBuckets.total(s.latencyBuckets));
            }
            return;
        }
        int[] idx = decoded.indexes();
        long[] cnt = decoded.counts();
        if (idx.length != cnt.length) {
            throw new IllegalArgumentException("latency_bucket_index and latency_bucket_count differ in length ("
                    + idx.length + " != " + cnt.length + ")");
        }
        if (idx.length == 0) {
            s.latencyBuckets = PackedBuckets.EMPTY;
            return;
        }
        if (s.latencyHistScheme != LatencyHistogram.SCHEME_ID) {
            throw new IllegalArgumentException("latency_hist_scheme " + s.latencyHistScheme + " is not supported (only "
                    + LatencyHistogram.SCHEME_ID + ")");
        }
        long total = 0;
        for (int i = 0; i < idx.length; i++) {
            if (idx[i] < 0 || idx[i] > LatencyHistogram.MAX_INDEX) {
                throw new IllegalArgumentException("bucket index " + idx[i] + " out of range [0, "
                        + LatencyHistogram.MAX_INDEX + "]");
            }
            if (i > 0 && idx[i] <= idx[i - 1]) {
                throw new IllegalArgumentException("bucket indexes not strictly ascending at position " + i);
            }
            if (cnt[i] < 0) {
                throw new IllegalArgumentException("negative bucket count " + cnt[i] + " at position " + i);
            }
            total += cnt[i];
        }
        if (total > 0 && s.latencyMinNs > s.latencyMaxNs) {
            throw new IllegalArgumentException("latency_min_ns " + s.latencyMinNs + " > latency_max_ns "
                    + s.latencyMaxNs);
        }
        // Packing drops empty buckets (an all-zero histogram becomes none; the statistics stay).
        s.latencyBuckets = PackedBuckets.pack(idx, cnt);
        if (total > 0 && s.latencyCount == 0) {
            fillStatisticsFromBuckets(s, decoded, total);
        }
    }

    /**
     * A source that sends buckets but no exact statistics (latency_count 0): count, sum, min and max are taken
     * from the buckets (sum from representatives, min/max from the outer bucket bounds), within the histogram's
     * 1/256, so the histogram's quantiles are not clamped to [0, 0] and the mean is not lost.
     */
    private static void fillStatisticsFromBuckets(IoSample s, SparseBuckets b, long total) {
        int first = -1;
        int last = -1;
        long sum = 0;
        for (int i = 0; i < b.indexes().length; i++) {
            if (b.counts()[i] > 0) {
                if (first < 0) {
                    first = b.indexes()[i];
                }
                last = b.indexes()[i];
                sum += LatencyHistogram.bucketRepresentativeNs(b.indexes()[i]) * b.counts()[i];
            }
        }
        s.latencyCount = total;
        s.latencySumNs = sum;
        s.latencyMinNs = LatencyHistogram.bucketLowerNs(first);
        s.latencyMaxNs = LatencyHistogram.bucketUpperNs(last) - 1;
    }

    public static CpuSample cpuSample(GenericRecord r) {
        CpuSample s = sample(new CpuSample(), r);
        s.scope = str(r, "scope");
        s.cpu = (Integer) r.get("cpu");
        s.logicalProcessors = (Integer) r.get("logical_processors");
        s.utilizationPct = (Double) r.get("utilization_pct");
        s.userPct = (Double) r.get("user_pct");
        s.privilegedPct = (Double) r.get("privileged_pct");
        s.dpcPct = (Double) r.get("dpc_pct");
        s.interruptPct = (Double) r.get("interrupt_pct");
        s.iowaitPct = (Double) r.get("iowait_pct");
        s.interruptsPerS = (Double) r.get("interrupts_per_s");
        s.dpcsPerS = (Double) r.get("dpcs_per_s");
        nonNegativeFinite("utilization_pct", s.utilizationPct);
        nonNegative("interval_ms", s.intervalMs);
        return s;
    }

    public static PortSample portSample(GenericRecord r) {
        PortSample s = sample(new PortSample(), r);
        s.portId = str(r, "port_id");
        s.kind = str(r, "kind");
        s.queue = (Integer) r.get("queue");
        s.linkSpeedBps = nonNegative("link_speed_bps", (Long) r.get("link_speed_bps"));
        s.rxBytes = nonNegative("rx_bytes", (Long) r.get("rx_bytes"));
        s.txBytes = nonNegative("tx_bytes", (Long) r.get("tx_bytes"));
        s.rxFrames = nonNegative("rx_frames", (Long) r.get("rx_frames"));
        s.txFrames = nonNegative("tx_frames", (Long) r.get("tx_frames"));
        s.rxErrors = nonNegative("rx_errors", (Long) r.get("rx_errors"));
        s.txErrors = nonNegative("tx_errors", (Long) r.get("tx_errors"));
        s.interrupts = nonNegative("interrupts", (Long) r.get("interrupts"));
        s.tool = tag(r, "tool");
        nonNegative("interval_ms", s.intervalMs);
        return s;
    }

    public static RunEvent runEvent(GenericRecord r) {
        RunEvent e = new RunEvent();
        e.eventType = str(r, "event_type");
        e.tsMs = (Long) r.get("ts_ms");
        e.runId = str(r, "run_id");
        e.scenario = str(r, "scenario");
        e.tool = str(r, "tool");
        e.stepIndex = (Integer) r.get("step_index");
        e.stepLabel = str(r, "step_label");
        Object load = r.get("load");
        if (load instanceof GenericRecord l) {
            RunEvent.StepLoad s = new RunEvent.StepLoad();
            s.vmCount = (Integer) l.get("vm_count");
            s.targetsPerVm = (Integer) l.get("targets_per_vm");
            s.workersPerTarget = (Integer) l.get("workers_per_target");
            s.outstandingIosPerTarget = (Integer) l.get("outstanding_ios_per_target");
            s.blockSizeBytes = (Integer) l.get("block_size_bytes");
            s.readPct = (Double) l.get("read_pct");
            s.randomPct = (Double) l.get("random_pct");
            s.adapter = str(l, "adapter");
            e.load = s;
        }
        List<RunEvent.LinkCapacity> links = new ArrayList<>();
        for (Object o : (List<?>) r.get("links")) {
            GenericRecord l = (GenericRecord) o;
            RunEvent.LinkCapacity c = new RunEvent.LinkCapacity();
            c.host = str(l, "host");
            c.portId = str(l, "port_id");
            c.kind = str(l, "kind");
            c.speedBps = nonNegative("links.speed_bps", (Long) l.get("speed_bps"));
            c.payloadBytesPerS = nonNegative("links.payload_bytes_per_s", (Long) l.get("payload_bytes_per_s"));
            c.fullDuplex = (Boolean) l.get("full_duplex");
            links.add(c);
        }
        e.links = links;
        e.startMs = (Long) r.get("start_ms");
        e.endMs = (Long) r.get("end_ms");
        return e;
    }

    /** The fields every sample starts with (interval_ms is checked with the sample's other rules). */
    private static <S extends Sample> S sample(S s, GenericRecord r) {
        s.tsMs = (Long) r.get("ts_ms");
        s.intervalMs = (Integer) r.get("interval_ms");
        s.runId = str(r, "run_id");
        s.stepIndex = (Integer) r.get("step_index");
        s.host = str(r, "host");
        s.vm = str(r, "vm");
        return s;
    }

    /** The record's tag {@code key} (its {@code tags} map: Utf8 or String keys), "" when it has none. */
    private static String tag(GenericRecord r, String key) {
        if (r.get("tags") instanceof Map<?, ?> tags) {
            for (Map.Entry<?, ?> e : tags.entrySet()) {
                if (key.contentEquals(e.getKey().toString())) {
                    return e.getValue() == null ? "" : e.getValue().toString();
                }
            }
        }
        return "";
    }

    private static String str(GenericRecord r, String field) {
        Object v = r.get(field);
        return v == null ? "" : v.toString(); // Utf8 and EnumSymbol both render their text
    }

    private static long nonNegative(String field, long v) {
        if (v < 0) {
            throw new IllegalArgumentException(field + " " + v + " is negative");
        }
        return v;
    }

    private static void nonNegativeFinite(String field, double v) {
        if (!(v >= 0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException(field + " " + v + " is not a finite number >= 0");
        }
    }

    private static int[] ints(Object array) {
        List<?> list = (List<?>) array;
        int[] out = new int[list.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = (Integer) list.get(i);
        }
        return out;
    }

    private static long[] longs(Object array) {
        List<?> list = (List<?>) array;
        long[] out = new long[list.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = (Long) list.get(i);
        }
        return out;
    }
}
