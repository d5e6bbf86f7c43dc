package io.ioscale.avro;

import static io.ioscale.testing.AvroFrames.frame;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ioscale.records.IoSample;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The field rules on the shared cases of tests/fixtures/record_rules (one file per record type), which ClickHouse's
 * Kafka views are tested on too (tests/integration/clickhouse/test_record_rules.py): each case, framed as a
 * collector writes it, goes through the decoder the job uses for its topic and must come out as a record or as
 * the dead letter with exactly the case's reason.
 */
class RecordRulesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** {@code <long>}, {@code <double>}...: a value in a rule's wording. */
    private static final Pattern VALUE = Pattern.compile("<[a-z]+>");

    /** The folder: -Dioscale.recordRules=PATH, else found from the working directory upwards. */
    static Path folder() {
        String override = System.getProperty("ioscale.recordRules");
        if (override != null) {
            return Paths.get(override);
        }
        Path start = Paths.get(System.getProperty("user.dir")).toAbsolutePath();
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("tests").resolve("fixtures").resolve("record_rules");
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("tests/fixtures/record_rules not found above " + start);
    }

    static JsonNode file(String name) {
        try {
            return JSON.readTree(folder().resolve(name).toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The decoder the job builds for the file's topic (AnalyticsJob.sources); the I/O topic's on both paths. */
    static List<ConfluentAvroDecoder<?>> decoders(String fileName, Schema schema) {
        WriterSchemas registry = id -> id == 1 ? schema : null;
        return switch (fileName) {
            case "io_samples.json" -> List.of(new ConfluentAvroDecoder<>(schema, registry, AvroRecords::ioSample),
                    ConfluentAvroDecoder.<IoSample>direct(schema, registry, new IoSampleReader(), AvroRecords::check));
            case "cpu_samples.json" -> List.of(new ConfluentAvroDecoder<>(schema, registry, AvroRecords::cpuSample));
            case "port_samples.json" -> List.of(new ConfluentAvroDecoder<>(schema, registry, AvroRecords::portSample));
            case "run_events.json" -> List.of(new ConfluentAvroDecoder<>(schema, registry, AvroRecords::runEvent));
            default -> throw new IllegalArgumentException(fileName);
        };
    }

    static final List<String> FILES = List.of("io_samples.json", "cpu_samples.json", "port_samples.json",
            "run_events.json");

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (String f : FILES) {
            for (JsonNode c : file(f).get("cases")) {
                out.add(Arguments.of(f, c.get("case").asText()));
            }
        }
        return out.stream();
    }

    static Stream<String> files() {
        return FILES.stream();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("cases")
    void theDecoderGivesTheCasesOutcome(String fileName, String caseName) throws Exception {
        JsonNode doc = file(fileName);
        JsonNode c = null;
        for (JsonNode each : doc.get("cases")) {
            if (each.get("case").asText().equals(caseName)) {
                c = each;
            }
        }
        Schema schema = ReaderSchemas.load(doc.get("schema").asText());
        ObjectNode fields = ((ObjectNode) doc.get("base")).deepCopy();
        fields.setAll((ObjectNode) c.get("set"));
        byte[] value = frame(1, schema, (GenericRecord) avro(schema, fields));
        for (ConfluentAvroDecoder<?> decoder : decoders(fileName, schema)) {
            if (c.get("expect").asText().equals("valid")) {
                assertThat(decoder.decode(value)).isNotNull();
            } else {
                assertThatThrownBy(() -> decoder.decode(value)).isInstanceOf(DecodeException.class)
                        .extracting(e -> ((DecodeException) e).reason()).isEqualTo(c.get("reason").asText());
            }
        }
    }

    /** Every rule has a case; every case names a rule of its file and is worded as that rule. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("files")
    void everyRuleIsTestedAndEveryReasonWordedAsItsRule(String fileName) {
        JsonNode doc = file(fileName);
        Map<String, Pattern> rules = new LinkedHashMap<>();
        doc.get("rules").fields().forEachRemaining(r -> rules.put(r.getKey(), Pattern.compile(
                "invalid: " + VALUE.matcher(Pattern.quote(r.getValue().asText())).replaceAll("\\\\E.+\\\\Q"))));
        Set<String> tested = new HashSet<>();
        Set<String> names = new HashSet<>();
        int valid = 0;
        for (JsonNode c : doc.get("cases")) {
            assertThat(names.add(c.get("case").asText())).as("case names are unique").isTrue();
            if (c.get("expect").asText().equals("valid")) {
                valid++;
                continue;
            }
            String rule = c.get("rule").asText();
            assertThat(rules).as(c.get("case").asText()).containsKey(rule);
            assertThat(c.get("reason").asText()).matches(rules.get(rule));
            tested.add(rule);
        }
        assertThat(tested).containsExactlyInAnyOrderElementsOf(rules.keySet());
        assertThat(valid).isPositive();
    }

    /** A JSON value as Avro's generic representation of {@code schema}; a record's missing fields take defaults. */
    static Object avro(Schema schema, JsonNode v) {
        switch (schema.getType()) {
            case UNION -> {
                for (Schema branch : schema.getTypes()) {
                    if (v.isNull() == (branch.getType() == Schema.Type.NULL)) {
                        return avro(branch, v);
                    }
                }
                throw new IllegalArgumentException("no branch of " + schema + " for " + v);
            }
            case NULL -> {
                return null;
            }
            case BOOLEAN -> {
                return v.booleanValue();
            }
            case INT -> {
                assertThat(v.canConvertToInt()).as("%s is an int", v).isTrue();
                return v.intValue();
            }
            case LONG -> {
                assertThat(v.isIntegralNumber() && v.canConvertToLong()).as("%s is a long", v).isTrue();
                return v.longValue();
            }
            case DOUBLE -> {
                return v.isTextual() ? Double.parseDouble(v.asText()) : v.doubleValue(); // "NaN", "Infinity"
            }
            case STRING -> {
                return v.asText();
            }
            case ENUM -> {
                return new GenericData.EnumSymbol(schema, v.asText());
            }
            case ARRAY -> {
                List<Object> out = new ArrayList<>();
                v.forEach(item -> out.add(avro(schema.getElementType(), item)));
                return out;
            }
            case MAP -> {
                Map<String, Object> out = new LinkedHashMap<>();
                v.fields().forEachRemaining(e -> out.put(e.getKey(), avro(schema.getValueType(), e.getValue())));
                return out;
            }
            case RECORD -> {
                GenericRecord r = new GenericData.Record(schema);
                for (Schema.Field f : schema.getFields()) {
                    r.put(f.name(), v.has(f.name()) ? avro(f.schema(), v.get(f.name()))
                            : GenericData.get().getDefaultValue(f));
                }
                v.fieldNames().forEachRemaining(n -> assertThat(schema.getField(n)).as("field %s", n).isNotNull());
                return r;
            }
            default -> throw new IllegalArgumentException("no case for " + schema.getType());
        }
    }
}
