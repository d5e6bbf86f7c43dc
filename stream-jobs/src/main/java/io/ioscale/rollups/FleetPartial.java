package io.ioscale.rollups;

import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * The samples of one (run, step, second) that one per-source subtask received, merged: what the fleet rollup is
 * fed instead of every sample (see {@link IoSourceRollupOperator}). Partials add up: a second may arrive in
 * several (one per subtask, or split by a checkpoint); the fleet window merges them all. {@code acc} tracks the
 * distinct sources. Serialized by {@link FleetPartialSerializer}.
 */
@TypeInfo(FleetPartialSerializer.Factory.class)
public class FleetPartial {
    public String runId = "";
    public int stepIndex;
    /** Start of the second, UTC epoch ms: the partial's event time. */
    public long secondStartMs;
    public IoAccumulator acc = IoAccumulator.forFleet();

    public FleetPartial() {}

    public FleetPartial(String runId, int stepIndex, long secondStartMs) {
        this.runId = runId;
        this.stepIndex = stepIndex;
        this.secondStartMs = secondStartMs;
    }

    /** Samples merged: what this partial adds to the too-late count if it is too late. */
    public long samples() {
        return acc.samples;
    }

    @Override
    public String toString() {
        return "FleetPartial(" + runId + "/" + stepIndex + " @" + secondStartMs + ", samples=" + acc.samples + ")";
    }
}
