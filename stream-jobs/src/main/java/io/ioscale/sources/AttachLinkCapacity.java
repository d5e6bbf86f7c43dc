package io.ioscale.sources;

import io.ioscale.records.PortSample;
import io.ioscale.records.RunEvent;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Port samples keyed by run, joined with the run's declared links (RunEvent {@code links}, usually on
 * RUN_STARTED): fills {@link PortSample#capacityBytesPerS} by {@link LinkCapacityRule}'s precedence. State: the
 * run's links, a few small entries per run, cleared {@link #KEEP_AFTER_RUN_MS} of event time after RUN_ENDED
 * (samples of the run's last seconds may be processed after the event).
 *
 * <p>Ordering: the two topics are not ordered against each other, so a port sample processed before the run's
 * RUN_STARTED falls back to its own {@code link_speed_bps}. The port rollup takes the largest capacity seen in a
 * window, so one such sample does not leave a window without capacity.
 */
public class AttachLinkCapacity extends KeyedCoProcessFunction<String, PortSample, RunEvent, PortSample> {
    private static final long serialVersionUID = 1L;
    static final long KEEP_AFTER_RUN_MS = 3_600_000;

    private transient MapState<String, RunEvent.LinkCapacity> links;

    @Override
    public void open(OpenContext openContext) {
        links = getRuntimeContext().getMapState(new MapStateDescriptor<>("links", TypeInformation.of(String.class),
                TypeInformation.of(RunEvent.LinkCapacity.class)));
    }

    @Override
    public void processElement1(PortSample s, Context ctx, Collector<PortSample> out) throws Exception {
        RunEvent.LinkCapacity link = links.get(s.host + "/" + s.portId);
        double fromRun = link == null ? 0 : LinkCapacityRule.payloadBytesPerS(link);
        if (fromRun > 0) {
            s.capacityBytesPerS = fromRun;
            s.capacitySource = LinkCapacityRule.FROM_RUN_EVENT;
            s.fullDuplex = link.fullDuplex;
            if (s.linkSpeedBps == 0) {
                s.linkSpeedBps = link.speedBps;
            }
        } else {
            double fromSpeed = LinkCapacityRule.payloadBytesPerS(s.kind, s.linkSpeedBps);
            s.capacityBytesPerS = fromSpeed;
            s.capacitySource = fromSpeed > 0 ? LinkCapacityRule.FROM_LINK_SPEED : LinkCapacityRule.UNKNOWN;
        }
        out.collect(s);
    }

    @Override
    public void processElement2(RunEvent e, Context ctx, Collector<PortSample> out) throws Exception {
        if (e.is(RunEvent.RUN_ENDED)) {
            ctx.timerService().registerEventTimeTimer(e.endOrTsMs() + KEEP_AFTER_RUN_MS);
            return;
        }
        for (RunEvent.LinkCapacity l : e.links) {
            links.put(l.host + "/" + l.portId, l);
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<PortSample> out) {
        links.clear();
    }
}
