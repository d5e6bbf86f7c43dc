package io.ioscale.steps;

import io.ioscale.records.RunEvent;
import java.util.Arrays;
import java.util.List;

/**
 * The x of a scaling curve: which number of the step's {@code StepLoad} the throughput is compared against
 * ("linear scaling" means throughput proportional to it). A step without a load falls back to step_index + 1.
 *
 * <pre>
 *   total-outstanding  max(vm_count, 1) x targets_per_vm x workers_per_target x outstanding_ios_per_target
 *                      (default: proportional to whichever one of them a sweep varies)
 *   vm-count           max(vm_count, 1)
 *   workers            workers_per_target
 *   queue-depth        outstanding_ios_per_target
 *   step               step_index + 1
 * </pre>
 */
public enum LoadAxis {
    TOTAL_OUTSTANDING("total-outstanding"),
    VM_COUNT("vm-count"),
    WORKERS("workers"),
    QUEUE_DEPTH("queue-depth"),
    STEP("step");

    private final String key;

    LoadAxis(String key) {
        this.key = key;
    }

    public String key() {
        return key;
    }

    /** The keys, in declaration order: what {@code --load-axis} accepts. */
    public static List<String> keys() {
        return Arrays.stream(values()).map(LoadAxis::key).toList();
    }

    public static LoadAxis fromKey(String key) {
        for (LoadAxis a : values()) {
            if (a.key.equalsIgnoreCase(key.trim())) {
                return a;
            }
        }
        throw new IllegalArgumentException("unknown load axis '" + key + "'; known: " + String.join(", ", keys()));
    }

    public double of(RunEvent.StepLoad load, int stepIndex) {
        if (load == null || this == STEP) {
            return stepIndex + 1.0;
        }
        return switch (this) {
            case TOTAL_OUTSTANDING -> load.totalOutstandingIos();
            case VM_COUNT -> Math.max(load.vmCount, 1);
            case WORKERS -> Math.max(load.workersPerTarget, 1);
            case QUEUE_DEPTH -> Math.max(load.outstandingIosPerTarget, 1);
            default -> stepIndex + 1.0;
        };
    }
}
