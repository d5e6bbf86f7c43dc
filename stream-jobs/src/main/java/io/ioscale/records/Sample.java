package io.ioscale.records;

/**
 * What every sample record (I/O, CPU, port) starts with: its interval, and the run, step, host and VM it comes
 * from. The subclasses are Flink POJOs or have their own serializer; fields are public for both.
 */
public abstract class Sample {
    /** Start of the interval, UTC epoch ms: the event time. */
    public long tsMs;
    public int intervalMs;
    public String runId = "";
    /** 0-based load step; -1 when the collector does not know it. */
    public int stepIndex = -1;
    public String host = "";
    public String vm = "";
}
