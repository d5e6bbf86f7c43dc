package io.ioscale.avro;

import java.io.Serializable;
import org.apache.avro.Schema;

/** Where writer schemas come from, by registry id. Tests pass a map; the jobs use {@link RegistryClient}. */
public interface WriterSchemas {

    /**
     * The writer schema with this id, or null when the registry says it does not exist (a dead letter).
     * Throws {@link NotAvroException} when the id names a schema that is not Avro (a dead letter too), and
     * {@link RegistryUnavailableException} when the registry cannot be asked: that is transient and must fail
     * the task (it restarts from its checkpoint) rather than dead-letter good records.
     */
    Schema byId(int schemaId);

    /** Creates a resolver in each parallel task (the resolver itself holds connections and caches). */
    interface Factory extends Serializable {
        WriterSchemas create();
    }

    /**
     * The id names a schema that is not Avro: a Confluent registry also serves PROTOBUF and JSON schemas, and
     * an AVRO one whose text does not parse is no better. An id never changes meaning, so this is for good: its
     * records are dead letters, and asking again will not help.
     */
    final class NotAvroException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public NotAvroException(String message) {
            super(message);
        }
    }

    final class RegistryUnavailableException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public RegistryUnavailableException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
