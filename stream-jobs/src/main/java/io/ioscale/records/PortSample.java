package io.ioscale.records;

/**
 * One {@code PortSample} (schema/port_sample.avsc): traffic through an FC HBA port, NIC port or NIC queue in one
 * interval. A Flink POJO; of {@code tags} only {@code tool} is carried ({@link #tool}).
 *
 * <p>{@link #capacityBytesPerS} is not on the wire: the job fills it in (see
 * {@code LinkCapacityRule}) from the run's {@code LinkCapacity} or from
 * {@link #linkSpeedBps}, before the port rollups.
 */
public class PortSample extends Sample {
    public String portId = "";
    /** FC_HBA, NIC, NIC_VMQ, SAS or OTHER (the Avro enum symbol). */
    public String kind = "OTHER";
    /** NIC VMQ/RSS queue; -1 for the whole port. */
    public int queue = -1;
    public long linkSpeedBps;
    public long rxBytes;
    public long txBytes;
    public long rxFrames;
    public long txFrames;
    public long rxErrors;
    public long txErrors;
    public long interrupts;
    /** Usable payload rate per direction, bytes/s, filled in by the job; 0 = unknown. */
    public double capacityBytesPerS;
    /** Where {@link #capacityBytesPerS} came from: run_event, link_speed or unknown. */
    public String capacitySource = "unknown";
    /** From the run's LinkCapacity; a half-duplex link shares its capacity between directions. */
    public boolean fullDuplex = true;
    /**
     * The load generator that counted this traffic (tag {@code tool}: iperf3 sets it on its streams' samples); ""
     * for a host's own counters (the Linux collector, perfmon, esxtop), which see the same bytes with their headers
     * and whatever else crossed the port.
     */
    public String tool = "";

    public PortSample() {}

    public boolean isWholePort() {
        return queue < 0;
    }

    @Override
    public String toString() {
        return "PortSample(ts_ms=" + tsMs + ", run_id=" + runId + ", " + host + "/" + portId + " q=" + queue + ", rx="
                + rxBytes + ", tx=" + txBytes + ")";
    }
}
