package io.ioscale.sources;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LinkCapacityRuleTest {

    @ParameterizedTest
    @CsvSource({
        // kind, line rate bps, payload MB/s
        "FC_HBA, 1062500000, 100",   // 1GFC
        "FC_HBA, 4250000000, 400",   // 4GFC
        "FC_HBA, 8000000000, 800",   // "8 Gbps"
        "FC_HBA, 8500000000, 800",   // 8GFC line rate
        "FC_HBA, 14025000000, 1600", // 16GFC line rate
        "FC_HBA, 28050000000, 3200", // 32GFC
        "SAS, 6000000000, 600",
        "SAS, 12000000000, 1200",
        "NIC, 10000000000, 1186.6059817945384", // 10 GbE: 1250 MB/s x 1460 / 1538
        "NIC_VMQ, 1000000000, 118.66059817945384",
        "OTHER, 800000000, 100",
        "FC_HBA, 0, 0",
    })
    void payloadRates(String kind, long speedBps, double payloadMb) {
        assertThat(LinkCapacityRule.payloadBytesPerS(kind, speedBps) / 1e6)
                .isCloseTo(payloadMb, org.assertj.core.api.Assertions.within(1e-9));
    }

    @ParameterizedTest
    @CsvSource({
        // source, bytes/s, held source, held bytes/s, replaces
        "run_event,  4.0e9, link_speed, 4.8e9, true",   // the run's declared SAS payload beats 48 Gb/s / 10
        "link_speed, 4.8e9, run_event,  4.0e9, false",  // and is not lifted by a sample seen before the links
        "link_speed, 4.8e9, link_speed, 4.0e9, true",   // same source: the larger
        "run_event,  3.0e9, run_event,  4.0e9, false",
        "link_speed, 1.0e9, unknown,    0,     true",   // anything known beats nothing
        "unknown,    0,     link_speed, 1.0e9, false",
        "run_event,  0,     unknown,    0,     false",  // a zero capacity never replaces
    })
    void aDeclaredCapacityBeatsASamplesOwnSpeed(String source, double bytesPerS, String held, double heldBytesPerS,
                                                 boolean replaces) {
        assertThat(LinkCapacityRule.supersedes(source, bytesPerS, held, heldBytesPerS)).isEqualTo(replaces);
    }
}
