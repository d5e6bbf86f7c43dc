package io.ioscale.steps;

import io.ioscale.records.CpuSample;
import io.ioscale.records.FleetRollupRow;
import io.ioscale.records.PortSample;

/**
 * The second input of {@link StepAnalyzer}, one of: a fleet second (the 1 s fleet rollup), a host-level CPU total
 * sample, or a whole-port sample with its capacity. A POJO union (exactly one field set) so the three streams
 * can share one keyed input.
 */
public class StepInput {
    public FleetRollupRow fleet;
    public CpuSample cpu;
    public PortSample port;
    /**
     * With a fleet row: the fleet rollup's watermark when the row left it ({@link StampFleetProgress}). No fleet
     * row of a second below this minus the lateness can follow, whatever the other inputs' watermarks say.
     */
    public long fleetWatermarkMs = Long.MIN_VALUE;

    public StepInput() {}

    public static StepInput of(FleetRollupRow fleet, long fleetWatermarkMs) {
        StepInput in = new StepInput();
        in.fleet = fleet;
        in.fleetWatermarkMs = fleetWatermarkMs;
        return in;
    }

    public static StepInput of(CpuSample cpu) {
        StepInput in = new StepInput();
        in.cpu = cpu;
        return in;
    }

    public static StepInput of(PortSample port) {
        StepInput in = new StepInput();
        in.port = port;
        return in;
    }

    public String runId() {
        return fleet != null ? fleet.runId : cpu != null ? cpu.runId : port.runId;
    }

    /** Start of the second or interval, UTC ms. */
    public long tsMs() {
        return fleet != null ? fleet.windowStartMs : cpu != null ? cpu.tsMs : port.tsMs;
    }
}
