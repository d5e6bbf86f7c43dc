package io.ioscale.records;

import java.time.Duration;

/** Rollup grains: the window length and the suffix of the table it lands in ({@code <table>_<grain>}). */
public enum Grain {
    S1("1s", 1_000),
    S10("10s", 10_000),
    M1("1m", 60_000);

    private final String suffix;
    private final long windowMs;

    Grain(String suffix, long windowMs) {
        this.suffix = suffix;
        this.windowMs = windowMs;
    }

    public String suffix() {
        return suffix;
    }

    public long windowMs() {
        return windowMs;
    }

    public Duration window() {
        return Duration.ofMillis(windowMs);
    }

    /** The grain whose windows are {@code windowMs} long. */
    public static Grain ofWindowMs(long windowMs) {
        for (Grain g : values()) {
            if (g.windowMs == windowMs) {
                return g;
            }
        }
        throw new IllegalArgumentException("no grain has " + windowMs + " ms windows");
    }

    public String table(String base) {
        return base + "_" + suffix;
    }
}
