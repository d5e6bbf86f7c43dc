package io.ioscale.sources;

import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.metrics.Counter;

/**
 * Records an operator drops or sends aside, counted twice: as a metric (live, per subtask, in the Flink UI) and
 * as an accumulator (summed over the subtasks into the job result). Made in the operator's {@code open}.
 */
public final class DropCounter {
    private final Counter metric;
    private final LongCounter accumulator;

    public DropCounter(RuntimeContext context, String metricName, String accumulatorName) {
        metric = context.getMetricGroup().counter(metricName);
        accumulator = context.getLongCounter(accumulatorName);
    }

    public void add(long n) {
        metric.inc(n);
        accumulator.add(n);
    }
}
