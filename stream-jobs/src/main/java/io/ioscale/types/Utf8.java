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
public final class Utf8 {
    /** Longer than any identifier; bounds the allocation a corrupt length could ask for. */
    private static final int MAX_BYTES = 1 << 20;

    private Utf8() {}

    /** Per thread: serializers are shared by a TaskManager's threads. */
    private static final ThreadLocal<PerThread> PER_THREAD = ThreadLocal.withInitial(PerThread::new);

    /** A thread's scratch bytes and decoded identifiers. */
    private static final class PerThread {
        final StringCache strings = new StringCache();
        private byte[] scratch = new byte[256];

        /** The scratch array, at least {@code n} bytes long. */
        byte[] scratch(int n) {
            if (n > scratch.length) {
                scratch = new byte[Math.max(n, 2 * scratch.length)];
            }
            return scratch;
        }
    }

    public static void write(String s, DataOutputView out) throws IOException {
        int n = s.length();
        byte[] b = PER_THREAD.get().scratch(n);
        for (int i = 0; i < n; i++) { // ASCII (every identifier so far): its bytes, without a new array
            char c = s.charAt(i);
            if (c >= 0x80) {
                byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
                out.writeInt(utf8.length);
                out.write(utf8);
                return;
            }
            b[i] = (byte) c;
        }
        out.writeInt(n);
        out.write(b, 0, n);
    }

    /** The same String instance for the same bytes again, mostly ({@link StringCache}). */
    public static String read(DataInputView in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > MAX_BYTES) {
            throw new IOException("corrupt string length " + n);
        }
        PerThread mine = PER_THREAD.get();
        byte[] b = mine.scratch(n);
        in.readFully(b, 0, n);
        return mine.strings.get(b, n);
    }
}
