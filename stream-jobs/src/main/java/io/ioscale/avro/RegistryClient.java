package io.ioscale.avro;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.avro.Schema;

/**
 * Writer schemas from a Confluent-compatible registry: {@code GET <url>/schemas/ids/{id}} answers
 * {@code {"schema": "<schema text>", "schemaType": "..."}}; 404 means the id does not exist. The registry also
 * serves PROTOBUF and JSON schemas ({@code schemaType}, absent for AVRO): such an id, or an AVRO one whose text
 * does not parse, throws {@link WriterSchemas.NotAvroException}, its records' fault, not the registry's.
 *
 * <p>Caching: a schema id never changes meaning, so found schemas, and ids found not to be Avro, are cached for
 * the life of the task. A 404 is
 * cached for {@link #NEGATIVE_TTL_MS} so a producer stuck on a bad id does not turn every record into a registry
 * call, while an id registered a moment later is still picked up. Anything else (connection refused, 5xx,
 * timeout) is retried {@link #ATTEMPTS} times and then thrown as
 * {@link WriterSchemas.RegistryUnavailableException}: a registry outage fails the task, it does not
 * dead-letter good records. Not thread-safe: one instance per deserializer (one per source reader).
 */
public final class RegistryClient implements WriterSchemas {
    static final long NEGATIVE_TTL_MS = 30_000;
    static final int ATTEMPTS = 4;
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String baseUrl;
    private final int attempts;
    private final long backoffMs;
    private final HttpClient http;
    private final Map<Integer, Schema> found = new HashMap<>();
    private final Map<Integer, String> notAvro = new HashMap<>();
    private final Map<Integer, Long> missingUntilMs = new HashMap<>();

    public RegistryClient(String baseUrl) {
        this(baseUrl, ATTEMPTS, 250);
    }

    /** With {@code attempts} tries per id, {@code backoffMs}, 2x, 4x ... apart (tests shorten them). */
    RegistryClient(String baseUrl, int attempts, long backoffMs) {
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.attempts = attempts;
        this.backoffMs = backoffMs;
        this.http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    }

    /** A factory for sources: each task builds its own client. */
    public static WriterSchemas.Factory factory(String baseUrl) {
        return () -> new RegistryClient(baseUrl);
    }

    @Override
    public Schema byId(int schemaId) {
        Schema schema = found.get(schemaId);
        if (schema != null) {
            return schema;
        }
        String why = notAvro.get(schemaId);
        if (why != null) {
            throw new NotAvroException(why);
        }
        Long until = missingUntilMs.get(schemaId);
        if (until != null && System.currentTimeMillis() < until) {
            return null;
        }
        Answer answer = fetch(schemaId);
        if (answer == null) {
            missingUntilMs.put(schemaId, System.currentTimeMillis() + NEGATIVE_TTL_MS);
            return null;
        }
        missingUntilMs.remove(schemaId);
        if (answer.notAvro() != null) {
            notAvro.put(schemaId, answer.notAvro());
            throw new NotAvroException(answer.notAvro());
        }
        found.put(schemaId, answer.schema());
        return answer.schema();
    }

    /** What the registry holds under an id: an Avro schema, or why it is not one. */
    record Answer(Schema schema, String notAvro) {

        /** The answer for schema text of {@code schemaType} (null or absent: AVRO, as the registry omits it). */
        static Answer of(int schemaId, String schemaType, String text) {
            if (schemaType != null && !schemaType.equalsIgnoreCase("AVRO")) {
                return new Answer(null, "schema id " + schemaId + " is a " + schemaType + " schema, not Avro");
            }
            try {
                return new Answer(new Schema.Parser().parse(text), null);
            } catch (RuntimeException e) {
                // Parsing depends on the text alone, so any failure is the schema's. Not only SchemaParseException:
                // Avro 1.12 throws a NullPointerException for an undefined type name ({"type": "recrod"}).
                return new Answer(null, "schema id " + schemaId + " is not parseable Avro ("
                        + e.getClass().getSimpleName() + ": " + abbreviate(String.valueOf(e.getMessage())) + ")");
            }
        }
    }

    /** The answer for the id; null on 404; throws RegistryUnavailableException when the registry cannot say. */
    private Answer fetch(int schemaId) {
        URI uri = URI.create(baseUrl + "/schemas/ids/" + schemaId);
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().build();
        Exception last = null;
        for (int attempt = 1; attempt <= attempts; attempt++) {
            try {
                HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 404) {
                    return null;
                }
                if (r.statusCode() == 200) {
                    JsonNode body = JSON.readTree(r.body());
                    JsonNode text = body.get("schema");
                    if (text == null || !text.isTextual()) {
                        throw new IOException("answer has no \"schema\" string: " + abbreviate(r.body()));
                    }
                    JsonNode type = body.get("schemaType");
                    return Answer.of(schemaId, type == null || type.isNull() ? null : type.asText(), text.asText());
                }
                last = new IOException("HTTP " + r.statusCode() + ": " + abbreviate(r.body()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RegistryUnavailableException("interrupted while asking " + uri, e);
            } catch (IOException | RuntimeException e) {
                last = e;
            }
            sleepBackoff(attempt);
        }
        throw new RegistryUnavailableException("schema registry at " + baseUrl + " did not answer for id " + schemaId
                + " after " + attempts + " attempts: " + last, last);
    }

    private void sleepBackoff(int attempt) {
        if (attempt >= attempts) {
            return;
        }
        try {
            Thread.sleep(backoffMs << (attempt - 1)); // 250, 500, 1000 ms by default
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String abbreviate(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }
}
