package io.ioscale.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.util.ParameterTool;

/**
 * Program arguments of {@code SampleMonitorJob}, parsed once into an immutable value.
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

    public static final List<ConfigOption<?>> ALL =
            List.of(KAFKA_BOOTSTRAP, TOPIC, GROUP_ID, WINDOW, CHECKPOINT_INTERVAL);

    public SampleMonitorOptions {
        requireText(KAFKA_BOOTSTRAP, kafkaBootstrap);
        requireText(TOPIC, topic);
        requireText(GROUP_ID, groupId);
        requirePositive(WINDOW, window);
        requirePositive(CHECKPOINT_INTERVAL, checkpointInterval);
    }

    /** Parses {@code --key value} program arguments; throws {@link IllegalArgumentException} naming a bad key. */
    public static SampleMonitorOptions fromArgs(String[] args) {
        Map<String, String> given = ParameterTool.fromArgs(args).toMap();
        Set<String> known = ALL.stream().map(ConfigOption::key).collect(Collectors.toCollection(TreeSet::new));
        for (String key : given.keySet()) {
            if (!known.contains(key)) {
                throw new IllegalArgumentException("unknown argument --" + key + "; known: --" + String.join(", --", known));
            }
        }
        Configuration conf = Configuration.fromMap(given);
        try {
            return new SampleMonitorOptions(
                    conf.get(KAFKA_BOOTSTRAP), conf.get(TOPIC), conf.get(GROUP_ID),
                    conf.get(WINDOW), conf.get(CHECKPOINT_INTERVAL));
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (RuntimeException e) { // Flink's parse errors do not always name the key
            throw new IllegalArgumentException("bad argument: " + e.getMessage(), e);
        }
    }

    private static void requireText(ConfigOption<String> option, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("--" + option.key() + " must not be empty");
        }
    }

    private static void requirePositive(ConfigOption<Duration> option, Duration value) {
        if (value == null || value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException("--" + option.key() + " must be a positive duration, got " + value);
        }
    }
}
