package io.ioscale.avro;

import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.ResolvingDecoder;

/**
 * Decodes Confluent-framed Avro ({@link WireFrame}: magic 0, 4-byte schema id, body) into records of type T:
 * the body is read with the writer schema named by the id (from {@link WriterSchemas}) resolved against the
 * project's reader schema, then converted by a {@link RecordConverter}.
 *
 * <p>Every failure that is the record's fault throws {@link DecodeException} (the caller dead-letters it), and
 * no length in a body allocates more than the body holds ({@link FrameDecoder}); a registry outage throws
 * {@link WriterSchemas.RegistryUnavailableException} (the caller fails the task).
 * One {@link GenericDatumReader} per writer schema id, reused with a reused decoder and record. Not thread-safe.
 */
public final class ConfluentAvroDecoder<T> {
    private final Schema readerSchema;
    private final WriterSchemas writerSchemas;
    private final RecordConverter<T> converter;
    private final BodyReader<T> bodyReader;
    private final Checker<T> checker;
    private final Map<Integer, GenericDatumReader<GenericRecord>> readers = new HashMap<>();
    private final Map<Integer, ResolvingDecoder> resolvers = new HashMap<>();
    private final Set<Integer> sameSchema = new HashSet<>();
    /** Per writer schema id: whether all its unions are ["null", X] ({@link FrameDecoder#readIndex}). */
    private final Map<Integer, Boolean> nullFirstUnions = new HashMap<>();
    private final long readerFingerprint;
    /** Every body is read through it, so no corrupt length allocates beyond the frame. */
    private final FrameDecoder body = new FrameDecoder();
    private GenericRecord reuse;

    /** Generic path: the body becomes a GenericRecord, then {@code converter} makes (and checks) the record. */
    public ConfluentAvroDecoder(Schema readerSchema, WriterSchemas writerSchemas, RecordConverter<T> converter) {
        this(readerSchema, writerSchemas, converter, null, null);
    }

    private ConfluentAvroDecoder(Schema readerSchema, WriterSchemas writerSchemas, RecordConverter<T> converter,
                                 BodyReader<T> bodyReader, Checker<T> checker) {
        this.readerSchema = readerSchema;
        this.writerSchemas = writerSchemas;
        this.converter = converter;
        this.bodyReader = bodyReader;
        this.checker = checker;
        this.readerFingerprint = SchemaNormalization.parsingFingerprint64(readerSchema);
    }

    /** Direct path: {@code bodyReader} reads the body through a ResolvingDecoder, {@code checker} checks it. */
    public static <T> ConfluentAvroDecoder<T> direct(Schema readerSchema, WriterSchemas writerSchemas,
                                                     BodyReader<T> bodyReader, Checker<T> checker) {
        return new ConfluentAvroDecoder<>(readerSchema, writerSchemas, null, bodyReader, checker);
    }

    public T decode(byte[] value) throws DecodeException {
        WireFrame frame = WireFrame.parse(value);
        if (!frame.headerValid()) {
            throw new DecodeException(DecodeException.BAD_HEADER, -1, value == null
                    ? "null value" : "value of " + value.length + " bytes has no Confluent wire header (magic 0 + schema id)");
        }
        int id = frame.schemaId();
        if (bodyReader != null) {
            return decodeDirect(id, value);
        }
        GenericDatumReader<GenericRecord> reader = readers.get(id);
        if (reader == null) {
            reader = new GenericDatumReader<>(writerSchema(id), readerSchema);
            readers.put(id, reader);
        }
        GenericRecord record;
        try {
            body.configure(value, WireFrame.HEADER_SIZE, value.length - WireFrame.HEADER_SIZE, nullFirstUnions(id));
            record = reader.read(reuse, body);
            if (!body.isEnd()) {
                throw new IOException("trailing bytes after the record (a different writer schema?)");
            }
        } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException | NegativeArraySizeException e) {
            throw new DecodeException(DecodeException.UNDECODABLE, id, "body does not decode with writer schema "
                    + id + " (" + reader.getSchema().getFullName() + ") as " + readerSchema.getFullName() + ": "
                    + cause(e));
        }
        reuse = record;
        try {
            return converter.convert(record);
        } catch (RuntimeException e) { // converters throw IllegalArgumentException on broken field rules
            throw new DecodeException(DecodeException.INVALID, id, e.getMessage());
        }
    }

    private boolean nullFirstUnions(int id) throws DecodeException {
        Boolean known = nullFirstUnions.get(id);
        if (known == null) {
            known = onlyNullFirstUnions(writerSchema(id), new HashSet<>());
            nullFirstUnions.put(id, known);
        }
        return known;
    }

    /** Whether every union reachable from {@code s} is {@code ["null", X]}. */
    static boolean onlyNullFirstUnions(Schema s, Set<String> seenRecords) {
        switch (s.getType()) {
            case UNION:
                List<Schema> branches = s.getTypes();
                return branches.size() == 2 && branches.get(0).getType() == Schema.Type.NULL
                        && branches.get(1).getType() != Schema.Type.NULL
                        && onlyNullFirstUnions(branches.get(1), seenRecords);
            case RECORD:
                if (!seenRecords.add(s.getFullName())) {
                    return true;
                }
                for (Schema.Field f : s.getFields()) {
                    if (!onlyNullFirstUnions(f.schema(), seenRecords)) {
                        return false;
                    }
                }
                return true;
            case ARRAY:
                return onlyNullFirstUnions(s.getElementType(), seenRecords);
            case MAP:
                return onlyNullFirstUnions(s.getValueType(), seenRecords);
            default:
                return true;
        }
    }

    /** The reason's tail; Avro's resolver reports a union index past the union's branches as a bare array index. */
    private String cause(Exception e) {
        if (e instanceof ArrayIndexOutOfBoundsException && body.lastIndex() >= 0) {
            return "union branch index " + body.lastIndex() + " is not a branch of the writer's union";
        }
        return e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    private Schema writerSchema(int id) throws DecodeException {
        Schema writer;
        try {
            writer = writerSchemas.byId(id);
        } catch (WriterSchemas.NotAvroException e) {
            throw new DecodeException(DecodeException.NOT_AVRO, id, e.getMessage());
        }
        if (writer == null) {
            throw new DecodeException(DecodeException.UNKNOWN_SCHEMA_ID, id, "schema id " + id
                    + " is not in the registry");
        }
        return writer;
    }

    private T decodeDirect(int id, byte[] value) throws DecodeException {
        ResolvingDecoder in = resolvers.get(id);
        Schema writer = null;
        boolean same = sameSchema.contains(id);
        if (in == null && !same) {
            writer = writerSchema(id);
            if (SchemaNormalization.parsingFingerprint64(writer) == readerFingerprint) {
                sameSchema.add(id); // identical binary layout: no resolution needed
                same = true;
            }
        }
        T record;
        try {
            body.configure(value, WireFrame.HEADER_SIZE, value.length - WireFrame.HEADER_SIZE, nullFirstUnions(id));
            if (same) {
                record = bodyReader.readSameSchema(readerSchema, body);
            } else {
                if (in == null) {
                    // A writer that cannot resolve to the reader fails here or on the first read: undecodable.
                    in = DecoderFactory.get().resolvingDecoder(Schema.applyAliases(writer, readerSchema),
                            readerSchema, null);
                    resolvers.put(id, in);
                }
                in.configure(body);
                record = bodyReader.read(readerSchema, in);
                in.drain();
            }
            if (!body.isEnd()) {
                throw new IOException("trailing bytes after the record (a different writer schema?)");
            }
        } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException | NegativeArraySizeException e) {
            resolvers.remove(id); // a resolver that failed mid-record is in an unknown state
            throw new DecodeException(DecodeException.UNDECODABLE, id, "body does not decode with writer schema "
                    + id + " as " + readerSchema.getFullName() + ": " + cause(e));
        }
        try {
            return checker.check(record);
        } catch (RuntimeException e) {
            throw new DecodeException(DecodeException.INVALID, id, e.getMessage());
        }
    }

    /** Reads one body into a record, without a GenericRecord in between. */
    public interface BodyReader<T> extends java.io.Serializable {
        /** The body in the writer's field order, through a decoder resolving it to the reader schema. */
        T read(Schema readerSchema, ResolvingDecoder in) throws IOException;

        /** The body of a writer schema identical to the reader's (parsing canonical form): reader field order. */
        T readSameSchema(Schema readerSchema, Decoder in) throws IOException;
    }

    /** The field rules of a record read by a {@link BodyReader}; throws naming the field. */
    @FunctionalInterface
    public interface Checker<T> extends java.io.Serializable {
        T check(T record);
    }

    /** GenericRecord (already resolved to the reader schema) to the job's record type. */
    @FunctionalInterface
    public interface RecordConverter<T> extends java.io.Serializable {
        /** Throws an unchecked exception naming the field when a documented rule is broken. */
        T convert(GenericRecord record);
    }
}
