package io.ioscale.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.util.TimeUtils;

/**
 * A job's options as JSON, for readers outside the job: {@code schema/analytics_options.json} is
 * {@code json(AnalyticsOptions.ALL)}, and ingest's {@code analytics_config} reads its option names, types,
 * defaults, allowed values and descriptions from there instead of retyping them. {@code OptionsDescriptionTest}
 * fails when the committed file is not current and rewrites it on request.
 *
 * <p>Each option: {@code name}, {@code type} (see {@link OptionSpec#type()}), {@code default} (durations in
 * Flink's syntax, e.g. "10 s"; absent when there is none), {@code unit}, {@code allowed}, the bound as JSON Schema
 * says it ({@code minLength}, {@code minimum}, {@code exclusiveMinimum}), {@code description}, and for a key-values
 * option its {@code keys}, each described the same way.
 */
public final class OptionsDescription {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final DefaultPrettyPrinter PRETTY = new DefaultPrettyPrinter(Separators.createDefaultInstance()
            .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
            .withArrayEmptySeparator("")
            .withObjectEmptySeparator(""))
            .withArrayIndenter(DefaultIndenter.SYSTEM_LINEFEED_INSTANCE.withLinefeed("\n"))
            .withObjectIndenter(DefaultIndenter.SYSTEM_LINEFEED_INSTANCE.withLinefeed("\n"));

    private OptionsDescription() {}

    /** The description of {@code options}, with a note {@code about} what they are and how the file is made. */
    public static String json(String about, List<OptionSpec<?>> options) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("about", about);
        doc.put("options", options.stream().map(OptionsDescription::describe).toList());
        try {
            return JSON.writer(PRETTY).writeValueAsString(doc) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the options description", e);
        }
    }

    private static Map<String, Object> describe(OptionSpec<?> spec) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("name", spec.key());
        o.put("type", spec.type());
        if (spec.option().hasDefaultValue()) {
            Object d = spec.option().defaultValue();
            o.put("default", d instanceof Duration duration ? TimeUtils.formatWithHighestUnit(duration) : d);
        }
        if (spec.unit() != null) {
            o.put("unit", spec.unit());
        }
        if (!spec.allowed().isEmpty()) {
            o.put("allowed", spec.allowed());
        }
        switch (spec.bound()) {
            case NONE -> { }
            case NOT_EMPTY -> o.put("minLength", 1);
            case NON_NEGATIVE -> o.put("minimum", 0);
            case POSITIVE -> o.put("exclusiveMinimum", 0);
        }
        o.put("description", spec.description());
        if (!spec.keys().isEmpty()) {
            o.put("keys", spec.keys().stream().map(OptionsDescription::describe).toList());
        }
        return o;
    }
}
