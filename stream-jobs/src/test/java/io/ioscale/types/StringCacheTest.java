package io.ioscale.types;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** The same bytes give the same String instance; different bytes never give a wrong one. */
class StringCacheTest {

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aRepeatedIdentifierIsTheSameInstance() {
        StringCache cache = new StringCache();
        byte[] buf = new byte[64];
        byte[] vm = utf8("vm-h1-0042");
        System.arraycopy(vm, 0, buf, 0, vm.length);
        String first = cache.get(buf, vm.length);
        buf[0] = 'x'; // the caller's buffer is reused: the cache must have kept its own copy
        System.arraycopy(vm, 0, buf, 0, vm.length);
        assertThat(first).isEqualTo("vm-h1-0042");
        assertThat(cache.get(buf, vm.length)).isSameAs(first);
        assertThat(cache.get(buf, vm.length - 1)).isEqualTo("vm-h1-004"); // a prefix is another string
    }

    @Test
    void everyLookupIsRightWhateverSharesASlot() {
        StringCache cache = new StringCache();
        // Far more names than slots: slots are shared and replaced, and every answer must still be right.
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 3 * StringCache.SLOTS; i++) {
                String name = "host-" + (i % 7) + "/vm-" + i;
                byte[] b = utf8(name);
                assertThat(cache.get(b, b.length)).isEqualTo(name);
            }
        }
        String nonAscii = "Laufwerk-Ä/µs";
        byte[] b = utf8(nonAscii);
        assertThat(cache.get(b, b.length)).isEqualTo(nonAscii);
        String longName = "x".repeat(StringCache.MAX_CACHED_BYTES + 1);
        byte[] l = utf8(longName);
        assertThat(cache.get(l, l.length)).isEqualTo(longName).isNotSameAs(cache.get(l, l.length));
    }

    @Test
    void theSerializersStringsRoundTripAsciiAndNot() throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(16);
        for (String s : new String[] {"", "run-1", "PhysicalDrive1", "Intel 82598 #2", "Ä-µ-日本", "y".repeat(600)}) {
            out.clear();
            Utf8.write(s, out);
            DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
            assertThat(in.readInt()).isEqualTo(utf8(s).length); // the wire format: byte length, then UTF-8
            in = new DataInputDeserializer(out.getCopyOfBuffer());
            assertThat(Utf8.read(in)).isEqualTo(s);
        }
    }
}
