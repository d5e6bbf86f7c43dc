package io.ioscale.records;

/**
 * The ClickHouse column types the result rows write, each with its name as DDL spells it (and as the header of
 * RowBinaryWithNamesAndTypes must, for the server's type check).
 */
public enum ColumnType {
    DATETIME64("DateTime64(3, 'UTC')"),
    STRING("String"),
    LOW_CARDINALITY_STRING("LowCardinality(String)"),
    INT32("Int32"),
    UINT8("UInt8"),
    UINT16("UInt16"),
    UINT32("UInt32"),
    INT64("Int64"),
    UINT64("UInt64"),
    NULLABLE_UINT64("Nullable(UInt64)"),
    FLOAT64("Float64"),
    NULLABLE_FLOAT64("Nullable(Float64)"),
    BOOL("Bool"),
    ARRAY_UINT16("Array(UInt16)"),
    ARRAY_UINT64("Array(UInt64)"),
    ARRAY_STRING("Array(String)"),
    ARRAY_NULLABLE_FLOAT64("Array(Nullable(Float64))");

    private final String sql;

    ColumnType(String sql) {
        this.sql = sql;
    }

    /** The type as DDL writes it. */
    public String sql() {
        return sql;
    }
}
