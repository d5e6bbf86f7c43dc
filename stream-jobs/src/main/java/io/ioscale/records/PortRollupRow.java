package io.ioscale.records;


/**
 * One row of {@code port_samples_<grain>}: one port or port queue of one (run, step) in one window, with its
 * utilization per direction against the usable payload rate ({@code LinkCapacityRule}):
 * {@code rx_utilization_pct = rx bytes/s / capacity_bytes_per_s x 100}; a half-duplex link shares the capacity,
 * so both directions show {@code (rx + tx) / capacity}. NULL utilization when the capacity is unknown.
 * Rates divide by max(window, longest interval), like the I/O rates.
 */
public class PortRollupRow extends RollupRow {
    public static final String TABLE = "port_samples";

    public String host = "";
    public String portId = "";
    public int queue = -1;
    public String kind = "";
    public String vm = "";
    public long samples;
    public long rxBytes;
    public long txBytes;
    public long rxFrames;
    public long txFrames;
    public long rxErrors;
    public long txErrors;
    public long interrupts;
    public double rxMbPerS;
    public double txMbPerS;
    public double interruptsPerS;
    public long linkSpeedBps;
    public boolean fullDuplex = true;
    /** NaN when unknown. */
    public double capacityBytesPerS = Double.NaN;
    public String capacitySource = "unknown";
    public double rxUtilizationPct = Double.NaN;
    public double txUtilizationPct = Double.NaN;

    public PortRollupRow() {}

    @Override
    protected String baseTable() {
        return TABLE;
    }

    @Override
    public long version() {
        return samples;
    }

    @Override
    protected void writeColumns(RowFormat out) {
        out.lowCardinality("host", host)
                .lowCardinality("port_id", portId)
                .int32("queue", queue)
                .lowCardinality("kind", kind)
                .lowCardinality("vm", vm)
                .uint32("samples", samples)
                .uint64("rx_bytes", rxBytes)
                .uint64("tx_bytes", txBytes)
                .uint64("rx_frames", rxFrames)
                .uint64("tx_frames", txFrames)
                .uint64("rx_errors", rxErrors)
                .uint64("tx_errors", txErrors)
                .uint64("interrupts", interrupts)
                .float64("rx_mb_per_s", rxMbPerS)
                .float64("tx_mb_per_s", txMbPerS)
                .float64("interrupts_per_s", interruptsPerS)
                .uint64("link_speed_bps", linkSpeedBps)
                .bool("full_duplex", fullDuplex)
                .nullableFloat64("capacity_bytes_per_s", capacityBytesPerS)
                .lowCardinality("capacity_source", capacitySource)
                .nullableFloat64("rx_utilization_pct", rxUtilizationPct)
                .nullableFloat64("tx_utilization_pct", txUtilizationPct);
    }

    @Override
    public String toString() {
        return table() + "(" + windowStartMs + ", " + runId + "/" + stepIndex + " " + host + "/" + portId + " q="
                + queue + ", rx=" + rxUtilizationPct + "%, tx=" + txUtilizationPct + "%)";
    }
}
