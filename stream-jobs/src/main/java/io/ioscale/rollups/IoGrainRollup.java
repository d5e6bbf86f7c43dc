package io.ioscale.rollups;

import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * What the I/O rollups (per source, per fleet) share: the accumulator, its exact merge, its compaction once fired
 * and its serializer.
 */
abstract class IoGrainRollup<K, IN, OUT> implements GrainRollup<K, IN, IoAccumulator, OUT> {
    private static final long serialVersionUID = 1L;

    @Override
    public void merge(IoAccumulator into, IoAccumulator from) {
        into.merge(from);
    }

    /** Fired windows keep their histogram packed (see {@link io.ioscale.rollups.BucketCounts#compact}). */
    @Override
    public void compact(IoAccumulator acc) {
        acc.buckets.compact();
    }

    @Override
    public TypeInformation<IoAccumulator> accumulatorType() {
        return TypeInformation.of(IoAccumulator.class);
    }
}
