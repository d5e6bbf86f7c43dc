package io.ioscale.sinks;

import java.io.Serializable;
import java.time.Duration;

/**
 * Where and how the ClickHouse sink writes.
 *
 * @param url             HTTP endpoint, e.g. http://127.0.0.1:8123
 * @param database        database of the result tables (ioscale)
 * @param user            ClickHouse user (ioscale_flink: INSERT and SELECT on ioscale.*)
 * @param password        its password (from the stack's secrets, never a default)
 * @param batchRows       rows buffered per writer before an insert is forced
 * @param batchBytes      bytes buffered per writer before an insert is forced
 * @param flushInterval   longest a row waits in the buffer (processing time), so live rows reach dashboards
 *                        within about a second; checkpoints flush too
 * @param attempts        tries per insert before the writer fails the task (which then restarts from its last
 *                        checkpoint and re-sends: idempotent tables make that safe)
 */
public record ClickHouseConfig(String url, String database, String user, String password, int batchRows,
                               long batchBytes, Duration flushInterval, int attempts) implements Serializable {

    public ClickHouseConfig {
        if (batchRows < 1 || batchBytes < 1 || attempts < 1 || flushInterval.isNegative() || flushInterval.isZero()) {
            throw new IllegalArgumentException("ClickHouse sink: batch rows, batch bytes, attempts and flush interval"
                    + " must be positive");
        }
    }

    @Override
    public String toString() { // never print the password
        return "ClickHouseConfig[url=" + url + ", database=" + database + ", user=" + user + ", batchRows=" + batchRows
                + ", flushInterval=" + flushInterval + "]";
    }
}
