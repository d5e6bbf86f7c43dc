package io.ioscale.monitor;

import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/** Thin window function: turns the single pre-aggregated {@link FrameCounts} into a row with window bounds. */
public class AddWindowBounds extends ProcessWindowFunction<FrameCounts, SchemaWindowCount, Long, TimeWindow> {

    @Override
    public void process(Long key, Context context, Iterable<FrameCounts> counts, Collector<SchemaWindowCount> out) {
        FrameCounts c = counts.iterator().next();
        TimeWindow w = context.window();
        boolean bad = key == FrameKey.BAD_HEADER;
        out.collect(new SchemaWindowCount(w.getStart(), w.getEnd(), bad, bad ? 0 : key.intValue(), c.records, c.bytes));
    }
}
