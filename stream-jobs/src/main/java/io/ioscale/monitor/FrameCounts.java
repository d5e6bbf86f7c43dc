package io.ioscale.monitor;

/**
 * Mutable accumulator of {@link CountFrames}: a Flink POJO (public fields, no-arg constructor) so the
 * window state uses Flink's own serializer, not Kryo.
 */
public class FrameCounts {
    public long records;
    public long bytes;

    public FrameCounts() {}

    public FrameCounts(long records, long bytes) {
        this.records = records;
        this.bytes = bytes;
    }
}
