package io.ioscale.monitor;

import io.ioscale.avro.WireFrame;
import org.apache.flink.api.common.functions.MapFunction;

/** Raw Kafka record value to {@link WireFrame}; bad headers pass through, flagged. */
public class ParseWireFrame implements MapFunction<byte[], WireFrame> {

    @Override
    public WireFrame map(byte[] value) {
        return WireFrame.parse(value);
    }
}
