package io.ioscale.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ioscale.records.AlertRow;
import io.ioscale.records.CpuRollupRow;
import io.ioscale.records.DeadLetter;
import io.ioscale.records.DeadLetterRow;
import io.ioscale.records.FleetRollupRow;
import io.ioscale.records.Grain;
import io.ioscale.records.IoRollupRow;
import io.ioscale.records.PortRollupRow;
import io.ioscale.records.ResultRow;
import io.ioscale.records.RollupRow;
import io.ioscale.records.StepRow;
import io.ioscale.records.UslFitRow;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each row class writes exactly the columns of its table, in order, as created by the migration in
 * sql/migrations (the one source of the DDL). The sink inserts with unknown fields rejected, so this is what
 * keeps Java and SQL from drifting apart; it runs without ClickHouse.
 */
class RowColumnsTest {
    static final Path MIGRATIONS = Path.of("..", "sql", "migrations");
    /** {@code {{name}}}: the column set in fragments/name.sql, which the migration runner writes out. */
    private static final Pattern FRAGMENT = Pattern.compile("\\{\\{\\s*(\\w+)\\s*\\}\\}");
    private static final Pattern CREATE = Pattern.compile("CREATE TABLE IF NOT EXISTS ioscale\\.(\\w+)\\s*\\((.*?)\\n\\)",
            Pattern.DOTALL);
    /** {@code CREATE TABLE ... AS}: a copy of another table's columns (the rollups' other grains). */
    private static final Pattern COPY = Pattern.compile("CREATE TABLE IF NOT EXISTS ioscale\\.(\\w+) AS ioscale\\.(\\w+)");
    private static final Pattern ALTER = Pattern.compile("ALTER TABLE ioscale\\.(\\w+)\\s");
    /** {@code MODIFY COLUMN name Type [CODEC(...)]}: a column's new type. */
    private static final Pattern MODIFY = Pattern.compile("^\\s*MODIFY COLUMN\\s+(\\w+)\\s+(.+?)\\s*(?:CODEC\\(.*\\))?\\s*,?$",
            Pattern.MULTILINE);
    /** {@code ADD COLUMN [IF NOT EXISTS] name Type [DEFAULT ...] AFTER other}: a new column after another. */
    private static final Pattern ADD = Pattern.compile(
            "^\\s*ADD COLUMN\\s+(?:IF NOT EXISTS\\s+)?(\\w+)\\s+(.+?)\\s*(?:CODEC\\(.*\\))?\\s*(?:DEFAULT \\S+)?\\s+AFTER\\s+(\\w+)\\s*,?$",
            Pattern.MULTILINE);
    private static final Pattern COLUMN = Pattern.compile("^\\s{4}(\\w+)\\s+(.+?)\\s*(?:CODEC\\(.*\\))?\\s*(?:DEFAULT .*)?,?$",
            Pattern.MULTILINE);

    static Stream<ResultRow> rows() {
        List<ResultRow> rows = new ArrayList<>();
        for (Grain g : Grain.values()) {
            for (RollupRow row : List.of(new IoRollupRow(), new FleetRollupRow(), new CpuRollupRow(),
                    new PortRollupRow())) {
                row.grain = g;
                rows.add(row);
            }
        }
        rows.add(new StepRow());
        rows.add(new UslFitRow());
        rows.add(new AlertRow());
        rows.add(DeadLetterRow.of(DeadLetter.of("t", 0, 0, 0, 1, "r", null, new byte[] {1})));
        return rows.stream();
    }

    /** A migration as the runner applies it: each fragment it names written out, other placeholders left. */
    static String migration(Path p) throws IOException {
        Matcher f = FRAGMENT.matcher(Files.readString(p));
        StringBuilder out = new StringBuilder();
        while (f.find()) {
            Path fragment = MIGRATIONS.resolve("fragments").resolve(f.group(1) + ".sql");
            String text = Files.isRegularFile(fragment) ? Files.readString(fragment).stripTrailing() : f.group();
            f.appendReplacement(out, Matcher.quoteReplacement(text));
        }
        return f.appendTail(out).toString();
    }

    /**
     * "name Type" of every column of table {@code ioscale.<table>}, as the migrations leave it: created (or copied
     * from another table as that one stands then), then each {@code MODIFY COLUMN} and {@code ADD COLUMN ... AFTER}
     * of a later {@code ALTER TABLE} applied, in migration order.
     */
    static List<String> columns(String table) throws IOException {
        Map<String, List<String>> tables = new HashMap<>();
        try (Stream<Path> files = Files.list(MIGRATIONS)) {
            for (Path p : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
                String sql = migration(p).replaceAll("--[^\\n]*", "");
                Matcher copy = COPY.matcher(sql);
                Matcher create = CREATE.matcher(sql);
                Matcher alter = ALTER.matcher(sql);
                if (copy.find()) {
                    tables.put(copy.group(1), new ArrayList<>(tables.get(copy.group(2))));
                } else if (create.find()) {
                    List<String> cols = new ArrayList<>();
                    Matcher c = COLUMN.matcher(create.group(2).replaceAll("[ \\t]+\n", "\n"));
                    while (c.find()) {
                        cols.add(c.group(1) + " " + c.group(2).trim());
                    }
                    tables.put(create.group(1), cols);
                } else if (alter.find() && tables.containsKey(alter.group(1))) {
                    List<String> cols = tables.get(alter.group(1));
                    Matcher m = MODIFY.matcher(sql);
                    while (m.find()) {
                        String name = m.group(1);
                        int at = cols.stream().map(col -> col.split(" ")[0]).toList().indexOf(name);
                        assertThat(at).as("%s modifies %s, not a column of %s", p, name, alter.group(1)).isNotNegative();
                        cols.set(at, name + " " + m.group(2).trim());
                    }
                    Matcher add = ADD.matcher(sql);
                    while (add.find()) {
                        int after = cols.stream().map(col -> col.split(" ")[0]).toList().indexOf(add.group(3));
                        assertThat(after).as("%s adds %s after %s, not a column of %s", p, add.group(1), add.group(3),
                                alter.group(1)).isNotNegative();
                        cols.add(after + 1, add.group(1) + " " + add.group(2).trim());
                    }
                }
            }
        }
        assertThat(tables).as("no migration creates ioscale." + table).containsKey(table);
        return tables.get(table);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void rowBinaryColumnsAreTheTableColumnsWithTheirTypesInOrder(ResultRow row) throws IOException {
        RowBinaryWriter w = new RowBinaryWriter();
        row.write(w);
        List<String> written = new ArrayList<>();
        for (int i = 0; i < w.names().size(); i++) {
            written.add(w.names().get(i) + " " + w.types().get(i));
        }
        List<String> columns = columns(row.table());
        if (row instanceof DeadLetterRow) { // the shared table fills received_at itself
            assertThat(columns).containsAll(written);
        } else {
            assertThat(written).as(row.table()).isEqualTo(columns);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void jsonKeysAreTheTableColumnsInOrder(ResultRow row) throws IOException {
        JsonRowWriter w = new JsonRowWriter();
        row.write(w);
        String json = w.toString();
        assertThat(json).endsWith("}\n").doesNotContain("NaN").doesNotContain("Infinity");
        JsonNode node = new ObjectMapper().readTree(json);
        List<String> keys = new ArrayList<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            keys.add(it.next());
        }
        List<String> columns = columns(row.table()).stream().map(c -> c.split(" ")[0]).toList();
        if (row instanceof DeadLetterRow) {
            assertThat(columns).containsAll(keys).contains("received_at");
        } else {
            assertThat(keys).as(row.table()).isEqualTo(columns);
        }
    }
}
