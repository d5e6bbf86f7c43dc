package io.ioscale.avro;

import static io.ioscale.avro.ConfluentAvroDecoderTest.CPU;
import static io.ioscale.avro.ConfluentAvroDecoderTest.IO;
import static io.ioscale.avro.ConfluentAvroDecoderTest.IO_NEWER;
import static io.ioscale.avro.ConfluentAvroDecoderTest.IO_OLD;
import static io.ioscale.avro.ConfluentAvroDecoderTest.PORT;
import static io.ioscale.avro.ConfluentAvroDecoderTest.RUN;
import static io.ioscale.avro.ConfluentAvroDecoderTest.opened;
import static io.ioscale.testing.AvroFrames.frame;
import static io.ioscale.testing.AvroFrames.symbol;
import static org.assertj.core.api.Assertions.assertThat;

import io.ioscale.jobs.AnalyticsJob;
import io.ioscale.records.CpuSample;
import io.ioscale.records.DeadLetter;
import io.ioscale.records.Decoded;
import io.ioscale.records.IoSample;
import io.ioscale.records.PortSample;
import io.ioscale.records.RunEvent;
import io.ioscale.testing.Allocations;
import io.ioscale.testing.AvroFrames;
import io.ioscale.testing.FieldDump;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Mutated frames of every record type through the job's Kafka deserializers: each becomes a valid record or a dead
 * letter with a reason, nothing else (no other exception, no OutOfMemoryError under the 512 MB test heap, no
 * allocation beyond a small multiple of the frame), and the good frame it came from still decodes after it.
 * IoSamples also go through the generic path, which must reach the same verdict as the direct reader the job
 * uses. Deterministic: one seed; a failure names the frame (hex), its mutation and its index.
 */
class DecoderFuzzTest {
    static final long SEED = 0x10_5CA1EL;
    static final int FRAMES_PER_TYPE = 100_000;
    /** Registered, but a PROTOBUF schema: what a Confluent registry may also hold. */
    static final int PROTOBUF_ID = 11;
    static final Map<Integer, Schema> REGISTRY = Map.of(1, IO, 2, RUN, 3, IO_OLD, 4, CPU, 5, PORT, 6, IO_NEWER);
    static final int[] REGISTERED = {1, 2, 3, 4, 5, 6, PROTOBUF_ID};
    static final Set<String> CODES = Set.of(DecodeException.BAD_HEADER, DecodeException.UNKNOWN_SCHEMA_ID,
            DecodeException.NOT_AVRO, DecodeException.UNDECODABLE, DecodeException.INVALID);
    /** Lengths no frame here holds, negative ones, and the edges of the int range. */
    static final long[] BAD_LENGTHS = {600_000_000L, Integer.MAX_VALUE - 8L, Integer.MAX_VALUE, 1L << 31, 1L << 40,
            Long.MAX_VALUE, -1, -2, -600_000_000L, Integer.MIN_VALUE, Long.MIN_VALUE};

    enum Mutation {
        TRUNCATE, FLIP_BITS, CORRUPT_LENGTH, RANDOM_VARINT, OVERWRITE_BYTES, INSERT_OR_DELETE, APPEND_BYTES,
        BAD_MAGIC, UNKNOWN_ID, OTHER_REGISTERED_ID, RANDOM_BODY
    }

    /** A valid frame to mutate: its writer's length prefixes, and what it decodes to (see {@link Target#same}). */
    record Seed(byte[] frame, int[] lengthPrefixes, Object expected) {}

    static WriterSchemas registry() {
        return id -> {
            if (id == PROTOBUF_ID) {
                throw new WriterSchemas.NotAvroException("schema id " + id + " is a PROTOBUF schema, not Avro");
            }
            return REGISTRY.get(id);
        };
    }

    /** The one record or dead letter the deserializer makes of {@code value}. */
    static <T> Decoded<T> deserialize(ConfluentAvroDeserializer<T> d, long offset, byte[] value) throws Exception {
        List<Decoded<T>> out = new ArrayList<>(1);
        d.deserialize(new ConsumerRecord<>("fuzz", 0, offset, null, value), new Collector<>() {
            @Override
            public void collect(Decoded<T> record) {
                out.add(record);
            }

            @Override
            public void close() {}
        });
        assertThat(out).hasSize(1);
        return out.get(0);
    }

    /** One record type: the job's deserializer, optionally a second one that must agree, its seeds. */
    static final class Target<T> {
        final String name;
        final ConfluentAvroDeserializer<T> job;
        final ConfluentAvroDeserializer<T> other;
        final Consumer<T> valid;
        /** What two decoded records must share to be the same: the record itself if it has equals. */
        final Function<T, Object> same;
        final List<Seed> seeds = new ArrayList<>();
        final Map<String, Integer> outcomes = new TreeMap<>();
        final Map<Mutation, Map<String, Integer>> byMutation = new EnumMap<>(Mutation.class);
        long mostAllocated;
        double seconds;

        Target(String name, ConfluentAvroDeserializer<T> job, ConfluentAvroDeserializer<T> other, Consumer<T> valid,
               Function<T, Object> same) {
            this.name = name;
            this.same = same;
            this.job = opened(job);
            this.other = other == null ? null : opened(other);
            this.valid = valid;
        }

        Target<T> seed(int schemaId, Schema writer, GenericRecord record) throws Exception {
            byte[] f = frame(schemaId, writer, record);
            int[] prefixes = AvroFrames.lengthPrefixes(writer, f).keySet().stream().mapToInt(Integer::intValue)
                    .toArray();
            Decoded<T> d = deserialize(job, 0, f);
            assertThat(d.isDead()).as("%s seed %d: %s", name, seeds.size(), d).isFalse();
            seeds.add(new Seed(f, prefixes, same.apply(d.value)));
            return this;
        }

        /** Decodes one mutated frame and checks the verdict; returns its reason code, or "decoded". */
        String check(long index, Mutation m, byte[] value, Seed seed) throws Exception {
            String where = name + " frame " + index + " (" + m + "): " + HexFormat.of().formatHex(value);
            long before = Allocations.ofThisThread();
            Decoded<T> d = deserialize(job, index, value);
            long allocated = Allocations.ofThisThread() - before;
            long bound = 64 * 1024 + 16L * value.length;
            if (allocated > bound) {
                // The first use of a code path also loads classes and links call sites: measure again.
                before = Allocations.ofThisThread();
                d = deserialize(job, index, value);
                allocated = Allocations.ofThisThread() - before;
                assertThat(allocated).as(where).isLessThanOrEqualTo(bound);
            }
            mostAllocated = Math.max(mostAllocated, allocated);
            String outcome;
            if (d.isDead()) {
                DeadLetter dl = d.deadLetter;
                assertThat(dl.reason).as(where).matches("[a-z_]+: .+");
                assertThat(CODES).as(where).contains(dl.reasonCode());
                assertThat(dl.value).as(where).isSameAs(value);
                assertThat(dl.offset).as(where).isEqualTo(index);
                outcome = dl.reasonCode();
            } else {
                valid.accept(d.value);
                outcome = "decoded";
            }
            if (other != null) {
                Decoded<T> o = deserialize(other, index, value);
                assertThat(o.isDead()).as(where + " (other path: " + o + ")").isEqualTo(d.isDead());
                if (d.isDead()) {
                    assertThat(o.deadLetter.reasonCode()).as(where + " " + d + " vs " + o)
                            .isEqualTo(d.deadLetter.reasonCode());
                } else {
                    assertThat(same.apply(o.value)).as(where).isEqualTo(same.apply(d.value));
                }
            }
            // A good frame after a bad one still decodes, to the same record (on the job's path: the generic
            // path is the job's for the other types).
            Decoded<T> good = deserialize(job, index, seed.frame());
            assertThat(good.isDead()).as(where + ", then its seed: " + good).isFalse();
            assertThat(same.apply(good.value)).as(where + ", then its seed").isEqualTo(seed.expected());
            outcomes.merge(outcome, 1, Integer::sum);
            byMutation.computeIfAbsent(m, k -> new TreeMap<>()).merge(outcome, 1, Integer::sum);
            return outcome;
        }
    }

    static byte[] mutate(SplittableRandom r, Mutation m, Seed seed, int ownId) {
        byte[] f = seed.frame();
        int body = 5;
        switch (m) {
            case TRUNCATE:
                return Arrays.copyOf(f, r.nextInt(f.length));
            case FLIP_BITS: {
                byte[] out = f.clone();
                for (int i = 1 + r.nextInt(4); i > 0; i--) {
                    int at = body + r.nextInt(f.length - body);
                    out[at] ^= (byte) (1 << r.nextInt(8));
                }
                return out;
            }
            case CORRUPT_LENGTH: {
                int at = seed.lengthPrefixes()[r.nextInt(seed.lengthPrefixes().length)];
                // a quarter: about the bytes that follow (one less, as many, one more); the rest: far off
                long n = r.nextInt(4) == 0 ? f.length - at + r.nextInt(-1, 2)
                        : BAD_LENGTHS[r.nextInt(BAD_LENGTHS.length)];
                return AvroFrames.withVarint(f, at, n);
            }
            case RANDOM_VARINT: {
                int at = body + r.nextInt(f.length - body);
                long n = r.nextBoolean() ? BAD_LENGTHS[r.nextInt(BAD_LENGTHS.length)] : r.nextLong();
                return AvroFrames.withVarint(f, at, n);
            }
            case OVERWRITE_BYTES: {
                byte[] out = f.clone();
                for (int i = 1 + r.nextInt(8); i > 0; i--) {
                    out[body + r.nextInt(f.length - body)] = (byte) r.nextInt(256);
                }
                return out;
            }
            case INSERT_OR_DELETE: {
                int at = body + r.nextInt(f.length - body);
                int n = 1 + r.nextInt(8);
                if (r.nextBoolean()) {
                    byte[] out = new byte[f.length + n];
                    System.arraycopy(f, 0, out, 0, at);
                    for (int i = 0; i < n; i++) {
                        out[at + i] = (byte) r.nextInt(256);
                    }
                    System.arraycopy(f, at, out, at + n, f.length - at);
                    return out;
                }
                n = Math.min(n, f.length - at);
                byte[] out = new byte[f.length - n];
                System.arraycopy(f, 0, out, 0, at);
                System.arraycopy(f, at + n, out, at, f.length - at - n);
                return out;
            }
            case APPEND_BYTES: {
                byte[] out = Arrays.copyOf(f, f.length + 1 + r.nextInt(16));
                for (int i = f.length; i < out.length; i++) {
                    out[i] = (byte) r.nextInt(256);
                }
                return out;
            }
            case BAD_MAGIC: {
                byte[] out = f.clone();
                out[0] = (byte) (1 + r.nextInt(255));
                return out;
            }
            case UNKNOWN_ID: {
                int id = 1000 + r.nextInt(Integer.MAX_VALUE - 1000);
                return withId(f, r.nextBoolean() ? id : -id);
            }
            case OTHER_REGISTERED_ID: {
                int id;
                do {
                    id = REGISTERED[r.nextInt(REGISTERED.length)];
                } while (id == ownId);
                return withId(f, id);
            }
            case RANDOM_BODY: {
                byte[] out = Arrays.copyOf(f, body + r.nextInt(2 * f.length));
                for (int i = body; i < out.length; i++) {
                    out[i] = (byte) r.nextInt(256);
                }
                return out;
            }
            default:
                throw new IllegalArgumentException(m.toString());
        }
    }

    static byte[] withId(byte[] f, int id) {
        byte[] out = f.clone();
        out[1] = (byte) (id >>> 24);
        out[2] = (byte) (id >>> 16);
        out[3] = (byte) (id >>> 8);
        out[4] = (byte) id;
        return out;
    }

    static int idOf(byte[] f) {
        return ((f[1] & 0xff) << 24) | ((f[2] & 0xff) << 16) | ((f[3] & 0xff) << 8) | (f[4] & 0xff);
    }

    static <T> void fuzz(Target<T> t, SplittableRandom r) throws Exception {
        Mutation[] kinds = Mutation.values();
        for (long i = 0; i < FRAMES_PER_TYPE; i++) {
            Seed seed = t.seeds.get(r.nextInt(t.seeds.size()));
            Mutation m = kinds[r.nextInt(kinds.length)];
            byte[] value = mutate(r, m, seed, idOf(seed.frame()));
            String outcome = t.check(i, m, value, seed);
            // What must be dead letters, and why (the other mutations may or may not still decode).
            String expected = switch (m) {
                case BAD_MAGIC -> DecodeException.BAD_HEADER;
                case UNKNOWN_ID -> DecodeException.UNKNOWN_SCHEMA_ID;
                case OTHER_REGISTERED_ID -> idOf(value) == PROTOBUF_ID ? DecodeException.NOT_AVRO : null;
                // a strict prefix of a record's encoding cannot be a whole record
                case TRUNCATE -> value.length < 5 ? DecodeException.BAD_HEADER : DecodeException.UNDECODABLE;
                default -> null;
            };
            if (expected != null) {
                assertThat(outcome).as("%s frame %d (%s)", t.name, i, m).isEqualTo(expected);
            }
        }
    }

    static void symbolOf(Schema schema, String field, String value) {
        Schema s = schema.getField(field).schema();
        assertThat(s.getEnumSymbols()).as(field).contains(value);
    }

    static void sampleFieldsSet(io.ioscale.records.Sample s) {
        assertThat(s.runId).isNotNull();
        assertThat(s.host).isNotNull();
        assertThat(s.vm).isNotNull();
        assertThat(s.intervalMs).isNotNegative();
    }

    @Test
    @Timeout(120)
    void everyMutatedFrameIsARecordOrADeadLetterWithAReason() throws Exception {
        WriterSchemas.Factory schemas = DecoderFuzzTest::registry;
        Target<IoSample> io = new Target<>("IoSample",
                new ConfluentAvroDeserializer<>(ReaderSchemas.IO_SAMPLE, schemas, new IoSampleReader(),
                        AvroRecords::check, AnalyticsJob.IO_TYPE),
                new ConfluentAvroDeserializer<>(ReaderSchemas.IO_SAMPLE, schemas, AvroRecords::ioSample,
                        AnalyticsJob.IO_TYPE),
                s -> {
                    sampleFieldsSet(s);
                    assertThat(s.target).isNotNull();
                    symbolOf(IO, "direction", s.direction);
                    assertThat(s.ops).isNotNegative();
                    assertThat(s.bytes).isNotNegative();
                    assertThat(s.latencyCount).isNotNegative();
                    assertThat(s.decodedBuckets).isNull(); // checked and packed
                }, s -> s);
        io.seed(1, IO, ConfluentAvroDecoderTest.ioRecord())
                .seed(1, IO, ConfluentAvroDecoderTest.withoutStatistics(ConfluentAvroDecoderTest.ioRecord()))
                .seed(3, IO_OLD, ConfluentAvroDecoderTest.oldIoRecord("WRITE"))
                .seed(6, IO_NEWER, ConfluentAvroDecoderTest.newerIoRecord());

        Target<RunEvent> run = new Target<>("RunEvent", new ConfluentAvroDeserializer<>(ReaderSchemas.RUN_EVENT,
                schemas, AvroRecords::runEvent, AnalyticsJob.RUN_TYPE), null, e -> {
                    symbolOf(RUN, "event_type", e.eventType);
                    symbolOf(RUN, "tool", e.tool);
                    assertThat(e.runId).isNotNull();
                    assertThat(e.links).allSatisfy(l -> assertThat(l.speedBps).isNotNegative());
                }, FieldDump::of);
        run.seed(2, RUN, ConfluentAvroDecoderTest.fullRunRecord())
                .seed(2, RUN, ConfluentAvroDecoderTest.runRecord("RUN_STARTED"));

        Target<CpuSample> cpu = new Target<>("CpuSample", new ConfluentAvroDeserializer<>(ReaderSchemas.CPU_SAMPLE,
                schemas, AvroRecords::cpuSample, AnalyticsJob.CPU_TYPE), null, c -> {
                    sampleFieldsSet(c);
                    symbolOf(CPU, "scope", c.scope);
                    assertThat(c.utilizationPct).isNotNegative();
                }, FieldDump::of);
        GenericRecord cpuHost = ConfluentAvroDecoderTest.sampleRecord(CPU);
        cpuHost.put("scope", symbol(CPU, "scope", "HOST"));
        cpuHost.put("utilization_pct", 37.5);
        GenericRecord cpuVm = ConfluentAvroDecoderTest.sampleRecord(CPU);
        cpuVm.put("vm", "vm-017");
        cpuVm.put("scope", symbol(CPU, "scope", "VM"));
        cpuVm.put("cpu", 3);
        cpuVm.put("utilization_pct", 91.0);
        cpuVm.put("tags", new TreeMap<>(Map.of("numa", "1", "pinned", "yes"))); // Map.of order varies by run
        cpu.seed(4, CPU, cpuHost).seed(4, CPU, cpuVm);

        Target<PortSample> port = new Target<>("PortSample", new ConfluentAvroDeserializer<>(
                ReaderSchemas.PORT_SAMPLE, schemas, AvroRecords::portSample, AnalyticsJob.PORT_TYPE), null, p -> {
                    sampleFieldsSet(p);
                    assertThat(p.portId).isNotNull();
                    symbolOf(PORT, "kind", p.kind);
                    assertThat(p.rxBytes).isNotNegative();
                    assertThat(p.txBytes).isNotNegative();
                }, FieldDump::of);
        GenericRecord nic = ConfluentAvroDecoderTest.sampleRecord(PORT);
        nic.put("port_id", "eth0");
        nic.put("kind", symbol(PORT, "kind", "NIC"));
        nic.put("rx_bytes", 1_250_000_000L);
        nic.put("tx_bytes", 3L);
        GenericRecord vmq = ConfluentAvroDecoderTest.sampleRecord(PORT);
        vmq.put("port_id", "eth1");
        vmq.put("kind", symbol(PORT, "kind", "NIC_VMQ"));
        vmq.put("queue", 5);
        vmq.put("vm", "vm-003");
        vmq.put("rx_bytes", 10L);
        vmq.put("tx_bytes", 20L);
        vmq.put("tags", Map.of("switch", "tor-2"));
        port.seed(5, PORT, nic).seed(5, PORT, vmq);

        SplittableRandom r = new SplittableRandom(SEED);
        long t0 = System.nanoTime();
        for (Target<?> t : List.of(io, run, cpu, port)) {
            long start = System.nanoTime();
            fuzz(t, r.split());
            t.seconds = (System.nanoTime() - start) / 1e9;
        }
        double seconds = (System.nanoTime() - t0) / 1e9;

        StringBuilder report = new StringBuilder(String.format(java.util.Locale.ROOT,
                "decoder fuzz: %,d frames per type, seed %#x, %.1f s%n", FRAMES_PER_TYPE, SEED, seconds));
        for (Target<?> t : List.of(io, run, cpu, port)) {
            report.append(String.format(java.util.Locale.ROOT, "  %-10s %.1f s %s, most allocated by one frame %,d B%n",
                    t.name, t.seconds, t.outcomes, t.mostAllocated));
            t.byMutation.forEach((m, o) -> report.append("      ").append(m).append(' ').append(o).append('\n'));
        }
        System.out.print(report);
        for (Target<?> t : List.of(io, run, cpu, port)) {
            assertThat(t.outcomes.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(FRAMES_PER_TYPE);
            // every kind of verdict occurs, so no check above passed for want of cases
            assertThat(t.outcomes).as(t.name).containsKeys("decoded", DecodeException.BAD_HEADER,
                    DecodeException.UNKNOWN_SCHEMA_ID, DecodeException.NOT_AVRO, DecodeException.UNDECODABLE);
        }
    }
}
