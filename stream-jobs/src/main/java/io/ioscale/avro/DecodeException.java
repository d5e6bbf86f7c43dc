package io.ioscale.avro;

/**
 * A record value that cannot become a record: it is dead-lettered with {@link #reason()}, never retried.
 * Codes (the text before ':' in the reason, stable for dashboards and alerts):
 * <ul>
 *   <li>{@code bad_header}: shorter than 5 bytes or the magic byte is not 0;</li>
 *   <li>{@code unknown_schema_id}: the registry does not know the writer schema id;</li>
 *   <li>{@code not_avro}: the id names a schema that is not Avro (PROTOBUF, JSON, or text that does not parse
 *       as Avro);</li>
 *   <li>{@code undecodable}: the Avro body does not decode with the writer schema (e.g. it is cut short, or a
 *       length in it is more than the bytes left), does not resolve to the reader schema, or has trailing
 *       bytes;</li>
 *   <li>{@code invalid}: it decodes but breaks a field's documented rule (e.g. a malformed sparse histogram).</li>
 * </ul>
 */
public final class DecodeException extends Exception {
    private static final long serialVersionUID = 1L;

    public static final String BAD_HEADER = "bad_header";
    public static final String UNKNOWN_SCHEMA_ID = "unknown_schema_id";
    public static final String NOT_AVRO = "not_avro";
    public static final String UNDECODABLE = "undecodable";
    public static final String INVALID = "invalid";

    private final int schemaId;

    public DecodeException(String code, int schemaId, String detail) {
        super(code + ": " + detail);
        this.schemaId = schemaId;
    }

    /** The writer schema id from the header; -1 when the header was bad. */
    public int schemaId() {
        return schemaId;
    }

    public String reason() {
        return getMessage();
    }
}
