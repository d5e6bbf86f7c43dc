package io.ioscale.sources;

import static org.assertj.core.api.Assertions.assertThat;

import io.ioscale.records.DeadLetter;
import io.ioscale.records.Decoded;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.junit.jupiter.api.Test;

class EventTimeWatermarksTest {

    /** Collects emitted watermarks. */
    static final class Out implements WatermarkOutput {
        final List<Long> marks = new ArrayList<>();

        @Override
        public void emitWatermark(Watermark watermark) {
            marks.add(watermark.getTimestamp());
        }

        boolean idle;

        @Override
        public void markIdle() {
            idle = true;
        }

        @Override
        public void markActive() {}

        /** The state after one periodic emission: idle, or the watermark it emitted. */
        String tick(EventTimeWatermarks.Generator<String> g) {
            idle = false;
            int before = marks.size();
            g.onPeriodicEmit(this);
            return idle ? "idle" : marks.size() > before ? "wm " + marks.get(marks.size() - 1) : "nothing";
        }
    }

    private static final long IDLE_MS = 10_000;

    /** The idle-aware generators' clock. */
    private final long[] now = {1_000_000};
    private final EventTimeWatermarks.Peers peers = new EventTimeWatermarks.Peers();
    private final Out out = new Out();

    /** A generator that goes idle after {@link #IDLE_MS} without records, on the clock {@code now[0]}. */
    private EventTimeWatermarks.Generator<String> idleAware() {
        return new EventTimeWatermarks.Generator<>(2_000, 7_200_000L, false, peers, IDLE_MS, () -> now[0]);
    }

    @Test
    void aPartitionGoesIdleOnlyAfterItsPeersHadRecordsForTheIdlenessSinceItsOwnLast() {
        var a = idleAware();
        var b = idleAware();
        // Both partitions flow, one record a second.
        for (int s = 0; s < 5; s++) {
            now[0] += 1_000;
            a.onEvent(Decoded.of("a"), now[0], out);
            b.onEvent(Decoded.of("b"), now[0], out);
        }
        long last = now[0];
        // The broker goes away for 30 s: nothing anywhere, and neither partition goes idle.
        for (int t = 0; t < 150; t++) {
            now[0] += 200;
            assertThat(out.tick(a)).isEqualTo("wm " + (last - 2_001));
            assertThat(out.tick(b)).isEqualTo("wm " + (last - 2_001));
        }
        // It is back: a's buffered records arrive first. b still holds the watermark back at its last record.
        now[0] += 200;
        a.onEvent(Decoded.of("a"), now[0], out);
        assertThat(out.tick(b)).isEqualTo("wm " + (last - 2_001));
        // b's records come 3 s later: never idle, so none of them is late.
        now[0] += 3_000;
        assertThat(out.tick(b)).isEqualTo("wm " + (last - 2_001));
        b.onEvent(Decoded.of("b"), last + 1_000, out);
        assertThat(out.tick(b)).isEqualTo("wm " + (last - 1_001));
    }

    @Test
    void aQuietPartitionGoesIdleWhileOthersFlowAndOneThatNeverHadARecordToo() {
        var flowing = idleAware();
        var stopped = idleAware();
        var never = idleAware();
        stopped.onEvent(Decoded.of("last"), now[0], out);
        long stoppedAt = now[0];
        String stoppedState = "";
        String neverState = "";
        while (now[0] - stoppedAt < IDLE_MS + 1_000) {
            now[0] += 200;
            flowing.onEvent(Decoded.of("x"), now[0], out);
            stoppedState = out.tick(stopped);
            neverState = out.tick(never);
            if (now[0] - stoppedAt < IDLE_MS) {
                assertThat(stoppedState).isEqualTo("wm " + (stoppedAt - 2_001));
            }
        }
        assertThat(stoppedState).isEqualTo("idle");
        assertThat(neverState).isEqualTo("idle");
        assertThat(out.tick(flowing)).startsWith("wm ");
        // A record wakes the stopped partition up again.
        stopped.onEvent(Decoded.of("again"), now[0], out);
        assertThat(out.tick(stopped)).isEqualTo("wm " + (now[0] - 2_001));
    }

    @Test
    void boundedOutOfOrdernessIgnoringDeadLettersAndNeverPastTheWallClock() {
        EventTimeWatermarks.Generator<String> g = new EventTimeWatermarks.Generator<>(2_000, 7_200_000L, true);
        g.onEvent(Decoded.of("a"), 10_000, out);
        g.onEvent(Decoded.of("b"), 8_000, out); // out of order: no step back
        g.onEvent(Decoded.dead(DeadLetter.of("t", 0, 0, 0, 1, "r", null, null)), 99_000_000, out);
        assertThat(out.marks).containsExactly(7_999L, 7_999L);
        long wall = System.currentTimeMillis();
        g.onEvent(Decoded.of("future"), wall + 3_600_000L, out); // a clock an hour ahead
        long mark = out.marks.get(out.marks.size() - 1);
        assertThat(mark).isLessThanOrEqualTo(System.currentTimeMillis() - 2_001).isGreaterThanOrEqualTo(wall - 2_001);
        int before = out.marks.size();
        g.onEvent(Decoded.of("wrong clock"), wall + 86_400_000L, out); // beyond max-ahead: dropped later, ignored here
        assertThat(out.marks).hasSize(before);
    }

    @Test
    void aShortGapIsPartOfTheStretchALongOneStartsItAgain() {
        var flowing = idleAware();
        var quiet = idleAware();
        quiet.onEvent(Decoded.of("last"), now[0], out);
        // 6 s of flow, a 12 s stop (longer than the idleness), 6 s of flow: never 10 s in one stretch.
        for (long[] phase : new long[][] {{6_000, 1}, {12_000, 0}, {6_000, 1}}) {
            long until = now[0] + phase[0];
            while (now[0] < until) {
                now[0] += 200;
                if (phase[1] == 1) {
                    flowing.onEvent(Decoded.of("x"), now[0], out);
                }
                assertThat(out.tick(quiet)).startsWith("wm ");
            }
        }
        // A 4 s stop is no outage: the stretch goes on, and 10 s of it since the restart make the partition idle.
        now[0] += 4_000;
        assertThat(out.tick(quiet)).startsWith("wm ");
        now[0] += 200;
        flowing.onEvent(Decoded.of("x"), now[0], out);
        assertThat(out.tick(quiet)).isEqualTo("idle");
        // Idle stays idle while everything stops, until a record of its own.
        now[0] += 60_000;
        assertThat(out.tick(quiet)).isEqualTo("idle");
    }
}
