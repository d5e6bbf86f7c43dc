package io.ioscale.functions;

import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Counts records a window dropped as too late (later than the allowed lateness), from that window's late side
 * output: metric {@code tooLateRecords} and accumulator {@code too-late.<table>} (e.g.
 * {@code too-late.io_samples_1s}). A sample too late for the 1 s rollup may still be in time for the 1 min one,
 * hence one count per table. Emits nothing.
 */
public class CountTooLate<T> extends ProcessFunction<T, Void> {
    private static final long serialVersionUID = 1L;

    private final String table;
    private transient Counter tooLate;
    private transient LongCounter tooLateTotal;

    public CountTooLate(String table) {
        this.table = table;
    }

    public static String accumulatorName(String table) {
        return "too-late." + table;
    }

    @Override
    public void open(OpenContext openContext) {
        tooLate = getRuntimeContext().getMetricGroup().counter("tooLateRecords");
        tooLateTotal = getRuntimeContext().getLongCounter(accumulatorName(table));
    }

    @Override
    public void processElement(T value, Context ctx, Collector<Void> out) {
        tooLate.inc();
        tooLateTotal.add(1);
    }
}
