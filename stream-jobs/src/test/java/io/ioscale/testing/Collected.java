package io.ioscale.testing;

import io.ioscale.jobs.AnalyticsJob;
import io.ioscale.records.Decoded;
import io.ioscale.records.ResultRow;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.datagen.functions.FromElementsGeneratorFunction;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/**
 * Everything the MiniCluster tests inject: bounded sources over fixed lists (one split, in list order) and sinks
 * that collect into one static queue (the MiniCluster runs in the test JVM; sink instances are serialized).
 */
public final class Collected {
    public static final ConcurrentLinkedQueue<Object> ALL = new ConcurrentLinkedQueue<>();

    private Collected() {}

    /** One task manager with two slots: what the job tests run on. */
    public static MiniClusterExtension miniCluster() {
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(2)
                .build());
    }

    public static void clear() {
        ALL.clear();
    }

    public static <T> List<T> of(Class<T> type) {
        List<T> out = new ArrayList<>();
        for (Object o : ALL) {
            if (type.isInstance(o)) {
                out.add(type.cast(o));
            }
        }
        return out;
    }

    /** A bounded source emitting {@code elements} in order. */
    public static <T> DataGeneratorSource<Decoded<T>> source(TypeInformation<Decoded<T>> type, List<Decoded<T>> elements) {
        return new DataGeneratorSource<>(new FromElementsGeneratorFunction<>(type, new ExecutionConfig(), elements),
                elements.size(), type);
    }

    public static AnalyticsJob.Sinks sinks() {
        return new AnalyticsJob.Sinks(new RowSinks(), new CollectSink<>(), new CollectSink<>());
    }

    static final class RowSinks implements AnalyticsJob.RowSinks {
        private static final long serialVersionUID = 1L;

        @Override
        public <T extends ResultRow> Sink<T> create(String name) {
            return new CollectSink<>();
        }
    }

    public static final class CollectSink<T> implements Sink<T> {
        private static final long serialVersionUID = 1L;

        @Override
        public SinkWriter<T> createWriter(WriterInitContext context) {
            return new SinkWriter<>() {
                @Override
                public void write(T element, Context ctx) {
                    ALL.add(element);
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }
}
