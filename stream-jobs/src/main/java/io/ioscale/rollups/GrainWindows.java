package io.ioscale.rollups;

import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * The open windows of one key, every grain: the one state entry a {@link GrainRollupOperator} keeps per key (one
 * state lookup per record, instead of one per window and grain in Flink's window operator).
 *
 * <p>A window is (length, start) with its accumulator and whether it has fired. It stays after firing until the
 * watermark passes its end plus the allowed lateness, so late data can still update its row. Windows are kept in
 * the order they were opened (event time, for in-order data); a record looks its windows up from the newest.
 * {@link #timerMs} is the event-time timer the key has registered for its next due window (Long.MAX_VALUE: none).
 *
 * <p>Early firing ({@link EarlyFiring}) adds two fields that are not checkpointed: {@link #shown} (the window's
 * current content went out as a provisional row) and {@link #earlyTimerMs} (the key's pending processing-time
 * timer). Restored as "not shown" and "none", they cost at most one repeated row per window after a restore.
 *
 * <p>Copies share their accumulators ({@link GrainWindowsSerializer#copy}): the heap state backend copies a key's
 * entry at its first access while a checkpoint is being written, and a deep copy of every window (most of them
 * fired, only waiting for late data) cost a burst of CPU and garbage at each checkpoint. A shared accumulator is
 * copied only when it is about to change: every change goes through {@link #writable}.
 *
 * @param <ACC> the accumulator type
 */
public final class GrainWindows<ACC> {
    private static final int INITIAL = 8;

    int size;
    long[] lengthMs = new long[INITIAL];
    long[] startMs = new long[INITIAL];
    boolean[] fired = new boolean[INITIAL];
    boolean[] shown = new boolean[INITIAL];
    /** The accumulator may also be another copy's: copy it before changing it (not checkpointed). */
    boolean[] shared = new boolean[INITIAL];
    Object[] accumulators = new Object[INITIAL];
    long timerMs = Long.MAX_VALUE;
    long earlyTimerMs = Long.MAX_VALUE;

    public GrainWindows() {}

    /** Position of window (length, start), or -1. */
    int find(long length, long start) {
        for (int i = size - 1; i >= 0; i--) {
            if (startMs[i] == start && lengthMs[i] == length) {
                return i;
            }
        }
        return -1;
    }

    /** Appends a window that has not fired; returns its position. */
    int add(long length, long start, ACC acc) {
        if (size == startMs.length) {
            int n = size * 2;
            lengthMs = java.util.Arrays.copyOf(lengthMs, n);
            startMs = java.util.Arrays.copyOf(startMs, n);
            fired = java.util.Arrays.copyOf(fired, n);
            shown = java.util.Arrays.copyOf(shown, n);
            shared = java.util.Arrays.copyOf(shared, n);
            accumulators = java.util.Arrays.copyOf(accumulators, n);
        }
        lengthMs[size] = length;
        startMs[size] = start;
        fired[size] = false;
        shown[size] = false;
        shared[size] = false;
        accumulators[size] = acc;
        return size++;
    }

    /** Window {@code i}'s accumulator, to read. */
    @SuppressWarnings("unchecked")
    ACC accumulator(int i) {
        return (ACC) accumulators[i];
    }

    /** Window {@code i}'s accumulator, to change: first a private copy if it is shared with another copy. */
    ACC writable(int i, TypeSerializer<ACC> serializer) {
        if (shared[i]) {
            accumulators[i] = serializer.copy(accumulator(i));
            shared[i] = false;
        }
        return accumulator(i);
    }

    /** Moves window {@code from} to position {@code to} (&lt;= from), keeping the order: compaction after a purge. */
    void move(int from, int to) {
        if (from != to) {
            lengthMs[to] = lengthMs[from];
            startMs[to] = startMs[from];
            fired[to] = fired[from];
            shown[to] = shown[from];
            shared[to] = shared[from];
            accumulators[to] = accumulators[from];
        }
    }

    /** Keeps the first {@code n} windows. */
    void truncate(int n) {
        for (int i = n; i < size; i++) {
            accumulators[i] = null;
        }
        size = n;
    }

    public int size() {
        return size;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("GrainWindows(timer=").append(timerMs);
        for (int i = 0; i < size; i++) {
            b.append(", [").append(startMs[i]).append('+').append(lengthMs[i]).append(fired[i] ? " fired]" : "]");
        }
        return b.append(')').toString();
    }
}
