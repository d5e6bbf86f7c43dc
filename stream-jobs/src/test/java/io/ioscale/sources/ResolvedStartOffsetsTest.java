package io.ioscale.sources;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Every partition gets a real start offset when the job starts (never the reader-resolved "committed" marker, which
 * a checkpoint kept for a partition nothing had been read from yet, and a restore resolved to the end of then:
 * records in between were lost).
 */
class ResolvedStartOffsetsTest {
    private static final TopicPartition P0 = new TopicPartition("ioscale.io_samples", 0);
    private static final TopicPartition P1 = new TopicPartition("ioscale.io_samples", 1);
    private static final TopicPartition P2 = new TopicPartition("ioscale.io_samples", 2);

    /** Partition 0 committed at 40; 1 and 2 never committed; beginnings 5, 0, 7 and ends 90, 12, 7. */
    private static final OffsetsInitializer.PartitionOffsetsRetriever KAFKA =
            new OffsetsInitializer.PartitionOffsetsRetriever() {
                @Override
                public Map<TopicPartition, Long> committedOffsets(Collection<TopicPartition> partitions) {
                    return Map.of(P0, 40L);
                }

                @Override
                public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
                    return Map.of(P0, 90L, P1, 12L, P2, 7L);
                }

                @Override
                public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions) {
                    return Map.of(P0, 5L, P1, 0L, P2, 7L);
                }

                @Override
                public Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(Map<TopicPartition, Long> timestamps) {
                    throw new UnsupportedOperationException();
                }
            };

    @Test
    void committedOffsetsWinAndTheRestStartAtTheirEndAsOfNow() {
        assertThat(new ResolvedStartOffsets(false).getPartitionOffsets(List.of(P0, P1, P2), KAFKA))
                .containsExactlyInAnyOrderEntriesOf(Map.of(P0, 40L, P1, 12L, P2, 7L))
                .allSatisfy((p, offset) -> assertThat(offset).isNotNegative()); // no marker left to resolve later
    }

    @Test
    void earliestStartsUncommittedPartitionsAtTheirBeginning() {
        assertThat(new ResolvedStartOffsets(true).getPartitionOffsets(List.of(P0, P1, P2), KAFKA))
                .containsExactlyInAnyOrderEntriesOf(Map.of(P0, 40L, P1, 0L, P2, 7L));
    }
}
