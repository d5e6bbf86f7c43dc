package io.ioscale.avro;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WireFrameTest {

    @Test
    void goodHeaderYieldsBigEndianSchemaIdAndSizes() {
        byte[] value = {0, 0x01, 0x02, 0x03, 0x04, 10, 20, 30};
        WireFrame frame = WireFrame.parse(value);
        assertThat(frame).isEqualTo(new WireFrame(true, 0x01020304, 8));
        assertThat(frame.bodyBytes()).isEqualTo(3);
    }

    @Test
    void schemaIdBytesAreUnsignedPerByte() {
        // 0x000000ff must read as 255, not as a sign-extended -1.
        assertThat(WireFrame.parse(new byte[] {0, 0, 0, 0, (byte) 0xff}).schemaId()).isEqualTo(255);
        assertThat(WireFrame.parse(new byte[] {0, 0, 0, (byte) 0x80, 0}).schemaId()).isEqualTo(32768);
    }

    @Test
    void headerOnlyValueIsValidWithEmptyBody() {
        WireFrame frame = WireFrame.parse(new byte[] {0, 0, 0, 0, 7});
        assertThat(frame).isEqualTo(new WireFrame(true, 7, 5));
        assertThat(frame.bodyBytes()).isZero();
    }

    @Test
    void shortValueIsBadHeader() {
        assertThat(WireFrame.parse(new byte[] {0, 0, 0, 1})).isEqualTo(new WireFrame(false, 0, 4));
        assertThat(WireFrame.parse(new byte[0])).isEqualTo(new WireFrame(false, 0, 0));
        assertThat(WireFrame.parse(null)).isEqualTo(new WireFrame(false, 0, 0));
    }

    @Test
    void wrongMagicByteIsBadHeader() {
        WireFrame frame = WireFrame.parse(new byte[] {1, 0, 0, 0, 7, 42});
        assertThat(frame).isEqualTo(new WireFrame(false, 0, 6));
        assertThat(frame.bodyBytes()).isZero();
    }
}
