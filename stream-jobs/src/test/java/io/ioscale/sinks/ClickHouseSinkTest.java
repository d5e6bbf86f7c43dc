package io.ioscale.sinks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ioscale.records.AlertRow;
import io.ioscale.records.ResultRow;
import io.ioscale.records.RowFormat;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.streaming.runtime.tasks.TestProcessingTimeService;
import org.junit.jupiter.api.Test;

/** Batching, flush on checkpoint, the processing-time tick and retries, against a fake ClickHouse. */
class ClickHouseSinkTest {

    /** Records every insert; fails the first {@code failures} calls. */
    static final class FakeInserter implements Inserter {
        final List<String> tables = new ArrayList<>();
        final List<byte[]> bodies = new ArrayList<>();
        final List<byte[]> headers = new ArrayList<>();
        final List<Integer> rows = new ArrayList<>();
        int failures;
        int calls;
        boolean closed;

        @Override
        public void insert(String table, byte[] header, byte[] body, int length, int n) throws IOException {
            calls++;
            if (failures > 0) {
                failures--;
                throw new IOException("connection refused");
            }
            tables.add(table);
            headers.add(header);
            bodies.add(java.util.Arrays.copyOf(body, length));
            rows.add(n);
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** A row of a given table. */
    record Row(String table, int n) implements ResultRow {
        @Override
        public void write(RowFormat out) {
            out.beginRow().uint16("n", n).endRow();
        }
    }

    private final FakeInserter fake = new FakeInserter();

    private static ClickHouseConfig config(int batchRows, int attempts) {
        return new ClickHouseConfig("http://127.0.0.1:1", "ioscale", "u", "p", batchRows, 1 << 20,
                Duration.ofMillis(500), attempts);
    }

    private static ClickHouseSink.Writer<ResultRow> writer(FakeInserter fake, ClickHouseConfig cfg,
                                                           TestProcessingTimeService time) {
        // Runnable::run: the inserts run in the calling thread, so these tests see them at once.
        return new ClickHouseSink.Writer<>(cfg, fake, time, new SimpleCounter(), new SimpleCounter(), Runnable::run,
                null);
    }

    private static TestProcessingTimeService clockAtZero() throws Exception {
        TestProcessingTimeService time = new TestProcessingTimeService();
        time.setCurrentTime(0);
        return time;
    }

    /** A writer with its own sender thread, as in a job. */
    private static ClickHouseSink.Writer<ResultRow> asyncWriter(Inserter inserter, ClickHouseConfig cfg,
                                                                TestProcessingTimeService time) {
        ExecutorService sender = Executors.newSingleThreadExecutor();
        return new ClickHouseSink.Writer<>(cfg, inserter, time, new SimpleCounter(), new SimpleCounter(), sender,
                sender);
    }

    /** Inserts that wait for {@link #release} before they return (a slow ClickHouse). */
    static final class BlockingInserter implements Inserter {
        final FakeInserter fake = new FakeInserter();
        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch started = new CountDownLatch(1);
        final List<String> threads = new CopyOnWriteArrayList<>();

        @Override
        public void insert(String table, byte[] header, byte[] body, int length, int n) throws IOException {
            threads.add(Thread.currentThread().getName());
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
            synchronized (fake) {
                fake.insert(table, header, body, length, n);
            }
        }

        @Override
        public void close() {
            fake.close();
        }
    }

    @Test
    void buffersPerTableAndInsertsWhenTheBatchIsFull() throws Exception {
        ClickHouseSink.Writer<ResultRow> w = writer(fake, config(3, 1), new TestProcessingTimeService());
        w.write(new Row("a", 1), null);
        w.write(new Row("b", 2), null);
        assertThat(fake.calls).isZero();
        w.write(new Row("a", 3), null);
        assertThat(fake.tables).containsExactly("a", "b");
        // RowBinary: two little-endian UInt16 rows, then one; the header names the column and its type.
        assertThat(fake.bodies).containsExactly(new byte[] {1, 0, 3, 0}, new byte[] {2, 0});
        assertThat(fake.headers.get(0)).isEqualTo(new byte[] {1, 1, 'n', 6, 'U', 'I', 'n', 't', '1', '6'});
        assertThat(fake.rows).containsExactly(2, 1);
        w.write(new Row("a", 4), null);
        assertThat(fake.calls).isEqualTo(2); // buffers were emptied
    }

    @Test
    void flushOnCheckpointInsertsEverythingBuffered() throws Exception {
        ClickHouseSink.Writer<ResultRow> w = writer(fake, config(1000, 1), new TestProcessingTimeService());
        w.write(new Row("a", 1), null);
        w.flush(false); // what Flink calls before the checkpoint barrier passes the sink
        assertThat(fake.rows).containsExactly(1);
        w.flush(false);
        assertThat(fake.calls).isEqualTo(1); // nothing buffered: no empty insert
        w.close();
        assertThat(fake.closed).isTrue();
    }

    @Test
    void aBurstIsSentOnceItEndsSoLiveRowsDoNotWaitForACheckpoint() throws Exception {
        TestProcessingTimeService time = clockAtZero();
        ClickHouseSink.Writer<ResultRow> w = writer(fake, config(1000, 1), time);
        w.write(new Row("a", 1), null);
        w.write(new Row("a", 2), null);
        time.setCurrentTime(ClickHouseSink.IDLE_MS - 1);
        assertThat(fake.calls).isZero();
        time.setCurrentTime(ClickHouseSink.IDLE_MS + 1); // no row for IDLE_MS: the burst is over, one insert
        assertThat(fake.rows).containsExactly(2);
        w.write(new Row("a", 3), null);
        time.setCurrentTime(1000); // the tick re-arms itself
        assertThat(fake.rows).containsExactly(2, 1);
    }

    @Test
    void aSteadyStreamIsSentAtLeastEveryFlushInterval() throws Exception {
        TestProcessingTimeService time = clockAtZero();
        ClickHouseSink.Writer<ResultRow> w = writer(fake, config(1000, 1), time); // flush interval 500 ms
        for (long t = 0; t < 500; t += 10) { // a row every 10 ms: never idle for IDLE_MS
            time.setCurrentTime(t);
            w.write(new Row("a", 1), null);
        }
        assertThat(fake.calls).isZero();
        time.setCurrentTime(500); // the oldest row has waited the flush interval
        assertThat(fake.rows).containsExactly(50);
    }

    @Test
    void retriesThenFailsTheTaskKeepingTheRows() throws Exception {
        fake.failures = 1;
        ClickHouseSink.Writer<ResultRow> w = writer(fake, config(1000, 2), new TestProcessingTimeService());
        w.write(new Row("a", 1), null);
        w.flush(false); // first attempt fails, the retry (after 1 s) succeeds
        assertThat(fake.calls).isEqualTo(2);
        assertThat(fake.rows).containsExactly(1);

        FakeInserter down = new FakeInserter();
        down.failures = Integer.MAX_VALUE;
        ClickHouseSink.Writer<ResultRow> w2 = writer(down, config(1000, 1), new TestProcessingTimeService());
        w2.write(new AlertRow(), null);
        assertThatThrownBy(() -> w2.flush(false)).isInstanceOf(IOException.class)
                .hasMessageContaining("giving up on 1 rows for alerts after 1 attempts");
    }

    @Test
    void theTaskGoesOnWhileAnInsertRunsAndACheckpointWaitsForIt() throws Exception {
        BlockingInserter slow = new BlockingInserter();
        TestProcessingTimeService time = clockAtZero();
        ClickHouseSink.Writer<ResultRow> w = asyncWriter(slow, config(2, 1), time);
        w.write(new Row("a", 1), null);
        w.write(new Row("a", 2), null); // full batch: handed to the sender, which blocks in the insert
        assertThat(slow.started.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(slow.threads).noneMatch(name -> name.equals(Thread.currentThread().getName()));
        // Meanwhile the task writes on, and the tick keeps the new row back (the table's insert still runs).
        w.write(new Row("a", 3), null);
        time.setCurrentTime(500);
        assertThat(slow.fake.calls).isZero();
        // The checkpoint's flush returns only when every row is in: both batches, in order.
        CompletableFuture<Void> checkpoint = CompletableFuture.runAsync(() -> {
            try {
                w.flush(false);
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        Thread.sleep(100);
        assertThat(checkpoint).isNotDone();
        slow.release.countDown();
        checkpoint.get(5, TimeUnit.SECONDS);
        assertThat(slow.fake.bodies).containsExactly(new byte[] {1, 0, 2, 0}, new byte[] {3, 0});
        w.close();
        assertThat(slow.fake.closed).isTrue();
    }

    @Test
    void aFailedInsertFailsTheWritersNextCall() throws Exception {
        FakeInserter down = new FakeInserter();
        down.failures = Integer.MAX_VALUE;
        TestProcessingTimeService time = clockAtZero();
        ClickHouseSink.Writer<ResultRow> w = asyncWriter(down, config(1000, 1), time);
        w.write(new Row("a", 1), null);
        time.setCurrentTime(500); // the tick hands it off; the insert fails in the sender
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (down.calls == 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        Thread.sleep(50);
        assertThatThrownBy(() -> w.write(new Row("a", 2), null)).isInstanceOf(IOException.class)
                .hasMessageContaining("giving up on 1 rows for a after 1 attempts");
        assertThatThrownBy(() -> w.flush(false)).isInstanceOf(IOException.class);
        w.close();
    }

    @Test
    void tablesAreInsertedInTheOrderTheirBatchesWereHandedOff() throws Exception {
        ClickHouseSink.Writer<ResultRow> w = asyncWriter(fake, config(1, 1), new TestProcessingTimeService());
        for (int i = 0; i < 50; i++) {
            w.write(new Row(i % 2 == 0 ? "a" : "b", i), null); // each row is a full batch
        }
        w.flush(true);
        assertThat(fake.tables).hasSize(50);
        for (int i = 0; i < 50; i++) {
            assertThat(fake.tables.get(i)).isEqualTo(i % 2 == 0 ? "a" : "b");
            assertThat(fake.bodies.get(i)).isEqualTo(new byte[] {(byte) i, 0});
        }
        w.close();
    }

    @Test
    void configNeverPrintsThePassword() {
        assertThat(config(1, 1).toString()).doesNotContain("p]").contains("user=u");
    }
}
