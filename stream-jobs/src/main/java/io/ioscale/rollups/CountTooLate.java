package io.ioscale.rollups;

import io.ioscale.sources.DropCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.function.SerializableFunction;

/**
 * Counts the samples a rollup dropped as too late (later than the allowed lateness for every grain), from that
 * rollup's late side output: metric {@code tooLateRecords} and accumulator {@code too-late.<table>} (e.g.
 * {@code too-late.io_samples}). A record may stand for several samples (a fleet partial): {@code samples} says
 * how many. Emits nothing.
 */
public class CountTooLate<T> extends ProcessFunction<T, Void> {
    private static final long serialVersionUID = 1L;

    private final String table;
    private final SerializableFunction<T, Long> samples;
    private transient DropCounter tooLate;

    public CountTooLate(String table, SerializableFunction<T, Long> samples) {
        this.table = table;
        this.samples = samples;
    }

    /** Each record is one sample. */
    public CountTooLate(String table) {
        this(table, record -> 1L);
    }

    public String table() {
        return table;
    }

    public static String accumulatorName(String table) {
        return "too-late." + table;
    }

    @Override
    public void open(OpenContext openContext) {
        tooLate = new DropCounter(getRuntimeContext(), "tooLateRecords", accumulatorName(table));
    }

    @Override
    public void processElement(T value, Context ctx, Collector<Void> out) {
        tooLate.add(samples.apply(value));
    }
}
