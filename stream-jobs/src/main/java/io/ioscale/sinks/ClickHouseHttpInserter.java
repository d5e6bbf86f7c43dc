package io.ioscale.sinks;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.insert.InsertResponse;
import com.clickhouse.client.api.insert.InsertSettings;
import com.clickhouse.data.ClickHouseFormat;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link Inserter} over ClickHouse's HTTP interface with client-v2 0.10.0: {@code INSERT INTO <db>.<table> FORMAT
 * RowBinaryWithNamesAndTypes}, rows in the request body ({@link RowBinaryWriter}).
 *
 * <p>Compression is off in both directions. ClickHouse 26.x answers {@code compress=1} with its default
 * network_compression_method, ZSTD, which the Java client's LZ4 framing cannot read (FIELD-NOTES); on loopback
 * compression buys nothing anyway. The header's names and types are checked by the server against the table
 * (input_format_with_names_use_header and input_format_with_types_use_header, set explicitly here), so a row
 * class and its table cannot drift apart silently.
 */
public final class ClickHouseHttpInserter implements Inserter {
    private static final long TIMEOUT_S = 60;

    private final Client client;
    private final String database;

    public ClickHouseHttpInserter(ClickHouseConfig config) {
        this.database = config.database();
        this.client = new Client.Builder()
                .addEndpoint(config.url())
                .setUsername(config.user())
                .setPassword(config.password())
                .setDefaultDatabase(config.database())
                .compressServerResponse(false)
                .compressClientRequest(false)
                .useHttpCompression(false)
                .build();
    }

    public static Inserter.Factory factory(ClickHouseConfig config) {
        return () -> new ClickHouseHttpInserter(config);
    }

    @Override
    public void insert(String table, byte[] header, byte[] body, int length, int rows) throws IOException {
        InsertSettings settings = new InsertSettings()
                .serverSetting("input_format_with_names_use_header", "1")
                .serverSetting("input_format_with_types_use_header", "1")
                .serverSetting("input_format_skip_unknown_fields", "0");
        InputStream data = new SequenceInputStream(new ByteArrayInputStream(header),
                new ByteArrayInputStream(body, 0, length));
        try (InsertResponse r = client.insert(database + "." + table, data, ClickHouseFormat.RowBinaryWithNamesAndTypes,
                settings).get(TIMEOUT_S, TimeUnit.SECONDS)) {
            if (r.getWrittenRows() != rows) {
                throw new IOException("ClickHouse wrote " + r.getWrittenRows() + " of " + rows + " rows into " + table);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while inserting into " + table, e);
        } catch (ExecutionException e) {
            throw new IOException("insert into " + database + "." + table + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IOException("insert into " + database + "." + table + " timed out after " + TIMEOUT_S + " s", e);
        } catch (RuntimeException e) {
            throw new IOException("insert into " + database + "." + table + " failed: " + e, e);
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
