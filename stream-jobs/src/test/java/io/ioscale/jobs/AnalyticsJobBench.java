package io.ioscale.jobs;

import io.ioscale.avro.AvroRecords;
import io.ioscale.avro.ConfluentAvroDecoder;
import io.ioscale.avro.ReaderSchemas;
import io.ioscale.config.AnalyticsOptions;
import io.ioscale.records.Decoded;
import io.ioscale.records.IoSample;
import io.ioscale.records.ResultRow;
import io.ioscale.records.RunEvent;
import io.ioscale.testing.AvroFrames;
import io.ioscale.testing.Collected;
import io.ioscale.testing.TestData;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.avro.Schema;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Throughput of the analytics job in isolation: a MiniCluster (local environment), generated IoSamples, every
 * rollup and the step analyzer, result rows counted and dropped (no ClickHouse, no Kafka). Prints samples/s.
 *
 * <p>Shape: {@code --sources} (default 400 = 50 VMs x 4 targets x 2 directions) each sending one 1 s sample per
 * second of event time, every sample carrying a sparse histogram of ~{@code --buckets} non-empty buckets (a
 * one-second per-VM histogram of thousands of I/Os spans one to two decades: 150-400 buckets). With
 * {@code --decode}, every sample is also Avro-decoded from a Confluent frame (what the Kafka source's deserializer
 * does), so the figure includes decoding, and the decoder alone is timed first. Operators run at
 * {@code --parallelism} (default 2, one per core); the generated source stays at 1 so that event time advances
 * evenly. The run's events mark 5 min steps, as a live run's do, so the step analyzer works as in production.
 *
 * <p>Figures: samples/s from the first sample, and samples per CPU-second of the JVM from the first sample (the
 * MiniCluster start excluded): the figure that survives a machine shared with other processes.
 *
 * <p>Run from the repository root after {@code mvn -f stream-jobs/pom.xml test-compile}: {@code bench/flink_job_bench.sh}
 * (it builds the classpath), or by hand with {@code java -cp <test classpath> io.ioscale.jobs.AnalyticsJobBench}.
 */
public final class AnalyticsJobBench {

    private static final Map<String, AtomicLong> ROWS = new ConcurrentHashMap<>();
    /** Load steps of 5 min, as in the seed studies. */
    static final long STEP_MS = 300_000;
    private static final AtomicLong FIRST_NS = new AtomicLong();
    /** Process CPU time when the first sample was generated: the job's CPU excludes the MiniCluster start. */
    private static final AtomicLong FIRST_CPU_NS = new AtomicLong();

    private AnalyticsJobBench() {}

    public static void main(String[] args) throws Exception {
        long samples = 2_000_000;
        int sources = 400;
        int buckets = 200;
        boolean decode = false;
        int parallelism = 2;
        long earlyFireMs = 0; // off: the generated event time runs far ahead of the wall clock, unlike a live run
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--samples" -> samples = Long.parseLong(args[++i]);
                case "--sources" -> sources = Integer.parseInt(args[++i]);
                case "--buckets" -> buckets = Integer.parseInt(args[++i]);
                case "--decode" -> decode = true;
                case "--parallelism" -> parallelism = Integer.parseInt(args[++i]);
                case "--early-fire-ms" -> earlyFireMs = Long.parseLong(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + "; known: --samples N, --sources N, --buckets N, --decode, --parallelism N, --early-fire-ms N");
            }
        }
        System.out.printf(Locale.ROOT, "analytics job bench: %,d samples, %d sources, ~%d buckets/sample, decode=%s, "
                + "parallelism %d (source 1), %d cores, max heap %d MB%n", samples, sources, buckets, decode, parallelism,
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20);
        if (decode) {
            decodeOnly(buckets); // the decoder alone, before the job (not part of the job's figures)
        }

        Configuration conf = new Configuration();
        conf.set(RestOptions.BIND_PORT, "0");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
        AnalyticsJob.Sources in = new AnalyticsJob.Sources(
                new DataGeneratorSource<>(new SampleGenerator(sources, buckets, decode), samples, AnalyticsJob.IO_TYPE),
                Collected.source(AnalyticsJob.RUN_TYPE, runEvents(samples, sources)),
                Collected.source(AnalyticsJob.CPU_TYPE, List.of(Decoded.of(TestData.cpu("bench", 0, 0, "h0", "HOST", 10, 1)))),
                Collected.source(AnalyticsJob.PORT_TYPE, List.of(Decoded.of(TestData.port("bench", 0, 0, "h0", "p", "NIC", 0, 1, 1)))),
                1, false);
        AnalyticsJob.Sinks out = new AnalyticsJob.Sinks(new CountingRowSinks(), new CountingSink<>("alerts(kafka)"),
                new CountingSink<>("dead_letters(kafka)"));
        AnalyticsOptions options = TestData.options("--out-of-orderness", "2 s", "--idleness", "0 ms",
                "--allowed-lateness", "30 s", "--slo", "none", "--early-fire-delay", earlyFireMs + " ms");
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        JobExecutionResult result = new AnalyticsJob(in, out, options).execute(env);
        long end = System.nanoTime();
        double wallS = (end - t0) / 1e9;
        double runS = (end - FIRST_NS.get()) / 1e9;
        System.out.printf(Locale.ROOT, "job: %.1f s wall (%.1f s from the first sample; the rest is MiniCluster start)%n",
                wallS, runS);
        System.out.printf(Locale.ROOT, "THROUGHPUT: %,.0f samples/s (from the first sample), %,.0f samples/s (wall)%n",
                samples / runS, samples / wallS);
        long cpuEnd = os.getProcessCpuTime();
        double cpuS = (cpuEnd - cpu0) / 1e9;
        double runCpuS = (cpuEnd - FIRST_CPU_NS.get()) / 1e9;
        System.out.printf(Locale.ROOT, "CPU: %.1f s of process CPU time from the first sample: %,.0f samples per "
                + "CPU-second (%.1f s with the MiniCluster start: %,.0f/CPU-s); load average now %.1f on %d cores "
                + "(other processes share them)%n", runCpuS, samples / runCpuS, cpuS, samples / cpuS,
                os.getSystemLoadAverage(), os.getAvailableProcessors());
        new TreeMap<>(ROWS).forEach((table, n) -> System.out.printf(Locale.ROOT, "  rows %-18s %,d%n", table, n.get()));
        System.out.println("  job net runtime " + result.getNetRuntime() + " ms");
    }

    /**
     * The run's events, as a live run sends them: RUN_STARTED, then STEP_STARTED/STEP_ENDED per 5 min step (so
     * the step analyzer closes steps and drops their seconds, as in production), RUN_ENDED.
     */
    static List<Decoded<RunEvent>> runEvents(long samples, int sources) {
        long endMs = (samples + sources - 1) / sources * 1000;
        List<Decoded<RunEvent>> events = new ArrayList<>();
        events.add(Decoded.of(TestData.runEvent(RunEvent.RUN_STARTED, "bench", 0, -1)));
        for (int step = 0; (long) step * STEP_MS < endMs; step++) {
            long start = step * STEP_MS;
            RunEvent started = TestData.runEvent(RunEvent.STEP_STARTED, "bench", start, step);
            started.load = TestData.load(50, 8);
            events.add(Decoded.of(started));
            RunEvent ended = TestData.runEvent(RunEvent.STEP_ENDED, "bench", Math.min(start + STEP_MS, endMs), step);
            ended.startMs = start;
            ended.endMs = Math.min(start + STEP_MS, endMs);
            events.add(Decoded.of(ended));
        }
        events.add(Decoded.of(TestData.runEvent(RunEvent.RUN_ENDED, "bench", endMs, -1)));
        return events;
    }

    /**
     * Decode-only rate of the Confluent/Avro path on one thread (what one Kafka source reader adds per record):
     * the generic path (GenericRecord, boxed arrays) and the direct IoSampleReader the job uses.
     */
    private static void decodeOnly(int buckets) throws Exception {
        Schema schema = ReaderSchemas.load(ReaderSchemas.IO_SAMPLE);
        byte[] frame = frame(schema, sample(0, buckets));
        ConfluentAvroDecoder<IoSample> generic = new ConfluentAvroDecoder<>(schema, id -> schema, AvroRecords::ioSample);
        ConfluentAvroDecoder<IoSample> direct = ConfluentAvroDecoder.direct(schema, id -> schema,
                new io.ioscale.avro.IoSampleReader(), AvroRecords::check);
        long n = 300_000;
        long sink = 0;
        for (int round = 0; round < 3; round++) {
            for (ConfluentAvroDecoder<IoSample> d : List.of(generic, direct)) {
                long t = System.nanoTime();
                for (long i = 0; i < n; i++) {
                    sink += d.decode(frame).ops;
                }
                double s = (System.nanoTime() - t) / 1e9;
                System.out.printf(Locale.ROOT, "decode only, %s (round %d): %,.0f samples/s (%d B/frame)%s%n",
                        d == generic ? "generic" : "direct ", round + 1, n / s, frame.length, sink == 42 ? "" : "");
            }
        }
    }

    static IoSample sample(long seed, int buckets) {
        // Widen the spread until the histogram has about the wanted number of non-empty buckets.
        long[] lat = TestData.latencies(seed, Math.max(buckets * 8, 100), 300_000);
        return TestData.io("bench", 0, 0, "h", "vm", "t", "READ", lat, 4096, 8.0);
    }

    static byte[] frame(Schema schema, IoSample s) throws Exception {
        return AvroFrames.frame(1, schema, AvroFrames.ioRecord(schema, s));
    }

    /**
     * Sample i: source i % sources, second i / sources (so event time advances evenly, as from live collectors);
     * histograms from a pool of 64 (generating one per sample would measure the generator).
     */
    static final class SampleGenerator implements GeneratorFunction<Long, Decoded<IoSample>> {
        private static final long serialVersionUID = 1L;
        private final int sources;
        private final int buckets;
        private final boolean decode;
        private transient IoSample[] pool;
        private transient byte[][] frames;
        private transient ConfluentAvroDecoder<IoSample> decoder;

        SampleGenerator(int sources, int buckets, boolean decode) {
            this.sources = sources;
            this.buckets = buckets;
            this.decode = decode;
        }

        @Override
        public void open(org.apache.flink.api.connector.source.SourceReaderContext ctx) throws Exception {
            pool = new IoSample[64];
            frames = new byte[64][];
            Schema schema = ReaderSchemas.load(ReaderSchemas.IO_SAMPLE);
            for (int i = 0; i < pool.length; i++) {
                pool[i] = sample(i, buckets);
                frames[i] = frame(schema, pool[i]);
            }
            decoder = ConfluentAvroDecoder.direct(schema, id -> schema, new io.ioscale.avro.IoSampleReader(),
                    AvroRecords::check);
        }

        @Override
        public Decoded<IoSample> map(Long i) throws Exception {
            if (i == 0) {
                FIRST_NS.set(System.nanoTime());
                FIRST_CPU_NS.set(((com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime());
            }
            int src = (int) (i % sources);
            IoSample p;
            if (decode) {
                p = decoder.decode(frames[(int) (i % frames.length)]);
            } else {
                IoSample t = pool[(int) (i % pool.length)];
                p = new IoSample();
                p.ops = t.ops;
                p.bytes = t.bytes;
                p.outstandingIos = t.outstandingIos;
                p.latencyCount = t.latencyCount;
                p.latencySumNs = t.latencySumNs;
                p.latencyMinNs = t.latencyMinNs;
                p.latencyMaxNs = t.latencyMaxNs;
                p.latencyBuckets = t.latencyBuckets;
                p.intervalMs = 1000;
                p.runId = "bench";
            }
            p.tsMs = i / sources * 1000;
            p.stepIndex = (int) (p.tsMs / STEP_MS);
            p.host = "h" + src / 80;
            p.vm = "vm" + src / 8;
            p.target = "t" + (src / 2) % 4;
            p.direction = src % 2 == 0 ? "READ" : "WRITE";
            return Decoded.of(p);
        }
    }

    static final class CountingRowSinks implements AnalyticsJob.RowSinks {
        private static final long serialVersionUID = 1L;

        @Override
        public <T extends ResultRow> Sink<T> create(String name) {
            return new CountingSink<>(name);
        }
    }

    /** Counts rows per table; drops them. Encodes each row as the ClickHouse sink would, to count that cost too. */
    static final class CountingSink<T> implements Sink<T> {
        private static final long serialVersionUID = 1L;
        private final String name;

        CountingSink(String name) {
            this.name = name;
        }

        @Override
        public SinkWriter<T> createWriter(WriterInitContext context) {
            Map<String, io.ioscale.sinks.RowBinaryWriter> data = new java.util.HashMap<>();
            return new SinkWriter<>() {
                @Override
                public void write(T element, Context ctx) {
                    String table = element instanceof ResultRow r ? r.table() : name;
                    if (element instanceof ResultRow r) {
                        io.ioscale.sinks.RowBinaryWriter w =
                                data.computeIfAbsent(table, t -> new io.ioscale.sinks.RowBinaryWriter());
                        r.write(w);
                        if (w.length() > 1 << 20) {
                            w.reset();
                        }
                    }
                    ROWS.computeIfAbsent(table, k -> new AtomicLong()).incrementAndGet();
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }
}
