package io.ioscale.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ioscale.analytics.ThroughputMetric;
import io.ioscale.steps.LoadAxis;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code schema/analytics_options.json}, which ingest's analytics_config reads instead of retyping the options,
 * is {@link OptionsDescription} of {@link AnalyticsOptions#ALL}: this test fails when the committed file is not
 * current, and with {@code -Dioscale.write-options=true} writes it first.
 */
class OptionsDescriptionTest {
    /** Where the file is, from the module directory (surefire's working directory). */
    private static final Path FILE = Path.of("../schema/analytics_options.json");
    private static final String REGENERATE =
            "mvn -f stream-jobs/pom.xml test -Dtest=OptionsDescriptionTest -Dioscale.write-options=true";
    private static final String ABOUT = "The analytics job's program arguments (stream-jobs, "
            + "io.ioscale.config.AnalyticsOptions.ALL). Written by OptionsDescriptionTest, do not edit; regenerate: "
            + REGENERATE;

    private static String fresh() {
        return OptionsDescription.json(ABOUT, AnalyticsOptions.ALL);
    }

    @Test
    void theCommittedFileIsCurrent() throws IOException {
        if (Boolean.getBoolean("ioscale.write-options")) {
            Files.writeString(FILE, fresh());
        }
        String committed = Files.exists(FILE) ? Files.readString(FILE) : "";
        assertThat(committed).as("schema/analytics_options.json is stale or hand-edited: rerun " + REGENERATE)
                .isEqualTo(fresh());
    }

    @Test
    void describesEveryOptionWithWhatTheParserChecks() throws IOException {
        JsonNode options = new ObjectMapper().readTree(fresh()).get("options");
        List<String> names = new ArrayList<>();
        options.forEach(o -> {
            names.add(o.get("name").asText());
            assertThat(o.get("description").asText()).as(o.get("name").asText()).isNotBlank();
        });
        assertThat(names).containsExactlyElementsOf(AnalyticsOptions.ALL.stream().map(OptionSpec::key).toList());

        JsonNode axis = find(options, "load-axis");
        assertThat(axis.get("default").asText()).isEqualTo("total-outstanding");
        assertThat(axis.get("allowed")).extracting(JsonNode::asText).containsExactlyElementsOf(LoadAxis.keys());
        assertThat(find(options, "allowed-lateness").get("default").asText()).isEqualTo("10 s");
        assertThat(find(options, "allowed-lateness").get("type").asText()).isEqualTo("duration");
        assertThat(find(options, "parallelism").get("minimum").asInt()).isZero();
        assertThat(find(options, "slo").get("type").asText()).isEqualTo("slo");
        assertThat(find(options, "clickhouse-password").has("default")).isFalse();

        JsonNode saturation = find(options, "saturation");
        assertThat(saturation.get("type").asText()).isEqualTo("key-values");
        assertThat(find(saturation.get("keys"), "metric").get("allowed")).extracting(JsonNode::asText)
                .containsExactlyElementsOf(ThroughputMetric.keys());
        assertThat(find(saturation.get("keys"), "port-utilization-pct").get("default").asDouble()).isEqualTo(95);
        JsonNode rampUp = find(find(options, "steady-state").get("keys"), "ramp-up-s");
        assertThat(rampUp.get("type").asText()).isEqualTo("integer-or-auto");
        assertThat(rampUp.get("default").asText()).isEqualTo("auto");
        assertThat(rampUp.get("unit").asText()).isEqualTo("s");
    }

    private static JsonNode find(JsonNode options, String name) {
        for (JsonNode o : options) {
            if (o.get("name").asText().equals(name)) {
                return o;
            }
        }
        throw new AssertionError("no option " + name);
    }
}
