package io.ioscale.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SampleMonitorOptionsTest {

    @Test
    void defaultsMatchTheLocalStack() {
        SampleMonitorOptions o = SampleMonitorOptions.fromArgs(new String[0]);
        assertThat(o).isEqualTo(new SampleMonitorOptions(
                "127.0.0.1:9092", "ioscale.io_samples", "ioscale-sample-monitor",
                Duration.ofSeconds(10), Duration.ofSeconds(30)));
    }

    @Test
    void argumentsOverrideDefaults() {
        SampleMonitorOptions o = SampleMonitorOptions.fromArgs(
                new String[] {"--kafka-bootstrap", "10.0.0.1:9093", "--window", "500 ms"});
        assertThat(o.kafkaBootstrap()).isEqualTo("10.0.0.1:9093");
        assertThat(o.window()).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void unknownKeyIsRejectedByName() {
        assertThatThrownBy(() -> SampleMonitorOptions.fromArgs(new String[] {"--kafka-bootstrp", "x:1"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--kafka-bootstrp")
                .hasMessageContaining("--kafka-bootstrap");
    }

    @Test
    void nonPositiveWindowIsRejected() {
        assertThatThrownBy(() -> SampleMonitorOptions.fromArgs(new String[] {"--window", "0 s"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--window");
    }
}
