package io.ioscale.config;

import io.ioscale.analytics.SaturationConfig;
import io.ioscale.analytics.SloEvaluator;
import io.ioscale.analytics.SteadyStateConfig;
import io.ioscale.sinks.ClickHouseConfig;
import io.ioscale.steps.LoadAxis;
import io.ioscale.steps.StepAnalysisSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
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
 * Program arguments of {@code AnalyticsJob}, parsed once into an immutable value.
 *
 * <p>Arguments are {@code --key value} pairs; an unknown key is rejected with the list of known keys. Durations
 * take Flink's syntax ({@code 10s}, {@code 500 ms}). Nested settings ({@code --steady-state},
 * {@code --saturation}) are {@code key=value} lists separated by {@code ,}, with the keys of
 * {@link SteadyStateConfig} and {@link SaturationConfig} (unknown keys rejected there).
 *
 * <p>Password precedence: {@code --clickhouse-password} when given (tests), else the value of
 * {@code --clickhouse-password-key} (default CLICKHOUSE_FLINK_PASSWORD) in the {@code KEY=VALUE} file
 * {@code --clickhouse-password-file} (the stack passes its secrets.env, so the password never appears in the job's
 * arguments, which the Flink UI and REST API show).
 */
public record AnalyticsOptions(
        String kafkaBootstrap, String registryUrl, String groupId,
        String ioSamplesTopic, String runsTopic, String cpuSamplesTopic, String portSamplesTopic,
        String alertsTopic, String deadLetterTopic,
        ClickHouseConfig clickHouse,
        Duration checkpointInterval, Duration outOfOrderness, Duration idleness, Duration allowedLateness,
        StepAnalysisSettings steps, int parallelism, String checkpointDir, boolean startFromEarliest,
        Duration maxAhead, Duration earlyFireDelay, Replay replay) {

    /**
     * A bounded re-analysis of one run ({@code ioscale analyze}): read every topic from {@code fromMs} (Kafka record
     * time) to the end offsets at start, keep only {@code runId}'s records before any watermark is computed (the run
     * gets an event-time clock of its own, whatever else streams live), and run as job {@code jobName}.
     * Null for the live job.
     */
    public record Replay(String runId, long fromMs, String jobName) implements java.io.Serializable {}

    public static final ConfigOption<String> KAFKA_BOOTSTRAP = ConfigOptions.key("kafka-bootstrap")
            .stringType().defaultValue("127.0.0.1:9092").withDescription("Kafka bootstrap servers.");
    public static final ConfigOption<String> REGISTRY_URL = ConfigOptions.key("registry-url")
            .stringType().defaultValue("http://127.0.0.1:8081")
            .withDescription("Confluent-compatible schema registry (GET /schemas/ids/{id}).");
    public static final ConfigOption<String> GROUP_ID = ConfigOptions.key("group-id")
            .stringType().defaultValue("ioscale-analytics")
            .withDescription("Kafka consumer group; offsets committed on checkpoints are the resume point of a "
                    + "fresh submission without a checkpoint.");
    public static final ConfigOption<String> IO_SAMPLES_TOPIC = ConfigOptions.key("topic-io-samples")
            .stringType().defaultValue("ioscale.io_samples").withDescription("IoSample topic.");
    public static final ConfigOption<String> RUNS_TOPIC = ConfigOptions.key("topic-runs")
            .stringType().defaultValue("ioscale.runs").withDescription("RunEvent topic.");
    public static final ConfigOption<String> CPU_SAMPLES_TOPIC = ConfigOptions.key("topic-cpu-samples")
            .stringType().defaultValue("ioscale.cpu_samples").withDescription("CpuSample topic.");
    public static final ConfigOption<String> PORT_SAMPLES_TOPIC = ConfigOptions.key("topic-port-samples")
            .stringType().defaultValue("ioscale.port_samples").withDescription("PortSample topic.");
    public static final ConfigOption<String> ALERTS_TOPIC = ConfigOptions.key("topic-alerts")
            .stringType().defaultValue("ioscale.alerts").withDescription("Where saturation and SLO alerts go (JSON).");
    public static final ConfigOption<String> DEAD_LETTER_TOPIC = ConfigOptions.key("topic-dead-letter")
            .stringType().defaultValue("ioscale.dead_letter").withDescription("Where undecodable records go.");

    public static final ConfigOption<String> CLICKHOUSE_URL = ConfigOptions.key("clickhouse-url")
            .stringType().defaultValue("http://127.0.0.1:8123").withDescription("ClickHouse HTTP endpoint.");
    public static final ConfigOption<String> CLICKHOUSE_DATABASE = ConfigOptions.key("clickhouse-database")
            .stringType().defaultValue("ioscale").withDescription("Database of the result tables.");
    public static final ConfigOption<String> CLICKHOUSE_USER = ConfigOptions.key("clickhouse-user")
            .stringType().defaultValue("ioscale_flink").withDescription("ClickHouse user of the sink.");
    public static final ConfigOption<String> CLICKHOUSE_PASSWORD = ConfigOptions.key("clickhouse-password")
            .stringType().noDefaultValue().withDescription("ClickHouse password (prefer the password file).");
    public static final ConfigOption<String> CLICKHOUSE_PASSWORD_FILE = ConfigOptions.key("clickhouse-password-file")
            .stringType().noDefaultValue().withDescription("KEY=VALUE file holding the password (secrets.env).");
    public static final ConfigOption<String> CLICKHOUSE_PASSWORD_KEY = ConfigOptions.key("clickhouse-password-key")
            .stringType().defaultValue("CLICKHOUSE_FLINK_PASSWORD")
            .withDescription("Key of the password in the password file.");
    public static final ConfigOption<Integer> SINK_BATCH_ROWS = ConfigOptions.key("sink-batch-rows")
            .intType().defaultValue(5_000).withDescription("Rows per ClickHouse insert at most (per sink writer).");
    public static final ConfigOption<Duration> SINK_FLUSH_INTERVAL = ConfigOptions.key("sink-flush-interval")
            .durationType().defaultValue(Duration.ofMillis(200))
            .withDescription("Longest a row waits before it is inserted (checkpoints flush as well).");

    public static final ConfigOption<Duration> CHECKPOINT_INTERVAL = ConfigOptions.key("checkpoint-interval")
            .durationType().defaultValue(Duration.ofSeconds(30)).withDescription("Checkpoint period.");
    // 30 s, not 10: a checkpoint copies and serializes every source's windows (~40 MB at 10k sources), ~0.3-1 s
    // of a core in a burst that delayed the live rows around it. A restore replays at most this much more
    // input, which the idempotent sink absorbs.
    public static final ConfigOption<Duration> OUT_OF_ORDERNESS = ConfigOptions.key("out-of-orderness")
            .durationType().defaultValue(Duration.ofSeconds(2))
            .withDescription("Watermark delay behind the largest event time seen, per Kafka partition.");
    public static final ConfigOption<Duration> EARLY_FIRE_DELAY = ConfigOptions.key("early-fire-delay")
            .durationType().defaultValue(Duration.ofMillis(200))
            .withDescription("Rollup windows emit their row this long (wall clock) after they end, before the "
                    + "watermark closes them, and again as late records arrive (freshness of live runs); 0: off. "
                    + "Replays fire on the watermark only.");
    public static final ConfigOption<Duration> IDLENESS = ConfigOptions.key("idleness")
            .durationType().defaultValue(Duration.ofSeconds(10))
            .withDescription("A partition without records for this long stops holding the watermark back.");
    public static final ConfigOption<Duration> ALLOWED_LATENESS = ConfigOptions.key("allowed-lateness")
            .durationType().defaultValue(Duration.ofSeconds(10))
            .withDescription("Records this late (after the watermark passed their window) still update it: the "
                    + "window fires again and its row is replaced. Later records are counted and dropped.");
    // 10 s, not 30: every source keeps its fired 1 s windows this long, and at 10k sources those were ~85 % of
    // the state (95 MB checkpointed every 10 s at 30 s, 42 MB at 10 s) and the medium-lived objects the young
    // GC copies again at each pause. A record behind by more than out-of-orderness + 10 s is a collector that
    // stalled; its raw row still lands (Kafka engine) and the SQL library's *_raw queries count it.

    public static final ConfigOption<String> STEADY_STATE = ConfigOptions.key("steady-state")
            .stringType().defaultValue("").withDescription("Steady-state settings, key=value,... (SteadyStateConfig).");
    public static final ConfigOption<String> SATURATION = ConfigOptions.key("saturation")
            .stringType().defaultValue("").withDescription("Saturation thresholds, key=value,... (SaturationConfig).");
    public static final ConfigOption<String> SLO = ConfigOptions.key("slo")
            .stringType().defaultValue("p99 < 10 ms, p99.999 < 50 ms")
            .withDescription("Latency objectives (SloEvaluator syntax); 'none' disables SLO alerts.");
    public static final ConfigOption<String> LOAD_AXIS = ConfigOptions.key("load-axis")
            .stringType().defaultValue(LoadAxis.TOTAL_OUTSTANDING.key())
            .withDescription("x of the scaling curve: total-outstanding, vm-count, workers, queue-depth or step.");
    public static final ConfigOption<Duration> STEP_RETENTION = ConfigOptions.key("step-retention")
            .durationType().defaultValue(Duration.ofHours(6))
            .withDescription("Seconds of a run no step has claimed are dropped after this long (event time).");

    public static final ConfigOption<Integer> PARALLELISM = ConfigOptions.key("parallelism")
            .intType().defaultValue(0)
            .withDescription("Parallelism of the job's operators; 0 = the cluster's default. Kafka sources use it "
                    + "too (each reader takes a share of the partitions).");

    public static final ConfigOption<String> CHECKPOINT_DIR = ConfigOptions.key("checkpoint-dir")
            .stringType().defaultValue("")
            .withDescription("Where this job's checkpoints go (a URI, e.g. file:///...); they are retained when the "
                    + "job is cancelled or the cluster stops, so a resubmission can restore the window state from "
                    + "the newest one. Empty: the cluster's execution.checkpointing.dir, not retained.");

    public static final ConfigOption<String> STARTING_OFFSETS = ConfigOptions.key("starting-offsets")
            .stringType().defaultValue("latest")
            .withDescription("Where a consumer group without committed offsets starts: latest (default: a newly "
                    + "deployed job analyses the runs that follow, not every retained record) or earliest (reprocess "
                    + "what the topics retain). A restored checkpoint or committed offsets always win.");

    public static final ConfigOption<Duration> MAX_AHEAD = ConfigOptions.key("max-ahead")
            .durationType().defaultValue(Duration.ofMinutes(1))
            .withDescription("Records stamped more than this after the wall clock are counted (tooFarAhead) and "
                    + "not analysed; the watermark never passes the wall clock, so they would wait in state.");

    public static final ConfigOption<String> REPLAY_RUN = ConfigOptions.key("replay-run")
            .stringType().defaultValue("")
            .withDescription("Replay mode (ioscale analyze): analyse only this run, reading the topics from "
                    + "--replay-from-ms to their current end, then finish. Empty: the live job.");
    public static final ConfigOption<Long> REPLAY_FROM_MS = ConfigOptions.key("replay-from-ms")
            .longType().defaultValue(0L)
            .withDescription("Replay mode: Kafka record time (epoch ms) to start reading from.");
    public static final ConfigOption<String> JOB_NAME = ConfigOptions.key("job-name")
            .stringType().defaultValue("ioscale-analytics").withDescription("Flink job name.");

    public static final List<ConfigOption<?>> ALL = List.of(KAFKA_BOOTSTRAP, REGISTRY_URL, GROUP_ID,
            IO_SAMPLES_TOPIC, RUNS_TOPIC, CPU_SAMPLES_TOPIC, PORT_SAMPLES_TOPIC, ALERTS_TOPIC, DEAD_LETTER_TOPIC,
            CLICKHOUSE_URL, CLICKHOUSE_DATABASE, CLICKHOUSE_USER, CLICKHOUSE_PASSWORD, CLICKHOUSE_PASSWORD_FILE,
            CLICKHOUSE_PASSWORD_KEY, SINK_BATCH_ROWS, SINK_FLUSH_INTERVAL, CHECKPOINT_INTERVAL, OUT_OF_ORDERNESS,
            EARLY_FIRE_DELAY, IDLENESS, ALLOWED_LATENESS, STEADY_STATE, SATURATION, SLO, LOAD_AXIS, STEP_RETENTION, PARALLELISM, CHECKPOINT_DIR,
            STARTING_OFFSETS, MAX_AHEAD, REPLAY_RUN, REPLAY_FROM_MS, JOB_NAME);

    /** Bytes buffered per writer before an insert is forced. */
    static final long SINK_BATCH_BYTES = 16L << 20;
    static final int SINK_ATTEMPTS = 4;

    /** Parses {@code --key value} program arguments; throws {@link IllegalArgumentException} naming a bad key. */
    public static AnalyticsOptions fromArgs(String[] args) {
        Map<String, String> given = ParameterTool.fromArgs(args).toMap();
        Set<String> known = ALL.stream().map(ConfigOption::key).collect(Collectors.toCollection(TreeSet::new));
        for (String key : given.keySet()) {
            if (!known.contains(key)) {
                throw new IllegalArgumentException("unknown argument --" + key + "; known: --" + String.join(", --", known));
            }
        }
        Configuration conf = Configuration.fromMap(given);
        try {
            String password = conf.getOptional(CLICKHOUSE_PASSWORD)
                    .orElseGet(() -> passwordFromFile(conf.getOptional(CLICKHOUSE_PASSWORD_FILE).orElse(null),
                            conf.get(CLICKHOUSE_PASSWORD_KEY)));
            ClickHouseConfig clickHouse = new ClickHouseConfig(text(CLICKHOUSE_URL, conf.get(CLICKHOUSE_URL)),
                    text(CLICKHOUSE_DATABASE, conf.get(CLICKHOUSE_DATABASE)),
                    text(CLICKHOUSE_USER, conf.get(CLICKHOUSE_USER)), password,
                    positive(SINK_BATCH_ROWS, conf.get(SINK_BATCH_ROWS)), SINK_BATCH_BYTES,
                    positive(SINK_FLUSH_INTERVAL, conf.get(SINK_FLUSH_INTERVAL)), SINK_ATTEMPTS);
            String sloSpec = conf.get(SLO).trim();
            SloEvaluator slo = sloSpec.isEmpty() || sloSpec.equalsIgnoreCase("none") ? null : SloEvaluator.parse(sloSpec);
            Duration lateness = nonNegative(ALLOWED_LATENESS, conf.get(ALLOWED_LATENESS));
            StepAnalysisSettings steps = new StepAnalysisSettings(
                    SteadyStateConfig.fromMap(keyValues(STEADY_STATE, conf.get(STEADY_STATE))),
                    SaturationConfig.fromMap(keyValues(SATURATION, conf.get(SATURATION))),
                    slo,
                    LoadAxis.fromKey(conf.get(LOAD_AXIS)),
                    lateness.toMillis(),
                    positive(STEP_RETENTION, conf.get(STEP_RETENTION)).toMillis(),
                    StepAnalysisSettings.defaults().liveEvalEveryS());
            return new AnalyticsOptions(
                    text(KAFKA_BOOTSTRAP, conf.get(KAFKA_BOOTSTRAP)), text(REGISTRY_URL, conf.get(REGISTRY_URL)),
                    text(GROUP_ID, conf.get(GROUP_ID)),
                    text(IO_SAMPLES_TOPIC, conf.get(IO_SAMPLES_TOPIC)), text(RUNS_TOPIC, conf.get(RUNS_TOPIC)),
                    text(CPU_SAMPLES_TOPIC, conf.get(CPU_SAMPLES_TOPIC)),
                    text(PORT_SAMPLES_TOPIC, conf.get(PORT_SAMPLES_TOPIC)),
                    text(ALERTS_TOPIC, conf.get(ALERTS_TOPIC)), text(DEAD_LETTER_TOPIC, conf.get(DEAD_LETTER_TOPIC)),
                    clickHouse,
                    positive(CHECKPOINT_INTERVAL, conf.get(CHECKPOINT_INTERVAL)),
                    nonNegative(OUT_OF_ORDERNESS, conf.get(OUT_OF_ORDERNESS)),
                    nonNegative(IDLENESS, conf.get(IDLENESS)),
                    lateness,
                    steps,
                    nonNegative(PARALLELISM, conf.get(PARALLELISM)),
                    conf.get(CHECKPOINT_DIR).trim(),
                    startFromEarliest(conf.get(STARTING_OFFSETS)),
                    positive(MAX_AHEAD, conf.get(MAX_AHEAD)),
                    nonNegative(EARLY_FIRE_DELAY, conf.get(EARLY_FIRE_DELAY)),
                    replay(conf));
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (RuntimeException e) { // Flink's parse errors do not always name the key
            throw new IllegalArgumentException("bad argument: " + e.getMessage(), e);
        }
    }

    private static Replay replay(Configuration conf) {
        String run = conf.get(REPLAY_RUN).trim();
        String name = text(JOB_NAME, conf.get(JOB_NAME));
        if (run.isEmpty()) {
            return null;
        }
        long fromMs = conf.get(REPLAY_FROM_MS);
        if (fromMs < 0) {
            throw new IllegalArgumentException("--" + REPLAY_FROM_MS.key() + " must be >= 0, got " + fromMs);
        }
        if (name.equals(JOB_NAME.defaultValue())) {
            throw new IllegalArgumentException("--" + REPLAY_RUN.key() + " needs its own --" + JOB_NAME.key()
                    + " (not the live job's " + JOB_NAME.defaultValue() + ")");
        }
        return new Replay(run, fromMs, name);
    }

    /** The job's name: the live job's, or the replay's. */
    public String jobName() {
        return replay == null ? JOB_NAME.defaultValue() : replay.jobName();
    }

    private static boolean startFromEarliest(String value) {
        return switch (value.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "earliest" -> true;
            case "latest" -> false;
            default -> throw new IllegalArgumentException("--" + STARTING_OFFSETS.key()
                    + " must be earliest or latest, got " + value);
        };
    }

    /** "a=1, b=auto" -> {a: 1, b: auto}; an entry without '=' names the option. */
    static Map<String, String> keyValues(ConfigOption<String> option, String text) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String part : text.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--" + option.key() + ": '" + part.trim()
                        + "' is not key=value");
            }
            out.put(part.substring(0, eq).trim(), part.substring(eq + 1).trim());
        }
        return out;
    }

    /** The value of {@code key} in a KEY=VALUE file (secrets.env); '#' lines are comments. */
    static String passwordFromFile(String file, String key) {
        if (file == null) {
            throw new IllegalArgumentException("no ClickHouse password: give --" + CLICKHOUSE_PASSWORD_FILE.key()
                    + " (a KEY=VALUE file) or --" + CLICKHOUSE_PASSWORD.key());
        }
        try {
            for (String line : Files.readAllLines(Path.of(file))) {
                String l = line.trim();
                int eq = l.indexOf('=');
                if (!l.startsWith("#") && eq > 0 && l.substring(0, eq).trim().equals(key)) {
                    return l.substring(eq + 1).trim();
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("--" + CLICKHOUSE_PASSWORD_FILE.key() + " " + file
                    + " cannot be read: " + e.getMessage(), e);
        }
        throw new IllegalArgumentException("--" + CLICKHOUSE_PASSWORD_FILE.key() + " " + file + " has no " + key);
    }

    private static String text(ConfigOption<String> option, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("--" + option.key() + " must not be empty");
        }
        return value.trim();
    }

    private static int nonNegative(ConfigOption<Integer> option, int value) {
        if (value < 0) {
            throw new IllegalArgumentException("--" + option.key() + " must be >= 0, got " + value);
        }
        return value;
    }

    private static int positive(ConfigOption<Integer> option, int value) {
        if (value < 1) {
            throw new IllegalArgumentException("--" + option.key() + " must be >= 1, got " + value);
        }
        return value;
    }

    private static Duration positive(ConfigOption<Duration> option, Duration value) {
        if (value == null || value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException("--" + option.key() + " must be a positive duration, got " + value);
        }
        return value;
    }

    private static Duration nonNegative(ConfigOption<Duration> option, Duration value) {
        if (value == null || value.isNegative()) {
            throw new IllegalArgumentException("--" + option.key() + " must be a duration >= 0, got " + value);
        }
        return value;
    }
}
