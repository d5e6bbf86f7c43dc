package io.ioscale.sources;

import io.ioscale.records.DeadLetter;
import io.ioscale.records.Decoded;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.apache.flink.util.function.SerializableFunction;

/**
 * Decoded values go on; dead letters go to the side output {@link #DEAD_LETTERS}, counted in the metric
 * {@code deadLetters} and the accumulator {@code dead-letters.<stream>} (the job result shows it, the Flink UI
 * too).
 *
 * <p>Values stamped more than {@code maxAheadMs} after the wall clock are dropped and counted (metric
 * {@code tooFarAhead}, accumulator {@code too-far-ahead.<stream>}): the watermark does not pass the wall clock
 * ({@link EventTimeWatermarks}), so their windows would wait, in state, until it does (a collector with a clock
 * a year ahead would hold a year of windows). They are not dead letters: they decode fine, and the raw tables
 * keep them.
 */
public class SplitDeadLetters<T> extends ProcessFunction<Decoded<T>, T> {
    private static final long serialVersionUID = 1L;

    public static final OutputTag<DeadLetter> DEAD_LETTERS =
            new OutputTag<>("dead-letters", TypeInformation.of(DeadLetter.class));

    private final String stream;
    private final SerializableFunction<T, Long> eventTimeMs;
    private final long maxAheadMs;
    private transient DropCounter deadLetters;
    private transient DropCounter tooFarAhead;

    public SplitDeadLetters(String stream, SerializableFunction<T, Long> eventTimeMs, long maxAheadMs) {
        this.stream = stream;
        this.eventTimeMs = eventTimeMs;
        this.maxAheadMs = maxAheadMs;
    }

    public static String accumulatorName(String stream) {
        return "dead-letters." + stream;
    }

    public static String tooFarAheadAccumulatorName(String stream) {
        return "too-far-ahead." + stream;
    }

    @Override
    public void open(OpenContext openContext) {
        deadLetters = new DropCounter(getRuntimeContext(), "deadLetters", accumulatorName(stream));
        tooFarAhead = new DropCounter(getRuntimeContext(), "tooFarAhead", tooFarAheadAccumulatorName(stream));
    }

    @Override
    public void processElement(Decoded<T> d, Context ctx, Collector<T> out) {
        if (d.isDead()) {
            deadLetters.add(1);
            ctx.output(DEAD_LETTERS, d.deadLetter);
        } else if (eventTimeMs.apply(d.value) > System.currentTimeMillis() + maxAheadMs) {
            tooFarAhead.add(1);
        } else {
            out.collect(d.value);
        }
    }
}
