package io.ioscale.monitor;

import io.ioscale.avro.WireFrame;
import org.apache.flink.api.java.functions.KeySelector;

/**
 * Keys frames by schema id; all bad headers share {@link #BAD_HEADER}, which no int32 schema id can equal,
 * so they are counted in a row of their own.
 */
public class FrameKey implements KeySelector<WireFrame, Long> {

    public static final long BAD_HEADER = Long.MIN_VALUE;

    @Override
    public Long getKey(WireFrame frame) {
        return frame.headerValid() ? (long) frame.schemaId() : BAD_HEADER;
    }
}
