package io.ioscale.sources;

import io.ioscale.records.PortSample;
import io.ioscale.records.RunEvent;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.TimeDomain;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Port samples keyed by run, joined with the run's declared links (RunEvent {@code links}, usually on
 * RUN_STARTED): fills {@link PortSample#capacityBytesPerS} by {@link LinkCapacityRule}'s precedence. State: the
 * run's links, a few small entries per run, cleared {@link #KEEP_AFTER_RUN_MS} of event time after RUN_ENDED
 * (samples of the run's last seconds may be processed after the event).
 *
 * <p>Ordering: the two topics are not ordered against each other, so a port sample may be processed before its
 * run's first event. It waits (in state) until a run event brings links, or the watermark reaches it (then a run
 * event before it would have come; and released then, it is not late for the rollups downstream), or
 * {@link #HOLD_MS} of processing time pass (topics gone quiet); then it and the run's later samples until its
 * links are known fall back to their own {@code link_speed_bps}. A half-duplex link would otherwise read as full duplex at the sample's line rate in
 * the rollups and step rows (a declared capacity also beats a fallback there, {@link LinkCapacityRule#supersedes}).
 * A run that declares no links pays the wait once, on its first samples.
 */
public class AttachLinkCapacity extends KeyedCoProcessFunction<String, PortSample, RunEvent, PortSample> {
    private static final long serialVersionUID = 1L;
    static final long KEEP_AFTER_RUN_MS = 3_600_000;
    static final long HOLD_MS = 5_000;
    /** {@link #holdUntil}'s value once a run has waited its {@link #HOLD_MS}: later samples go through. */
    private static final long NOT_WAITING = -1;

    private transient MapState<String, RunEvent.LinkCapacity> links;
    private transient ListState<PortSample> held;
    private transient ValueState<Long> holdUntil;
    private transient ValueState<Long> cleanupAt;

    @Override
    public void open(OpenContext openContext) {
        links = getRuntimeContext().getMapState(new MapStateDescriptor<>("links", TypeInformation.of(String.class),
                TypeInformation.of(RunEvent.LinkCapacity.class)));
        held = getRuntimeContext().getListState(new ListStateDescriptor<>("held",
                TypeInformation.of(PortSample.class)));
        holdUntil = getRuntimeContext().getState(new ValueStateDescriptor<>("hold-until", Types.LONG));
        cleanupAt = getRuntimeContext().getState(new ValueStateDescriptor<>("cleanup-at", Types.LONG));
    }

    @Override
    public void processElement1(PortSample s, Context ctx, Collector<PortSample> out) throws Exception {
        if (links.isEmpty()) { // the wait's state is read only while the run's links are unknown
            Long until = holdUntil.value();
            if (until == null || until != NOT_WAITING) {
                held.add(s);
                ctx.timerService().registerEventTimeTimer(s.tsMs);
                if (until == null) {
                    long deadline = ctx.timerService().currentProcessingTime() + HOLD_MS;
                    ctx.timerService().registerProcessingTimeTimer(deadline);
                    holdUntil.update(deadline);
                }
                return;
            }
        }
        out.collect(attach(s));
    }

    @Override
    public void processElement2(RunEvent e, Context ctx, Collector<PortSample> out) throws Exception {
        if (e.is(RunEvent.RUN_ENDED)) {
            long cleanup = e.endOrTsMs() + KEEP_AFTER_RUN_MS;
            ctx.timerService().registerEventTimeTimer(cleanup);
            cleanupAt.update(cleanup);
        } else {
            for (RunEvent.LinkCapacity l : e.links) {
                links.put(l.host + "/" + l.portId, l);
            }
        }
        Long until = holdUntil.value();
        if (until != null && until != NOT_WAITING && (!links.isEmpty() || e.is(RunEvent.RUN_ENDED))) {
            ctx.timerService().deleteProcessingTimeTimer(until);
            release(out);
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<PortSample> out) throws Exception {
        Long cleanup = cleanupAt.value();
        Long until = holdUntil.value();
        // A timer without cleanup-at and without a wait is a cleanup timer of state written before the wait was.
        boolean cleanupTimer = cleanup != null ? timestamp >= cleanup : until == null;
        if (ctx.timeDomain() == TimeDomain.EVENT_TIME && cleanupTimer) {
            links.clear();
            held.clear();
            holdUntil.clear();
            cleanupAt.clear();
            return;
        }
        if (until != null && until != NOT_WAITING) {
            if (ctx.timeDomain() == TimeDomain.EVENT_TIME) {
                ctx.timerService().deleteProcessingTimeTimer(until);
            }
            release(out);
        }
    }

    /** The held samples, with what is known now; later samples of the run are not held again. */
    private void release(Collector<PortSample> out) throws Exception {
        for (PortSample s : held.get()) {
            out.collect(attach(s));
        }
        held.clear();
        holdUntil.update(NOT_WAITING);
    }

    private PortSample attach(PortSample s) throws Exception {
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
        return s;
    }
}
