package io.ioscale.sinks;

import io.ioscale.records.ResultRow;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sink v2 that writes {@link ResultRow}s to ClickHouse in batches (no Flink ClickHouse connector resolves here;
 * FIELD-NOTES).
 *
 * <h2>Delivery: at least once, made idempotent by the tables</h2>
 * Rows are buffered per table and inserted when a batch is full ({@code batchRows}/{@code batchBytes}), when the
 * table's rows stop coming for {@link #IDLE_MS} or its oldest row has waited {@code flushInterval} (processing
 * time), and on every checkpoint: Flink calls {@link SinkWriter#flush} before
 * the checkpoint barrier passes the sink, and that call returns only when every insert handed off so far has
 * succeeded, so a checkpoint completes only with its rows in ClickHouse. A failure after the last checkpoint
 * replays the input from it, so rows written since are written again. The result tables are ReplacingMergeTree
 * keyed on the row's identity (window or step) with a version (samples merged), so the repeat replaces the row
 * instead of adding to it (read with FINAL, or argMax by version).
 *
 * <h2>Inserts run beside the task, not in it</h2>
 * A batch is handed to one sender thread per writer (so a table's batches arrive in order) and the task goes on with
 * its records and timers. An insert takes 50-150 ms, more when ClickHouse is busy: in the task thread it would hold
 * up every early-fired window and every record behind it. Each table has two buffers: one fills while the other's
 * insert runs. The processing-time tick skips a table whose previous insert is still running (its rows go in the next
 * batch, which grows instead of queueing); a full batch and a checkpoint wait for it (bounded memory, and the
 * checkpoint's guarantee above).
 *
 * <h2>A burst goes as soon as it ends</h2>
 * Rows come in bursts: a second's early-fired windows all at once, every watermark's final rows. A fixed tick
 * would hold a burst until the next one (half a tick on average); the writer checks every {@link #IDLE_MS}
 * and sends a table's rows once none came for that long, so a burst is one insert, sent right after it. A
 * steady stream still goes at least every {@code flushInterval}.
 *
 * <p>An insert is tried {@code attempts} times (1, 2, 4 s apart, in the sender thread); then the failure is
 * raised by the writer's next call, and the task restarts from its checkpoint. Nothing is dropped.
 */
public class ClickHouseSink<T extends ResultRow> implements Sink<T> {
    private static final long serialVersionUID = 1L;
    /** A table whose rows stopped coming this long ago is sent (the end of a burst). */
    static final long IDLE_MS = 20;

    private final ClickHouseConfig config;
    private final Inserter.Factory inserters;

    public ClickHouseSink(ClickHouseConfig config, Inserter.Factory inserters) {
        this.config = config;
        this.inserters = inserters;
    }

    public static <T extends ResultRow> ClickHouseSink<T> http(ClickHouseConfig config) {
        return new ClickHouseSink<>(config, ClickHouseHttpInserter.factory(config));
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) {
        ExecutorService sender = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "clickhouse-sink " + context.getTaskInfo().getTaskNameWithSubtasks());
            t.setDaemon(true);
            return t;
        });
        return new Writer<>(config, inserters.create(), context.getProcessingTimeService(),
                context.metricGroup().counter("rowsInserted"), context.metricGroup().counter("insertRetries"),
                sender, sender);
    }

    /** Buffers rows per table; hands batches to the sender on size, on a processing-time tick and on flush. */
    static final class Writer<T extends ResultRow> implements SinkWriter<T> {
        private static final Logger LOG = LoggerFactory.getLogger(ClickHouseSink.class);

        private final ClickHouseConfig config;
        private final Inserter inserter;
        private final ProcessingTimeService time;
        private final Counter rowsInserted;
        private final Counter retries;
        /** Runs the inserts, one at a time. */
        private final Executor sender;
        /** The sender when this writer owns it (shut down on close); null when given one (tests). */
        private final ExecutorService ownedSender;
        private final Map<String, Table> tables = new LinkedHashMap<>();
        private int bufferedRows;
        private long bufferedBytes;
        /** The first insert that failed for good, raised by the next call. */
        private volatile Throwable failure;
        private boolean closed;

        /**
         * @param sender      runs the inserts; must run them one at a time, in the order given ({@code Runnable::run}
         *                    inserts in the calling thread)
         * @param ownedSender the same executor when the writer shuts it down on close, else null
         */
        Writer(ClickHouseConfig config, Inserter inserter, ProcessingTimeService time, Counter rowsInserted,
               Counter retries, Executor sender, ExecutorService ownedSender) {
            this.config = config;
            this.inserter = inserter;
            this.time = time;
            this.rowsInserted = rowsInserted;
            this.retries = retries;
            this.sender = sender;
            this.ownedSender = ownedSender;
            scheduleTick();
        }

        private void scheduleTick() {
            if (time == null) {
                return;
            }
            long tickMs = Math.min(IDLE_MS, config.flushInterval().toMillis());
            time.registerTimer(time.getCurrentProcessingTime() + tickMs, ts -> {
                if (closed) {
                    return;
                }
                raiseFailure();
                handOff(false);
                scheduleTick();
            });
        }

        @Override
        public void write(T row, Context context) throws IOException {
            raiseFailure();
            Table t = tables.computeIfAbsent(row.table(), name -> new Table());
            long now = time == null ? 0 : time.getCurrentProcessingTime();
            if (t.rows == 0) {
                t.firstRowMs = now;
            }
            t.lastRowMs = now;
            int before = t.filling.length();
            row.write(t.filling);
            t.rows++;
            bufferedRows++;
            bufferedBytes += t.filling.length() - before;
            if (bufferedRows >= config.batchRows() || bufferedBytes >= config.batchBytes()) {
                handOff(true);
            }
        }

        /** Before a checkpoint barrier and at the end of input: returns when every row written is inserted. */
        @Override
        public void flush(boolean endOfInput) throws IOException {
            raiseFailure();
            handOff(true);
            for (Table t : tables.values()) {
                await(t.inFlight);
            }
            raiseFailure();
        }

        /**
         * Hands each table's buffered rows to the sender. {@code wait} (a full batch, a checkpoint): every table,
         * waiting for its previous insert first. Else (the tick): the tables whose rows stopped coming
         * {@link #IDLE_MS} ago or whose oldest row waited {@code flushInterval}, and whose previous insert is done
         * (the others keep their rows for a later tick).
         */
        private void handOff(boolean wait) throws IOException {
            long now = wait || time == null ? 0 : time.getCurrentProcessingTime();
            for (Map.Entry<String, Table> e : tables.entrySet()) {
                Table t = e.getValue();
                if (t.rows == 0) {
                    continue;
                }
                if (!wait && (!t.inFlight.isDone()
                        || (now - t.lastRowMs < IDLE_MS && now - t.firstRowMs < config.flushInterval().toMillis()))) {
                    continue;
                }
                await(t.inFlight); // its buffer is the one to fill next
                raiseFailure();
                RowBinaryWriter full = t.filling;
                int rows = t.rows;
                t.filling = t.spare;
                t.filling.reset();
                t.spare = full;
                t.rows = 0;
                bufferedRows -= rows;
                bufferedBytes -= full.length();
                String table = e.getKey();
                t.inFlight = CompletableFuture.runAsync(() -> insert(table, full, rows), sender)
                        .whenComplete((ok, error) -> {
                            if (error != null && failure == null) {
                                failure = error instanceof CompletionException && error.getCause() != null
                                        ? error.getCause() : error;
                            }
                        });
            }
        }

        /** In the sender: the insert, with retries. */
        private void insert(String table, RowBinaryWriter data, int rows) {
            try {
                insertWithRetries(table, data, rows);
                rowsInserted.inc(rows);
            } catch (IOException e) {
                throw new CompletionException(e);
            }
        }

        private void insertWithRetries(String table, RowBinaryWriter data, int rows) throws IOException {
            IOException last = null;
            for (int attempt = 1; attempt <= config.attempts(); attempt++) {
                try {
                    inserter.insert(table, data.header(), data.buffer(), data.length(), rows);
                    return;
                } catch (IOException e) {
                    last = e;
                    if (attempt < config.attempts()) {
                        retries.inc();
                        long backoffMs = Duration.ofSeconds(1L << (attempt - 1)).toMillis();
                        LOG.warn("insert of {} rows into {} failed (attempt {} of {}), retrying in {} ms: {}",
                                rows, table, attempt, config.attempts(), backoffMs, e.getMessage());
                        sleep(backoffMs);
                    }
                }
            }
            throw new IOException("giving up on " + rows + " rows for " + table + " after " + config.attempts()
                    + " attempts (the task restarts from its last checkpoint and re-sends them)", last);
        }

        private void raiseFailure() throws IOException {
            Throwable f = failure;
            if (f == null) {
                return;
            }
            if (f instanceof IOException io) {
                throw io;
            }
            throw new IOException("insert into ClickHouse failed: " + f, f);
        }

        private static void await(CompletableFuture<Void> inFlight) throws IOException {
            try {
                inFlight.get();
            } catch (ExecutionException e) {
                // recorded in `failure` by the future's own handler; raised by the caller
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for an insert", e);
            }
        }

        private static void sleep(long ms) throws IOException {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting to retry", e);
            }
        }

        @Override
        public void close() throws InterruptedException {
            closed = true;
            // Rows still buffered or in flight were flushed at end of input, or are replayed after a failure.
            if (ownedSender != null) {
                ownedSender.shutdownNow();
                ownedSender.awaitTermination(10, TimeUnit.SECONDS);
            }
            inserter.close();
        }

        /** A table's two buffers: one fills while the other's insert ({@code inFlight}) runs. */
        private static final class Table {
            RowBinaryWriter filling = new RowBinaryWriter();
            RowBinaryWriter spare = new RowBinaryWriter();
            int rows;
            /** Processing time of the first and the latest row buffered. */
            long firstRowMs;
            long lastRowMs;
            CompletableFuture<Void> inFlight = CompletableFuture.completedFuture(null);
        }
    }
}
