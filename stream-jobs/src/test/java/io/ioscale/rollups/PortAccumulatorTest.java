package io.ioscale.rollups;

import static org.assertj.core.api.Assertions.assertThat;

import io.ioscale.records.PortSample;
import io.ioscale.sources.LinkCapacityRule;
import io.ioscale.testing.TestData;
import org.junit.jupiter.api.Test;

class PortAccumulatorTest {

    private static PortSample sas(long tsMs, double capacity, String source, boolean duplex) {
        PortSample p = TestData.port("r", 0, tsMs, "node1", "SAS-HBA", "SAS", 48_000_000_000L, 1, 1);
        p.capacityBytesPerS = capacity;
        p.capacitySource = source;
        p.fullDuplex = duplex;
        return p;
    }

    @Test
    void aWindowKeepsItsRunsDeclaredLinkWhateverCameFirst() {
        PortSample early = sas(0, 4.8e9, LinkCapacityRule.FROM_LINK_SPEED, true); // before the run's links
        PortSample declared = sas(1, 4.0e9, LinkCapacityRule.FROM_RUN_EVENT, false);
        PortAccumulator added = new PortAccumulator();
        added.add(early);
        added.add(declared);
        PortAccumulator merged = new PortAccumulator();
        PortAccumulator other = new PortAccumulator();
        other.add(early);
        merged.add(declared);
        merged.merge(other);
        for (PortAccumulator a : new PortAccumulator[] {added, merged}) {
            assertThat(a.capacityBytesPerS).isEqualTo(4.0e9);
            assertThat(a.capacitySource).isEqualTo(LinkCapacityRule.FROM_RUN_EVENT);
            assertThat(a.fullDuplex).isFalse();
            assertThat(a.samples).isEqualTo(2);
        }
    }
}
