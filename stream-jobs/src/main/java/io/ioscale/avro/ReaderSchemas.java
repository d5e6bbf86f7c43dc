package io.ioscale.avro;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.apache.avro.Schema;

/**
 * The project's reader schemas: the committed {@code schema/*.avsc}, which the build puts on the classpath as
 * {@code schema/<file>} (stream-jobs/pom.xml), so Java and Python read the same files.
 */
public final class ReaderSchemas {
    public static final String IO_SAMPLE = "io_sample.avsc";
    public static final String RUN_EVENT = "run_event.avsc";
    public static final String CPU_SAMPLE = "cpu_sample.avsc";
    public static final String PORT_SAMPLE = "port_sample.avsc";

    private ReaderSchemas() {}

    public static Schema load(String fileName) {
        String path = "schema/" + fileName;
        try (InputStream in = ReaderSchemas.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException(path + " is not on the classpath (the build copies ../schema/*.avsc)");
            }
            return new Schema.Parser().parse(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path, e);
        }
    }
}
