package io.ioscale.steps;

import io.ioscale.analytics.SaturationConfig;
import io.ioscale.analytics.SloEvaluator;
import io.ioscale.analytics.SteadyStateConfig;
import java.io.Serializable;

/**
 * What {@link StepAnalyzer} needs to know, made once from the job's options ({@code config.AnalyticsOptions}).
 *
 * @param steadyState       steady-state detection (ramp-up and tail exclusion)
 * @param saturation        saturation thresholds
 * @param slo               latency objectives; null when none are configured
 * @param loadAxis          which load value is the x of the scaling curve ({@link LoadAxis})
 * @param allowedLatenessMs how long after a step's end late fleet seconds still update its row
 * @param retentionMs       seconds of a run older than this (event time) are dropped even if no step claimed
 *                          them (a run without STEP_ENDED events must not grow state forever)
 * @param liveEvalEveryS    live saturation/SLO evaluation runs at most once per this many new seconds of a step
 * @param closeIdleMs       an ended step is finalized from the seconds that have arrived once its run's fleet
 *                          seconds have stopped for this long (wall clock) and the wall clock is this far past its
 *                          end, though event time is not (topics gone quiet after a run); 0: event time only
 */
public record StepAnalysisConfig(SteadyStateConfig steadyState, SaturationConfig saturation, SloEvaluator slo,
                                 LoadAxis loadAxis, long allowedLatenessMs, long retentionMs, int liveEvalEveryS,
                                 long closeIdleMs)
        implements Serializable {

    /** The job's {@link #liveEvalEveryS}: often enough for a live verdict within seconds, rarely enough to be cheap. */
    public static final int LIVE_EVAL_EVERY_S = 5;
}
