package io.ioscale.records;

import java.util.ArrayList;
import java.util.List;

/**
 * One {@code RunEvent} (schema/run_event.avsc): start and end of a run and of each load step, with the swept load
 * and the link capacities. A Flink POJO; host topology, description and tags are not carried (the raw
 * {@code run_events} table has them).
 */
public class RunEvent {
    public static final String RUN_STARTED = "RUN_STARTED";
    public static final String STEP_STARTED = "STEP_STARTED";
    public static final String STEP_ENDED = "STEP_ENDED";
    public static final String RUN_ENDED = "RUN_ENDED";

    /** RUN_STARTED, STEP_STARTED, STEP_ENDED or RUN_ENDED. */
    public String eventType = RUN_STARTED;
    public long tsMs;
    public String runId = "";
    public String scenario = "";
    public String tool = "";
    public int stepIndex = -1;
    public String stepLabel = "";
    /** The step's load (STEP_* events); null when absent. */
    public StepLoad load;
    public List<LinkCapacity> links = new ArrayList<>();
    /** Start of the run or step on *_ENDED events, UTC ms; null when absent. */
    public Long startMs;
    /** End of the run or step on *_ENDED events, UTC ms; null when absent. */
    public Long endMs;

    public RunEvent() {}

    public boolean is(String type) {
        return type.equals(eventType);
    }

    /** End of the step or run this *_ENDED event closes: end_ms when given, else the event time. */
    public long endOrTsMs() {
        return endMs != null ? endMs : tsMs;
    }

    @Override
    public String toString() {
        return "RunEvent(" + eventType + ", ts_ms=" + tsMs + ", run_id=" + runId + ", step=" + stepIndex + ")";
    }

    /** The swept parameters of a step ({@code StepLoad}). */
    public static class StepLoad {
        public int vmCount;
        public int targetsPerVm = 1;
        public int workersPerTarget = 1;
        public int outstandingIosPerTarget = 1;
        public int blockSizeBytes = 4096;
        public double readPct = 100.0;
        public double randomPct = 100.0;
        public String adapter = "";

        public StepLoad() {}

        /** I/Os the generators keep in flight in total: max(vms, 1) x targets x workers x queue depth. */
        public long totalOutstandingIos() {
            return (long) Math.max(vmCount, 1) * Math.max(targetsPerVm, 1) * Math.max(workersPerTarget, 1)
                    * Math.max(outstandingIosPerTarget, 1);
        }
    }

    /** Capacity of one port involved in the run ({@code LinkCapacity}). */
    public static class LinkCapacity {
        public String host = "";
        public String portId = "";
        public String kind = "OTHER";
        public long speedBps;
        public long payloadBytesPerS;
        public boolean fullDuplex = true;

        public LinkCapacity() {}
    }
}
