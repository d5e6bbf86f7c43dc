package io.ioscale.steps;

import io.ioscale.analytics.SaturationDetector;
import io.ioscale.analytics.SloResult;
import io.ioscale.analytics.SteadyState;
import io.ioscale.analytics.SteadyStateWindow;
import io.ioscale.records.AlertRow;
import io.ioscale.records.CpuSample;
import io.ioscale.records.FleetRollupRow;
import io.ioscale.records.PortSample;
import io.ioscale.records.RunEvent;
import io.ioscale.records.StepRow;
import io.ioscale.records.UslFitRow;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.TimeDomain;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Per run: step rows (scaling curve), live and final saturation verdicts, USL fits and SLO evaluation.
 *
 * <p>Inputs, both keyed by run_id: (1) the run's {@link RunEvent}s (step bounds, load, label); (2)
 * {@link StepInput}s: the fleet's 1 s rollups, host-level CPU totals and whole-port samples with their capacity.
 * Everything is kept per second of the run ({@link SecondState}), so the steady state can be chosen after the
 * fact and re-chosen when late seconds arrive.
 *
 * <p>A run without I/O samples (a network test: iperf3, NIC counters) is measured by the payload of its whole
 * ports ({@link StepSecond#ofPorts}): there its port samples play the fleet seconds' part below (series, late
 * seconds, the idle check), and its steps close on this operator's watermark once the run has ended. A run is one
 * or the other from its first fleet second on: until then its steps are judged from the ports, and the first fleet
 * second re-judges them from the I/O (those rows outrank the ports', {@link StepRow#version()}).
 *
 * <h2>When rows are emitted (event time, and the wall clock when the topics go quiet)</h2>
 * <ul>
 *   <li>Live, while a step runs: each time the step has {@code liveEvalEveryS} more complete seconds, its
 *       series so far goes through {@link SteadyState}; once the steady window is usable, the partial step summary is judged by
 *       {@link SaturationDetector} against the completed steps, and its merged histogram by the
 *       {@link io.ioscale.analytics.SloEvaluator}: the first SATURATED verdict and each first breach of an
 *       objective raise a {@code live} {@link AlertRow}. So a saturated step is flagged seconds after its steady
 *       state begins, not at its end. A second is complete, and judged, once the watermark passes its end (an
 *       event-time timer per second): by then its CPU and port samples, which come on other streams than the
 *       fleet's rows, are all here too; judged on arrival, a second could raise a live verdict without the port
 *       evidence the final verdict has.</li>
 *   <li>Final, when the watermark passes the step's end (STEP_ENDED end_ms, else its ts_ms): the {@link StepRow}
 *       over the steady state, the {@code final} alerts, and a {@link UslFitRow} over the completed steps.</li>
 *   <li>Late fleet seconds of a finished step (within {@code allowedLatenessMs} after its end) re-run the final
 *       evaluation; the re-emitted rows carry a larger version (samples) and replace the earlier ones in
 *       ClickHouse. Later than that, the step's seconds are dropped.</li>
 *   <li>A step closes (its seconds are dropped, later ones ignored) once both this operator's watermark and the
 *       fleet stream's own ({@link StepInput#fleetWatermarkMs}) have passed its end + lateness: when the fleet
 *       stream lags the others (a replay after a restart), the step waits for the seconds the rollups still
 *       accept. A run's last step closes with the run.</li>
 *   <li>Quiet topics (wall clock): event time moves only with newer records, so when the topics go quiet after a
 *       run its last step would wait for the next run's data. An ended step is therefore also finalized once no
 *       fleet second of its run has arrived for {@code closeIdleMs} and the wall clock is that far past its end
 *       (a check armed by STEP_ENDED and RUN_ENDED, one processing-time timer per run at a time). Its last
 *       seconds are there as the fleet rollup's early (provisional) rows. A replay or catch-up still delivering
 *       the run's seconds keeps its fleet stream busy, so the check waits; and it only finalizes: the step keeps
 *       its seconds until event time closes it, so one that still arrives re-runs the evaluation like any late
 *       second (its row replaced), while a final row equal to the provisional one it follows changes nothing.
 *       Replays turn it off (their input ends, which closes every step).</li>
 * </ul>
 *
 * <h2>Which seconds belong to step s</h2>
 * Fleet rows of step s, plus rows of step -1 (collectors that do not know the step) whose second lies in
 * [start, end) of s. The start is STEP_STARTED's ts_ms (or STEP_ENDED's start_ms, or the first second seen for
 * s). CPU and port samples are attributed by time only. The final row's steady state lies inside the measured
 * window STEP_ENDED declares (start_ms..end_ms), when it declares one.
 *
 * <h2>State per run (heap)</h2>
 * Per second: the fleet row per step (~1-2 KB of sparse histogram), CPU totals per host and whole-port samples.
 * A 300 s step of 100 sources is ~0.6 MB. Seconds are dropped when their step closes, after
 * {@code retentionMs} at the latest, and the whole run one minute after RUN_ENDED + lateness.
 */
public class StepAnalyzer extends KeyedCoProcessFunction<String, RunEvent, StepInput, StepRow> {
    private static final long serialVersionUID = 1L;

    public static final OutputTag<AlertRow> ALERTS = new OutputTag<>("alerts", TypeInformation.of(AlertRow.class));
    public static final OutputTag<UslFitRow> USL_FITS = new OutputTag<>("usl-fits", TypeInformation.of(UslFitRow.class));

    static final long SECOND_MS = 1_000;
    static final long RUN_CLEANUP_DELAY_MS = 60_000;
    /** CPU scopes that describe a whole host, in order of preference (one per host is used). */
    public static final List<String> HOST_SCOPES = List.of("HYPERVISOR", "HOST", "ROOT_PARTITION");

    private final StepAnalysisConfig settings;
    private transient StepEvaluation evaluation;
    private transient MapState<Integer, StepInfo> steps;
    private transient MapState<Long, SecondState> seconds;
    private transient MapState<Integer, StepRow> completed;
    private transient ValueState<RunInfo> run;
    private transient Counter stepRows;
    private transient Counter alertsRaised;

    public StepAnalyzer(StepAnalysisConfig settings) {
        this.settings = settings;
    }

    @Override
    public void open(OpenContext openContext) {
        evaluation = new StepEvaluation(settings);
        steps = getRuntimeContext().getMapState(new MapStateDescriptor<>("steps", TypeInformation.of(Integer.class),
                TypeInformation.of(StepInfo.class)));
        seconds = getRuntimeContext().getMapState(new MapStateDescriptor<>("seconds", TypeInformation.of(Long.class),
                TypeInformation.of(SecondState.class)));
        completed = getRuntimeContext().getMapState(new MapStateDescriptor<>("completed",
                TypeInformation.of(Integer.class), TypeInformation.of(StepRow.class)));
        run = getRuntimeContext().getState(new ValueStateDescriptor<>("run", TypeInformation.of(RunInfo.class)));
        stepRows = getRuntimeContext().getMetricGroup().counter("stepRows");
        alertsRaised = getRuntimeContext().getMetricGroup().counter("alerts");
    }

    // ------------------------------------------------------------------------------------------- run events

    @Override
    public void processElement1(RunEvent e, Context ctx, Collector<StepRow> out) throws Exception {
        RunInfo info = run.value();
        if (info == null) {
            info = new RunInfo();
        }
        if (!e.scenario.isEmpty()) {
            info.scenario = e.scenario;
        }
        switch (e.eventType) {
            case RunEvent.STEP_STARTED, RunEvent.STEP_ENDED -> {
                if (e.stepIndex < 0) {
                    break;
                }
                StepInfo step = steps.get(e.stepIndex);
                if (step == null) {
                    step = StepInfo.of(e.stepIndex);
                }
                if (!e.stepLabel.isEmpty()) {
                    step.label = e.stepLabel;
                }
                if (e.load != null) {
                    step.load = e.load;
                }
                if (e.is(RunEvent.STEP_STARTED)) {
                    step.startMs = e.tsMs;
                } else {
                    if (e.startMs != null && step.startMs == StepInfo.UNKNOWN) {
                        step.startMs = e.startMs;
                    }
                    if (e.startMs != null) {
                        step.measuredStartMs = e.startMs;
                    }
                    step.endMs = e.endOrTsMs();
                    ctx.timerService().registerEventTimeTimer(step.endMs);
                    ctx.timerService().registerEventTimeTimer(step.endMs + settings.allowedLatenessMs());
                    armIdleCheck(ctx, info);
                }
                steps.put(e.stepIndex, step);
            }
            case RunEvent.RUN_ENDED -> {
                info.endMs = e.endOrTsMs();
                ctx.timerService().registerEventTimeTimer(info.endMs + settings.allowedLatenessMs()
                        + RUN_CLEANUP_DELAY_MS);
                armIdleCheck(ctx, info);
            }
            default -> { }
        }
        run.update(info);
    }

    // ------------------------------------------------------------------------------------------- seconds

    @Override
    public void processElement2(StepInput in, Context ctx, Collector<StepRow> out) throws Exception {
        if (in.fleet != null) {
            advanceFleetProgress(in.fleetWatermarkMs, ctx.timerService().currentWatermark(),
                    ctx.timerService().currentProcessingTime());
        }
        long second = Math.floorDiv(in.tsMs(), SECOND_MS) * SECOND_MS;
        FleetRollupRow replaced = addToSecond(second, in, ctx);
        if (in.port != null) {
            onPortSecond(second, ctx, out);
        }
        if (in.fleet != null) {
            onFleetSecond(second, in.fleet, replaced, ctx, out);
        }
    }

    /**
     * Keeps the input in its second. A fleet row replaces the one of its step that second had (a re-fired window, or
     * the final row after a provisional one): that one is returned.
     */
    private FleetRollupRow addToSecond(long second, StepInput in, Context ctx) throws Exception {
        SecondState st = seconds.get(second);
        if (st == null) {
            st = new SecondState();
            // One pruning timer per minute of data is enough.
            long minute = Math.floorDiv(second, 60_000L) * 60_000L;
            ctx.timerService().registerEventTimeTimer(minute + 60_000L + settings.retentionMs());
        }
        FleetRollupRow replaced = null;
        if (in.fleet != null) {
            for (FleetRollupRow r : st.io) {
                if (r.stepIndex == in.fleet.stepIndex) {
                    replaced = r;
                }
            }
            if (replaced != null) {
                st.io.remove(replaced);
            }
            st.io.add(in.fleet);
        } else if (in.cpu != null) {
            st.cpu.add(in.cpu);
        } else {
            st.port.add(in.port);
        }
        seconds.put(second, st);
        return replaced;
    }

    private void onFleetSecond(long second, FleetRollupRow fleet, FleetRollupRow replaced, Context ctx,
                               Collector<StepRow> out) throws Exception {
        int stepIndex = fleet.stepIndex >= 0 ? fleet.stepIndex : stepContaining(second);
        if (stepIndex < 0) {
            return;
        }
        StepInfo step = steps.get(stepIndex);
        if (step == null) {
            step = StepInfo.of(stepIndex); // no STEP_STARTED seen (yet): live evaluation still works
            steps.put(stepIndex, step);
        }
        if (step.closed) {
            return;
        }
        if (step.finalized) {
            if (replaced == null || replaced.version() != fleet.version()) {
                finalizeStep(step, ctx, out); // a late second: re-evaluate, the new row replaces the old
            } // else the final row of a second the step was finalized with (from its early row): nothing new
        } else {
            ctx.timerService().registerEventTimeTimer(second + SECOND_MS - 1); // judged live once complete
        }
    }

    /**
     * A whole-port sample. In a run without I/O samples (a network test) the ports' payload is what its steps
     * measure: the sample counts as the run's progress, re-evaluates a finalized step like a late fleet second, or
     * gets its second judged live. In other runs the port samples only ride along with the fleet seconds.
     */
    private void onPortSecond(long second, Context ctx, Collector<StepRow> out) throws Exception {
        RunInfo info = run.value();
        if (info == null) {
            info = new RunInfo();
        }
        if (info.sawIo) {
            return;
        }
        info.lastFleetArrivalMs = ctx.timerService().currentProcessingTime();
        run.update(info);
        int stepIndex = stepContaining(second);
        StepInfo step = stepIndex < 0 ? null : steps.get(stepIndex);
        if (step == null || step.closed) {
            return;
        }
        if (step.finalized) {
            finalizeStep(step, ctx, out);
        } else {
            ctx.timerService().registerEventTimeTimer(second + SECOND_MS - 1);
        }
    }

    /**
     * Records when the run's fleet stream last delivered (wall clock) and how far it has got, and closes the steps
     * that were waiting only for that.
     */
    private void advanceFleetProgress(long fleetWatermarkMs, long watermark, long nowMs) throws Exception {
        RunInfo info = run.value();
        if (info == null) {
            info = new RunInfo();
        }
        info.lastFleetArrivalMs = nowMs;
        info.sawIo = true;
        boolean advanced = fleetWatermarkMs > info.fleetWatermarkMs;
        if (advanced) {
            info.fleetWatermarkMs = fleetWatermarkMs;
        }
        run.update(info);
        if (!advanced) {
            return;
        }
        List<StepInfo> due = new ArrayList<>();
        for (StepInfo s : steps.values()) {
            if (closable(s, info, watermark)) {
                due.add(s);
            }
        }
        for (StepInfo s : due) {
            closeStep(s); // after the loop: closing writes to the map being iterated
        }
    }

    /** Whether no fleet second of the step can come any more: see the class comment. */
    private boolean closable(StepInfo s, RunInfo info, long watermark) {
        if (s.endMs == StepInfo.UNKNOWN || s.closed) {
            return false;
        }
        long due = s.endMs + settings.allowedLatenessMs();
        // A fleet row of the step's last second is emitted while the fleet watermark is below
        // (end - 1) + lateness, so a stamp at or past that means none can follow.
        // A run without I/O samples (so far) has no fleet stream to wait for: its steps close with the run, so
        // that fleet seconds arriving late (a replay reading the sources one after another) still count.
        return due <= watermark && info != null && (info.fleetWatermarkMs >= due - 1
                || (!info.sawIo && info.endMs != StepInfo.UNKNOWN
                    && watermark >= info.endMs + settings.allowedLatenessMs()));
    }

    private int stepContaining(long second) throws Exception {
        for (StepInfo s : steps.values()) {
            if (s.startMs != StepInfo.UNKNOWN && second >= Math.floorDiv(s.startMs, SECOND_MS) * SECOND_MS
                    && (s.endMs == StepInfo.UNKNOWN || second < s.endMs)) {
                return s.stepIndex;
            }
        }
        return -1;
    }

    // ------------------------------------------------------------------------------------------- timers

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<StepRow> out) throws Exception {
        if (ctx.timeDomain() == TimeDomain.PROCESSING_TIME) {
            checkIdle(timestamp, ctx, out);
            return;
        }
        RunInfo info = run.value();
        if (info != null && info.endMs != StepInfo.UNKNOWN
                && timestamp >= info.endMs + settings.allowedLatenessMs() + RUN_CLEANUP_DELAY_MS) {
            steps.clear();
            seconds.clear();
            completed.clear();
            run.clear();
            return;
        }
        List<StepInfo> all = new ArrayList<>();
        for (StepInfo s : steps.values()) {
            all.add(s);
        }
        all.sort(Comparator.comparingInt(s -> s.stepIndex));
        for (StepInfo s : all) {
            if (s.endMs != StepInfo.UNKNOWN && !s.finalized && s.endMs <= timestamp) {
                finalizeStep(s, ctx, out);
            }
            if (closable(s, info, timestamp)) {
                closeStep(s);
            }
            if (!s.finalized && !s.closed) {
                evaluateLive(s, ctx, timestamp + 1); // every input is complete below the watermark
            }
        }
        // Retention: drop seconds no step has claimed for retentionMs.
        List<Long> old = new ArrayList<>();
        for (Long sec : seconds.keys()) {
            if (sec < timestamp - settings.retentionMs()) {
                old.add(sec);
            }
        }
        for (Long sec : old) {
            seconds.remove(sec);
        }
    }

    /** Arms the run's idle check (see the class comment) for one idle time from now. */
    private void armIdleCheck(Context ctx, RunInfo info) {
        scheduleIdleCheck(ctx, info, ctx.timerService().currentProcessingTime() + settings.closeIdleMs());
    }

    /** Schedules the run's idle check at {@code atMs} unless one is pending: that one re-arms as needed. */
    private void scheduleIdleCheck(Context ctx, RunInfo info, long atMs) {
        if (settings.closeIdleMs() <= 0 || info.idleCheckMs != StepInfo.UNKNOWN) {
            return;
        }
        info.idleCheckMs = atMs;
        ctx.timerService().registerProcessingTimeTimer(atMs);
    }

    /**
     * The run's idle check at {@code nowMs} (wall clock): finalizes, in step order, the ended steps event time has
     * not finalized yet, once the run's fleet seconds have stopped for {@code closeIdleMs} and the wall clock is
     * that far past the step's end; otherwise checks again when that can be so.
     */
    private void checkIdle(long nowMs, OnTimerContext ctx, Collector<StepRow> out) throws Exception {
        RunInfo info = run.value();
        if (info == null) {
            return; // the run's state is gone
        }
        info.idleCheckMs = StepInfo.UNKNOWN;
        long idle = settings.closeIdleMs();
        long quietAt = info.lastFleetArrivalMs == StepInfo.UNKNOWN ? Long.MIN_VALUE : info.lastFleetArrivalMs + idle;
        List<StepInfo> pending = new ArrayList<>();
        for (StepInfo s : steps.values()) {
            if (s.endMs != StepInfo.UNKNOWN && !s.finalized && !s.closed) {
                pending.add(s);
            }
        }
        pending.sort(Comparator.comparingInt(s -> s.stepIndex));
        for (StepInfo s : pending) {
            long due = Math.max(quietAt, s.endMs + idle);
            if (due > nowMs) {
                scheduleIdleCheck(ctx, info, due); // a later step waits for this one: the curve runs in step order
                break;
            }
            finalizeStep(s, ctx, out);
        }
        run.update(info);
    }

    private void closeStep(StepInfo s) throws Exception {
        long start = s.startMs != StepInfo.UNKNOWN ? s.startMs : firstSecondOf(s.stepIndex);
        List<Long> drop = new ArrayList<>();
        for (Long sec : seconds.keys()) {
            // Whole seconds of the step; a second shared with the next step (a step ending mid-second) stays.
            if (sec >= start - SECOND_MS && sec + SECOND_MS <= s.endMs) {
                drop.add(sec);
            }
        }
        for (Long sec : drop) {
            seconds.remove(sec);
        }
        s.closed = true;
        steps.put(s.stepIndex, s);
    }

    // ------------------------------------------------------------------------------------------- live

    /** Live verdicts over the step's seconds before {@code completeBeforeMs} (complete in every input). */
    private void evaluateLive(StepInfo step, Context ctx, long completeBeforeMs) throws Exception {
        long start = step.startMs != StepInfo.UNKNOWN ? step.startMs : firstSecondOf(step.stepIndex);
        List<StepSecond> series = series(step.stepIndex, start, completeBeforeMs);
        int n = series.size();
        if (n < settings.steadyState().minSteadyS()
                || (step.liveEvaluatedAt > 0 && n - step.liveEvaluatedAt < settings.liveEvalEveryS())) {
            return;
        }
        step.liveEvaluatedAt = n;
        steps.put(step.stepIndex, step);
        SteadyStateWindow window = StepEvaluation.window(series, start, Long.MAX_VALUE, settings.steadyState());
        if (!window.usable()) {
            return;
        }
        StepEvaluation.Result ev = evaluate(ctx.getCurrentKey(), step, series, window, start,
                series.get(n - 1).tsMs + SECOND_MS);
        long eventTs = window.endMs();
        if (ev.verdict().saturated() && !step.liveSaturationRaised) {
            step.liveSaturationRaised = true;
            ctx.output(ALERTS, StepAlerts.saturation(ev, settings.saturation(), AlertRow.LIVE, eventTs));
            alertsRaised.inc();
        }
        for (SloResult r : ev.slo()) {
            String resource = StepAlerts.sloResource(r);
            if (r.breached() && step.liveSloRaised.add(resource)) {
                ctx.output(ALERTS, StepAlerts.slo(ev, r, AlertRow.LIVE, eventTs));
                alertsRaised.inc();
            }
        }
        steps.put(step.stepIndex, step);
    }

    // ------------------------------------------------------------------------------------------- final

    private void finalizeStep(StepInfo step, Context ctx, Collector<StepRow> out) throws Exception {
        step.finalized = true;
        steps.put(step.stepIndex, step);
        long start = step.startMs != StepInfo.UNKNOWN ? step.startMs : firstSecondOf(step.stepIndex);
        List<StepSecond> series = series(step.stepIndex, start, step.endMs);
        if (series.isEmpty()) {
            return; // a step without I/O: nothing to summarize
        }
        // The tool's measured window (STEP_ENDED start..end: its warm-up excluded) bounds the steady state, as it
        // bounds the SQL library's windows: a warm-up at full IOPS but another latency is not steady state, and
        // detection by IOPS alone cannot see it. Ramp-up detection (or a configured ramp-up) applies within it.
        long steadyFrom = step.measuredStartMs != StepInfo.UNKNOWN ? Math.max(start, step.measuredStartMs) : start;
        SteadyStateWindow window = StepEvaluation.window(series, steadyFrom, step.endMs,
                settings.steadyState());
        StepEvaluation.Result ev = evaluate(ctx.getCurrentKey(), step, series, window, start, step.endMs);
        completed.put(step.stepIndex, ev.row());
        out.collect(ev.row());
        stepRows.inc();
        long ts = step.endMs;
        if (ev.verdict().saturated()) {
            ctx.output(ALERTS, StepAlerts.saturation(ev, settings.saturation(), AlertRow.FINAL, ts));
            alertsRaised.inc();
        }
        for (SloResult r : ev.slo()) {
            if (r.breached()) {
                ctx.output(ALERTS, StepAlerts.slo(ev, r, AlertRow.FINAL, ts));
                alertsRaised.inc();
            }
        }
        ctx.output(USL_FITS, evaluation.uslFit(ctx.getCurrentKey(), step.stepIndex, ts, rows(completed)));
    }

    private StepEvaluation.Result evaluate(String runId, StepInfo step, List<StepSecond> series,
                                           SteadyStateWindow window, long stepStartMs, long stepEndMs)
            throws Exception {
        RunInfo info = run.value();
        return evaluation.evaluate(runId, info == null ? "" : info.scenario, step, series, window, stepStartMs,
                stepEndMs, rows(completed));
    }

    private static List<StepRow> rows(MapState<Integer, StepRow> completed) throws Exception {
        List<StepRow> out = new ArrayList<>();
        for (StepRow r : completed.values()) {
            out.add(r);
        }
        return out;
    }

    // ------------------------------------------------------------------------------------------- series

    private long firstSecondOf(int stepIndex) throws Exception {
        long first = Long.MAX_VALUE;
        for (Map.Entry<Long, SecondState> e : seconds.entries()) {
            for (FleetRollupRow r : e.getValue().io) {
                if (r.stepIndex == stepIndex) {
                    first = Math.min(first, e.getKey());
                }
            }
        }
        return first == Long.MAX_VALUE ? Long.MIN_VALUE : first;
    }

    /**
     * The step's seconds in [start, end), ascending, each summed over the step's fleet rows and the unknown-step
     * rows of that second; CPU and port samples of the second ride along. Only seconds with I/O rows count.
     */
    private List<StepSecond> series(int stepIndex, long startMs, long endMs) throws Exception {
        long firstSecond = startMs == Long.MIN_VALUE ? Long.MIN_VALUE : Math.floorDiv(startMs, SECOND_MS) * SECOND_MS;
        List<StepSecond> out = new ArrayList<>();
        for (Map.Entry<Long, SecondState> e : seconds.entries()) {
            long sec = e.getKey();
            if (sec < firstSecond || sec >= endMs) {
                continue;
            }
            StepSecond agg = null;
            for (FleetRollupRow r : e.getValue().io) {
                if (r.stepIndex == stepIndex || r.stepIndex == -1) {
                    if (agg == null) {
                        agg = new StepSecond(sec, e.getValue().cpu, e.getValue().port);
                    }
                    agg.add(r);
                }
            }
            if (agg != null) {
                out.add(agg);
            }
        }
        if (out.isEmpty() && !sawIo()) {
            return portSeries(firstSecond, endMs);
        }
        out.sort(Comparator.comparingLong(a -> a.tsMs));
        return out;
    }

    /** A run without I/O samples (a network test): its seconds in [firstSecond, end) with whole-port samples. */
    private List<StepSecond> portSeries(long firstSecond, long endMs) throws Exception {
        List<StepSecond> out = new ArrayList<>();
        for (Map.Entry<Long, SecondState> e : seconds.entries()) {
            long sec = e.getKey();
            if (sec >= firstSecond && sec < endMs && !e.getValue().port.isEmpty()) {
                out.add(StepSecond.ofPorts(sec, e.getValue().cpu, e.getValue().port));
            }
        }
        out.sort(Comparator.comparingLong(a -> a.tsMs));
        return out;
    }

    private boolean sawIo() throws Exception {
        RunInfo info = run.value();
        return info != null && info.sawIo;
    }

    // ------------------------------------------------------------------------------------------- state types

    /** What the run's events said about one step, and how far its evaluation got. */
    public static class StepInfo {
        public static final long UNKNOWN = Long.MIN_VALUE;

        public int stepIndex;
        public String label = "";
        public RunEvent.StepLoad load;
        public long startMs = UNKNOWN;
        /** STEP_ENDED's start_ms: where the tool's measured window began (after its warm-up), if it said. */
        public long measuredStartMs = UNKNOWN;
        public long endMs = UNKNOWN;
        public boolean finalized;
        public boolean closed;
        public int liveEvaluatedAt;
        public boolean liveSaturationRaised;
        public Set<String> liveSloRaised = new HashSet<>();

        public StepInfo() {}

        static StepInfo of(int stepIndex) {
            StepInfo s = new StepInfo();
            s.stepIndex = stepIndex;
            return s;
        }
    }

    /** Run-level facts. */
    public static class RunInfo {
        public String scenario = "";
        public long endMs = StepInfo.UNKNOWN;
        /** The highest {@link StepInput#fleetWatermarkMs} seen for the run. */
        public long fleetWatermarkMs = Long.MIN_VALUE;
        /** When (wall clock) the run's latest fleet second (in a run without I/O: whole-port sample) arrived. */
        public long lastFleetArrivalMs = StepInfo.UNKNOWN;
        /** Whether the run has I/O samples (fleet seconds); a run without is measured by its ports' payload. */
        public boolean sawIo;
        /** When the run's pending idle check is due (wall clock); UNKNOWN: none pending. */
        public long idleCheckMs = StepInfo.UNKNOWN;

        public RunInfo() {}
    }

    /** One second of a run: the fleet rows (one per step index), CPU totals and whole-port samples. */
    public static class SecondState {
        public List<FleetRollupRow> io = new ArrayList<>();
        public List<CpuSample> cpu = new ArrayList<>();
        public List<PortSample> port = new ArrayList<>();

        public SecondState() {}
    }

}
