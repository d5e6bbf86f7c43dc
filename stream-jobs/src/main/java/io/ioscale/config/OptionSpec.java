package io.ioscale.config;

import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.description.BlockElement;
import org.apache.flink.configuration.description.TextElement;

/**
 * One option of a job: Flink's {@link ConfigOption} (key, default, description, how its text parses) and what
 * {@link ProgramArguments} checks beyond the type, with what the options description file lists besides. The one
 * place each of these rules is written: the parser and the description file ({@link OptionsDescription}) both
 * read it.
 *
 * @param option  Flink's option
 * @param type    the value's type as the description file names it: string, integer, number, duration,
 *                integer-or-auto, key-values (a list of {@code key=value}, see {@code keys}) or slo (latency
 *                objectives)
 * @param bound   what the value must be beyond its type
 * @param unit    unit of a number (s, %, rows, ...); null when the value has none or carries its own (durations)
 * @param allowed the only values accepted (case-insensitive); empty: any
 * @param keys    the keys of a key-values option; empty otherwise
 */
public record OptionSpec<T>(ConfigOption<T> option, String type, Bound bound, String unit, List<String> allowed,
                            List<OptionSpec<?>> keys) {

    /** A condition on the value beyond its type. */
    public enum Bound {
        NONE, NOT_EMPTY, NON_NEGATIVE, POSITIVE
    }

    /** An option whose type follows from its default (a string when it has none), no bound, no unit. */
    public static <T> OptionSpec<T> of(ConfigOption<T> option) {
        return new OptionSpec<>(option, typeOf(option), Bound.NONE, null, List.of(), List.of());
    }

    public OptionSpec<T> bound(Bound b) {
        return new OptionSpec<>(option, type, b, unit, allowed, keys);
    }

    public OptionSpec<T> unit(String u) {
        return new OptionSpec<>(option, type, bound, u, allowed, keys);
    }

    public OptionSpec<T> allowed(List<String> values) {
        return new OptionSpec<>(option, type, bound, unit, List.copyOf(values), keys);
    }

    public OptionSpec<T> type(String t) {
        return new OptionSpec<>(option, t, bound, unit, allowed, keys);
    }

    /** A {@code key=value,...} option with these keys. */
    public OptionSpec<T> keys(List<OptionSpec<?>> nested) {
        return new OptionSpec<>(option, "key-values", bound, unit, allowed, List.copyOf(nested));
    }

    public String key() {
        return option.key();
    }

    /** The option's description as plain text (options here are described with plain strings). */
    public String description() {
        StringBuilder out = new StringBuilder();
        for (BlockElement block : option.description().getBlocks()) {
            out.append(((TextElement) block).getFormat());
        }
        return out.toString();
    }

    private static String typeOf(ConfigOption<?> option) {
        Object d = option.hasDefaultValue() ? option.defaultValue() : "";
        if (d instanceof Integer || d instanceof Long) {
            return "integer";
        }
        if (d instanceof Double) {
            return "number";
        }
        if (d instanceof Duration) {
            return "duration";
        }
        if (d instanceof String) {
            return "string";
        }
        throw new IllegalArgumentException("option --" + option.key() + ": no description type for " + d.getClass());
    }
}
