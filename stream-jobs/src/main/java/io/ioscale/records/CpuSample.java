package io.ioscale.records;

/**
 * One {@code CpuSample} (schema/cpu_sample.avsc): CPU and interrupt load in one interval, per scope (host,
 * root partition, hypervisor, VM, guest) and logical CPU ({@code cpu = -1}: the total of the scope).
 * A Flink POJO; {@code tags} is not carried.
 */
public class CpuSample extends Sample {
    /** HOST, ROOT_PARTITION, HYPERVISOR, VM or GUEST (the Avro enum symbol). */
    public String scope = "HOST";
    /** Logical CPU; -1 for the total over the scope's CPUs. */
    public int cpu = -1;
    public int logicalProcessors;
    public double utilizationPct;
    public double userPct;
    public double privilegedPct;
    public double dpcPct;
    public double interruptPct;
    public double iowaitPct;
    public double interruptsPerS;
    public double dpcsPerS;

    public CpuSample() {}

    public boolean isTotal() {
        return cpu < 0;
    }

    @Override
    public String toString() {
        return "CpuSample(ts_ms=" + tsMs + ", run_id=" + runId + ", step=" + stepIndex + ", " + host + "/" + vm + " "
                + scope + " cpu=" + cpu + ", util=" + utilizationPct + "%)";
    }
}
