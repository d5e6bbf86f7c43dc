package io.ioscale.config;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.util.ParameterTool;

/**
 * The one parser of the jobs' program arguments: {@code --key value} pairs split by Flink's {@link ParameterTool},
 * each value parsed by its {@link ConfigOption} (type, default) and checked against its {@link OptionSpec} (bound,
 * allowed values). Unknown keys are rejected with the list of known ones, and every error names the key, so a
 * typo never silently falls back to a default.
 *
 * <p>The nested options ({@code --saturation key=value,...}) go through the same path: the list is split into
 * pairs here (ParameterTool reads only {@code --key value}), then each value is parsed by its own option. Only
 * {@code auto} in an integer ({@link #intOrAuto}) is read here: Flink's integer options do not take a word.
 */
final class ProgramArguments {
    /** Null for the program arguments; else the key-values option whose list this is. */
    private final String group;
    private final Map<String, OptionSpec<?>> specs = new LinkedHashMap<>();
    private final Map<String, String> given;
    private final Configuration conf;

    private ProgramArguments(String group, List<OptionSpec<?>> known, Map<String, String> given) {
        this.group = group;
        known.forEach(s -> specs.put(s.key(), s));
        this.given = given;
        for (String key : given.keySet()) {
            if (!specs.containsKey(key)) {
                TreeSet<String> names = new TreeSet<>(specs.keySet());
                throw new IllegalArgumentException(group == null
                        ? "unknown argument --" + key + "; known: --" + String.join(", --", names)
                        : "unknown " + group + " setting '" + key + "'; known: " + String.join(", ", names));
            }
        }
        this.conf = Configuration.fromMap(given);
    }

    /** {@code --key value} program arguments, of the options {@code known}. */
    static ProgramArguments parse(String[] args, List<OptionSpec<?>> known) {
        return new ProgramArguments(null, known, ParameterTool.fromArgs(args).toMap());
    }

    /** The {@code key=value,...} list of a key-values option ({@code "a=1, b=auto"}), of the keys it declares. */
    ProgramArguments nested(OptionSpec<String> spec) {
        Map<String, String> pairs = new LinkedHashMap<>();
        for (String part : get(spec.option()).split(",")) {
            if (part.isBlank()) {
                continue;
            }
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(name(spec.key()) + ": '" + part.trim() + "' is not key=value");
            }
            pairs.put(part.substring(0, eq).trim(), part.substring(eq + 1).trim());
        }
        return new ProgramArguments(spec.key(), spec.keys(), pairs);
    }

    /** The value of {@code option}: parsed, checked, a string trimmed (an allowed value as declared). */
    @SuppressWarnings("unchecked")
    <T> T get(ConfigOption<T> option) {
        OptionSpec<?> spec = spec(option);
        T value;
        try {
            value = conf.get(option);
        } catch (RuntimeException e) { // Flink's parse errors do not always name the key
            throw new IllegalArgumentException(name(option.key()) + " must be " + expected(spec.type()) + ", got '"
                    + given.get(option.key()) + "'", e);
        }
        if (value instanceof String s) {
            value = (T) allowed(spec, s.trim());
        } else if (value instanceof Double d && !Double.isFinite(d)) {
            throw new IllegalArgumentException(name(option.key()) + " must be a finite number, got '"
                    + given.get(option.key()) + "'");
        }
        check(spec, value);
        return value;
    }

    /** The text of a string option without a default, if given, exactly as given (a password is not trimmed). */
    Optional<String> optional(ConfigOption<String> option) {
        spec(option);
        return Optional.ofNullable(given.get(option.key()));
    }

    /** An integer option that also takes {@code auto} (case-insensitive), which reads as {@code autoValue}. */
    int intOrAuto(ConfigOption<String> option, int autoValue) {
        String text = get(option);
        if (text.equalsIgnoreCase("auto")) {
            return autoValue;
        }
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name(option.key()) + " must be " + expected("integer-or-auto")
                    + ", got '" + text + "'", e);
        }
    }

    /** How errors name a key: {@code --key}, or {@code saturation setting 'key'} inside a key-values option. */
    String name(String key) {
        return group == null ? "--" + key : group + " setting '" + key + "'";
    }

    private OptionSpec<?> spec(ConfigOption<?> option) {
        OptionSpec<?> spec = specs.get(option.key());
        if (spec == null || !spec.option().equals(option)) {
            throw new IllegalStateException("option " + option.key() + " is not among this job's options");
        }
        return spec;
    }

    private String allowed(OptionSpec<?> spec, String value) {
        if (spec.allowed().isEmpty()) {
            return value;
        }
        for (String a : spec.allowed()) {
            if (a.equalsIgnoreCase(value)) {
                return a;
            }
        }
        throw new IllegalArgumentException(name(spec.key()) + " must be one of " + String.join(", ", spec.allowed())
                + ", got '" + value + "'");
    }

    private void check(OptionSpec<?> spec, Object value) {
        String name = name(spec.key());
        switch (spec.bound()) {
            case NONE -> { }
            case NOT_EMPTY -> {
                if (value == null || value.toString().isBlank()) {
                    throw new IllegalArgumentException(name + " must not be empty");
                }
            }
            case NON_NEGATIVE -> {
                if (value instanceof Duration d ? d.isNegative() : ((Number) value).doubleValue() < 0) {
                    throw new IllegalArgumentException(name + " must be " + (value instanceof Duration
                            ? "a duration >= 0" : ">= 0") + ", got " + value);
                }
            }
            case POSITIVE -> {
                if (value instanceof Duration d ? d.isNegative() || d.isZero() : ((Number) value).doubleValue() <= 0) {
                    throw new IllegalArgumentException(name + " must be " + (value instanceof Duration
                            ? "a positive duration" : "> 0") + ", got " + value);
                }
            }
        }
    }

    private static String expected(String type) {
        return switch (type.toLowerCase(Locale.ROOT)) {
            case "integer" -> "an integer";
            case "number" -> "a finite number";
            case "duration" -> "a duration such as 500 ms, 10 s or 2 min";
            case "integer-or-auto" -> "an integer or 'auto'";
            default -> "a " + type;
        };
    }
}
