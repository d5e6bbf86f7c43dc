package io.ioscale.avro;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.util.Utf8;

/**
 * Avro's binary decoder over one frame's body that refuses every length the body cannot hold, before anything
 * is allocated for it: a string or bytes of n bytes needs n bytes left, an array or map block of n items needs n
 * bytes left (every item of an array or map takes at least one byte: a map's key is a string, and no schema the
 * jobs read has arrays of null or of empty records), a negative length is refused, and so is a negative block
 * count whose byte size is not within the frame. Ints and enum and union indexes are read as longs and range-checked
 * (see {@link #readInt}); the rest is BinaryDecoder's.
 *
 * <p>Why it is hand-written: BinaryDecoder sizes a string's or bytes' buffer from the length it reads, and
 * GenericDatumReader an array from its block count, before reading them, so one corrupt length (600 MB, say)
 * ends in an OutOfMemoryError, not an EOFException: the task fails, restarts from the same offset and meets the
 * same record again, for ever. Avro's own guard, the {@code org.apache.avro.limits.*} system properties
 * (SystemLimitException, Avro 1.11.3+), is one JVM-wide cap per kind, read once when the class loads: it cannot
 * know how many bytes a frame has left, and any cap large enough for the largest valid record still lets every
 * corrupt record allocate that much. Avro has no per-decoder bound, so the length-prefixed reads are done here
 * (length, then {@link Decoder#readFixed}, the same bytes BinaryDecoder would read).
 *
 * <p>Errors are {@link IOException}s naming the length and the bytes left: the caller dead-letters the record.
 * Not thread-safe; reuse one per decoder with {@link #configure}.
 */
final class FrameDecoder extends Decoder {
    private BinaryDecoder in;
    private final Utf8 scratch = new Utf8();
    private final byte[] oneByte = new byte[1];
    private long lastIndex = -1;
    private boolean nullFirstUnions;

    /** Decodes {@code length} bytes of {@code bytes} from {@code offset}, unions strictly; returns this. */
    FrameDecoder configure(byte[] bytes, int offset, int length) {
        return configure(bytes, offset, length, false);
    }

    /**
     * As {@link #configure(byte[], int, int)}; {@code nullFirstUnions} when every union of the writer schema is
     * {@code ["null", X]}: see {@link #readIndex}.
     */
    FrameDecoder configure(byte[] bytes, int offset, int length, boolean nullFirstUnions) {
        in = DecoderFactory.get().binaryDecoder(bytes, offset, length, in);
        lastIndex = -1;
        this.nullFirstUnions = nullFirstUnions;
        return this;
    }

    /** Bytes of the frame not read yet (BinaryDecoder over an array buffers the whole array: its end). */
    int remaining() throws IOException {
        return in.inputStream().available();
    }

    boolean isEnd() throws IOException {
        return in.isEnd();
    }

    /** A string's or bytes' length, checked against the bytes left. */
    private int length(String what) throws IOException {
        long n = in.readLong();
        int left = remaining();
        if (n < 0 || n > left) {
            throw new IOException(what + " length " + n + (n < 0 ? " is negative" : " is more than the " + left
                    + " bytes left in the frame"));
        }
        return (int) n;
    }

    /**
     * The item count of the next array or map block (0 at the end), checked against the bytes left. A negative
     * count is Avro's "-count, then the block's size in bytes" form.
     */
    private long blockCount(String what) throws IOException {
        long count = in.readLong();
        if (count < 0) {
            long size = in.readLong();
            int left = remaining();
            if (count == Long.MIN_VALUE || size < 0 || size > left) {
                throw new IOException(what + " block of " + count + " items and " + size + " bytes does not fit the "
                        + left + " bytes left in the frame");
            }
            count = -count;
        }
        return fitting(what, count);
    }

    /** {@code count} items, each at least one byte, checked against the bytes left. */
    private long fitting(String what, long count) throws IOException {
        int left = remaining();
        if (count > left) {
            throw new IOException(what + " block of " + count + " items is more than the " + left
                    + " bytes left in the frame");
        }
        return count;
    }

    @Override
    public Utf8 readString(Utf8 old) throws IOException {
        int n = length("string");
        Utf8 s = old != null ? old : new Utf8();
        s.setByteLength(n);
        in.readFixed(s.getBytes(), 0, n);
        return s;
    }

    @Override
    public String readString() throws IOException {
        return readString(scratch).toString();
    }

    @Override
    public void skipString() throws IOException {
        in.skipFixed(length("string"));
    }

    @Override
    public ByteBuffer readBytes(ByteBuffer old) throws IOException {
        int n = length("bytes");
        ByteBuffer b;
        if (old != null && old.hasArray() && !old.isReadOnly() && n <= old.capacity()) {
            b = old;
            b.clear();
        } else {
            b = ByteBuffer.allocate(n);
        }
        in.readFixed(b.array(), b.arrayOffset() + b.position(), n);
        b.limit(n);
        return b;
    }

    @Override
    public void skipBytes() throws IOException {
        in.skipFixed(length("bytes"));
    }

    @Override
    public long readArrayStart() throws IOException {
        return blockCount("array");
    }

    @Override
    public long arrayNext() throws IOException {
        return blockCount("array");
    }

    @Override
    public long readMapStart() throws IOException {
        return blockCount("map");
    }

    @Override
    public long mapNext() throws IOException {
        return blockCount("map");
    }

    /** Blocks with a byte size are skipped whole; returns the item count of the first block without one (0 = end). */
    @Override
    public long skipArray() throws IOException {
        return skipBlocks("array");
    }

    @Override
    public long skipMap() throws IOException {
        return skipBlocks("map");
    }

    private long skipBlocks(String what) throws IOException {
        for (;;) {
            long count = in.readLong();
            if (count >= 0) {
                return fitting(what, count);
            }
            long size = in.readLong();
            int left = remaining();
            if (size < 0 || size > left) {
                throw new IOException(what + " block of " + size + " bytes does not fit the " + left
                        + " bytes left in the frame");
            }
            in.skipFixed((int) size);
        }
    }

    @Override
    public void readNull() throws IOException {
        in.readNull();
    }

    /**
     * The spec writes a boolean as one byte, 0 or 1. BinaryDecoder reads any other byte as false; ClickHouse's
     * decoder, on the raw path, refuses it: refused here too, so that both paths reject the same frames.
     */
    @Override
    public boolean readBoolean() throws IOException {
        in.readFixed(oneByte, 0, 1);
        return switch (oneByte[0]) {
            case 0 -> false;
            case 1 -> true;
            default -> throw new IOException("boolean byte " + (oneByte[0] & 0xff) + " is neither 0 nor 1");
        };
    }

    /**
     * An int's varint may take more than the 5 bytes BinaryDecoder allows (as a long's may): read as a long and
     * refused only when the value does not fit an int. That is the rule of avro-cpp, which ClickHouse's raw path
     * reads with, so both paths accept and refuse the same ints.
     */
    @Override
    public int readInt() throws IOException {
        return intValue("int", in.readLong());
    }

    private static int intValue(String what, long v) throws IOException {
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new IOException(what + " value " + v + " is out of range for an Avro int");
        }
        return (int) v;
    }

    @Override
    public long readLong() throws IOException {
        return in.readLong();
    }

    @Override
    public float readFloat() throws IOException {
        return in.readFloat();
    }

    @Override
    public double readDouble() throws IOException {
        return in.readDouble();
    }

    @Override
    public void readFixed(byte[] bytes, int start, int length) throws IOException {
        in.readFixed(bytes, start, length);
    }

    @Override
    public void skipFixed(int length) throws IOException {
        in.skipFixed(length);
    }

    @Override
    public int readEnum() throws IOException {
        return intValue("enum index", in.readLong());
    }

    /**
     * A union's branch index. Where every union of the writer schema is {@code ["null", X]}, ClickHouse's rule:
     * its Avro reader maps such a union to Nullable(X) and reads every index but X's as NULL, so an index that is
     * not a branch reads as null here too and both paths store the same record. Otherwise an index past the
     * union's branches is refused (named by {@link #lastIndex}).
     */
    @Override
    public int readIndex() throws IOException {
        long v = in.readLong();
        lastIndex = v;
        if (nullFirstUnions) {
            return v == 1 ? 1 : 0;
        }
        if (v < 0 || v > Integer.MAX_VALUE) {
            throw new IOException("union branch index " + v + " is out of range");
        }
        return (int) v;
    }

    /**
     * The last union branch index read. Avro's resolver refuses an index past the union's branches with a bare
     * ArrayIndexOutOfBoundsException (its message and stack are dropped once the JIT makes it a fast throw); the
     * caller names the index with this.
     */
    long lastIndex() {
        return lastIndex;
    }
}
