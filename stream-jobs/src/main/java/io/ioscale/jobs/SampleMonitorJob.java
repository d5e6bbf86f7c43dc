package io.ioscale.jobs;

import io.ioscale.config.SampleMonitorOptions;
import io.ioscale.monitor.AddWindowBounds;
import io.ioscale.monitor.CountFrames;
import io.ioscale.monitor.FrameKey;
import io.ioscale.monitor.LoggingSink;
import io.ioscale.monitor.ParseWireFrame;
import io.ioscale.monitor.SchemaWindowCount;
import io.ioscale.sources.ResolvedStartOffsets;
import java.time.Duration;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.windowing.assigners.TumblingProcessingTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Liveness monitor of the sample stream: counts Kafka records and bytes per writer schema id per window
 * and logs one line per (window, schema id); values with a bad Confluent wire header get their own row.
 *
 * <pre>
 *   source (raw values) -> parse wire header -> keyBy schema id | bad header
 *     -> tumbling window: CountFrames (incremental) + AddWindowBounds -> sink
 * </pre>
 *
 * <p>The source, watermarks, window assigner and sink come from outside: {@link #main} wires Kafka,
 * processing-time windows and the logging sink; tests inject a bounded source, event-time windows and a
 * collecting sink. Event time in tests because Flink drops pending processing-time timers when a bounded
 * input ends, so the last processing-time window would never fire.
 */
public final class SampleMonitorJob {

    public static final String JOB_NAME = "ioscale-sample-monitor";

    private final Source<byte[], ?, ?> source;
    private final WatermarkStrategy<byte[]> watermarks;
    private final WindowAssigner<Object, TimeWindow> windows;
    private final Sink<SchemaWindowCount> sink;

    public SampleMonitorJob(
            Source<byte[], ?, ?> source,
            WatermarkStrategy<byte[]> watermarks,
            WindowAssigner<Object, TimeWindow> windows,
            Sink<SchemaWindowCount> sink) {
        this.source = source;
        this.watermarks = watermarks;
        this.windows = windows;
        this.sink = sink;
    }

    /** The production shape: processing-time windows of {@code window}, no watermarks. */
    public static SampleMonitorJob processingTime(
            Source<byte[], ?, ?> source, Duration window, Sink<SchemaWindowCount> sink) {
        return new SampleMonitorJob(source, WatermarkStrategy.noWatermarks(), TumblingProcessingTimeWindows.of(window), sink);
    }

    /** Adds the pipeline to {@code env}; returns the sink so callers can name or tune it. */
    public DataStreamSink<SchemaWindowCount> createPipeline(StreamExecutionEnvironment env) {
        // ParseWireFrame keeps nothing of its input: without reuse, every record value (~1.5 KB with a wide
        // histogram) would be copied once more on its way from the source to the parser, the job's largest garbage.
        env.getConfig().enableObjectReuse();
        return env.fromSource(source, watermarks, "io-samples")
                .map(new ParseWireFrame())
                .name("parse-wire-header")
                .keyBy(new FrameKey())
                .window(windows)
                .aggregate(new CountFrames(), new AddWindowBounds())
                .name("count-per-schema-id")
                .sinkTo(sink)
                .name("window-counts");
    }

    public JobExecutionResult execute(StreamExecutionEnvironment env) throws Exception {
        createPipeline(env);
        return env.execute(JOB_NAME);
    }

    public static KafkaSource<byte[]> kafkaSource(SampleMonitorOptions options) {
        return KafkaSource.<byte[]>builder()
                .setBootstrapServers(options.kafkaBootstrap())
                .setTopics(options.topic())
                .setGroupId(options.groupId())
                .setClientIdPrefix(options.groupId())
                // Resume where the group left off (offsets are committed on checkpoints); a new group reads all.
                // Resolved when the job starts, as the analytics job's sources are (ResolvedStartOffsets).
                .setStartingOffsets(new ResolvedStartOffsets(true))
                .setDeserializer(KafkaRecordDeserializationSchema.valueOnly(ByteArrayDeserializer.class))
                .build();
    }

    public static void main(String[] args) throws Exception {
        SampleMonitorOptions options = SampleMonitorOptions.fromArgs(args);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(options.checkpointInterval().toMillis());
        processingTime(kafkaSource(options), options.window(), new LoggingSink<>(JOB_NAME, SchemaWindowCount::toLogLine))
                .execute(env);
    }
}
