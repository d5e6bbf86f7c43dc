package io.ioscale.avro;

import io.ioscale.histogram.SparseBuckets;
import io.ioscale.records.IoSample;
import io.ioscale.types.StringCache;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.ResolvingDecoder;
import org.apache.avro.util.Utf8;

/**
 * Reads an IoSample body straight into the POJO: no GenericRecord and no boxed array elements. IoSample is the one
 * high-volume record (every VM, target and direction, every second, with hundreds of histogram buckets).
 *
 * <ul>
 *   <li>Writer schema = the reader schema (same parsing canonical form, the usual case): the fields are read in
 *       order from the plain binary decoder, with no per-value grammar step.</li>
 *   <li>Any other writer schema: through Avro's {@link ResolvingDecoder}, the same resolution as GenericDatumReader
 *       (fields in writer order, defaults for fields the writer lacks, enum symbols by name).</li>
 * </ul>
 * No length in the body is trusted: ConfluentAvroDecoder hands it a {@link FrameDecoder}, which refuses a
 * string, array or map longer than what is left of the frame before anything is allocated.
 * The field rules are then checked by {@link AvroRecords#check(IoSample)}, as on the generic path;
 * ConfluentAvroDecoderTest checks both paths decode the same samples. bench/RESULTS.md has the speeds.
 */
public final class IoSampleReader implements ConfluentAvroDecoder.BodyReader<IoSample> {
    private static final long serialVersionUID = 1L;

    private enum F {
        TS_MS, INTERVAL_MS, RUN_ID, STEP_INDEX, HOST, VM, TARGET, DIRECTION, OPS, BYTES, OUTSTANDING_IOS, ERRORS,
        LATENCY_COUNT, LATENCY_SUM_NS, LATENCY_MIN_NS, LATENCY_MAX_NS, LATENCY_HIST_SCHEME, LATENCY_BUCKET_INDEX,
        LATENCY_BUCKET_COUNT, PERCENTILE_Q, PERCENTILE_NS, TAGS
    }

    private transient F[] byPosition;
    private transient List<String> directionSymbols;
    /** The identifiers every second repeats, decoded once (StringCache). */
    private transient StringCache strings;
    private transient Utf8 scratch;

    private void init(Schema reader) {
        byPosition = new F[reader.getFields().size()];
        for (Schema.Field f : reader.getFields()) {
            byPosition[f.pos()] = F.valueOf(f.name().toUpperCase(java.util.Locale.ROOT));
        }
        directionSymbols = reader.getField("direction").schema().getEnumSymbols();
    }

    @Override
    public IoSample read(Schema reader, ResolvingDecoder in) throws IOException {
        return read(reader, in, in.readFieldOrder());
    }

    @Override
    public IoSample readSameSchema(Schema reader, Decoder in) throws IOException {
        if (readerOrder == null) {
            readerOrder = reader.getFields().toArray(new Schema.Field[0]);
        }
        return read(reader, in, readerOrder);
    }

    private transient Schema.Field[] readerOrder;

    private IoSample read(Schema reader, Decoder in, Schema.Field[] order) throws IOException {
        if (byPosition == null) {
            init(reader);
        }
        IoSample s = new IoSample();
        int[] bucketIndex = NO_INTS;
        long[] bucketCount = NO_LONGS;
        for (Schema.Field field : order) {
            switch (byPosition[field.pos()]) {
                case TS_MS -> s.tsMs = in.readLong();
                case INTERVAL_MS -> s.intervalMs = in.readInt();
                case RUN_ID -> s.runId = string(in);
                case STEP_INDEX -> s.stepIndex = in.readInt();
                case HOST -> s.host = string(in);
                case VM -> s.vm = string(in);
                case TARGET -> s.target = string(in);
                case DIRECTION -> s.direction = directionSymbols.get(in.readEnum());
                case OPS -> s.ops = in.readLong();
                case BYTES -> s.bytes = in.readLong();
                case OUTSTANDING_IOS -> s.outstandingIos = in.readDouble();
                case ERRORS -> s.errors = in.readLong();
                case LATENCY_COUNT -> s.latencyCount = in.readLong();
                case LATENCY_SUM_NS -> s.latencySumNs = in.readLong();
                case LATENCY_MIN_NS -> s.latencyMinNs = in.readLong();
                case LATENCY_MAX_NS -> s.latencyMaxNs = in.readLong();
                case LATENCY_HIST_SCHEME -> s.latencyHistScheme = in.readInt();
                case LATENCY_BUCKET_INDEX -> bucketIndex = ints(in);
                case LATENCY_BUCKET_COUNT -> bucketCount = longs(in);
                case PERCENTILE_Q -> skipDoubles(in);
                case PERCENTILE_NS -> longs(in);
                case TAGS -> skipMap(in);
                default -> throw new IOException("unexpected field " + field.name());
            }
        }
        s.decodedBuckets = new SparseBuckets(bucketIndex, bucketCount); // validated and packed by the checker
        return s;
    }

    private static final int[] NO_INTS = new int[0];
    private static final long[] NO_LONGS = new long[0];

    private String string(Decoder in) throws IOException {
        scratch = in.readString(scratch);
        if (strings == null) {
            strings = new StringCache();
        }
        return strings.get(scratch.getBytes(), scratch.getByteLength());
    }

    private static int[] ints(Decoder in) throws IOException {
        int[] out = new int[0];
        int n = 0;
        for (long block = in.readArrayStart(); block != 0; block = in.arrayNext()) {
            out = grow(out, n, block);
            for (long i = 0; i < block; i++) {
                out[n++] = in.readInt();
            }
        }
        return n == out.length ? out : Arrays.copyOf(out, n);
    }

    private static long[] longs(Decoder in) throws IOException {
        long[] out = new long[0];
        int n = 0;
        for (long block = in.readArrayStart(); block != 0; block = in.arrayNext()) {
            out = grow(out, n, block);
            for (long i = 0; i < block; i++) {
                out[n++] = in.readLong();
            }
        }
        return n == out.length ? out : Arrays.copyOf(out, n);
    }

    private static int[] grow(int[] a, int used, long more) throws IOException {
        long need = used + more;
        if (more < 0 || need > LatencyLimits.MAX_ARRAY) {
            throw new IOException("array of " + need + " elements is larger than any histogram");
        }
        return need <= a.length ? a : Arrays.copyOf(a, (int) need);
    }

    private static long[] grow(long[] a, int used, long more) throws IOException {
        long need = used + more;
        if (more < 0 || need > LatencyLimits.MAX_ARRAY) {
            throw new IOException("array of " + need + " elements is larger than any histogram");
        }
        return need <= a.length ? a : Arrays.copyOf(a, (int) need);
    }

    private static void skipDoubles(Decoder in) throws IOException {
        for (long block = in.readArrayStart(); block != 0; block = in.arrayNext()) {
            for (long i = 0; i < block; i++) {
                in.readDouble();
            }
        }
    }

    private static void skipMap(Decoder in) throws IOException {
        for (long block = in.readMapStart(); block != 0; block = in.mapNext()) {
            for (long i = 0; i < block; i++) {
                in.skipString();
                in.skipString();
            }
        }
    }

    /** Bounds that keep a corrupt length from allocating gigabytes. */
    static final class LatencyLimits {
        /** More than the 4352 buckets of scheme 1, with room for tools' own percentile lists. */
        static final int MAX_ARRAY = 1 << 16;

        private LatencyLimits() {}
    }
}
