package io.ioscale.steps;

import io.ioscale.analytics.SaturationConfig;
import io.ioscale.analytics.SaturationVerdict;
import io.ioscale.analytics.SloResult;
import io.ioscale.records.AlertRow;
import io.ioscale.records.StepRow;

/** The alert rows a step's evaluation raises: saturation with its bottleneck and evidence, and SLO breaches. */
final class StepAlerts {
    private StepAlerts() {}

    static AlertRow saturation(StepEvaluation.Result ev, SaturationConfig config, String phase, long eventTs) {
        SaturationVerdict v = ev.verdict();
        AlertRow a = new AlertRow();
        a.kind = AlertRow.SATURATION;
        a.phase = phase;
        a.severity = "warning";
        switch (v.bottleneck()) {
            case PORT -> {
                a.resource = "port " + v.port().name();
                a.value = v.port().utilizationPct();
                a.threshold = config.portUtilizationPct();
            }
            case CPU -> {
                a.resource = "cpu " + v.cpu().host();
                a.value = v.cpu().utilizationPct();
                a.threshold = config.cpuUtilizationPct();
            }
            default -> {
                a.resource = "device";
                a.value = v.point().latencyGrowthPct();
                a.threshold = config.minLatencyGrowthPct();
            }
        }
        return finish(a, ev.row(), eventTs, v.evidence());
    }

    static AlertRow slo(StepEvaluation.Result ev, SloResult r, String phase, long eventTs) {
        AlertRow a = new AlertRow();
        a.kind = AlertRow.SLO_BREACH;
        a.phase = phase;
        a.severity = "critical";
        a.resource = sloResource(r);
        a.value = r.valueNs();
        a.threshold = r.objective().thresholdNs();
        return finish(a, ev.row(), eventTs, "step " + ev.row().stepIndex + ": " + r.message());
    }

    /** The resource an SLO alert names: one live alert per objective and step. */
    static String sloResource(SloResult r) {
        return "latency " + r.objective().canonical();
    }

    private static AlertRow finish(AlertRow a, StepRow row, long eventTs, String evidence) {
        a.runId = row.runId;
        a.stepIndex = row.stepIndex;
        a.alertId = AlertRow.id(a.runId, a.stepIndex, a.kind, a.phase, a.resource);
        a.evidence = evidence;
        a.eventTsMs = eventTs;
        a.samples = row.stepSamples;
        a.emittedAtMs = System.currentTimeMillis();
        return a;
    }
}
