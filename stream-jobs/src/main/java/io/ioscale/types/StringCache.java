package io.ioscale.types;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The identifiers a sample stream repeats every second (run, host, VM, target), decoded to the same String
 * instance again instead of a new one per record.
 *
 * <p>Why: each sample's strings are decoded twice (Avro from Kafka, then the job's own serializer after the
 * keyBy), and each decode would make a String and two byte arrays: by the code path about half the objects a
 * sample allocates on its way in, and the TaskManager's young-GC pauses come as often as its allocations fill the
 * young generation. A direct-mapped table keyed by the UTF-8 bytes:
 * a hit compares the bytes and allocates nothing; a miss (a new name, or two names sharing a slot) decodes and
 * replaces the slot. Not thread-safe: one per reader, or per thread (Utf8).
 */
public final class StringCache {
    /** Slots; a power of two. 16k: every VM of a 10k-source stream keeps its slot most of the time. */
    static final int SLOTS = 1 << 14;
    /** Longer strings are not cached (identifiers are short; this bounds what a slot keeps alive). */
    static final int MAX_CACHED_BYTES = 256;

    private final byte[][] keys = new byte[SLOTS][];
    private final String[] values = new String[SLOTS];

    /** The string of UTF-8 bytes {@code bytes[0, length)}. */
    public String get(byte[] bytes, int length) {
        if (length > MAX_CACHED_BYTES) {
            return new String(bytes, 0, length, StandardCharsets.UTF_8);
        }
        int slot = hash(bytes, length) & (SLOTS - 1);
        byte[] key = keys[slot];
        if (key != null && Arrays.equals(key, 0, key.length, bytes, 0, length)) {
            return values[slot];
        }
        String s = new String(bytes, 0, length, StandardCharsets.UTF_8);
        keys[slot] = Arrays.copyOf(bytes, length);
        values[slot] = s;
        return s;
    }

    private static int hash(byte[] bytes, int length) {
        int h = length;
        for (int i = 0; i < length; i++) {
            h = 31 * h + bytes[i];
        }
        return h ^ (h >>> 16);
    }
}
