package io.ioscale.records;


/**
 * A row of one of the result tables the jobs write to ClickHouse (sql/migrations/01xx). Each row names its
 * table and writes its columns in table order with their exact ClickHouse types ({@link RowFormat}); the sink
 * sends them as RowBinaryWithNamesAndTypes, so the server rejects a name or type that does not match the table.
 */
public interface ResultRow {

    /** Table name inside the {@code ioscale} database, e.g. {@code io_samples_10s}. */
    String table();

    void write(RowFormat out);
}
