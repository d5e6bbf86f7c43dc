package io.ioscale.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ioscale.jobs.AnalyticsJob;
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
        assertThat(AnalyticsJob.Settings.of(live).earlyFireDelay()).isEqualTo(Duration.ofMillis(200));
        AnalyticsOptions tuned = AnalyticsOptions.fromArgs(new String[] {"--clickhouse-password", "x",
            "--early-fire-delay", "300 ms"});
        assertThat(AnalyticsJob.Settings.of(tuned).earlyFireDelay()).isEqualTo(Duration.ofMillis(300));
        AnalyticsOptions replay = AnalyticsOptions.fromArgs(new String[] {"--clickhouse-password", "x",
            "--early-fire-delay", "300 ms", "--replay-run", "r", "--job-name", "ioscale-replay-r"});
        assertThat(AnalyticsJob.Settings.of(replay).earlyFireDelay()).isZero(); // a past run's wall clock means nothing
        assertThatThrownBy(() -> AnalyticsOptions.fromArgs(new String[] {"--clickhouse-password", "x",
            "--early-fire-delay", "-1 s"})).isInstanceOf(IllegalArgumentException.class);
    }
}
