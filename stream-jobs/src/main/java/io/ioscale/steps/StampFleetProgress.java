package io.ioscale.steps;

import io.ioscale.records.FleetRollupRow;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Wraps each fleet second for the {@link StepAnalyzer} with the watermark it passed here, i.e. how far the fleet
 * stream itself has got.
 *
 * <p>Why: the analyzer's own watermark is the minimum over the fleet, CPU, port and run streams, minus any input
 * judged idle. After a restart from an older checkpoint the I/O samples can be replayed later than the CPU and
 * port samples (an I/O split idle while the job starts, a slower source task), so that watermark can pass a step's
 * end + lateness while the fleet rollups are still accepting its seconds. Closing the step then would drop seconds
 * that the rollups themselves kept. The stamp lets the analyzer close a step only once the fleet stream is past it.
 * A row fired by a watermark leaves before that watermark, so its stamp is the previous one: a step closes one
 * watermark later at most.
 */
public class StampFleetProgress extends ProcessFunction<FleetRollupRow, StepInput> {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(FleetRollupRow row, Context ctx, Collector<StepInput> out) {
        out.collect(StepInput.of(row, ctx.timerService().currentWatermark()));
    }
}
