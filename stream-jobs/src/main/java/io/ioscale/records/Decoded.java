package io.ioscale.records;

/**
 * What a source emits: a decoded record, or the dead letter that stands for a record that could not be decoded.
 * Exactly one of {@link #value} and {@link #deadLetter} is set. Decoding happens in the Kafka source's
 * deserializer, so event time and per-partition watermarks come from decoded values; dead letters never move
 * the watermark (see {@code EventTimeWatermarks}).
 *
 * @param <T> the record type
 */
public class Decoded<T> {
    public T value;
    public DeadLetter deadLetter;

    public Decoded() {}

    public static <T> Decoded<T> of(T value) {
        Decoded<T> d = new Decoded<>();
        d.value = value;
        return d;
    }

    public static <T> Decoded<T> dead(DeadLetter deadLetter) {
        Decoded<T> d = new Decoded<>();
        d.deadLetter = deadLetter;
        return d;
    }

    public boolean isDead() {
        return deadLetter != null;
    }

    @Override
    public String toString() {
        return isDead() ? deadLetter.toString() : String.valueOf(value);
    }
}
