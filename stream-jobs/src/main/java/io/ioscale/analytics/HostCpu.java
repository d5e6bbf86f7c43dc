package io.ioscale.analytics;

import java.io.Serializable;
import java.util.Locale;

/**
 * CPU load of one host (or partition) over a step's steady state.
 *
 * @param host              host name (for Hyper-V, the scope the utilization covers: e.g. the hypervisor's
 *                          logical processors, where guest and root work both land)
 * @param utilizationPct    busy time, percent of all its logical processors (0-100; CpuSample cpu = -1)
 * @param logicalProcessors logical processors the percentage covers; 0 when unknown
 */
public record HostCpu(String host, double utilizationPct, int logicalProcessors) implements Serializable {
    public HostCpu {
        if (host == null) {
            throw new IllegalArgumentException("cpu host is required");
        }
        if (!(utilizationPct >= 0 && utilizationPct <= 100)) {
            throw new IllegalArgumentException("cpu " + host + ": utilization_pct must be in [0, 100], got "
                    + utilizationPct);
        }
        if (logicalProcessors < 0) {
            throw new IllegalArgumentException("cpu " + host + ": logical_processors must be >= 0, got "
                    + logicalProcessors);
        }
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%s CPU at %.1f%%", host, utilizationPct)
                + (logicalProcessors > 0 ? " of " + logicalProcessors + " logical processors" : "");
    }
}
