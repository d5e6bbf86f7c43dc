package io.ioscale.sources;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;

/**
 * Where the jobs' Kafka sources start reading each partition: the consumer group's committed offset, else the partition's
 * end (or beginning) <em>as it is when the job starts</em>, resolved to a number right away.
 *
 * <p>Why not {@code OffsetsInitializer.committedOffsets(LATEST)}: that hands each split a "committed offset"
 * marker that the reader resolves later, and a split from which nothing has been read yet keeps the marker in
 * its checkpointed state. After a restore, such a partition was resolved again, to its end at restore time: the
 * records produced into it since the job started were skipped. Seen in a clean-clone CI run: a VM whose samples
 * first arrived after the last checkpoint lost five seconds of rollups across a job restart. With the offset
 * resolved at start, the checkpoint holds a real position for every partition, and a restore loses nothing.
 */
@SuppressWarnings("deprecation") // OffsetResetStrategy: what this connector version's interface takes
public final class ResolvedStartOffsets implements OffsetsInitializer {
    private static final long serialVersionUID = 1L;

    private final boolean earliest;

    /** @param earliest a partition the group never committed starts at its beginning, else at its end */
    public ResolvedStartOffsets(boolean earliest) {
        this.earliest = earliest;
    }

    @Override
    public Map<TopicPartition, Long> getPartitionOffsets(Collection<TopicPartition> partitions,
                                                         PartitionOffsetsRetriever offsets) {
        Map<TopicPartition, Long> committed = offsets.committedOffsets(partitions);
        Map<TopicPartition, Long> fallback = earliest ? offsets.beginningOffsets(partitions)
                : offsets.endOffsets(partitions);
        Map<TopicPartition, Long> start = new HashMap<>();
        for (TopicPartition p : partitions) {
            Long c = committed.get(p);
            start.put(p, c != null && c >= 0 ? c : fallback.get(p));
        }
        return start;
    }

    @Override
    public OffsetResetStrategy getAutoOffsetResetStrategy() {
        // Only for an offset that is gone by the time it is read (retention): take what is there.
        return OffsetResetStrategy.EARLIEST;
    }
}
