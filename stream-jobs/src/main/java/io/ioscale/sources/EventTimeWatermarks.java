package io.ioscale.sources;

import io.ioscale.records.Decoded;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.util.function.SerializableFunction;

/**
 * Event time of the sources: bounded out-of-orderness over decoded values, with idleness.
 *
 * <ul>
 *   <li>The Kafka source runs one generator per partition (split) and emits the minimum, so a partition behind
 *       the others holds the watermark back instead of making its records late.</li>
 *   <li>{@code idleness}: a quiet partition (no source of a run maps to it, or a topic such as ioscale.runs that
 *       is silent between steps) is marked idle and stops holding the watermark back once other partitions have
 *       had records for that long since its own last one, with no gap longer than that among them; it stays idle
 *       until a record of its own. Not after that long without records of its own (Flink's withIdleness): when
 *       every partition stops at once, that is the broker gone, not a quiet partition; they all went idle, and
 *       after the broker came back the first partition delivered moved the watermark past the buffered records of
 *       the others, dropping samples and step events as too late. The cost: when everything stops (between runs)
 *       nothing goes idle, so the first idleness of the next run's flow waits for partitions of the last one.</li>
 *   <li>Dead letters carry no event time: they never move the watermark (their timestamp is the Kafka record's,
 *       or the last watermark's, so they pass through without being late anywhere that matters).</li>
 *   <li>{@code punctuated} emits a watermark after every record instead of periodically: tests use it so that
 *       "late" is deterministic; production uses periodic emission (pipeline.auto-watermark-interval, 200 ms).</li>
 *   <li>The watermark never passes the wall clock: watermark = min(max event time seen, now) - out-of-orderness
 *       - 1 ms. All runs share one event-time clock, so one producer stamping the future (a simulator in fast
 *       mode, a collector with a wrong clock) would otherwise make everyone else's live data "too late".
 *       Records ahead of the wall clock wait in their windows until it catches up; those more than
 *       {@code --max-ahead} ahead are not analysed at all ({@link SplitDeadLetters}), so they cannot pile up.</li>
 * </ul>
 */
public final class EventTimeWatermarks {
    private EventTimeWatermarks() {}

    public static <T> WatermarkStrategy<Decoded<T>> of(SerializableFunction<T, Long> eventTimeMs,
                                                       Duration outOfOrderness, Duration idleness,
                                                       Duration maxAhead, boolean punctuated) {
        return WatermarkStrategy
                .<Decoded<T>>forGenerator(new PeerAwareSupplier<>(outOfOrderness.toMillis(), maxAhead.toMillis(),
                        punctuated, idleness.isZero() ? Long.MAX_VALUE : idleness.toMillis()))
                .withTimestampAssigner((d, kafkaTs) -> d.isDead()
                        ? (kafkaTs > 0 ? kafkaTs : Long.MIN_VALUE) : eventTimeMs.apply(d.value));
    }

    /**
     * When a record last came to any partition of any topic the job reads, in this JVM (wall clock). Shared by
     * every topic, not per source: a topic that has had no record at all (port samples in a run of fio alone) must
     * still go idle while the others flow, and a broker outage stops them all alike.
     */
    static final class Peers {
        static final Peers ALL_TOPICS = new Peers();
        private final AtomicLong lastRecordMs = new AtomicLong(Long.MIN_VALUE);

        long lastRecordMs() {
            return lastRecordMs.get();
        }

        void recordAt(long nowMs) {
            if (lastRecordMs.get() < nowMs) { // most records come in the same millisecond as the one before
                lastRecordMs.accumulateAndGet(nowMs, Math::max);
            }
        }
    }

    /** One generator per partition, all sharing {@link Peers#ALL_TOPICS}. */
    static final class PeerAwareSupplier<T> implements WatermarkGeneratorSupplier<Decoded<T>> {
        private static final long serialVersionUID = 1L;
        private final long boundMs;
        private final long maxAheadMs;
        private final boolean punctuated;
        private final long idleMs;

        PeerAwareSupplier(long boundMs, long maxAheadMs, boolean punctuated, long idleMs) {
            this.boundMs = boundMs;
            this.maxAheadMs = maxAheadMs;
            this.punctuated = punctuated;
            this.idleMs = idleMs;
        }

        @Override
        public WatermarkGenerator<Decoded<T>> createWatermarkGenerator(Context context) {
            return new Generator<>(boundMs, maxAheadMs, punctuated, Peers.ALL_TOPICS, idleMs,
                    System::currentTimeMillis);
        }
    }

    /**
     * Bounded out-of-orderness that ignores dead letters and records too far ahead of the wall clock (both are
     * dropped before any window: SplitDeadLetters).
     */
    static final class Generator<T> implements WatermarkGenerator<Decoded<T>> {
        private static final long NONE = Long.MIN_VALUE;
        private final long boundMs;
        private final long maxAheadMs;
        private final boolean punctuated;
        /** Null: never idle (the watermark rules alone, in tests). */
        private final Peers peers;
        private final long idleMs;
        private final LongSupplier clock;
        private long maxTs;
        /** Wall clock of this partition's last record (of its creation before the first). */
        private long lastOwnMs;
        /**
         * The peers' records since this partition's last one, as a stretch without a gap longer than the idleness
         * (wall clock of its first and latest record; NONE: none yet). A longer gap is an outage, not a quiet
         * partition: the stretch starts again after it.
         */
        private long stretchFromMs = NONE;
        private long stretchToMs = NONE;
        private boolean idle;

        Generator(long boundMs, long maxAheadMs, boolean punctuated) {
            this(boundMs, maxAheadMs, punctuated, null, 0, System::currentTimeMillis);
        }

        Generator(long boundMs, long maxAheadMs, boolean punctuated, Peers peers, long idleMs, LongSupplier clock) {
            this.boundMs = boundMs;
            this.maxAheadMs = maxAheadMs;
            this.punctuated = punctuated;
            this.peers = peers;
            this.idleMs = idleMs;
            this.clock = clock;
            this.maxTs = Long.MIN_VALUE + boundMs + 1;
            this.lastOwnMs = clock.getAsLong();
        }

        @Override
        public void onEvent(Decoded<T> event, long eventTimestamp, WatermarkOutput output) {
            if (peers != null) { // any record, a dead letter too, shows the partition is being written
                lastOwnMs = clock.getAsLong();
                peers.recordAt(lastOwnMs);
                stretchFromMs = NONE;
                idle = false;
            }
            if (event.isDead() || eventTimestamp > System.currentTimeMillis() + maxAheadMs) {
                return;
            }
            maxTs = Math.max(maxTs, eventTimestamp);
            if (punctuated) {
                output.emitWatermark(watermark());
            }
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {
            if (peers != null && !idle) {
                long peer = peers.lastRecordMs();
                if (peer > lastOwnMs && peer != stretchToMs) {
                    if (stretchFromMs == NONE || peer - stretchToMs > idleMs) {
                        stretchFromMs = peer;
                    }
                    stretchToMs = peer;
                }
                // A gap up to the idleness inside the stretch is absorbed by the allowed lateness instead.
                idle = stretchFromMs != NONE && stretchToMs - stretchFromMs >= idleMs;
            }
            if (idle) {
                output.markIdle();
                return;
            }
            output.emitWatermark(watermark());
        }

        private Watermark watermark() {
            return new Watermark(Math.min(maxTs, System.currentTimeMillis()) - boundMs - 1);
        }
    }
}
