package io.ioscale.rollups;

import io.ioscale.records.Sample;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.function.SerializableSupplier;

/**
 * What the rollups of samples whose accumulator adds a sample and merges its own kind share (CPU and port
 * samples): the event time, the accumulator (a Flink POJO: its type, making, adding and merging). A subclass
 * makes the row.
 */
abstract class SampleRollup<K, IN extends Sample, ACC extends SampleRollup.Accumulator<IN, ACC>, OUT>
        implements GrainRollup<K, IN, ACC, OUT> {
    private static final long serialVersionUID = 1L;

    /** Window state that takes a sample, and another window's state, in place. */
    interface Accumulator<IN, SELF> {
        void add(IN sample);

        SELF merge(SELF other);
    }

    private final Class<ACC> accumulatorClass;
    private final SerializableSupplier<ACC> newAccumulator;

    SampleRollup(Class<ACC> accumulatorClass, SerializableSupplier<ACC> newAccumulator) {
        this.accumulatorClass = accumulatorClass;
        this.newAccumulator = newAccumulator;
    }

    @Override
    public long eventTimeMs(IN sample) {
        return sample.tsMs;
    }

    @Override
    public ACC createAccumulator() {
        return newAccumulator.get();
    }

    @Override
    public void add(ACC acc, IN sample) {
        acc.add(sample);
    }

    @Override
    public void merge(ACC into, ACC from) {
        into.merge(from);
    }

    @Override
    public TypeInformation<ACC> accumulatorType() {
        return TypeInformation.of(accumulatorClass);
    }
}
