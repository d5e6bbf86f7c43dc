package io.ioscale.sources;

import io.ioscale.records.Decoded;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.util.function.SerializableFunction;

/**
 * Event time of the sources: bounded out-of-orderness over decoded values, with idleness.
 *
 * <ul>
 *   <li>The Kafka source runs one generator per partition (split) and emits the minimum, so a partition behind
 *       the others holds the watermark back instead of making its records late.</li>
 *   <li>{@code idleness}: a partition with no records for that long is marked idle and stops holding the
 *       watermark back (a quiet partition, or a topic such as ioscale.runs that is silent between steps).</li>
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
        long boundMs = outOfOrderness.toMillis();
        long maxAheadMs = maxAhead.toMillis();
        WatermarkStrategy<Decoded<T>> strategy = WatermarkStrategy
                .<Decoded<T>>forGenerator(ctx -> new Generator<>(boundMs, maxAheadMs, punctuated))
                .withTimestampAssigner((d, kafkaTs) -> d.isDead()
                        ? (kafkaTs > 0 ? kafkaTs : Long.MIN_VALUE) : eventTimeMs.apply(d.value));
        return idleness.isZero() ? strategy : strategy.withIdleness(idleness);
    }

    /**
     * Bounded out-of-orderness that ignores dead letters and records too far ahead of the wall clock (both are
     * dropped before any window: SplitDeadLetters).
     */
    static final class Generator<T> implements WatermarkGenerator<Decoded<T>> {
        private final long boundMs;
        private final long maxAheadMs;
        private final boolean punctuated;
        private long maxTs;

        Generator(long boundMs, long maxAheadMs, boolean punctuated) {
            this.boundMs = boundMs;
            this.maxAheadMs = maxAheadMs;
            this.punctuated = punctuated;
            this.maxTs = Long.MIN_VALUE + boundMs + 1;
        }

        @Override
        public void onEvent(Decoded<T> event, long eventTimestamp, WatermarkOutput output) {
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
            output.emitWatermark(watermark());
        }

        private Watermark watermark() {
            return new Watermark(Math.min(maxTs, System.currentTimeMillis()) - boundMs - 1);
        }
    }
}
