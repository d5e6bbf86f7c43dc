package io.ioscale.config;

import static io.ioscale.config.OptionSpec.Bound.NOT_EMPTY;
import static io.ioscale.config.OptionSpec.Bound.POSITIVE;

import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * Program arguments of {@code SampleMonitorJob}, parsed once ({@link ProgramArguments}) into an immutable value.
 *
 * <p>Arguments are {@code --key value} pairs; an unknown key is rejected with the list of known keys, so
 * a typo never silently falls back to a default. Durations accept Flink's syntax ({@code 10s}, {@code 500 ms}).
 *
 * @param kafkaBootstrap Kafka bootstrap servers, {@code host:port[,host:port...]}
 * @param topic topic with Confluent-framed Avro samples
 * @param groupId consumer group; its committed offsets are where a resubmitted job resumes
 * @param window length of the processing-time counting window
 * @param checkpointInterval checkpoint period; offsets are committed to Kafka on each checkpoint
 */
public record SampleMonitorOptions(
        String kafkaBootstrap, String topic, String groupId, Duration window, Duration checkpointInterval) {

    public static final ConfigOption<String> KAFKA_BOOTSTRAP = ConfigOptions.key("kafka-bootstrap")
            .stringType()
            .defaultValue("127.0.0.1:9092")
            .withDescription("Kafka bootstrap servers.");

    public static final ConfigOption<String> TOPIC = ConfigOptions.key("topic")
            .stringType()
            .defaultValue("ioscale.io_samples")
            .withDescription("Topic with Confluent-framed Avro I/O samples.");

    public static final ConfigOption<String> GROUP_ID = ConfigOptions.key("group-id")
            .stringType()
            .defaultValue("ioscale-sample-monitor")
            .withDescription("Kafka consumer group; committed offsets are the resume point.");

    public static final ConfigOption<Duration> WINDOW = ConfigOptions.key("window")
            .durationType()
            .defaultValue(Duration.ofSeconds(10))
            .withDescription("Processing-time window over which records and bytes are counted.");

    public static final ConfigOption<Duration> CHECKPOINT_INTERVAL = ConfigOptions.key("checkpoint-interval")
            .durationType()
            .defaultValue(Duration.ofSeconds(30))
            .withDescription("Checkpoint period; Kafka offsets are committed when a checkpoint completes.");

    public static final List<OptionSpec<?>> ALL = List.of(OptionSpec.of(KAFKA_BOOTSTRAP).bound(NOT_EMPTY),
            OptionSpec.of(TOPIC).bound(NOT_EMPTY), OptionSpec.of(GROUP_ID).bound(NOT_EMPTY),
            OptionSpec.of(WINDOW).bound(POSITIVE), OptionSpec.of(CHECKPOINT_INTERVAL).bound(POSITIVE));

    /** Parses {@code --key value} program arguments; throws {@link IllegalArgumentException} naming a bad key. */
    public static SampleMonitorOptions fromArgs(String[] args) {
        ProgramArguments a = ProgramArguments.parse(args, ALL);
        return new SampleMonitorOptions(a.get(KAFKA_BOOTSTRAP), a.get(TOPIC), a.get(GROUP_ID), a.get(WINDOW),
                a.get(CHECKPOINT_INTERVAL));
    }
}
