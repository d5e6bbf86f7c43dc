package io.ioscale.monitor;

import java.time.Instant;

/**
 * Records and bytes seen for one schema id (or for bad headers) in one window.
 *
 * @param windowStartMs window start, epoch milliseconds, inclusive
 * @param windowEndMs window end, epoch milliseconds, exclusive
 * @param badHeader true for the row counting values whose wire header was bad ({@code schemaId} is then 0)
 * @param schemaId the writer schema id
 * @param records number of Kafka records
 * @param bytes sum of the record values' lengths, headers included
 */
public record SchemaWindowCount(
        long windowStartMs, long windowEndMs, boolean badHeader, int schemaId, long records, long bytes) {

    /**
     * One greppable line with fixed key names, e.g.
     * {@code window=[2025-01-01T00:00:00Z,2025-01-01T00:00:10Z) schema_id=7 records=12 bytes=3456}.
     * The stack's integration test searches the TaskManager log for these keys.
     */
    public String toLogLine() {
        String key = badHeader ? "bad_header" : "schema_id=" + schemaId;
        return "window=[" + Instant.ofEpochMilli(windowStartMs) + "," + Instant.ofEpochMilli(windowEndMs) + ") "
                + key + " records=" + records + " bytes=" + bytes;
    }
}
