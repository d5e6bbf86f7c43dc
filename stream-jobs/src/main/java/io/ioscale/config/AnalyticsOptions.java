package io.ioscale.config;

import static io.ioscale.config.OptionSpec.Bound.NON_NEGATIVE;
import static io.ioscale.config.OptionSpec.Bound.NOT_EMPTY;
import static io.ioscale.config.OptionSpec.Bound.POSITIVE;

import io.ioscale.analytics.SaturationConfig;
import io.ioscale.analytics.SloEvaluator;
import io.ioscale.analytics.SteadyStateConfig;
import io.ioscale.analytics.ThroughputMetric;
import io.ioscale.sinks.ClickHouseConfig;
import io.ioscale.steps.LoadAxis;
import io.ioscale.steps.StepAnalysisConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * Program arguments of {@code AnalyticsJob}, parsed once ({@link ProgramArguments}) into this immutable value: the
 * job's one settings type. The analysis components take small value records made from it ({@link #steps()}).
 *
 * <p>Arguments are {@code --key value} pairs; an unknown key is rejected with the list of known keys. Durations
 * take Flink's syntax ({@code 10s}, {@code 500 ms}). Nested settings ({@code --steady-state},
 * {@code --saturation}) are {@code key=value} lists separated by {@code ,}, with the keys of {@link #STEADY_STATE_KEYS}
 * and {@link #SATURATION_KEYS} (unknown keys rejected there too). {@link #ALL} describes every option once: the
 * parser checks it and {@code schema/analytics_options.json} is written from it ({@link OptionsDescription}).
 *
 * <p>Password precedence: {@code --clickhouse-password} when given (tests), else the value of
 * {@code --clickhouse-password-key} (default CLICKHOUSE_FLINK_PASSWORD) in the {@code KEY=VALUE} file
 * {@code --clickhouse-password-file} (the stack passes its secrets.env, so the password never appears in the job's
 * arguments, which the Flink UI and REST API show).
 *
 * @param earlyFireDelay the rollups' early firing; zero for a replay, which fires on the watermark only (a past
 *                       run's wall clock means nothing)
 */
public record AnalyticsOptions(
        String kafkaBootstrap, String registryUrl, String groupId,
        String ioSamplesTopic, String runsTopic, String cpuSamplesTopic, String portSamplesTopic,
        String alertsTopic, String deadLetterTopic,
        ClickHouseConfig clickHouse,
        Duration checkpointInterval, Duration outOfOrderness, Duration idleness, Duration allowedLateness,
        StepAnalysisConfig steps, int parallelism, String checkpointDir, boolean startFromEarliest,
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
            .durationType().defaultValue(Duration.ofSeconds(30))
            .withDescription("How often the job checkpoints its windows and Kafka offsets: a restart replays at most "
                    + "this much input.");
    // 30 s, not 10: a checkpoint copies and serializes every source's windows in one burst of a core, which delays
    // the live rows around it. A restore replays at most this much more input, which the idempotent sink absorbs.
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
            .withDescription("A partition stops holding the watermark back once other partitions have had records "
                    + "for this long since its last one (a broker outage stops them all, and none goes idle).");
    public static final ConfigOption<Duration> ALLOWED_LATENESS = ConfigOptions.key("allowed-lateness")
            .durationType().defaultValue(Duration.ofSeconds(10))
            .withDescription("Records this late (after the watermark passed their window) still update it: the "
                    + "window fires again and its row is replaced. Later records are counted and dropped.");
    // 10 s, not 30: every source keeps its fired 1 s windows this long; with many sources they are most of the state
    // a checkpoint copies, and medium-lived objects the young GC copies again at each pause. A record behind by more
    // than out-of-orderness + 10 s is a collector that stalled; its raw row still lands (Kafka engine) and the SQL
    // library's *_raw queries count it.

    public static final ConfigOption<Duration> STEP_CLOSE_IDLE = ConfigOptions.key("step-close-idle")
            .durationType().defaultValue(Duration.ofSeconds(10))
            .withDescription("An ended step (STEP_ENDED) is finalized from the seconds that have arrived once no "
                    + "I/O second of its run has arrived for this long (wall clock) and the wall clock is this far "
                    + "past its end, though event time is not: the watermark moves only with newer records, so a "
                    + "run's last step would otherwise wait for the next run's. Later seconds still update its row. "
                    + "Needs early firing (the step's last seconds come as early rows); off in replays, whose "
                    + "input ends. 0: off.");

    public static final ConfigOption<String> STEADY_STATE = ConfigOptions.key("steady-state")
            .stringType().defaultValue("")
            .withDescription("How a step's steady state is chosen, key=value,... e.g. 'ramp-up-s=30,tail-s=5'; "
                    + "keys not given keep their defaults.");
    public static final ConfigOption<String> SATURATION = ConfigOptions.key("saturation")
            .stringType().defaultValue("")
            .withDescription("Saturation thresholds, key=value,... e.g. "
                    + "'port-utilization-pct=90,cpu-utilization-pct=85'; keys not given keep their defaults.");
    public static final ConfigOption<String> SLO = ConfigOptions.key("slo")
            .stringType().defaultValue("p99 < 10 ms, p99.999 < 50 ms")
            .withDescription("Latency objectives raising SLO-breach alerts, e.g. 'p99 < 1 ms, p99.999 < 2 ms': "
                    + "mean, max or pNN, < or <=, a bound in ns, us, ms or s; separated by ',' or ';'. "
                    + "'none' disables them.");
    public static final ConfigOption<String> LOAD_AXIS = ConfigOptions.key("load-axis")
            .stringType().defaultValue(LoadAxis.TOTAL_OUTSTANDING.key())
            .withDescription("x of the scaling curve: the load that linear scaling is proportional to "
                    + "(total-outstanding: VMs x targets x workers x queue depth).");
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
            .withDescription("Where a consumer group without committed offsets starts: latest (a newly deployed job "
                    + "analyses the runs that follow, not every retained record) or earliest (reprocess what the "
                    + "topics retain). A restored checkpoint or committed offsets always win.");

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

    // ------------------------------------------------------------------------- --steady-state key=value,...

    private static final SteadyStateConfig STEADY = SteadyStateConfig.defaults();

    public static final ConfigOption<String> RAMP_UP_S = ConfigOptions.key(SteadyStateConfig.RAMP_UP_S)
            .stringType().defaultValue(autoOr(STEADY.rampUpS()))
            .withDescription("Seconds excluded at the start of the step; auto: detected, the steady state starts "
                    + "at the first window that is steady (window-s, max-cv, level-tolerance).");
    public static final ConfigOption<String> TAIL_S = ConfigOptions.key(SteadyStateConfig.TAIL_S)
            .stringType().defaultValue(autoOr(STEADY.tailS()))
            .withDescription("Seconds excluded at the end of the step; auto: only the trailing partial seconds "
                    + "(partial-fraction).");
    public static final ConfigOption<Integer> WINDOW_S = ConfigOptions.key(SteadyStateConfig.WINDOW_S)
            .intType().defaultValue(STEADY.windowS())
            .withDescription("Rolling window of the detection.");
    public static final ConfigOption<Double> MAX_CV = ConfigOptions.key(SteadyStateConfig.MAX_CV)
            .doubleType().defaultValue(STEADY.maxCv())
            .withDescription("A window is steady when its IOPS coefficient of variation (sd / mean) is at most "
                    + "this, and its level within level-tolerance.");
    public static final ConfigOption<Double> LEVEL_TOLERANCE = ConfigOptions.key(SteadyStateConfig.LEVEL_TOLERANCE)
            .doubleType().defaultValue(STEADY.levelTolerance())
            .withDescription("A steady window's mean IOPS, and its first second's, are within this fraction of "
                    + "the reference level (so the window cannot start on the last ramp second).");
    public static final ConfigOption<Double> PARTIAL_FRACTION = ConfigOptions.key(SteadyStateConfig.PARTIAL_FRACTION)
            .doubleType().defaultValue(STEADY.partialFraction())
            .withDescription("A trailing second with IOPS below this fraction of the reference is partial.");
    public static final ConfigOption<Integer> MIN_STEADY_S = ConfigOptions.key(SteadyStateConfig.MIN_STEADY_S)
            .intType().defaultValue(STEADY.minSteadyS())
            .withDescription("A steady window shorter than this is reported TOO_SHORT.");

    public static final List<OptionSpec<?>> STEADY_STATE_KEYS = List.of(
            OptionSpec.of(RAMP_UP_S).type("integer-or-auto").unit("s"),
            OptionSpec.of(TAIL_S).type("integer-or-auto").unit("s"),
            OptionSpec.of(WINDOW_S).unit("s"),
            OptionSpec.of(MAX_CV).unit("ratio"),
            OptionSpec.of(LEVEL_TOLERANCE).unit("fraction"),
            OptionSpec.of(PARTIAL_FRACTION).unit("fraction"),
            OptionSpec.of(MIN_STEADY_S).unit("s"));

    // ---------------------------------------------------------------------------- --saturation key=value,...

    private static final SaturationConfig SATURATED = SaturationConfig.defaults();

    public static final ConfigOption<String> METRIC = ConfigOptions.key(SaturationConfig.METRIC)
            .stringType().defaultValue(SATURATED.metric().key())
            .withDescription("Throughput judged.");
    public static final ConfigOption<Double> MARGINAL_GAIN_RATIO =
            ConfigOptions.key(SaturationConfig.MARGINAL_GAIN_RATIO)
                    .doubleType().defaultValue(SATURATED.marginalGainRatio())
                    .withDescription("A step has stalled when its throughput gain % over its load increase % is under "
                            + "this (0.25: doubling the load bought less than +25 %).");
    public static final ConfigOption<Double> MIN_EFFICIENCY = ConfigOptions.key(SaturationConfig.MIN_EFFICIENCY)
            .doubleType().defaultValue(SATURATED.minEfficiency())
            .withDescription("A step has stalled also when its efficiency against linear scaling from the first "
                    + "step is under this (0 disables).");
    public static final ConfigOption<Double> MIN_LATENCY_GROWTH_PCT =
            ConfigOptions.key(SaturationConfig.MIN_LATENCY_GROWTH_PCT)
                    .doubleType().defaultValue(SATURATED.minLatencyGrowthPct())
                    .withDescription("A stalled step is saturated only if its mean latency also grew by more than "
                            + "this.");
    public static final ConfigOption<Double> PORT_UTILIZATION_PCT =
            ConfigOptions.key(SaturationConfig.PORT_UTILIZATION_PCT)
                    .doubleType().defaultValue(SATURATED.portUtilizationPct())
                    .withDescription("A port direction at or above this share of its payload rate is the bottleneck.");
    public static final ConfigOption<Double> CPU_UTILIZATION_PCT =
            ConfigOptions.key(SaturationConfig.CPU_UTILIZATION_PCT)
                    .doubleType().defaultValue(SATURATED.cpuUtilizationPct())
                    .withDescription("Else a host at or above this share of its logical processors is the bottleneck.");
    public static final ConfigOption<Double> LITTLES_LAW_TOLERANCE =
            ConfigOptions.key(SaturationConfig.LITTLES_LAW_TOLERANCE)
                    .doubleType().defaultValue(SATURATED.littlesLawTolerance())
                    .withDescription("Relative error accepted by the Little's-law check.");

    public static final List<OptionSpec<?>> SATURATION_KEYS = List.of(
            OptionSpec.of(METRIC).allowed(ThroughputMetric.keys()),
            OptionSpec.of(MARGINAL_GAIN_RATIO).unit("ratio"),
            OptionSpec.of(MIN_EFFICIENCY).unit("fraction"),
            OptionSpec.of(MIN_LATENCY_GROWTH_PCT).unit("%"),
            OptionSpec.of(PORT_UTILIZATION_PCT).unit("%"),
            OptionSpec.of(CPU_UTILIZATION_PCT).unit("%"),
            OptionSpec.of(LITTLES_LAW_TOLERANCE).unit("fraction"));

    // ---------------------------------------------------------------------------------------- all of them

    private static final OptionSpec<String> STEADY_STATE_SPEC = OptionSpec.of(STEADY_STATE).keys(STEADY_STATE_KEYS);
    private static final OptionSpec<String> SATURATION_SPEC = OptionSpec.of(SATURATION).keys(SATURATION_KEYS);

    /** Every option, in the order the description file lists them. */
    public static final List<OptionSpec<?>> ALL = List.of(
            OptionSpec.of(KAFKA_BOOTSTRAP).bound(NOT_EMPTY), OptionSpec.of(REGISTRY_URL).bound(NOT_EMPTY),
            OptionSpec.of(GROUP_ID).bound(NOT_EMPTY),
            OptionSpec.of(IO_SAMPLES_TOPIC).bound(NOT_EMPTY), OptionSpec.of(RUNS_TOPIC).bound(NOT_EMPTY),
            OptionSpec.of(CPU_SAMPLES_TOPIC).bound(NOT_EMPTY), OptionSpec.of(PORT_SAMPLES_TOPIC).bound(NOT_EMPTY),
            OptionSpec.of(ALERTS_TOPIC).bound(NOT_EMPTY), OptionSpec.of(DEAD_LETTER_TOPIC).bound(NOT_EMPTY),
            OptionSpec.of(CLICKHOUSE_URL).bound(NOT_EMPTY), OptionSpec.of(CLICKHOUSE_DATABASE).bound(NOT_EMPTY),
            OptionSpec.of(CLICKHOUSE_USER).bound(NOT_EMPTY), OptionSpec.of(CLICKHOUSE_PASSWORD),
            OptionSpec.of(CLICKHOUSE_PASSWORD_FILE), OptionSpec.of(CLICKHOUSE_PASSWORD_KEY),
            OptionSpec.of(SINK_BATCH_ROWS).bound(POSITIVE).unit("rows"),
            OptionSpec.of(SINK_FLUSH_INTERVAL).bound(POSITIVE),
            OptionSpec.of(CHECKPOINT_INTERVAL).bound(POSITIVE),
            OptionSpec.of(OUT_OF_ORDERNESS).bound(NON_NEGATIVE),
            OptionSpec.of(EARLY_FIRE_DELAY).bound(NON_NEGATIVE),
            OptionSpec.of(IDLENESS).bound(NON_NEGATIVE),
            OptionSpec.of(ALLOWED_LATENESS).bound(NON_NEGATIVE),
            OptionSpec.of(STEP_CLOSE_IDLE).bound(NON_NEGATIVE),
            STEADY_STATE_SPEC, SATURATION_SPEC,
            OptionSpec.of(SLO).type("slo"),
            OptionSpec.of(LOAD_AXIS).allowed(LoadAxis.keys()),
            OptionSpec.of(STEP_RETENTION).bound(POSITIVE),
            OptionSpec.of(PARALLELISM).bound(NON_NEGATIVE),
            OptionSpec.of(CHECKPOINT_DIR),
            OptionSpec.of(STARTING_OFFSETS).allowed(List.of("latest", "earliest")),
            OptionSpec.of(MAX_AHEAD).bound(POSITIVE),
            OptionSpec.of(REPLAY_RUN), OptionSpec.of(REPLAY_FROM_MS).bound(NON_NEGATIVE).unit("ms"),
            OptionSpec.of(JOB_NAME).bound(NOT_EMPTY));

    /** Bytes buffered per writer before an insert is forced. */
    static final long SINK_BATCH_BYTES = 16L << 20;
    static final int SINK_ATTEMPTS = 4;

    /** Parses {@code --key value} program arguments; throws {@link IllegalArgumentException} naming a bad key. */
    public static AnalyticsOptions fromArgs(String[] args) {
        ProgramArguments a = ProgramArguments.parse(args, ALL);
        String password = a.optional(CLICKHOUSE_PASSWORD).orElseGet(() -> passwordFromFile(
                a.optional(CLICKHOUSE_PASSWORD_FILE).orElse(null), a.get(CLICKHOUSE_PASSWORD_KEY)));
        ClickHouseConfig clickHouse = new ClickHouseConfig(a.get(CLICKHOUSE_URL), a.get(CLICKHOUSE_DATABASE),
                a.get(CLICKHOUSE_USER), password, a.get(SINK_BATCH_ROWS), SINK_BATCH_BYTES, a.get(SINK_FLUSH_INTERVAL),
                SINK_ATTEMPTS);
        String sloSpec = a.get(SLO);
        SloEvaluator slo = sloSpec.isEmpty() || sloSpec.equalsIgnoreCase("none") ? null : SloEvaluator.parse(sloSpec);
        Duration lateness = a.get(ALLOWED_LATENESS);
        Duration earlyFireDelay = a.get(EARLY_FIRE_DELAY);
        Replay replay = replay(a);
        // A replay's input ends, which closes every step exactly; without early firing a step's last seconds reach
        // the step analyzer only with the watermark, so closing on the wall clock would leave them out.
        long closeIdleMs = replay != null || earlyFireDelay.isZero() ? 0 : a.get(STEP_CLOSE_IDLE).toMillis();
        StepAnalysisConfig steps = new StepAnalysisConfig(steadyState(a.nested(STEADY_STATE_SPEC)),
                saturation(a.nested(SATURATION_SPEC)), slo, LoadAxis.fromKey(a.get(LOAD_AXIS)), lateness.toMillis(),
                a.get(STEP_RETENTION).toMillis(), StepAnalysisConfig.LIVE_EVAL_EVERY_S, closeIdleMs);
        return new AnalyticsOptions(
                a.get(KAFKA_BOOTSTRAP), a.get(REGISTRY_URL), a.get(GROUP_ID),
                a.get(IO_SAMPLES_TOPIC), a.get(RUNS_TOPIC), a.get(CPU_SAMPLES_TOPIC), a.get(PORT_SAMPLES_TOPIC),
                a.get(ALERTS_TOPIC), a.get(DEAD_LETTER_TOPIC),
                clickHouse,
                a.get(CHECKPOINT_INTERVAL), a.get(OUT_OF_ORDERNESS), a.get(IDLENESS), lateness,
                steps,
                a.get(PARALLELISM),
                a.get(CHECKPOINT_DIR),
                a.get(STARTING_OFFSETS).equals("earliest"),
                a.get(MAX_AHEAD),
                replay == null ? earlyFireDelay : Duration.ZERO,
                replay);
    }

    private static SteadyStateConfig steadyState(ProgramArguments s) {
        return new SteadyStateConfig(s.intOrAuto(RAMP_UP_S, SteadyStateConfig.AUTO),
                s.intOrAuto(TAIL_S, SteadyStateConfig.AUTO), s.get(WINDOW_S), s.get(MAX_CV), s.get(LEVEL_TOLERANCE),
                s.get(PARTIAL_FRACTION), s.get(MIN_STEADY_S));
    }

    private static SaturationConfig saturation(ProgramArguments s) {
        return new SaturationConfig(ThroughputMetric.fromKey(s.get(METRIC)), s.get(MARGINAL_GAIN_RATIO),
                s.get(MIN_EFFICIENCY), s.get(MIN_LATENCY_GROWTH_PCT), s.get(PORT_UTILIZATION_PCT),
                s.get(CPU_UTILIZATION_PCT), s.get(LITTLES_LAW_TOLERANCE));
    }

    private static String autoOr(int seconds) {
        return seconds == SteadyStateConfig.AUTO ? "auto" : Integer.toString(seconds);
    }

    private static Replay replay(ProgramArguments a) {
        String run = a.get(REPLAY_RUN);
        String name = a.get(JOB_NAME);
        if (run.isEmpty()) {
            return null;
        }
        if (name.equals(JOB_NAME.defaultValue())) {
            throw new IllegalArgumentException("--" + REPLAY_RUN.key() + " needs its own --" + JOB_NAME.key()
                    + " (not the live job's " + JOB_NAME.defaultValue() + ")");
        }
        return new Replay(run, a.get(REPLAY_FROM_MS), name);
    }

    /** The job's name: the live job's, or the replay's. */
    public String jobName() {
        return replay == null ? JOB_NAME.defaultValue() : replay.jobName();
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
}
