package io.ioscale.rollups;

import io.ioscale.records.Grain;
import java.io.Serializable;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * What one rollup computes, for {@link GrainRollupOperator}: the record's event time, an incremental accumulator,
 * and the row a window makes of it (the accumulator plus key and window bounds, like a thin window function).
 *
 * @param <K>   the key (a Flink tuple of the row's identity columns)
 * @param <IN>  the record rolled up
 * @param <ACC> the window state
 * @param <OUT> the result row
 */
public interface GrainRollup<K, IN, ACC, OUT> extends Serializable {

    /** Event time of a record, ms (the window it belongs to). */
    long eventTimeMs(IN in);

    ACC createAccumulator();

    /** Adds a record into the accumulator (in place). */
    void add(ACC acc, IN in);

    /**
     * Adds everything of {@code from} into {@code into}, exactly as if its records had been added one by one:
     * a window rolls its accumulator into the next coarser grain's window this way. {@code from} is not
     * changed, and {@code into} must not keep anything mutable of it.
     */
    void merge(ACC into, ACC from);

    /**
     * The row of window [windowStartMs, windowStartMs + grain) of {@code key}. Called every time the window fires
     * (again, with late data); the row must not share anything mutable with {@code acc}.
     */
    OUT row(K key, Grain grain, long windowStartMs, ACC acc);

    /**
     * Shrinks a fired window's accumulator, which now only waits for late data (kept for the allowed lateness,
     * read again only if a late record comes). Must not change what {@link #row} makes of it.
     */
    default void compact(ACC acc) {}

    /** How the state serializes the accumulator. */
    TypeInformation<ACC> accumulatorType();

    /** How many samples a record stands for: what a record later than every window adds to the too-late count. */
    default long samples(IN in) {
        return 1;
    }
}
