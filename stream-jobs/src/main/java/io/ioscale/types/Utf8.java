package io.ioscale.types;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Strings in the job's own serializers: i32 byte length, then UTF-8. Why not Flink's StringValue: it writes and
 * reads char by char through the view; the identifiers here (run, host, VM, target) are short ASCII, for which
 * {@code getBytes}/{@code new String} are array copies and the view moves them in one call.
 */
final class Utf8 {
    /** Longer than any identifier; bounds the allocation a corrupt length could ask for. */
    private static final int MAX_BYTES = 1 << 20;

    private Utf8() {}

    static void write(String s, DataOutputView out) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    static String read(DataInputView in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > MAX_BYTES) {
            throw new IOException("corrupt string length " + n);
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }
}
