package io.ioscale.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static io.ioscale.testing.AvroFrames.frame;
import static io.ioscale.testing.AvroFrames.symbol;

import com.sun.net.httpserver.HttpServer;
import io.ioscale.histogram.LatencyHistogram;
import io.ioscale.records.CpuSample;
import io.ioscale.records.DeadLetter;
import io.ioscale.records.Decoded;
import io.ioscale.records.IoSample;
import io.ioscale.records.PortSample;
import io.ioscale.records.RunEvent;
import io.ioscale.jobs.AnalyticsJob;
import io.ioscale.testing.AvroFrames;
import io.ioscale.testing.TestData;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ioscale.testing.Allocations;
import io.ioscale.testing.AvroFrames.Prefix;
import io.ioscale.testing.FieldDump;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.Collector;
import org.apache.flink.util.UserCodeClassLoader;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** Confluent framing + Avro resolution + conversion, and every way a record becomes a dead letter. */
class ConfluentAvroDecoderTest {
    static final Schema IO = ReaderSchemas.load(ReaderSchemas.IO_SAMPLE);
    static final Schema RUN = ReaderSchemas.load(ReaderSchemas.RUN_EVENT);
    static final Schema CPU = ReaderSchemas.load(ReaderSchemas.CPU_SAMPLE);
    static final Schema PORT = ReaderSchemas.load(ReaderSchemas.PORT_SAMPLE);

    /**
     * Version 1 of IoSample as a collector might still write it: without the fields added later with defaults
     * (outstanding_ios, percentiles, tags). Resolution must fill the defaults.
     */
    static final Schema IO_OLD = new Schema.Parser().parse("""
            {"type": "record", "name": "IoSample", "namespace": "io.ioscale.telemetry", "fields": [
              {"name": "ts_ms", "type": {"type": "long", "logicalType": "timestamp-millis"}},
              {"name": "interval_ms", "type": "int"},
              {"name": "run_id", "type": "string"},
              {"name": "step_index", "type": "int"},
              {"name": "host", "type": "string"},
              {"name": "target", "type": "string"},
              {"name": "direction", "type": {"type": "enum", "name": "IoDirection", "symbols": ["READ", "WRITE"]}},
              {"name": "ops", "type": "long"},
              {"name": "bytes", "type": "long"}
            ]}""");

    /**
     * IoSample as a newer collector might write it: the reader's fields plus an array and a map the reader does
     * not know, which resolution skips.
     */
    static final Schema IO_NEWER = withExtraFields(IO, """
            [{"name": "notes", "type": {"type": "array", "items": "string"}, "default": []},
             {"name": "labels", "type": {"type": "map", "values": "string"}, "default": {}}]""");

    private final Map<Integer, Schema> registry = new HashMap<>(
            Map.of(1, IO, 2, RUN, 3, IO_OLD, 4, CPU, 5, PORT, 6, IO_NEWER));

    static Schema withExtraFields(Schema schema, String fieldsJson) {
        try {
            ObjectMapper json = new ObjectMapper();
            ObjectNode root = (ObjectNode) json.readTree(schema.toString());
            ((ArrayNode) root.get("fields")).addAll((ArrayNode) json.readTree(fieldsJson));
            return new Schema.Parser().parse(root.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@link #ioRecord()} in {@link #IO_NEWER}, its extra fields filled. */
    static GenericRecord newerIoRecord() {
        GenericRecord io = ioRecord();
        GenericRecord r = AvroFrames.withDefaults(IO_NEWER);
        for (Schema.Field f : IO.getFields()) {
            r.put(f.name(), io.get(f.name()));
        }
        r.put("notes", List.of("first note", "second"));
        r.put("labels", new TreeMap<>(Map.of("rack", "r12", "zone", "b"))); // in a fixed order: same bytes every run
        return r;
    }
    private final WriterSchemas schemas = registry::get;

    static GenericRecord ioRecord() {
        IoSample s = TestData.io("run-7", 2, 1_700_000_000_123L, "h1", "vm3", "sdb", "WRITE",
                new long[] {900, 1_000, 1_100, 250_000}, 8192, 3.5);
        GenericRecord r = AvroFrames.ioRecord(IO, s);
        r.put("percentile_q", List.of(0.99));
        r.put("percentile_ns", List.of(250_000L));
        r.put("tags", Map.of("k", "v"));
        return r;
    }

    /** The record with its exact latency statistics zeroed (a source that sends only buckets). */
    static GenericRecord withoutStatistics(GenericRecord r) {
        r.put("latency_count", 0L);
        r.put("latency_sum_ns", 0L);
        r.put("latency_min_ns", 0L);
        r.put("latency_max_ns", 0L);
        return r;
    }

    /** An IoSample in the older writer schema ({@link #IO_OLD}). */
    static GenericRecord oldIoRecord(String direction) {
        GenericRecord old = new GenericData.Record(IO_OLD);
        old.put("ts_ms", 5L);
        old.put("interval_ms", 1000);
        old.put("run_id", "r");
        old.put("step_index", -1);
        old.put("host", "h");
        old.put("target", "t");
        old.put("direction", symbol(IO_OLD, "direction", direction));
        old.put("ops", 10L);
        old.put("bytes", 40960L);
        return old;
    }

    /** A RunEvent of run "r" with its optional fields empty or null. */
    static GenericRecord runRecord(String eventType) {
        GenericRecord run = new GenericData.Record(RUN);
        run.put("event_type", symbol(RUN, "event_type", eventType));
        run.put("ts_ms", 1L);
        run.put("run_id", "r");
        run.put("scenario", "");
        run.put("tool", symbol(RUN, "tool", "FIO"));
        run.put("description", "");
        run.put("hosts", List.of());
        run.put("step_index", -1);
        run.put("step_label", "");
        run.put("load", null);
        run.put("links", List.of());
        run.put("start_ms", null);
        run.put("end_ms", null);
        run.put("tags", Map.of());
        return run;
    }

    /** A sample of run "r", step 0, host "h" at ts 1 in {@code schema}; its other fields at their defaults. */
    static GenericRecord sampleRecord(Schema schema) {
        GenericRecord r = AvroFrames.withDefaults(schema);
        r.put("ts_ms", 1L);
        r.put("interval_ms", 1000);
        r.put("run_id", "r");
        r.put("step_index", 0);
        r.put("host", "h");
        return r;
    }

    /** The generic path (GenericRecord + converter) unless {@code direct}: IoSampleReader, as the job uses. */
    private boolean direct;

    private ConfluentAvroDecoder<IoSample> ioDecoder() {
        return direct ? ConfluentAvroDecoder.direct(IO, schemas, new IoSampleReader(), AvroRecords::check)
                : new ConfluentAvroDecoder<>(IO, schemas, AvroRecords::ioSample);
    }

    /** Runs {@code test} on the generic path, then on the direct one. */
    private void bothPaths(ThrowingRunnable test) throws Exception {
        direct = false;
        test.run();
        direct = true;
        test.run();
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void directReaderAndGenericPathDecodeTheSameSamples() throws Exception {
        GenericRecord noStats = withoutStatistics(ioRecord());
        List<byte[]> frames = List.of(frame(1, IO, ioRecord()), frame(1, IO, noStats),
                frame(3, IO_OLD, oldIoRecord("WRITE")));
        ConfluentAvroDecoder<IoSample> generic = new ConfluentAvroDecoder<>(IO, schemas, AvroRecords::ioSample);
        ConfluentAvroDecoder<IoSample> fast = ConfluentAvroDecoder.direct(IO, schemas, new IoSampleReader(),
                AvroRecords::check);
        for (int round = 0; round < 2; round++) { // decoders and resolvers are reused across records
            for (byte[] f : frames) {
                assertThat(fast.decode(f)).isEqualTo(generic.decode(f));
            }
        }
    }

    @Test
    void decodesEveryFieldTheRollupsUse() throws Exception {
        bothPaths(() -> {
            IoSample s = ioDecoder().decode(frame(1, IO, ioRecord()));
            assertThat(s.tsMs).isEqualTo(1_700_000_000_123L);
            assertThat(s.runId).isEqualTo("run-7");
            assertThat(s.stepIndex).isEqualTo(2);
            assertThat(s.vm).isEqualTo("vm3");
            assertThat(s.direction).isEqualTo("WRITE");
            assertThat(s.isRead()).isFalse();
            assertThat(s.ops).isEqualTo(4);
            assertThat(s.outstandingIos).isEqualTo(3.5);
            assertThat(s.latencyCount).isEqualTo(4);
            assertThat(s.latencyMinNs).isEqualTo(900);
            assertThat(s.latencyMaxNs).isEqualTo(250_000);
            LatencyHistogram back = LatencyHistogram.fromSparse(s.buckets().indexes(), s.buckets().counts(),
                    s.latencySumNs, s.latencyMinNs, s.latencyMaxNs);
            assertThat(back.count()).isEqualTo(4);
            assertThat(back.toSparse().indexes()).containsExactly(LatencyHistogram.bucketIndex(900),
                    LatencyHistogram.bucketIndex(1_000), LatencyHistogram.bucketIndex(1_100),
                    LatencyHistogram.bucketIndex(250_000));
        });
    }

    @Test
    void resolvesAnOlderWriterSchemaWithTheReaderDefaults() throws Exception {
        bothPaths(() -> {
            IoSample s = ioDecoder().decode(frame(3, IO_OLD, oldIoRecord("READ")));
            assertThat(s.vm).isEmpty();
            assertThat(s.outstandingIos).isZero();
            assertThat(s.latencyCount).isZero();
            assertThat(s.hasHistogram()).isFalse();
            assertThat(s.ops).isEqualTo(10);
        });
    }

    @Test
    void badHeaderUnknownIdWrongSchemaAndTrailingBytesAreDeadLetters() throws Exception {
        bothPaths(() -> {
            ConfluentAvroDecoder<IoSample> d = ioDecoder();
            assertThatThrownBy(() -> d.decode(new byte[] {1, 0, 0, 0, 1, 9}))
                    .isInstanceOf(DecodeException.class).hasMessageStartingWith("bad_header: ");
            assertThatThrownBy(() -> d.decode(new byte[] {0, 0}))
                    .isInstanceOf(DecodeException.class).hasMessageStartingWith("bad_header: ");
            assertThatThrownBy(() -> d.decode(frame(77, IO, ioRecord())))
                    .isInstanceOf(DecodeException.class)
                    .hasMessage("unknown_schema_id: schema id 77 is not in the registry")
                    .extracting(e -> ((DecodeException) e).schemaId()).isEqualTo(77);
            // A RunEvent written to the I/O topic: does not resolve to IoSample.
            GenericRecord run = runRecord("RUN_STARTED");
            assertThatThrownBy(() -> d.decode(frame(2, RUN, run)))
                    .isInstanceOf(DecodeException.class).hasMessageStartingWith("undecodable: ");
            byte[] good = frame(1, IO, ioRecord());
            byte[] longer = java.util.Arrays.copyOf(good, good.length + 3);
            assertThatThrownBy(() -> d.decode(longer))
                    .isInstanceOf(DecodeException.class).hasMessageContaining("trailing bytes");
            byte[] truncated = java.util.Arrays.copyOf(good, good.length - 4);
            assertThatThrownBy(() -> d.decode(truncated))
                    .isInstanceOf(DecodeException.class).hasMessageStartingWith("undecodable: ");
            // The decoder is still usable after failures.
            assertThat(d.decode(good).runId).isEqualTo("run-7");
        });
    }

    @Test
    void malformedHistogramsAreInvalid() throws Exception {
        bothPaths(() -> {
            GenericRecord r = ioRecord();
            r.put("latency_bucket_index", List.of(600, 500));
            r.put("latency_bucket_count", List.of(1L, 1L));
            assertThatThrownBy(() -> ioDecoder().decode(frame(1, IO, r)))
                    .isInstanceOf(DecodeException.class).hasMessageStartingWith("invalid: bucket indexes not strictly");
            r.put("latency_bucket_index", List.of(500));
            assertThatThrownBy(() -> ioDecoder().decode(frame(1, IO, r)))
                    .isInstanceOf(DecodeException.class).hasMessageContaining("differ in length");
            r.put("latency_bucket_count", List.of(1L));
            r.put("latency_hist_scheme", 2);
            assertThatThrownBy(() -> ioDecoder().decode(frame(1, IO, r)))
                    .isInstanceOf(DecodeException.class).hasMessageContaining("latency_hist_scheme 2");
            r.put("latency_hist_scheme", 1);
            r.put("ops", -1L);
            assertThatThrownBy(() -> ioDecoder().decode(frame(1, IO, r)))
                    .isInstanceOf(DecodeException.class).hasMessage("invalid: ops -1 is negative");
        });
    }

    @Test
    void theHistogramIsPackedWithoutItsEmptyBuckets() throws Exception {
        bothPaths(() -> {
            GenericRecord r = ioRecord();
            r.put("latency_bucket_index", List.of(500, 600, 700));
            r.put("latency_bucket_count", List.of(3L, 0L, 1L));
            IoSample s = ioDecoder().decode(frame(1, IO, r));
            assertThat(s.decodedBuckets).isNull(); // validated and packed by the checker
            assertThat(s.buckets().indexes()).containsExactly(500, 700);
            assertThat(s.buckets().counts()).containsExactly(3L, 1L);
            r.put("latency_bucket_count", List.of(0L, 0L, 0L));
            assertThat(ioDecoder().decode(frame(1, IO, r)).hasHistogram()).isFalse();
        });
    }

    @Test
    void bucketsWithoutStatisticsGetStatisticsFromTheBuckets() throws Exception {
        bothPaths(() -> {
            GenericRecord r = withoutStatistics(ioRecord());
            IoSample s = ioDecoder().decode(frame(1, IO, r));
            assertThat(s.latencyCount).isEqualTo(4);
            // within the buckets' bounds, so quantiles are not clamped to 0
            assertThat(s.latencyMinNs).isEqualTo(LatencyHistogram.bucketLowerNs(LatencyHistogram.bucketIndex(900)));
            assertThat(s.latencyMaxNs).isEqualTo(LatencyHistogram.bucketUpperNs(LatencyHistogram.bucketIndex(250_000)) - 1);
            assertThat((double) s.latencySumNs).isCloseTo(900 + 1_000 + 1_100 + 250_000,
                    org.assertj.core.api.Assertions.within(253_000 / 256.0));
        });
    }

    /** A STEP_ENDED event with every part set: load (with labels), a link, hosts and tags. */
    static GenericRecord fullRunRecord() {
        Schema loadSchema = RUN.getField("load").schema().getTypes().get(1);
        GenericRecord load = new GenericData.Record(loadSchema);
        load.put("vm_count", 8);
        load.put("targets_per_vm", 2);
        load.put("workers_per_target", 1);
        load.put("outstanding_ios_per_target", 16);
        load.put("block_size_bytes", 8192);
        load.put("read_pct", 70.0);
        load.put("random_pct", 100.0);
        load.put("adapter", "pvSCSI");
        load.put("config_labels", Map.of("hba", "8G"));
        Schema linkSchema = RUN.getField("links").schema().getElementType();
        GenericRecord link = new GenericData.Record(linkSchema);
        link.put("host", "h1");
        link.put("port_id", "fc0");
        link.put("kind", symbol(linkSchema, "kind", "FC_HBA"));
        link.put("speed_bps", 8_000_000_000L);
        link.put("payload_bytes_per_s", 0L);
        link.put("full_duplex", true);
        GenericRecord run = runRecord("STEP_ENDED");
        run.put("ts_ms", 100L);
        run.put("scenario", "s");
        run.put("tool", symbol(RUN, "tool", "VMFLEET"));
        run.put("step_index", 3);
        run.put("step_label", "8 VMs");
        run.put("load", load);
        run.put("links", List.of(link));
        run.put("start_ms", 40L);
        run.put("end_ms", 90L);
        Schema hostSchema = RUN.getField("hosts").schema().getElementType();
        GenericRecord host = AvroFrames.withDefaults(hostSchema);
        host.put("host", "h1");
        host.put("hypervisor", "Hyper-V 2008 R2");
        run.put("hosts", List.of(host));
        run.put("tags", Map.of("site", "lab-2"));
        return run;
    }

    @Test
    void runCpuAndPortRecordsConvert() throws Exception {
        GenericRecord run = fullRunRecord();
        RunEvent e = new ConfluentAvroDecoder<>(RUN, schemas, AvroRecords::runEvent).decode(frame(2, RUN, run));
        assertThat(e.eventType).isEqualTo(RunEvent.STEP_ENDED);
        assertThat(e.load.totalOutstandingIos()).isEqualTo(8 * 2 * 16);
        assertThat(e.links).singleElement().satisfies(l -> assertThat(l.kind).isEqualTo("FC_HBA"));
        assertThat(e.startMs).isEqualTo(40L);
        assertThat(e.endOrTsMs()).isEqualTo(90L);

        GenericRecord cpu = sampleRecord(CPU);
        cpu.put("scope", symbol(CPU, "scope", "HYPERVISOR"));
        cpu.put("utilization_pct", 42.0);
        CpuSample c = new ConfluentAvroDecoder<>(CPU, schemas, AvroRecords::cpuSample).decode(frame(4, CPU, cpu));
        assertThat(c.scope).isEqualTo("HYPERVISOR");
        assertThat(c.isTotal()).isTrue();
        assertThat(c.utilizationPct).isEqualTo(42.0);

        GenericRecord port = sampleRecord(PORT);
        port.put("port_id", "eth0");
        port.put("kind", symbol(PORT, "kind", "NIC_VMQ"));
        port.put("queue", 3);
        port.put("rx_bytes", 10L);
        port.put("tx_bytes", 20L);
        PortSample p = new ConfluentAvroDecoder<>(PORT, schemas, AvroRecords::portSample).decode(frame(5, PORT, port));
        assertThat(p.kind).isEqualTo("NIC_VMQ");
        assertThat(p.isWholePort()).isFalse();
        assertThat(p.txBytes).isEqualTo(20);
        assertThat(p.tool).isEmpty(); // a host's own counters
        port.put("tags", Map.of("source", "sysfs_net", "tool", "iperf3"));
        assertThat(new ConfluentAvroDecoder<>(PORT, schemas, AvroRecords::portSample).decode(frame(5, PORT, port)).tool)
                .isEqualTo("iperf3");
    }

    @Test
    void deserializerTurnsFailuresIntoDeadLettersWithTheirOrigin() throws Exception {
        ConfluentAvroDeserializer<IoSample> des = new ConfluentAvroDeserializer<>(ReaderSchemas.IO_SAMPLE,
                () -> schemas, AvroRecords::ioSample, AnalyticsJob.IO_TYPE);
        opened(des);
        List<Decoded<IoSample>> out = new ArrayList<>();
        Collector<Decoded<IoSample>> collector = new Collector<>() {
            @Override
            public void collect(Decoded<IoSample> record) {
                out.add(record);
            }

            @Override
            public void close() {}
        };
        byte[] key = "run-7/h1".getBytes(StandardCharsets.UTF_8);
        des.deserialize(new ConsumerRecord<>("ioscale.io_samples", 4, 1234L, key, frame(1, IO, ioRecord())), collector);
        des.deserialize(new ConsumerRecord<>("ioscale.io_samples", 4, 1235L, key, frame(99, IO, ioRecord())), collector);
        assertThat(out).hasSize(2);
        assertThat(out.get(0).isDead()).isFalse();
        DeadLetter d = out.get(1).deadLetter;
        assertThat(d.topic).isEqualTo("ioscale.io_samples");
        assertThat(d.partition).isEqualTo(4);
        assertThat(d.offset).isEqualTo(1235L);
        assertThat(d.schemaId).isEqualTo(99);
        assertThat(d.reasonCode()).isEqualTo("unknown_schema_id");
        assertThat(d.key).isEqualTo(key);
        assertThat(d.value).isEqualTo(frame(99, IO, ioRecord()));
    }

    @Test
    void registryClientCachesHitsAndMissesAndFailsLoudWhenTheRegistryIsDown() throws Exception {
        AtomicInteger requests = new AtomicInteger();
        HttpServer server = registry(Map.of("500", 500), Map.of("1", "{\"schema\": " + quoted(IO.toString()) + "}",
                "500", "{\"error_code\": 50001}"), requests);
        try {
            RegistryClient c = new RegistryClient("http://127.0.0.1:" + server.getAddress().getPort() + "/", 3, 1);
            assertThat(c.byId(1)).isEqualTo(IO);
            assertThat(c.byId(1)).isEqualTo(IO);
            assertThat(requests.get()).isEqualTo(1);
            assertThat(c.byId(2)).isNull();
            assertThat(c.byId(2)).isNull(); // negative cache: no second request
            assertThat(requests.get()).isEqualTo(2);
            assertThatThrownBy(() -> c.byId(500))
                    .isInstanceOf(WriterSchemas.RegistryUnavailableException.class)
                    .hasMessageContaining("after 3 attempts");
            assertThat(requests.get()).isEqualTo(5);
        } finally {
            server.stop(0);
        }
    }

    /**
     * A registry on a free port: {@code /schemas/ids/{id}} answers {@code answers[id]} with status
     * {@code statuses[id]} (200 when not given), or 404 for an id not in {@code answers}.
     */
    static HttpServer registry(Map<String, Integer> statuses, Map<String, String> answers, AtomicInteger requests)
            throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/schemas/ids/", ex -> {
            requests.incrementAndGet();
            String id = ex.getRequestURI().getPath().substring("/schemas/ids/".length());
            byte[] body = answers.getOrDefault(id, "{\"error_code\": 40403, \"message\": \"Schema not found\"}")
                    .getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(statuses.getOrDefault(id, answers.containsKey(id) ? 200 : 404), body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        server.start();
        return server;
    }

    /** {@code text} as a JSON string. */
    static String quoted(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }

    /**
     * A Confluent registry also serves PROTOBUF and JSON schemas. Their records are dead letters (not_avro),
     * asked for once; an answer the registry could not give (HTTP 500) still fails the task. Without the
     * schemaType check the JSON schema {"type": "string"} would even parse as Avro.
     */
    @Test
    void aSchemaIdThatIsNotAvroIsADeadLetterWhileAnOutageStillFailsTheTask() throws Exception {
        AtomicInteger requests = new AtomicInteger();
        HttpServer server = registry(Map.of("500", 500), Map.of(
                "1", "{\"schema\": " + quoted(IO.toString()) + "}",
                "7", "{\"schemaType\": \"PROTOBUF\", \"schema\": "
                        + quoted("syntax = \"proto3\";\nmessage IoSample { string run_id = 1; }") + "}",
                "8", "{\"schemaType\": \"JSON\", \"schema\": " + quoted("{\"type\": \"string\"}") + "}",
                "9", "{\"schemaType\": \"AVRO\", \"schema\": " + quoted("{\"type\": \"recrod\"}") + "}",
                "500", "{\"error_code\": 50001}"), requests);
        try {
            RegistryClient client = new RegistryClient("http://127.0.0.1:" + server.getAddress().getPort(), 3, 1);
            for (ConfluentAvroDecoder<IoSample> d : List.of(
                    new ConfluentAvroDecoder<>(IO, client, AvroRecords::ioSample),
                    ConfluentAvroDecoder.direct(IO, client, new IoSampleReader(), AvroRecords::check))) {
                assertThat(d.decode(frame(1, IO, ioRecord())).runId).isEqualTo("run-7");
                assertThatThrownBy(() -> d.decode(frame(7, IO, ioRecord())))
                        .isInstanceOf(DecodeException.class)
                        .hasMessage("not_avro: schema id 7 is a PROTOBUF schema, not Avro")
                        .extracting(e -> ((DecodeException) e).schemaId()).isEqualTo(7);
                assertThatThrownBy(() -> d.decode(frame(8, IO, ioRecord())))
                        .isInstanceOf(DecodeException.class)
                        .hasMessage("not_avro: schema id 8 is a JSON schema, not Avro");
                assertThatThrownBy(() -> d.decode(frame(9, IO, ioRecord())))
                        .isInstanceOf(DecodeException.class)
                        .hasMessageStartingWith("not_avro: schema id 9 is not parseable Avro (");
            }
            // ids 1, 7, 8 and 9 asked once each: both decoders share the client, which caches every answer
            assertThat(requests.get()).isEqualTo(4);
            assertThatThrownBy(() -> client.byId(500))
                    .isInstanceOf(WriterSchemas.RegistryUnavailableException.class)
                    .hasMessageContaining("after 3 attempts");
            assertThat(requests.get()).isEqualTo(4 + 3);
        } finally {
            server.stop(0);
        }
    }

    /**
     * One frame of every record type on the path the job decodes it with (IoSample on both), by writer schema,
     * with how many length prefixes it has (strings, the start and end of each array and map; counted by hand).
     */
    record Case(String name, ConfluentAvroDecoder<?> decoder, Schema writer, byte[] frame, int prefixes) {}

    List<Case> everyPath() throws IOException {
        ConfluentAvroDecoder<IoSample> direct = ConfluentAvroDecoder.direct(IO, schemas, new IoSampleReader(),
                AvroRecords::check);
        ConfluentAvroDecoder<IoSample> generic = new ConfluentAvroDecoder<>(IO, schemas, AvroRecords::ioSample);
        List<Case> cases = new ArrayList<>();
        for (var d : Map.of("direct", direct, "generic", generic).entrySet()) {
            // 4 strings; 4 arrays x (start, end); tags: start, key, value, end
            cases.add(new Case("IoSample " + d.getKey(), d.getValue(), IO, frame(1, IO, ioRecord()), 16));
            // run_id, host, target
            cases.add(new Case("IoSample older writer " + d.getKey(), d.getValue(), IO_OLD,
                    frame(3, IO_OLD, oldIoRecord("READ")), 3));
            // IoSample's 16; notes: start, 2 strings, end; labels: start, 2 keys, 2 values, end
            cases.add(new Case("IoSample newer writer " + d.getKey(), d.getValue(), IO_NEWER,
                    frame(6, IO_NEWER, newerIoRecord()), 26));
        }
        // run_id, scenario, description, step_label; hosts: start, host, hypervisor, end; load: adapter,
        // config_labels (start, key, value, end); links: start, host, port_id, end; tags: start, key, value, end
        cases.add(new Case("RunEvent", new ConfluentAvroDecoder<>(RUN, schemas, AvroRecords::runEvent), RUN,
                frame(2, RUN, fullRunRecord()), 21));
        GenericRecord cpu = sampleRecord(CPU);
        cpu.put("vm", "vm3");
        cpu.put("scope", symbol(CPU, "scope", "VM"));
        cpu.put("utilization_pct", 42.0);
        // run_id, host, vm; empty tags (one 0: start and end)
        cases.add(new Case("CpuSample", new ConfluentAvroDecoder<>(CPU, schemas, AvroRecords::cpuSample), CPU,
                frame(4, CPU, cpu), 4));
        GenericRecord port = sampleRecord(PORT);
        port.put("port_id", "eth0");
        port.put("kind", symbol(PORT, "kind", "NIC"));
        port.put("vm", "vm3");
        port.put("rx_bytes", 10L);
        port.put("tx_bytes", 20L);
        // run_id, host, port_id, vm; empty tags
        cases.add(new Case("PortSample", new ConfluentAvroDecoder<>(PORT, schemas, AvroRecords::portSample), PORT,
                frame(5, PORT, port), 5));
        return cases;
    }

    /**
     * Every length prefix of every record type set to a length no frame holds (600 MB, 2^31 - 9, 2^40,
     * Long.MAX_VALUE, and negatives): each is a dead letter naming the length, and decoding it allocates a few
     * KB, not the length. Avro's own decoder allocates the length first (600 MB: OutOfMemoryError under the
     * 512 MB test heap; Long.MAX_VALUE: UnsupportedOperationException), and either fails the task.
     */
    @Test
    void aCorruptLengthIsADeadLetterAndAllocatesNoMoreThanTheFrame() throws Exception {
        long[] huge = {600_000_000L, Integer.MAX_VALUE - 8L, 1L << 40, Long.MAX_VALUE, -600_000_000L, Long.MIN_VALUE};
        int tried = 0;
        long mostAllocated = 0;
        for (Case c : everyPath()) {
            String expected = FieldDump.of(c.decoder().decode(c.frame()));
            SortedMap<Integer, Prefix> prefixes = AvroFrames.lengthPrefixes(c.writer(), c.frame());
            assertThat(prefixes).as(c.name()).hasSize(c.prefixes());
            for (var p : prefixes.entrySet()) {
                for (long n : huge) {
                    byte[] bad = AvroFrames.withVarint(c.frame(), p.getKey(), n);
                    assertThatThrownBy(() -> c.decoder().decode(bad))
                            .as("%s, %s at %d set to %d", c.name(), p.getValue(), p.getKey(), n)
                            .isInstanceOf(DecodeException.class)
                            .hasMessageStartingWith("undecodable: ")
                            // A negative item count is followed by the block's byte size, which then decides
                            // (a skipped block is skipped by it): the error is wherever reading then fails.
                            .hasMessageMatching(n < 0 && p.getValue() != Prefix.STRING ? ".*"
                                    : ".*(length " + n + " is negative|" + n + " (items )?is more than the \\d+ bytes"
                                    + " left in the frame).*");
                    // Measured on a second decode: the first use of a code path also loads classes and links
                    // call sites, which allocates too.
                    long before = Allocations.ofThisThread();
                    assertThatThrownBy(() -> c.decoder().decode(bad)).isInstanceOf(DecodeException.class);
                    mostAllocated = Math.max(mostAllocated, Allocations.ofThisThread() - before);
                    // the decoder is not left broken
                    assertThat(FieldDump.of(c.decoder().decode(c.frame()))).as(c.name()).isEqualTo(expected);
                    tried++;
                }
            }
        }
        assertThat(tried).isEqualTo(6 * (2 * (16 + 3 + 26) + 21 + 4 + 5));
        assertThat(mostAllocated).isLessThan(64 * 1024);
    }

    /** {@code value}'s varint padded to {@code bytes} bytes with continuation bits: longer than it needs to be. */
    private static byte[] overlong(long value, int bytes) {
        byte[] v = AvroFrames.varint(value);
        byte[] out = Arrays.copyOf(v, bytes);
        for (int i = 0; i < bytes - 1; i++) {
            out[i] |= (byte) 0x80;
        }
        return out;
    }

    private static byte[] splice(byte[] frame, int at, byte[] varint) {
        byte[] out = new byte[frame.length - 1 + varint.length];
        System.arraycopy(frame, 0, out, 0, at);
        System.arraycopy(varint, 0, out, at, varint.length);
        System.arraycopy(frame, at + 1, out, at + varint.length, frame.length - at - 1);
        return out;
    }

    /**
     * Ints and enum and union indexes are read as ClickHouse's raw path (avro-cpp) reads them: a varint longer
     * than 5 bytes is accepted when its value fits, a value past an int is refused, and in RunEvent, whose unions
     * are all ["null", X], any union index but X's reads as null (ClickHouse stores NULL there).
     */
    @Test
    void intsAndIndexesAreReadAsTheRawPathReadsThem() throws Exception {
        ConfluentAvroDecoder<RunEvent> runs = new ConfluentAvroDecoder<>(RUN, schemas, AvroRecords::runEvent);
        GenericRecord ended = runRecord("STEP_ENDED");
        ended.put("start_ms", 40L);
        byte[] f = frame(2, RUN, ended);
        // every field takes one byte here but start_ms (index 1, value 40: 2 bytes): header 0-4, event_type 5, ...,
        // tool 10, step_index 13, load 15, links 16, start_ms 17-18
        assertThat(f).hasSize(21);
        int tool = 10;
        int stepIndex = 13;
        int load = 15;
        int startMs = 17;

        RunEvent e = runs.decode(splice(splice(splice(f, load, overlong(0, 7)), stepIndex, overlong(-1, 6)),
                tool, overlong(3, 9)));
        assertThat(e.stepIndex).isEqualTo(-1);
        assertThat(e.load).isNull();
        assertThat(e.tool).isEqualTo("FIO");
        assertThat(e.startMs).isEqualTo(40L);

        assertThatThrownBy(() -> runs.decode(AvroFrames.withVarint(f, stepIndex, 1L << 31)))
                .isInstanceOf(DecodeException.class).hasMessageContaining("int value 2147483648 is out of range");
        for (long index : new long[] {2, 476_837, -1, 1L << 40}) {
            assertThat(runs.decode(AvroFrames.withVarint(f, load, index)).load).as("load index %d", index).isNull();
        }
        // start_ms's index 2 reads as null; the 40 that followed it is then end_ms's index (null too), and one
        // byte is left over: refused
        assertThatThrownBy(() -> runs.decode(AvroFrames.withVarint(f, startMs, 2)))
                .isInstanceOf(DecodeException.class).hasMessageContaining("trailing bytes after the record");
    }

    @Test
    void onlyWritersWhoseUnionsAreAllNullFirstPairsReadForeignIndexesAsNull() {
        assertThat(ConfluentAvroDecoder.onlyNullFirstUnions(RUN, new java.util.HashSet<>())).isTrue();
        assertThat(ConfluentAvroDecoder.onlyNullFirstUnions(IO, new java.util.HashSet<>())).isTrue();
        Schema nullLast = new Schema.Parser().parse("{\"type\": \"record\", \"name\": \"R\", \"fields\": "
                + "[{\"name\": \"a\", \"type\": [\"long\", \"null\"]}]}");
        Schema three = new Schema.Parser().parse("{\"type\": \"record\", \"name\": \"R\", \"fields\": "
                + "[{\"name\": \"a\", \"type\": {\"type\": \"array\", \"items\": [\"null\", \"long\", \"string\"]}}]}");
        assertThat(ConfluentAvroDecoder.onlyNullFirstUnions(nullLast, new java.util.HashSet<>())).isFalse();
        assertThat(ConfluentAvroDecoder.onlyNullFirstUnions(three, new java.util.HashSet<>())).isFalse();
    }

    /**
     * Avro's other array and map layout, blocks of "-count, byte size, items" (BlockingBinaryEncoder writes it),
     * decodes to the same records, and the reader skips such blocks in fields it does not know.
     */
    @Test
    void blocksWithByteSizesDecodeAndSkip() throws Exception {
        int blockedFrames = 0;
        for (Case c : everyPath()) {
            GenericRecord r = new org.apache.avro.generic.GenericDatumReader<GenericRecord>(c.writer()).read(null,
                    org.apache.avro.io.DecoderFactory.get().binaryDecoder(c.frame(), 5, c.frame().length - 5, null));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(c.frame(), 0, 5);
            BinaryEncoder enc = EncoderFactory.get().blockingBinaryEncoder(out, null);
            new GenericDatumWriter<GenericRecord>(c.writer()).write(r, enc);
            enc.flush();
            byte[] blocked = out.toByteArray();
            if (!Arrays.equals(blocked, c.frame())) {
                blockedFrames++;
            }
            assertThat(FieldDump.of(c.decoder().decode(blocked))).as(c.name())
                    .isEqualTo(FieldDump.of(c.decoder().decode(c.frame())));
        }
        // Only non-empty arrays and maps are written as sized blocks: IoSample (3 writers less the older one, 2
        // paths) and RunEvent.
        assertThat(blockedFrames).isEqualTo(2 * 2 + 1);
    }

    /** The deserializer opened as its Kafka source opens it (no metrics kept). */
    static <T> ConfluentAvroDeserializer<T> opened(ConfluentAvroDeserializer<T> d) {
        d.open(new DeserializationSchema.InitializationContext() {
            @Override
            public MetricGroup getMetricGroup() {
                return new UnregisteredMetricsGroup();
            }

            @Override
            public UserCodeClassLoader getUserCodeClassLoader() {
                return null;
            }
        });
        return d;
    }
}
