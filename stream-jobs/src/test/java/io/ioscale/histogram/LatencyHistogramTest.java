package io.ioscale.histogram;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.ArgumentsProvider;
import org.junit.jupiter.params.provider.ArgumentsSource;
import org.junit.jupiter.params.support.AnnotationConsumer;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Golden vectors shared with the Python tests (schema/histogram_vectors.tsv, read here, never retyped), then
 * properties with fixed seeds. The file's format is documented in its header; the hex encodings in it were
 * written by the Python-side reference generator, so decoding them here and re-encoding to the same bytes
 * checks the cross-language wire form in both directions.
 */
class LatencyHistogramTest {

    /** One line of the vectors file: its kind and the remaining TAB-separated fields. */
    record Row(String kind, List<String> fields) {
        String get(int i) {
            return fields.get(i);
        }

        long getLong(int i) {
            return Long.parseLong(fields.get(i));
        }

        @Override
        public String toString() {
            String s = String.join(" ", fields);
            return s.length() > 60 ? s.substring(0, 60) : s;
        }
    }

    private static final List<Row> ROWS = load();
    private static final Map<String, LatencyHistogram> BUILT = buildHistograms();

    /** The vectors file: -Dioscale.histogramVectors=PATH, else found from the working directory upwards. */
    static Path vectorsPath() {
        String override = System.getProperty("ioscale.histogramVectors");
        if (override != null) {
            return Paths.get(override);
        }
        for (Path dir = Paths.get(System.getProperty("user.dir")).toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("schema").resolve("histogram_vectors.tsv");
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("schema/histogram_vectors.tsv not found above " + System.getProperty("user.dir"));
    }

    private static List<Row> load() {
        try {
            List<Row> rows = new ArrayList<>();
            for (String line : Files.readAllLines(vectorsPath(), StandardCharsets.UTF_8)) {
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split("\t", -1); // keep empty trailing fields (empty lists)
                rows.add(new Row(f[0], List.of(f).subList(1, f.length)));
            }
            return rows;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Stream<Row> rows(String kind) {
        List<Row> selected = ROWS.stream().filter(r -> r.kind().equals(kind)).toList();
        if (selected.isEmpty()) {
            throw new IllegalStateException("no " + kind + " rows in " + vectorsPath());
        }
        return selected.stream();
    }

    /** A parameterized test's arguments: the rows of one kind, e.g. {@code @Vectors("bucket")}. */
    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @ArgumentsSource(VectorRows.class)
    @interface Vectors {
        String value();
    }

    static final class VectorRows implements ArgumentsProvider, AnnotationConsumer<Vectors> {
        private String kind;

        @Override
        public void accept(Vectors vectors) {
            kind = vectors.value();
        }

        @Override
        public Stream<? extends Arguments> provideArguments(ExtensionContext context) {
            return rows(kind).map(Arguments::of);
        }
    }

    private static int[] ints(String field) {
        return field.isEmpty() ? new int[0] : Arrays.stream(field.split(",")).mapToInt(Integer::parseInt).toArray();
    }

    private static long[] longs(String field) {
        return field.isEmpty() ? new long[0] : Arrays.stream(field.split(",")).mapToLong(Long::parseLong).toArray();
    }

    /** Recipe "record:v,v*c,..." or "merge:a+b+..." (earlier rows), as the file header defines. */
    private static LatencyHistogram build(String recipe, Map<String, LatencyHistogram> built) {
        LatencyHistogram h = new LatencyHistogram();
        if (recipe.startsWith("merge:")) {
            for (String name : recipe.substring(6).split("\\+")) {
                h.merge(built.get(name).copy());
            }
            return h;
        }
        assertTrue(recipe.startsWith("record:"), recipe);
        for (long[] item : recordItems(recipe)) {
            h.record(item[0], item[1]);
        }
        return h;
    }

    private static List<long[]> recordItems(String recipe) {
        List<long[]> items = new ArrayList<>();
        for (String item : recipe.substring(7).split(",")) {
            if (item.isEmpty()) {
                continue;
            }
            int star = item.indexOf('*');
            items.add(star < 0
                    ? new long[] {Long.parseLong(item), 1}
                    : new long[] {Long.parseLong(item.substring(0, star)), Long.parseLong(item.substring(star + 1))});
        }
        return items;
    }

    private static Map<String, LatencyHistogram> buildHistograms() {
        Map<String, LatencyHistogram> built = new LinkedHashMap<>();
        rows("hist").forEach(r -> built.put(r.get(0), build(r.get(1), built)));
        return built;
    }

    // ------------------------------------------------------------------------------------------- golden vectors

    @ParameterizedTest(name = "bucket {0}")
    @Vectors("bucket")
    void bucketVector(Row row) {
        long value = row.getLong(0);
        int index = (int) row.getLong(1);
        assertEquals(index, LatencyHistogram.bucketIndex(value));
        assertEquals(row.getLong(2), LatencyHistogram.bucketLowerNs(index));
        assertEquals(row.getLong(3), LatencyHistogram.bucketUpperNs(index));
        assertEquals(row.getLong(4), LatencyHistogram.bucketRepresentativeNs(index));
        LatencyHistogram h = new LatencyHistogram();
        h.record(value);
        assertEquals(new SparseBuckets(new int[] {index}, new long[] {1}), h.toSparse());
        assertEquals(row.getLong(5), h.overflowCount());
        assertEquals(value, h.minNs());
        assertEquals(value, h.maxNs());
        assertEquals(value, h.sumNs());
    }

    @ParameterizedTest(name = "reject {0}")
    @Vectors("reject")
    void rejectVector(Row row) {
        long value = row.getLong(0);
        long count = row.getLong(1);
        String fragment = row.get(2);
        LatencyHistogram h = new LatencyHistogram();
        assertMessage(fragment, assertThrows(HistogramException.class, () -> h.record(value, count)));
        assertMessage(fragment, assertThrows(HistogramException.class,
                () -> h.recordMany(new long[] {value}, new long[] {count})));
        if (count == 1) {
            assertMessage(fragment, assertThrows(HistogramException.class, () -> h.recordMany(new long[] {7, value})));
        }
        assertEquals(new LatencyHistogram(), h); // nothing half-recorded
    }

    @ParameterizedTest(name = "hist {0}")
    @Vectors("hist")
    void histVector(Row row) {
        LatencyHistogram h = BUILT.get(row.get(0));
        assertEquals(new SparseBuckets(ints(row.get(2)), longs(row.get(3))), h.toSparse());
        assertEquals(row.getLong(4), h.count());
        assertEquals(row.getLong(5), h.sumNs());
        assertEquals(row.getLong(6), h.minNs());
        assertEquals(row.getLong(7), h.maxNs());
        assertEquals(row.getLong(8), h.overflowCount());
        String hex = row.get(9);
        assertEquals(hex, HexFormat.of().formatHex(h.toBytes()));
        assertEquals(h, LatencyHistogram.fromBytes(HexFormat.of().parseHex(hex)));
        LatencyHistogram rebuilt = LatencyHistogram.fromSparse(ints(row.get(2)), longs(row.get(3)),
                row.getLong(5), row.getLong(6), row.getLong(7), row.getLong(8));
        assertEquals(h, rebuilt);
        assertEquals(hex, HexFormat.of().formatHex(rebuilt.toBytes()));
        if (row.get(1).startsWith("record:")) { // the bulk paths agree with record()
            List<long[]> items = recordItems(row.get(1));
            long[] values = items.stream().mapToLong(i -> i[0]).toArray();
            long[] counts = items.stream().mapToLong(i -> i[1]).toArray();
            LatencyHistogram bulk = new LatencyHistogram();
            bulk.recordMany(values, counts);
            assertEquals(h, bulk);
            if (Arrays.stream(counts).allMatch(c -> c == 1)) {
                LatencyHistogram plain = new LatencyHistogram();
                plain.recordMany(values);
                assertEquals(h, plain);
            }
        }
    }

    @ParameterizedTest(name = "quantile {0}")
    @Vectors("quantile")
    void quantileVector(Row row) {
        double q = Double.parseDouble(row.get(1));
        QuantileResult expected = new QuantileResult(q, row.getLong(2), row.getLong(3), row.get(4).equals("1"),
                row.getLong(5));
        LatencyHistogram h = BUILT.get(row.get(0));
        assertEquals(expected, h.quantile(q));
        assertEquals(List.of(expected, expected), h.quantiles(q, q));
    }

    @ParameterizedTest(name = "required_n {0}")
    @Vectors("required_n")
    void requiredNVector(Row row) {
        assertEquals(row.getLong(1), LatencyHistogram.requiredN(Double.parseDouble(row.get(0))));
    }

    @ParameterizedTest(name = "bad_q {0}")
    @Vectors("bad_q")
    void badQVector(Row row) {
        double q = Double.parseDouble(row.get(0));
        assertMessage("not in", assertThrows(HistogramException.class, () -> BUILT.get("single").quantile(q)));
    }

    @ParameterizedTest(name = "bad_sparse {0}")
    @Vectors("bad_sparse")
    void badSparseVector(Row row) {
        HistogramException e = assertThrows(HistogramException.class, () -> LatencyHistogram.fromSparse(
                ints(row.get(0)), longs(row.get(1)), row.getLong(2), row.getLong(3), row.getLong(4), row.getLong(5)));
        assertMessage(row.get(6), e);
    }

    @ParameterizedTest(name = "bad_bytes {0}")
    @Vectors("bad_bytes")
    void badBytesVector(Row row) {
        byte[] data = HexFormat.of().parseHex(row.get(0));
        assertMessage(row.get(1), assertThrows(HistogramException.class, () -> LatencyHistogram.fromBytes(data)));
    }

    private static void assertMessage(String fragment, Exception e) {
        assertNotNull(e.getMessage());
        assertTrue(e.getMessage().contains(fragment), () -> "'" + e.getMessage() + "' lacks '" + fragment + "'");
    }

    // ------------------------------------------------------------------------------------------- properties

    @Test
    void bucketsTileTheRangeWithoutGaps() {
        assertEquals(4352, LatencyHistogram.BUCKET_COUNT);
        assertTrue(LatencyHistogram.MAX_INDEX < 65536); // ClickHouse UInt16
        assertEquals(0, LatencyHistogram.bucketLowerNs(0));
        assertEquals(LatencyHistogram.MAX_TRACKABLE_NS + 1, LatencyHistogram.bucketUpperNs(LatencyHistogram.MAX_INDEX));
        for (int i = 0; i < LatencyHistogram.BUCKET_COUNT; i++) {
            long lower = LatencyHistogram.bucketLowerNs(i);
            long upper = LatencyHistogram.bucketUpperNs(i);
            long rep = LatencyHistogram.bucketRepresentativeNs(i);
            assertEquals(i, LatencyHistogram.bucketIndex(lower));
            assertEquals(i, LatencyHistogram.bucketIndex(upper - 1));
            assertTrue(lower <= rep && rep < upper);
            assertEquals(1, Long.bitCount(upper - lower));
            if (i < LatencyHistogram.MAX_INDEX) {
                assertEquals(upper, LatencyHistogram.bucketLowerNs(i + 1));
            }
            assertTrue(lower == 0 || (rep - lower) * 256 <= lower);
        }
    }

    @Test
    void relativeErrorOfRandomValuesWithin1In256() {
        Random rng = new Random(20240611);
        double lo = Math.log(100);
        double hi = Math.log(60e9);
        double worst = 0;
        for (int i = 0; i < 200_000; i++) {
            long v = (long) Math.exp(lo + (hi - lo) * rng.nextDouble());
            long rep = LatencyHistogram.bucketRepresentativeNs(LatencyHistogram.bucketIndex(v));
            worst = Math.max(worst, Math.abs(rep - v) / (double) v);
        }
        assertTrue(worst <= 1.0 / 256, "worst " + worst);
        assertTrue(worst > 0.99 / 256, "the bound is tight, worst " + worst);
    }

    private static long[] lognormal(Random rng, int n) {
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
            out[i] = (long) Math.exp(Math.log(200_000) + 1.2 * rng.nextGaussian());
        }
        return out;
    }

    private static LatencyHistogram of(long[] values) {
        LatencyHistogram h = new LatencyHistogram();
        h.recordMany(values);
        return h;
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(ints = {0, 1, 2, 3, 4, 5, 6, 7})
    void mergeEqualsHistogramOfConcatenation(int seed) {
        Random rng = new Random(seed);
        long[][] parts = new long[4][];
        for (int p = 0; p < 4; p++) {
            parts[p] = lognormal(rng, rng.nextInt(3000));
        }
        if (seed % 2 == 1) { // exact buckets and overflow merge too
            long[] extra = {0, 5, LatencyHistogram.MAX_TRACKABLE_NS + 7};
            long[] joined = Arrays.copyOf(parts[1], parts[1].length + extra.length);
            System.arraycopy(extra, 0, joined, parts[1].length, extra.length);
            parts[1] = joined;
        }
        long[] all = Stream.of(parts).flatMapToLong(Arrays::stream).toArray();
        LatencyHistogram whole = of(all);
        LatencyHistogram left = of(parts[0]).merge(of(parts[1])).merge(of(parts[2]).merge(of(parts[3])));
        LatencyHistogram right = of(parts[3]).merge(of(parts[2])).merge(of(parts[1])).merge(of(parts[0]));
        assertEquals(whole, left);
        assertEquals(whole, right);
        assertArrayEquals(whole.toBytes(), left.toBytes());
        LatencyHistogram oneByOne = new LatencyHistogram();
        for (long v : all) {
            oneByOne.record(v);
        }
        assertEquals(whole, oneByOne);
    }

    @Test
    void windowGrowsDownwardsAndUpwards() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(1_000_000);
        h.record(300);           // below the first window
        h.record(50_000_000_000L); // far above it
        h.record(0);
        assertEquals(new SparseBuckets(new int[] {0, 278, 1780, 3770}, new long[] {1, 1, 1, 1}), h.toSparse());
        assertEquals(0, h.minNs());
        assertEquals(50_000_000_000L, h.maxNs());
    }

    @Test
    void mergeWithItselfDoublesAndEmptyIsNeutral() {
        LatencyHistogram h = of(lognormal(new Random(3), 500));
        LatencyHistogram doubled = h.copy().merge(h.copy());
        LatencyHistogram self = h.copy();
        self.merge(self);
        assertEquals(doubled, self);
        assertEquals(2 * h.count(), self.count());
        assertEquals(h, new LatencyHistogram().merge(h));
        assertEquals(h, h.copy().merge(new LatencyHistogram()));
    }

    @Test
    void fromSparseWidensTheWindowToMinAndMax() {
        // min/max may sit in a neighbouring bucket (converted sources): a later value >= min must still land
        LatencyHistogram g = LatencyHistogram.fromSparse(new int[] {506}, new long[] {30}, 30_000, 990, 1010);
        assertEquals(1002, g.quantile(0.5).valueNs());
        g.record(991);
        assertEquals(new SparseBuckets(new int[] {503, 506}, new long[] {1, 30}), g.toSparse());
        LatencyHistogram z = LatencyHistogram.fromSparse(List.of(10, 20, 30), List.of(0L, 4L, 0L), 80, 20, 20);
        assertEquals(new SparseBuckets(new int[] {20}, new long[] {4}), z.toSparse());
    }

    @Test
    void heavyTailedQuantilesWithinBoundUpToFiveNines() {
        Random rng = new Random(99);
        int distinct = 150_000;
        long[] values = new long[distinct];
        long[] counts = new long[distinct];
        long n = 0;
        for (int i = 0; i < distinct; i++) {
            double u = rng.nextDouble();
            if (u < 0.002) {
                values[i] = (long) (5e6 + 15e6 * rng.nextDouble());                        // rare stalls
            } else if (u < 0.012) {
                values[i] = (long) (200_000 / Math.pow(1 - rng.nextDouble(), 1 / 1.3));     // Pareto tail
            } else {
                values[i] = (long) Math.exp(Math.log(180_000) + 0.5 * rng.nextGaussian()); // body
            }
            counts[i] = 1 + rng.nextInt(12);
            n += counts[i];
        }
        counts[0] += Math.max(0, 1_000_000 - n);
        LatencyHistogram h = new LatencyHistogram();
        h.recordMany(values, counts);
        assertTrue(h.count() >= 1_000_000);

        // exact oracle: sort (value, count) pairs, same rank rule
        Integer[] order = new Integer[distinct];
        for (int i = 0; i < distinct; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Long.compare(values[a], values[b]));
        for (double q : new double[] {0, 0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999, 1}) {
            QuantileResult r = h.quantile(q);
            assertFalse(r.tooFewSamples());
            long rank = q == 0 ? 1 : Math.min(Math.max((long) Math.ceil(q * (double) h.count()), 1), h.count());
            long seen = 0;
            long exact = -1;
            for (int i : order) {
                seen += counts[i];
                if (seen >= rank) {
                    exact = values[i];
                    break;
                }
            }
            long exactNs = exact;
            assertTrue(Math.abs(r.valueNs() - exactNs) <= exactNs / 256.0, () -> r + " vs exact " + exactNs);
            long expected = Math.min(Math.max(LatencyHistogram.bucketRepresentativeNs(
                    LatencyHistogram.bucketIndex(exactNs)), h.minNs()), h.maxNs());
            assertEquals(q == 0 ? h.minNs() : q == 1 ? h.maxNs() : expected, r.valueNs());
        }
    }

    @Test
    void javaSerializationKeepsEverything() throws Exception {
        LatencyHistogram h = of(lognormal(new Random(5), 2000));
        h.record(LatencyHistogram.MAX_TRACKABLE_NS + 1);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(h);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            LatencyHistogram back = (LatencyHistogram) in.readObject();
            assertEquals(h, back);
            assertEquals(1, back.overflowCount());
        }
    }

    @Test
    void binaryEncodingRoundTripsRandomHistograms() {
        Random rng = new Random(17);
        for (int i = 0; i < 20; i++) {
            LatencyHistogram h = of(lognormal(rng, rng.nextInt(2000)));
            byte[] data = h.toBytes();
            assertEquals(LatencyHistogram.ENCODING_VERSION, data[0]);
            assertEquals(h, LatencyHistogram.fromBytes(data));
        }
        assertEquals("01010000000000", HexFormat.of().formatHex(new LatencyHistogram().toBytes()));
    }

    @Test
    void sumOverflowThrowsInsteadOfWrapping() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(Long.MAX_VALUE);
        assertThrows(ArithmeticException.class, () -> h.record(1));
        assertEquals(1, h.count());
    }
}
