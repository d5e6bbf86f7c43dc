package io.ioscale.sinks;

import java.io.IOException;
import java.io.Serializable;

/** Inserts one RowBinaryWithNamesAndTypes batch into one table. The sink's only contact with ClickHouse. */
public interface Inserter extends AutoCloseable {

    /**
     * Inserts {@code rows} rows into {@code table}: {@code header} (names and types) followed by {@code length}
     * bytes of {@code body}; throws when it did not happen.
     */
    void insert(String table, byte[] header, byte[] body, int length, int rows) throws IOException;

    @Override
    void close();

    /** Builds the inserter in the task (it holds connections). */
    interface Factory extends Serializable {
        Inserter create();
    }
}
