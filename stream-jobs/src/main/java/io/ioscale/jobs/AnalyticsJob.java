package io.ioscale.jobs;

import io.ioscale.avro.AvroRecords;
import io.ioscale.avro.ConfluentAvroDecoder;
import io.ioscale.avro.ConfluentAvroDeserializer;
import io.ioscale.avro.IoSampleReader;
import io.ioscale.avro.OneRunDeserializer;
import io.ioscale.avro.ReaderSchemas;
import io.ioscale.avro.RegistryClient;
import io.ioscale.config.AnalyticsOptions;
import io.ioscale.records.AlertRow;
import io.ioscale.records.CpuRollupRow;
import io.ioscale.records.CpuSample;
import io.ioscale.records.DeadLetter;
import io.ioscale.records.DeadLetterRow;
import io.ioscale.records.Decoded;
import io.ioscale.records.FleetRollupRow;
import io.ioscale.records.Grain;
import io.ioscale.records.IoRollupRow;
import io.ioscale.records.IoSample;
import io.ioscale.records.PortRollupRow;
import io.ioscale.records.PortSample;
import io.ioscale.records.ResultRow;
import io.ioscale.records.RunEvent;
import io.ioscale.records.StepRow;
import io.ioscale.records.UslFitRow;
import io.ioscale.rollups.CountTooLate;
import io.ioscale.rollups.CpuRollup;
import io.ioscale.rollups.EarlyFiring;
import io.ioscale.rollups.FleetPartial;
import io.ioscale.rollups.GrainRollupOperator;
import io.ioscale.rollups.IoFleetRollup;
import io.ioscale.rollups.IoSourceRollup;
import io.ioscale.rollups.IoSourceRollupOperator;
import io.ioscale.rollups.PortRollup;
import io.ioscale.sinks.AlertSerializer;
import io.ioscale.sinks.ClickHouseConfig;
import io.ioscale.sinks.ClickHouseSink;
import io.ioscale.sinks.DeadLetterSerializer;
import io.ioscale.sources.AttachLinkCapacity;
import io.ioscale.sources.EventTimeWatermarks;
import io.ioscale.sources.ResolvedStartOffsets;
import io.ioscale.sources.SplitDeadLetters;
import io.ioscale.steps.StampFleetProgress;
import io.ioscale.steps.StepAnalyzer;
import io.ioscale.steps.StepInput;
import java.io.Serializable;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.OutputTag;
import org.apache.flink.util.function.SerializableFunction;

/**
 * The analytics job: rollups, scaling curves, saturation, USL fits and SLO alerts from the four telemetry topics.
 *
 * <pre>
 *   io_samples ──decode──> split ──> keyBy source ──> 1 s + 10 s + 1 min ──> io_samples_{1s,10s,1m}
 *        (dead letters ──> DLQ)                        │ partials per second
 *                                     keyBy run,step ──> 1 s + 10 s + 1 min ──> io_fleet_{1s,10s,1m}
 *                                                            │ 1 s rows
 *   cpu_samples ──decode──> split ──> keyBy host,vm,scope ──> 1 s + 10 s + 1 min ──> cpu_samples_{1s,10s,1m}
 *                                 └── host totals ───────────┤
 *   port_samples ──decode──> split ──> link capacity (runs) ──> 1 s + 10 s + 1 min ──> port_samples_{1s,10s,1m}
 *                                 └── whole ports ───────────┤
 *   runs ──decode──> split ──────────────────────────────────┴─> StepAnalyzer (keyBy run) ──> scaling_curves,
 *                                                                 usl_fits, alerts (+ Kafka ioscale.alerts)
 * </pre>
 *
 * <p>Sources and sinks come from outside ({@link Sources}, {@link Sinks}): {@link #main} wires Kafka and
 * ClickHouse; tests inject bounded sources and collecting sinks. Rollups are event time, one keyed
 * {@link GrainRollupOperator} per key family for all grains, each incremental (an accumulator per window); each
 * allows {@code allowedLateness} (a late record fires its windows again with the updated row, which replaces the
 * earlier one in ClickHouse) and counts what is later than that for all its windows ({@link CountTooLate}). Every
 * stateful operator has a stable uid, so a new build of the job restores a checkpoint of the previous one (a
 * changed state layout takes a new uid: the old checkpoint then fails to restore and the stack starts the job
 * fresh, see ingest/src/ioscale/stack/flink.py).
 */
public final class AnalyticsJob {

    public static final String JOB_NAME = "ioscale-analytics";

    /**
     * The job's inputs: decoded records, or dead letters standing for records that would not decode.
     *
     * @param parallelism          of the sources; 0 = the environment's (a generated test source must stay at 1, or
     *                             its splits advance event time unevenly and stall the watermark)
     * @param punctuatedWatermarks a watermark after every record (tests: deterministic lateness) instead of
     *                             periodically
     */
    public record Sources(Source<Decoded<IoSample>, ?, ?> ioSamples, Source<Decoded<RunEvent>, ?, ?> runEvents,
                          Source<Decoded<CpuSample>, ?, ?> cpuSamples, Source<Decoded<PortSample>, ?, ?> portSamples,
                          int parallelism, boolean punctuatedWatermarks) {

        /** Kafka's: the environment's parallelism, periodic watermarks. */
        public Sources(Source<Decoded<IoSample>, ?, ?> ioSamples, Source<Decoded<RunEvent>, ?, ?> runEvents,
                       Source<Decoded<CpuSample>, ?, ?> cpuSamples, Source<Decoded<PortSample>, ?, ?> portSamples) {
            this(ioSamples, runEvents, cpuSamples, portSamples, 0, false);
        }
    }

    /** Makes one ClickHouse sink per result stream (each chained to its operator: rows are never shuffled). */
    public interface RowSinks extends Serializable {
        <T extends ResultRow> Sink<T> create(String name);
    }

    /** The job's outputs. */
    public record Sinks(RowSinks rows, Sink<AlertRow> alerts, Sink<DeadLetter> deadLetters) {}

    public static final TypeInformation<Decoded<IoSample>> IO_TYPE =
            TypeInformation.of(new TypeHint<Decoded<IoSample>>() {});
    public static final TypeInformation<Decoded<RunEvent>> RUN_TYPE =
            TypeInformation.of(new TypeHint<Decoded<RunEvent>>() {});
    public static final TypeInformation<Decoded<CpuSample>> CPU_TYPE =
            TypeInformation.of(new TypeHint<Decoded<CpuSample>>() {});
    public static final TypeInformation<Decoded<PortSample>> PORT_TYPE =
            TypeInformation.of(new TypeHint<Decoded<PortSample>>() {});

    private final Sources sources;
    private final Sinks sinks;
    private final AnalyticsOptions options;

    public AnalyticsJob(Sources sources, Sinks sinks, AnalyticsOptions options) {
        this.sources = sources;
        this.sinks = sinks;
        this.options = options;
    }

    public JobExecutionResult execute(StreamExecutionEnvironment env) throws Exception {
        return execute(env, JOB_NAME);
    }

    public JobExecutionResult execute(StreamExecutionEnvironment env, String jobName) throws Exception {
        createPipeline(env);
        return env.execute(jobName);
    }

    /** Adds the whole pipeline to {@code env}. */
    public void createPipeline(StreamExecutionEnvironment env) {
        // Our functions never keep or mutate an input after passing it on, so chained operators may share objects.
        env.getConfig().enableObjectReuse();

        SingleOutputStreamOperator<IoSample> io = decoded(env, sources.ioSamples(), s -> s.tsMs, "io-samples");
        // A run event takes effect from its millisecond on (RUN_STARTED's links apply to the port samples stamped
        // with it), so it sorts just before them: a batch replay orders each key's records by this time, and ties
        // between inputs fall either way.
        SingleOutputStreamOperator<RunEvent> runs = decoded(env, sources.runEvents(), e -> e.tsMs - 1, "run-events");
        SingleOutputStreamOperator<CpuSample> cpu = decoded(env, sources.cpuSamples(), s -> s.tsMs, "cpu-samples");
        SingleOutputStreamOperator<PortSample> port = decoded(env, sources.portSamples(), s -> s.tsMs, "port-samples");

        // Dead letters: Kafka DLQ (unchanged record + reason headers) and ClickHouse dead_letters.
        DataStream<DeadLetter> dead = io.getSideOutput(SplitDeadLetters.DEAD_LETTERS)
                .union(runs.getSideOutput(SplitDeadLetters.DEAD_LETTERS),
                        cpu.getSideOutput(SplitDeadLetters.DEAD_LETTERS),
                        port.getSideOutput(SplitDeadLetters.DEAD_LETTERS));
        dead.sinkTo(sinks.deadLetters()).uid("dead-letters-kafka").name("dead letters -> Kafka");
        dead.map(DeadLetterRow::of).returns(DeadLetterRow.class).uid("dead-letter-rows").name("dead letter rows")
                .sinkTo(sinks.rows().<DeadLetterRow>create(DeadLetterRow.TABLE)).uid("dead-letters-clickhouse")
                .name("dead_letters -> ClickHouse");

        // Rollups: one keyed operator per key family computes every grain (GrainRollupOperator: one state entry
        // and one timer per key instead of Flink's window machinery); rows name their table by grain. The
        // per-source I/O operator also pre-merges each second's samples for the fleet (FleetPartial), so only
        // partials, not samples, take the fleet's shuffle.
        long lateness = options.allowedLateness().toMillis();
        Grain[] grains = Grain.values();
        OutputTag<IoSample> late = lateTag(IoRollupRow.TABLE, IoSample.class);
        SingleOutputStreamOperator<IoRollupRow> rollups = rollup(io.keyBy(new IoSourceRollup.Key()),
                new IoSourceRollupOperator(grains, lateness, late).earlyFiring(earlyFiring(true)), late,
                IoRollupRow.class, new CountTooLate<>(IoRollupRow.TABLE));

        OutputTag<FleetPartial> fleetLate = lateTag(FleetRollupRow.TABLE, FleetPartial.class);
        SingleOutputStreamOperator<FleetRollupRow> fleet = rollup(
                rollups.getSideOutput(IoSourceRollupOperator.FLEET_PARTIALS).keyBy(new IoFleetRollup.Key()),
                new GrainRollupOperator<>(new IoFleetRollup(), grains, lateness, fleetLate)
                        .earlyFiring(earlyFiring(false)), // the step analyzer takes every final second
                fleetLate, FleetRollupRow.class, new CountTooLate<>(FleetRollupRow.TABLE, FleetPartial::samples));
        // Provisional rows too: when the topics go quiet after a run, the watermark stops short of its last
        // seconds, and their early rows are all the step analyzer can finalize the last step with (a final row
        // replaces them when event time moves on).
        DataStream<FleetRollupRow> fleetSeconds = fleet.filter(r -> r.grain == Grain.S1).name("fleet 1 s rows");

        // CPU rollups per (run, step, host, VM, scope).
        OutputTag<CpuSample> cpuLate = lateTag(CpuRollupRow.TABLE, CpuSample.class);
        rollup(cpu.keyBy(new CpuRollup.Key()), new GrainRollupOperator<>(new CpuRollup(), grains, lateness, cpuLate)
                        .earlyFiring(earlyFiring(true)), cpuLate, CpuRollupRow.class, new CountTooLate<>(CpuRollupRow.TABLE));

        // Port rollups, after the run's link capacities are attached.
        SingleOutputStreamOperator<PortSample> ports = port.keyBy(p -> p.runId, TypeInformation.of(String.class))
                .connect(runs.keyBy(e -> e.runId, TypeInformation.of(String.class)))
                .process(new AttachLinkCapacity())
                .uid("port-link-capacity").name("attach link capacity");
        OutputTag<PortSample> portLate = lateTag(PortRollupRow.TABLE, PortSample.class);
        rollup(ports.keyBy(new PortRollup.Key()), new GrainRollupOperator<>(new PortRollup(), grains, lateness, portLate)
                        .earlyFiring(earlyFiring(true)), portLate, PortRollupRow.class, new CountTooLate<>(PortRollupRow.TABLE));

        // Steps: fleet seconds, host CPU totals and whole ports, with the run events, per run.
        DataStream<StepInput> stepInputs = fleetSeconds.process(new StampFleetProgress()).name("fleet seconds")
                .union(
                        cpu.filter(c -> c.isTotal() && StepAnalyzer.HOST_SCOPES.contains(c.scope)).name("host cpu totals")
                                .map(StepInput::of).returns(StepInput.class),
                        ports.filter(PortSample::isWholePort).name("whole ports")
                                .map(StepInput::of).returns(StepInput.class));
        SingleOutputStreamOperator<StepRow> stepRows = runs.keyBy(e -> e.runId, TypeInformation.of(String.class))
                .connect(stepInputs.keyBy(StepInput::runId, TypeInformation.of(String.class)))
                .process(new StepAnalyzer(options.steps()))
                .uid("step-analyzer").name("scaling_curves / saturation / usl / slo");
        sinkRows(stepRows, StepRow.TABLE);
        sinkRows(stepRows.getSideOutput(StepAnalyzer.USL_FITS), UslFitRow.TABLE);
        DataStream<AlertRow> alerts = stepRows.getSideOutput(StepAnalyzer.ALERTS);
        sinkRows(alerts, AlertRow.TABLE);
        alerts.sinkTo(sinks.alerts()).uid("alerts-kafka").name("alerts -> Kafka");
    }

    private <T> SingleOutputStreamOperator<T> decoded(StreamExecutionEnvironment env, Source<Decoded<T>, ?, ?> source,
                                                      SerializableFunction<T, Long> eventTime, String name) {
        WatermarkStrategy<Decoded<T>> watermarks = EventTimeWatermarks.of(eventTime, options.outOfOrderness(),
                options.idleness(), options.maxAhead(), sources.punctuatedWatermarks());
        DataStreamSource<Decoded<T>> stream = env.fromSource(source, watermarks, name);
        stream.uid(name + "-source");
        if (sources.parallelism() > 0) {
            stream.setParallelism(sources.parallelism());
        }
        SingleOutputStreamOperator<T> split = stream.process(
                new SplitDeadLetters<T>(name, eventTime, options.maxAhead().toMillis()));
        if (sources.parallelism() > 0) {
            split.setParallelism(sources.parallelism()); // stays chained to its source
        }
        return split.uid(name + "-split").name(name + " (dead letters apart)");
    }

    /** Early firing of a rollup; {@code skipUnchangedFinal} false where every final row is consumed. */
    private EarlyFiring earlyFiring(boolean skipUnchangedFinal) {
        return EarlyFiring.after(options.earlyFireDelay(), skipUnchangedFinal);
    }

    /**
     * One multi-grain rollup: the keyed operator (uid {@code <table>-grains}, e.g. io-samples-grains: a new state
     * layout needs a new uid), its rows to ClickHouse, and the count of what is too late for every grain.
     */
    private <K, IN, R extends ResultRow> SingleOutputStreamOperator<R> rollup(
            KeyedStream<IN, K> in, GrainRollupOperator<K, IN, ?, R> operator, OutputTag<IN> late, Class<R> rowType,
            CountTooLate<IN> tooLate) {
        String table = tooLate.table(); // the rows' table without the grain, e.g. io_samples
        SingleOutputStreamOperator<R> rows = in.transform(table + "_{1s,10s,1m}", TypeInformation.of(rowType), operator)
                .uid(table.replace('_', '-') + "-grains");
        sinkRows(rows, table + "_rollups");
        countLate(rows.getSideOutput(late), tooLate);
        return rows;
    }

    private <T extends ResultRow> void sinkRows(DataStream<T> rows, String table) {
        rows.sinkTo(sinks.rows().<T>create(table)).uid(table + "-clickhouse").name(table + " -> ClickHouse");
    }

    private static <T> void countLate(DataStream<T> late, CountTooLate<T> counter) {
        String table = counter.table();
        late.process(counter).uid(table + "-too-late").name(table + " too late")
                .sinkTo(new DiscardingSink<>()).uid(table + "-too-late-sink").name(table + " too late (counted)");
    }

    private static <T> OutputTag<T> lateTag(String table, Class<T> type) {
        return new OutputTag<>("too-late-" + table, TypeInformation.of(type));
    }

    // ------------------------------------------------------------------------------------------- Kafka, ClickHouse

    /** ClickHouse sinks over HTTP. */
    static final class ClickHouseRowSinks implements RowSinks {
        private static final long serialVersionUID = 1L;
        private final ClickHouseConfig config;

        ClickHouseRowSinks(ClickHouseConfig config) {
            this.config = config;
        }

        @Override
        public <T extends ResultRow> Sink<T> create(String name) {
            return ClickHouseSink.http(config);
        }
    }

    static <T> KafkaSource<Decoded<T>> kafkaSource(AnalyticsOptions o, String topic, String readerSchema,
                                                   ConfluentAvroDecoder.RecordConverter<T> converter,
                                                   TypeInformation<Decoded<T>> type,
                                                   SerializableFunction<T, String> runIdOf) {
        return kafkaSource(o, topic, new ConfluentAvroDeserializer<>(readerSchema,
                RegistryClient.factory(o.registryUrl()), converter, type), runIdOf);
    }

    static <T> KafkaSource<Decoded<T>> kafkaSource(AnalyticsOptions o, String topic,
                                                   ConfluentAvroDeserializer<T> deserializer,
                                                   SerializableFunction<T, String> runIdOf) {
        KafkaSourceBuilder<Decoded<T>> builder = KafkaSource.<Decoded<T>>builder()
                .setBootstrapServers(o.kafkaBootstrap())
                .setTopics(topic)
                .setGroupId(o.groupId())
                .setClientIdPrefix(o.groupId() + "-" + topic);
        if (o.replay() != null) {
            // ioscale analyze: one run, from when it was produced to the end offsets at start, then finish.
            return builder.setStartingOffsets(OffsetsInitializer.timestamp(o.replay().fromMs()))
                    .setBounded(OffsetsInitializer.latest())
                    .setProperty("commit.offsets.on.checkpoint", "false")
                    .setDeserializer(new OneRunDeserializer<>(deserializer, runIdOf, o.replay().runId()))
                    .build();
        }
        // A restored checkpoint carries its offsets; otherwise the group's committed offsets (committed on
        // checkpoints); a partition without any starts at --starting-offsets, resolved when the job starts
        // (ResolvedStartOffsets: a lazily resolved start once skipped records across a restore).
        return builder.setStartingOffsets(new ResolvedStartOffsets(o.startFromEarliest()))
                .setDeserializer(deserializer)
                .build();
    }

    public static Sources kafkaSources(AnalyticsOptions o) {
        // IoSamples take the direct reader (the volume); the others the generic path.
        KafkaSource<Decoded<IoSample>> io = kafkaSource(o, o.ioSamplesTopic(), new ConfluentAvroDeserializer<>(
                ReaderSchemas.IO_SAMPLE, RegistryClient.factory(o.registryUrl()), new IoSampleReader(),
                AvroRecords::check, IO_TYPE), s -> s.runId);
        return new Sources(
                io,
                kafkaSource(o, o.runsTopic(), ReaderSchemas.RUN_EVENT, AvroRecords::runEvent, RUN_TYPE, e -> e.runId),
                kafkaSource(o, o.cpuSamplesTopic(), ReaderSchemas.CPU_SAMPLE, AvroRecords::cpuSample, CPU_TYPE,
                        c -> c.runId),
                kafkaSource(o, o.portSamplesTopic(), ReaderSchemas.PORT_SAMPLE, AvroRecords::portSample, PORT_TYPE,
                        p -> p.runId));
    }

    public static Sinks productionSinks(AnalyticsOptions o) {
        KafkaSink<AlertRow> alerts = KafkaSink.<AlertRow>builder()
                .setBootstrapServers(o.kafkaBootstrap())
                .setRecordSerializer(new AlertSerializer(o.alertsTopic()))
                .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                .build();
        KafkaSink<DeadLetter> deadLetters = KafkaSink.<DeadLetter>builder()
                .setBootstrapServers(o.kafkaBootstrap())
                .setRecordSerializer(new DeadLetterSerializer(o.deadLetterTopic()))
                .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                .build();
        return new Sinks(new ClickHouseRowSinks(o.clickHouse()), alerts, deadLetters);
    }

    /**
     * The job's own checkpoint directory, retained on cancellation and failure: the stack resubmits the job from
     * the newest complete checkpoint there (ingest/src/ioscale/stack/flink.py), so a restarted cluster resumes the
     * windows where they were, and neither loses nor double-counts what was in flight.
     */
    static Configuration checkpointing(AnalyticsOptions options) {
        Configuration conf = new Configuration();
        if (!options.checkpointDir().isEmpty()) {
            conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, options.checkpointDir());
            conf.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                    ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        }
        return conf;
    }

    public static void main(String[] args) throws Exception {
        AnalyticsOptions options = AnalyticsOptions.fromArgs(args);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(checkpointing(options));
        if (options.replay() != null) {
            // A replay's input is bounded: batch execution sorts each key's records by event time before the
            // operators see them, so nothing is late however the run was published (an importer sends it source
            // after source), and the same input always gives the same rows. A failed replay is simply run again.
            env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        } else {
            env.enableCheckpointing(options.checkpointInterval().toMillis());
        }
        if (options.parallelism() > 0) {
            env.setParallelism(options.parallelism());
        }
        new AnalyticsJob(kafkaSources(options), productionSinks(options), options)
                .execute(env, options.jobName());
    }
}
