package io.ioscale.analytics;

import java.io.Serializable;

/**
 * The saturation decision for one step ({@link SaturationDetector}).
 *
 * @param stepIndex  the step judged
 * @param load       its load value
 * @param status     SATURATED, SCALING, or UNDETERMINED (first step, load not increased, unknown figures)
 * @param bottleneck for SATURATED: PORT, CPU or DEVICE_KNEE, checked in that order; NONE otherwise
 * @param evidence   one sentence with the numbers behind the decision (always set)
 * @param point      the scaling-curve row judged (gain, efficiency, latency growth, Little's law)
 * @param port       PORT: the saturated port direction; otherwise the hottest port seen, or null if none known
 * @param cpu        CPU: the saturated host; otherwise the hottest host seen, or null if none known
 */
public record SaturationVerdict(int stepIndex, double load, Status status, Bottleneck bottleneck, String evidence,
                                ScalingPoint point, PortLoad port, HostCpu cpu) implements Serializable {

    public enum Status {
        SATURATED,
        SCALING,
        UNDETERMINED
    }

    public enum Bottleneck {
        /** A port direction at or above port-utilization-pct of its payload rate (the wire). */
        PORT,
        /** A host at or above cpu-utilization-pct of its logical processors. */
        CPU,
        /** Neither: throughput stalled while latency grew, so the device (or something unmeasured) queues. */
        DEVICE_KNEE,
        NONE
    }

    public boolean saturated() {
        return status == Status.SATURATED;
    }
}
