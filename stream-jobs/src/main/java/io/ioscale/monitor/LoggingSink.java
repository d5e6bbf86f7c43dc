package io.ioscale.monitor;

import java.util.function.Function;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.util.function.SerializableFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sink v2 that writes one INFO line per element to the TaskManager log (the log the Flink UI shows).
 * A stand-in until the analytics jobs write to ClickHouse.
 */
public class LoggingSink<T> implements Sink<T> {

    private static final Logger LOG = LoggerFactory.getLogger(LoggingSink.class);

    private final String prefix;
    private final SerializableFunction<T, String> format;

    public LoggingSink(String prefix, SerializableFunction<T, String> format) {
        this.prefix = prefix;
        this.format = format;
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) {
        return new Writer<>(prefix, format);
    }

    private static final class Writer<T> implements SinkWriter<T> {
        private final String prefix;
        private final Function<T, String> format;

        Writer(String prefix, Function<T, String> format) {
            this.prefix = prefix;
            this.format = format;
        }

        @Override
        public void write(T element, Context context) {
            LOG.info("{} {}", prefix, format.apply(element));
        }

        @Override
        public void flush(boolean endOfInput) {}

        @Override
        public void close() {}
    }
}
