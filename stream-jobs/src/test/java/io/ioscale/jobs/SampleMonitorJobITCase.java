package io.ioscale.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.ioscale.monitor.SchemaWindowCount;
import io.ioscale.testing.Collected;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Whole pipeline on a MiniCluster with an injected bounded source and a collecting sink. */
class SampleMonitorJobITCase {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = Collected.miniCluster();

    /** Values in order; the event time of value i is TIMES_MS[i] (two 10 s windows: [0,10000) and [10000,20000)). */
    private static final byte[][] VALUES = {
        frame(7, 10), frame(7, 20), frame(9, 5), new byte[] {1, 0, 0, 0, 7, 1}, // window 1: 15+25 B of id 7
        new byte[] {0, 0}, frame(7, 0), frame(9, 1), frame(9, 2), // window 2
    };
    private static final long[] TIMES_MS = {1_000, 2_000, 3_000, 4_000, 10_000, 11_000, 12_000, 19_999};

    @BeforeEach
    void clear() {
        Collected.clear();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void countsRecordsAndBytesPerSchemaIdAndBadHeadersPerWindow() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2); // exercise the keyBy shuffle, not just a chained pipeline

        DataGeneratorSource<byte[]> source = new DataGeneratorSource<>(
                i -> VALUES[i.intValue()], VALUES.length, PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);
        // Timestamps are looked up by content, so they do not depend on how the source splits indices.
        WatermarkStrategy<byte[]> watermarks = WatermarkStrategy.<byte[]>forMonotonousTimestamps()
                .withTimestampAssigner((value, ts) -> timeOf(value));

        new SampleMonitorJob(source, watermarks, TumblingEventTimeWindows.of(Duration.ofSeconds(10)),
                new Collected.CollectSink<>()).execute(env);

        List<SchemaWindowCount> rows = Collected.of(SchemaWindowCount.class);
        rows.sort((a, b) -> a.windowStartMs() != b.windowStartMs()
                ? Long.compare(a.windowStartMs(), b.windowStartMs())
                : a.toLogLine().compareTo(b.toLogLine()));
        assertThat(rows).containsExactly(
                new SchemaWindowCount(0, 10_000, true, 0, 1, 6),
                new SchemaWindowCount(0, 10_000, false, 7, 2, 40),
                new SchemaWindowCount(0, 10_000, false, 9, 1, 10),
                new SchemaWindowCount(10_000, 20_000, true, 0, 1, 2),
                new SchemaWindowCount(10_000, 20_000, false, 7, 1, 5),
                new SchemaWindowCount(10_000, 20_000, false, 9, 2, 13));
        assertThat(rows.get(1).toLogLine())
                .isEqualTo("window=[1970-01-01T00:00:00Z,1970-01-01T00:00:10Z) schema_id=7 records=2 bytes=40");
        assertThat(rows.get(0).toLogLine()).contains(" bad_header records=1 bytes=6");
    }

    /** Confluent-framed value: magic 0, big-endian schema id, then {@code bodyBytes} filler bytes. */
    private static byte[] frame(int schemaId, int bodyBytes) {
        byte[] v = new byte[5 + bodyBytes];
        v[1] = (byte) (schemaId >>> 24);
        v[2] = (byte) (schemaId >>> 16);
        v[3] = (byte) (schemaId >>> 8);
        v[4] = (byte) schemaId;
        for (int i = 5; i < v.length; i++) {
            v[i] = (byte) i;
        }
        return v;
    }

    /** VALUES are pairwise distinct, so a value's content identifies its index and event time. */
    private static long timeOf(byte[] value) {
        for (int i = 0; i < VALUES.length; i++) {
            if (Arrays.equals(VALUES[i], value)) {
                return TIMES_MS[i];
            }
        }
        throw new IllegalStateException("unknown test value " + Arrays.toString(value));
    }
}
