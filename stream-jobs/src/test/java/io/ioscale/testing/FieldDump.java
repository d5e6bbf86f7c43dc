package io.ioscale.testing;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every non-transient instance field of a record, recursively (lists, arrays, nested records), as one string: two
 * decoded records with the same dump hold the same values. For records without equals (RunEvent, CpuSample,
 * PortSample).
 */
public final class FieldDump {
    private static final Map<Class<?>, List<Field>> FIELDS = new ConcurrentHashMap<>();

    private FieldDump() {}

    public static String of(Object o) {
        StringBuilder b = new StringBuilder();
        append(b, o);
        return b.toString();
    }

    private static void append(StringBuilder b, Object o) {
        if (o == null || o instanceof String || o instanceof Number || o instanceof Boolean || o instanceof Enum<?>) {
            b.append(o);
        } else if (o instanceof int[] a) {
            b.append(Arrays.toString(a));
        } else if (o instanceof long[] a) {
            b.append(Arrays.toString(a));
        } else if (o instanceof double[] a) {
            b.append(Arrays.toString(a));
        } else if (o instanceof byte[] a) {
            b.append(Arrays.toString(a));
        } else if (o instanceof Collection<?> c) {
            b.append('[');
            for (Object e : c) {
                append(b, e);
                b.append(',');
            }
            b.append(']');
        } else {
            b.append(o.getClass().getSimpleName()).append('{');
            for (Field f : fields(o.getClass())) {
                b.append(f.getName()).append('=');
                try {
                    append(b, f.get(o));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
                b.append(',');
            }
            b.append('}');
        }
    }

    private static List<Field> fields(Class<?> c) {
        return FIELDS.computeIfAbsent(c, k -> {
            List<Field> out = new ArrayList<>();
            for (Class<?> t = k; t != null && t != Object.class; t = t.getSuperclass()) {
                for (Field f : t.getDeclaredFields()) {
                    if (!Modifier.isStatic(f.getModifiers()) && !Modifier.isTransient(f.getModifiers())) {
                        f.setAccessible(true);
                        out.add(f);
                    }
                }
            }
            return out;
        });
    }
}
