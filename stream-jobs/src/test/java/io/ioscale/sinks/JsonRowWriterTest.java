package io.ioscale.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonRowWriterTest {

    @Test
    void writesClickHouseFriendlyValues() {
        JsonRowWriter w = new JsonRowWriter();
        w.beginRow()
                .string("s", "a\"b\\c\nd é")
                .int64("l", -5L)
                .float64("d", 2.5)
                .nullableFloat64("nan", Double.NaN)
                .float64("inf", Double.POSITIVE_INFINITY)
                .bool("b", true)
                .dateTime64("t", 1_700_000_000_123L)
                .dateTime64("epoch", 0)
                .arrayUInt16("i", new int[] {1, 2})
                .arrayUInt64("c", new long[] {})
                .arrayString("sa", new String[] {"x", "y\"z"})
                .arrayNullableFloat64("da", new double[] {1.5, Double.NaN})
                .endRow();
        assertThat(w.toString()).isEqualTo("{\"s\":\"a\\\"b\\\\c\\u000ad é\",\"l\":-5,\"d\":2.5,\"nan\":null,\"inf\":null,"
                + "\"b\":true,\"t\":\"2023-11-14 22:13:20.123\",\"epoch\":\"1970-01-01 00:00:00.000\",\"i\":[1,2],"
                + "\"c\":[],\"sa\":[\"x\",\"y\\\"z\"],\"da\":[1.5,null]}\n");
    }

    @Test
    void bytesPassThroughUnchangedExceptTheJsonEscapes() {
        JsonRowWriter w = new JsonRowWriter();
        w.beginRow().bytes("raw", new byte[] {0, (byte) 0xff, 'a', '"', (byte) 0x80}).endRow();
        byte[] out = w.toByteArray();
        byte[] expected = "{\"raw\":\"\\u0000\u00ffa\\\"\u0080\"}\n".getBytes(StandardCharsets.ISO_8859_1);
        assertThat(out).isEqualTo(expected);
    }

    @Test
    void resetReusesTheBufferAndRowsConcatenate() {
        JsonRowWriter w = new JsonRowWriter();
        for (int i = 0; i < 3; i++) {
            w.beginRow().int32("i", i).string("long", "x".repeat(2000)).uint64("big", Long.MAX_VALUE).endRow();
        }
        assertThat(w.toString().split("\n")).hasSize(3);
        w.reset();
        assertThat(w.length()).isZero();
        w.beginRow().uint32("a", 1).endRow();
        assertThat(w.toString()).isEqualTo("{\"a\":1}\n");
    }

    @Test
    void nullableUInt64WritesTheNumberOrNull() {
        JsonRowWriter w = new JsonRowWriter();
        w.beginRow().nullableUInt64("a", 35_600_000, false).nullableUInt64("b", 35_600_000, true).endRow();
        assertThat(w.toString()).isEqualTo("{\"a\":35600000,\"b\":null}\n");
    }
}
