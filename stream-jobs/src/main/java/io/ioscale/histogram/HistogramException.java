package io.ioscale.histogram;

/**
 * Invalid histogram input: a negative value or count, malformed sparse arrays or encoding, a quantile level
 * outside [0, 1]. Python's {@code ioscale.histogram.HistogramError}; messages carry the same fragments (the
 * golden vectors check them in both languages), so a bad record is reported the same way on either side.
 */
public final class HistogramException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public HistogramException(String message) {
        super(message);
    }
}
