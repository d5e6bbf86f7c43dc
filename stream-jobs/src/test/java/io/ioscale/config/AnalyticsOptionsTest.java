package io.ioscale.config;

import static io.ioscale.testing.TestData.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ioscale.analytics.SaturationConfig;
import io.ioscale.analytics.SteadyStateConfig;
import io.ioscale.analytics.ThroughputMetric;
import io.ioscale.steps.LoadAxis;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AnalyticsOptionsTest {

    @Test
    void defaultsPointAtTheLocalStack() {
        AnalyticsOptions o = AnalyticsOptions.fromArgs(new String[] {"--clickhouse-password", "pw"});
        assertThat(o.kafkaBootstrap()).isEqualTo("127.0.0.1:9092");
        assertThat(o.registryUrl()).isEqualTo("http://127.0.0.1:8081");
        assertThat(o.ioSamplesTopic()).isEqualTo("ioscale.io_samples");
        assertThat(o.deadLetterTopic()).isEqualTo("ioscale.dead_letter");
        assertThat(o.alertsTopic()).isEqualTo("ioscale.alerts");
        assertThat(o.clickHouse().user()).isEqualTo("ioscale_flink");
        assertThat(o.clickHouse().database()).isEqualTo("ioscale");
        assertThat(o.allowedLateness()).isEqualTo(Duration.ofSeconds(10));
        assertThat(o.steps().slo().objectives()).hasSize(2);
        assertThat(o.steps().loadAxis()).isEqualTo(LoadAxis.TOTAL_OUTSTANDING);
        assertThat(o.toString()).doesNotContain("pw");
        assertThat(o.startFromEarliest()).isFalse();
        assertThat(o.checkpointDir()).isEmpty();
        assertThat(o.parallelism()).isZero();
        assertThat(o.maxAhead()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void readsThePasswordFromTheSecretsFile(@TempDir Path dir) throws Exception {
        Path secrets = dir.resolve("secrets.env");
        Files.writeString(secrets, "# generated\nCLICKHOUSE_ADMIN_PASSWORD=a\nCLICKHOUSE_FLINK_PASSWORD=s3cr=t\n");
        AnalyticsOptions o = AnalyticsOptions.fromArgs(new String[] {"--clickhouse-password-file", secrets.toString()});
        assertThat(o.clickHouse().password()).isEqualTo("s3cr=t");
        assertThatThrownBy(() -> AnalyticsOptions.fromArgs(new String[] {"--clickhouse-password-file",
                secrets.toString(), "--clickhouse-password-key", "NOPE"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("has no NOPE");
        assertThatThrownBy(() -> AnalyticsOptions.fromArgs(new String[0]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no ClickHouse password");
    }

    @Test
    void parsesNestedSettingsAndRejectsUnknownKeys() {
        AnalyticsOptions o = AnalyticsOptions.fromArgs(new String[] {"--clickhouse-password", "x",
            "--steady-state", "ramp-up-s=5, tail-s=2", "--saturation", "metric=mb-per-s,port-utilization-pct=90",
            "--slo", "none", "--load-axis", "vm-count", "--allowed-lateness", "1 min", "--starting-offsets", "earliest"});
        assertThat(o.startFromEarliest()).isTrue();
        assertThat(o.steps().steadyState().rampUpS()).isEqualTo(5);
        assertThat(o.steps().saturation().portUtilizationPct()).isEqualTo(90);
        assertThat(o.steps().slo()).isNull();
        assertThat(o.steps().allowedLatenessMs()).isEqualTo(60_000);
        assertThat(o.allowedLateness()).isEqualTo(Duration.ofMinutes(1));
        assertThatThrownBy(() -> AnalyticsOptions.fromArgs(new String[] {"--clickhouse-password", "x", "--lateness", "1s"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown argument --lateness");
        assertThatThrownBy(() -> AnalyticsOptions.fromArgs(new String[] {"--clickhouse-password", "x",
            "--steady-state", "ramp=5"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown steady-state setting 'ramp'");
        assertThatThrownBy(() -> AnalyticsOptions.fromArgs(new String[] {"--clickhouse-password", "x",
            "--steady-state", "ramp-up-s"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not key=value");
        assertThatThrownBy(() -> AnalyticsOptions.fromArgs(new String[] {"--clickhouse-password", "x",
            "--checkpoint-interval", "0s"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--checkpoint-interval");
    }

    @Test
    void replayModeNamesItsRunItsStartAndAJobNameOfItsOwn() {
        AnalyticsOptions live = AnalyticsOptions.fromArgs(new String[] {"--clickhouse-password", "x"});
        assertThat(live.replay()).isNull();
        assertThat(live.jobName()).isEqualTo("ioscale-analytics");
        AnalyticsOptions o = AnalyticsOptions.fromArgs(new String[] {"--clickhouse-password", "x",
            "--replay-run", "diskspd-1", "--replay-from-ms", "1790000000000", "--job-name", "ioscale-replay-diskspd-1"});
        assertThat(o.replay()).isEqualTo(new AnalyticsOptions.Replay("diskspd-1", 1_790_000_000_000L,
                "ioscale-replay-diskspd-1"));
        assertThat(o.jobName()).isEqualTo("ioscale-replay-diskspd-1");
        // a replay under the live job's name would be taken for the live job by `ioscale stack up`
        assertThatThrownBy(() -> AnalyticsOptions.fromArgs(new String[] {"--clickhouse-password", "x",
            "--replay-run", "r"})).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--job-name");
        assertThatThrownBy(() -> AnalyticsOptions.fromArgs(new String[] {"--clickhouse-password", "x",
            "--replay-run", "r", "--job-name", "j", "--replay-from-ms", "-5"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replay-from-ms");
    }

    @Test
    void liveRowsFireEarlyAndAReplayFiresOnTheWatermarkOnly() {
        AnalyticsOptions live = AnalyticsOptions.fromArgs(new String[] {"--clickhouse-password", "x"});
        assertThat(live.earlyFireDelay()).isEqualTo(Duration.ofMillis(200));
        assertThat(live.clickHouse().flushInterval()).isEqualTo(Duration.ofMillis(200));
        AnalyticsOptions tuned = AnalyticsOptions.fromArgs(new String[] {"--clickhouse-password", "x",
            "--early-fire-delay", "300 ms"});
        assertThat(tuned.earlyFireDelay()).isEqualTo(Duration.ofMillis(300));
        AnalyticsOptions replay = AnalyticsOptions.fromArgs(new String[] {"--clickhouse-password", "x",
            "--early-fire-delay", "300 ms", "--replay-run", "r", "--job-name", "ioscale-replay-r"});
        assertThat(replay.earlyFireDelay()).isZero(); // a past run's wall clock means nothing
        assertThatThrownBy(() -> AnalyticsOptions.fromArgs(new String[] {"--clickhouse-password", "x",
            "--early-fire-delay", "-1 s"})).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void stepsCloseOnTheWallClockLiveOnlyAndOnlyWithEarlyRows() {
        AnalyticsOptions live = AnalyticsOptions.fromArgs(new String[] {"--clickhouse-password", "x"});
        assertThat(live.steps().closeIdleMs()).isEqualTo(10_000);
        assertThat(AnalyticsOptions.fromArgs(new String[] {"--clickhouse-password", "x", "--step-close-idle", "4 s"})
                .steps().closeIdleMs()).isEqualTo(4_000);
        AnalyticsOptions replay = AnalyticsOptions.fromArgs(new String[] {"--clickhouse-password", "x",
            "--replay-run", "r", "--job-name", "ioscale-replay-r"});
        assertThat(replay.steps().closeIdleMs()).isZero(); // its input ends: every step closes on event time
        AnalyticsOptions noEarlyRows = AnalyticsOptions.fromArgs(new String[] {"--clickhouse-password", "x",
            "--early-fire-delay", "0 ms"});
        assertThat(noEarlyRows.steps().closeIdleMs()).isZero(); // a step's last seconds would be missing
        assertThatThrownBy(() -> AnalyticsOptions.fromArgs(new String[] {"--clickhouse-password", "x",
            "--step-close-idle", "-1 s"})).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void nestedSettingsParseOverTheDefaultsAndErrorsNameTheKey() {
        assertThat(options().steps().steadyState()).isEqualTo(SteadyStateConfig.defaults());
        assertThat(options().steps().saturation()).isEqualTo(SaturationConfig.defaults());
        assertThat(options("--steady-state", "ramp-up-s=12, tail-s=AUTO").steps().steadyState())
                .isEqualTo(SteadyStateConfig.configured(12, SteadyStateConfig.AUTO));
        SaturationConfig s = options("--saturation", "metric=MB-per-s, port-utilization-pct=99.5,cpu-utilization-pct=40")
                .steps().saturation();
        assertThat(s.metric()).isEqualTo(ThroughputMetric.MB_PER_S);
        assertThat(s.portUtilizationPct()).isEqualTo(99.5);
        assertThat(s.cpuUtilizationPct()).isEqualTo(40);
        assertThat(s.minEfficiency()).isEqualTo(SaturationConfig.defaults().minEfficiency());

        assertThatThrownBy(() -> options("--saturation", "port-utilisation-pct=95"))
                .hasMessageContaining("unknown saturation setting 'port-utilisation-pct'")
                .hasMessageContaining("port-utilization-pct");
        assertThatThrownBy(() -> options("--saturation", "min-efficiency=1.5"))
                .hasMessage("saturation setting 'min-efficiency' must be in [0, 1], got 1.5");
        assertThatThrownBy(() -> options("--saturation", "cpu-utilization-pct=ninety"))
                .hasMessage("saturation setting 'cpu-utilization-pct' must be a finite number, got 'ninety'");
        assertThatThrownBy(() -> options("--saturation", "metric=iops/s"))
                .hasMessageContaining("saturation setting 'metric'").hasMessageContaining("'iops/s'");
        assertThatThrownBy(() -> options("--steady-state", "rampup-s=10"))
                .hasMessageContaining("unknown steady-state setting 'rampup-s'").hasMessageContaining("ramp-up-s");
        assertThatThrownBy(() -> options("--steady-state", "ramp-up-s=ten"))
                .hasMessage("steady-state setting 'ramp-up-s' must be an integer or 'auto', got 'ten'");
        assertThatThrownBy(() -> options("--steady-state", "window-s=1"))
                .hasMessage("steady-state setting 'window-s' must be in [2, 3600], got 1");
        assertThatThrownBy(() -> options("--steady-state", "max-cv=NaN"))
                .hasMessage("steady-state setting 'max-cv' must be a finite number, got 'NaN'");
    }

    @Test
    void boundsAndAllowedValuesComeFromTheOptionsTable() {
        assertThatThrownBy(() -> options("--parallelism", "-1")).hasMessage("--parallelism must be >= 0, got -1");
        assertThatThrownBy(() -> options("--sink-batch-rows", "0")).hasMessageContaining("--sink-batch-rows must be > 0");
        assertThatThrownBy(() -> options("--idleness", "soon"))
                .hasMessageContaining("--idleness must be a duration").hasMessageContaining("'soon'");
        assertThatThrownBy(() -> options("--topic-runs", " ")).hasMessage("--topic-runs must not be empty");
        assertThatThrownBy(() -> options("--load-axis", "iops"))
                .hasMessage("--load-axis must be one of " + String.join(", ", LoadAxis.keys()) + ", got 'iops'");
        assertThat(options("--load-axis", " Queue-Depth").steps().loadAxis()).isEqualTo(LoadAxis.QUEUE_DEPTH);
        assertThat(options("--starting-offsets", "EARLIEST").startFromEarliest()).isTrue();
    }
}
