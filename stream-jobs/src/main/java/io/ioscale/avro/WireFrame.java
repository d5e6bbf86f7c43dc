package io.ioscale.avro;

/**
 * One Kafka record value as framed by the Confluent wire format, reduced to what the monitor counts.
 *
 * <p>Wire layout; constant names match {@code ioscale.avro_wire} ({@code MAGIC}, {@code HEADER.size}):
 *
 * <pre>
 *   offset  size  field
 *   0       1     magic byte, always {@link #MAGIC} (0)
 *   1       4     schema id, big-endian int32 (registry ids are small positive numbers; an id
 *                 above 2^31, which no registry issues, would read negative here, as in
 *                 Confluent's Java deserializer, and unsigned in ioscale.avro_wire)
 *   5       n     Avro binary body, written with that schema
 * </pre>
 *
 * <p>A value shorter than {@link #HEADER_SIZE} or with another magic byte has a bad header: it is kept
 * (with {@code headerValid = false} and {@code schemaId = 0}) so it can be counted, not dropped.
 *
 * @param headerValid whether the value starts with a well-formed wire header
 * @param schemaId the writer schema id from bytes 1-4; 0 when the header is bad
 * @param sizeBytes length of the whole record value, header included
 */
public record WireFrame(boolean headerValid, int schemaId, int sizeBytes) {

    public static final byte MAGIC = 0;
    public static final int HEADER_SIZE = 5;

    /** Parses the header of a record value; never throws, a null value counts as a bad header of 0 bytes. */
    public static WireFrame parse(byte[] value) {
        if (value == null || value.length < HEADER_SIZE || value[0] != MAGIC) {
            return new WireFrame(false, 0, value == null ? 0 : value.length);
        }
        int schemaId = ((value[1] & 0xff) << 24) | ((value[2] & 0xff) << 16) | ((value[3] & 0xff) << 8) | (value[4] & 0xff);
        return new WireFrame(true, schemaId, value.length);
    }

    /** Body length in bytes (the Avro payload after the header); 0 for a bad header. */
    public int bodyBytes() {
        return headerValid ? sizeBytes - HEADER_SIZE : 0;
    }
}
