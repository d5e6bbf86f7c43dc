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

        @Override
        public void markIdle() {}

        @Override
        public void markActive() {}
    }

    @Test
    void boundedOutOfOrdernessIgnoringDeadLettersAndNeverPastTheWallClock() {
        EventTimeWatermarks.Generator<String> g = new EventTimeWatermarks.Generator<>(2_000, 7_200_000L, true);
        Out out = new Out();
        g.onEvent(Decoded.of("a"), 10_000, out);
        g.onEvent(Decoded.of("b"), 8_000, out); // out of order: no step back
        g.onEvent(Decoded.dead(DeadLetter.of("t", 0, 0, 0, 1, "r", null, null)), 99_000_000, out);
        assertThat(out.marks).containsExactly(7_999L, 7_999L);
        long now = System.currentTimeMillis();
        g.onEvent(Decoded.of("future"), now + 3_600_000L, out); // a clock an hour ahead
        long mark = out.marks.get(out.marks.size() - 1);
        assertThat(mark).isLessThanOrEqualTo(System.currentTimeMillis() - 2_001).isGreaterThanOrEqualTo(now - 2_001);
        int before = out.marks.size();
        g.onEvent(Decoded.of("wrong clock"), now + 86_400_000L, out); // beyond max-ahead: dropped later, ignored here
        assertThat(out.marks).hasSize(before);
    }
}
