package io.ioscale.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ioscale.testing.AvroFrames;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** Lengths are checked against the bytes left in the frame, not the array the frame sits in. */
class FrameDecoderTest {

    /** {@code prefix} bytes the decoder must not see, the body, then bytes after the frame it must not see either. */
    private static FrameDecoder over(byte[] body) {
        byte[] padded = new byte[3 + body.length + 7];
        System.arraycopy(body, 0, padded, 3, body.length);
        return new FrameDecoder().configure(padded, 3, body.length);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** The Avro varints (zig-zag longs) of {@code values}, one after another. */
    private static byte[] varints(long... values) {
        return concat(LongStream.of(values).mapToObj(AvroFrames::varint).toArray(byte[][]::new));
    }

    @Test
    void aBooleanIsZeroOrOneAndNothingElse() throws IOException {
        FrameDecoder d = over(new byte[] {0, 1, 2});
        assertThat(d.readBoolean()).isFalse();
        assertThat(d.readBoolean()).isTrue();
        assertThatThrownBy(d::readBoolean).isInstanceOf(IOException.class)
                .hasMessage("boolean byte 2 is neither 0 nor 1");
        assertThatThrownBy(() -> over(new byte[] {(byte) 0xff}).readBoolean()).isInstanceOf(IOException.class)
                .hasMessage("boolean byte 255 is neither 0 nor 1");
        assertThatThrownBy(() -> over(new byte[0]).readBoolean()).isInstanceOf(IOException.class);
    }

    @Test
    void aUnionIndexIsStrictUnlessEveryUnionIsANullFirstPair() throws IOException {
        byte[] body = varints(1, 2, -1);
        FrameDecoder strict = over(body);
        assertThat(strict.readIndex()).isEqualTo(1);
        assertThat(strict.readIndex()).isEqualTo(2); // the resolver refuses it; lastIndex names it
        assertThat(strict.lastIndex()).isEqualTo(2);
        assertThatThrownBy(strict::readIndex).isInstanceOf(IOException.class)
                .hasMessage("union branch index -1 is out of range");
        byte[] padded = new byte[body.length];
        System.arraycopy(body, 0, padded, 0, body.length);
        FrameDecoder nullFirst = new FrameDecoder().configure(padded, 0, padded.length, true);
        assertThat(nullFirst.readIndex()).isEqualTo(1);
        assertThat(nullFirst.readIndex()).isZero();
        assertThat(nullFirst.readIndex()).isZero();
    }

    @Test
    void aStringMayTakeEveryByteLeftButNotOneMore() throws IOException {
        byte[] abc = "abc".getBytes(StandardCharsets.UTF_8);
        FrameDecoder d = over(concat(AvroFrames.varint(3), abc));
        assertThat(d.remaining()).isEqualTo(4);
        assertThat(d.readString()).isEqualTo("abc");
        assertThat(d.remaining()).isZero();
        assertThat(d.isEnd()).isTrue();
        // 4 bytes asked, 3 left: the 7 bytes after the frame in the same array do not count
        assertThatThrownBy(() -> over(concat(AvroFrames.varint(4), abc)).readString())
                .isInstanceOf(IOException.class).hasMessage("string length 4 is more than the 3 bytes left in the frame");
        assertThatThrownBy(() -> over(concat(AvroFrames.varint(-1), abc)).skipBytes())
                .isInstanceOf(IOException.class).hasMessage("bytes length -1 is negative");
    }

    @Test
    void blockCountsAreBoundedByTheBytesLeft() throws IOException {
        // array of 2 ints (1 byte each), then the closing 0: 4 bytes
        FrameDecoder d = over(varints(2, 5, 6, 0));
        assertThat(d.readArrayStart()).isEqualTo(2);
        assertThat(d.readInt()).isEqualTo(5);
        assertThat(d.readInt()).isEqualTo(6);
        assertThat(d.arrayNext()).isZero();
        assertThatThrownBy(() -> over(varints(3, 5, 6)).readMapStart())
                .isInstanceOf(IOException.class).hasMessage("map block of 3 items is more than the 2 bytes left in the frame");
        // "-count, byte size" form: 2 items in 2 bytes reads; a size past the frame does not
        d = over(varints(-2, 2, 5, 6, 0));
        assertThat(d.readArrayStart()).isEqualTo(2);
        assertThatThrownBy(() -> over(varints(-2, 9, 5)).readArrayStart())
                .isInstanceOf(IOException.class)
                .hasMessage("array block of -2 items and 9 bytes does not fit the 1 bytes left in the frame");
        // skipping: a sized block is skipped whole, the next unsized block's count is returned
        d = over(varints(-2, 2, 5, 6, 1, 7, 0));
        assertThat(d.skipArray()).isEqualTo(1);
        assertThat(d.readInt()).isEqualTo(7);
        assertThat(d.arrayNext()).isZero();
        assertThat(d.isEnd()).isTrue();
    }
}
