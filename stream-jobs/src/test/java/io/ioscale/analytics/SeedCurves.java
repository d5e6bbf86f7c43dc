package io.ioscale.analytics;

import java.util.ArrayList;
import java.util.List;

/**
 * The lab reports' scaling curves (shared/seeds), as step summaries. Written once here; every test reads them.
 *
 * <h2>Seed 000: Hyper-V host, 8 Gbps FC QLE2560, RamSan SSD, Iometer, 8 KB random 75/25, 30 outstanding per disk</h2>
 * The report: with three drives "we exceeded 122,000 IOPS and reached a total throughput of 960MBps"; "adding a
 * fourth disk produced only a 5% improvement"; the tests "converge to just under 129,000 IOPS and just over
 * 1,000MBps"; per-step gains 40 % (the "+40% with the addition of another worker"), 20 %, 5 %. Working back from
 * three drives: 122,640 / 1.2 = 102,200, / 1.4 = 73,000; forward: 122,640 x 1.05 = 128,772.
 * <pre>
 *   workers  IOPS      MiB/s (the report's "MBps")   RX = 0.75 x IOPS x 8 KiB   of 800 MB/s payload
 *   1         73,000     570                           448.5 MB/s                 56.1 %
 *   2        102,200     798                           627.9 MB/s                 78.5 %
 *   3        122,640     958  ("960MBps")              753.5 MB/s                 94.2 %
 *   4        128,772   1,006  ("just over 1,000")      791.2 MB/s                 98.9 %
 * </pre>
 * Closed loop: 30 x workers in flight, mean latency = in flight / IOPS (Little): 411, 587, 734, 932 us.
 *
 * <h2>Seed 003: Storage Spaces Direct, 4 nodes, VMFleet + DISKSPD, 4 KiB 70/30, QD 2 per VM, 1-80 VMs per node</h2>
 * "rapid scaling from one to 30 VMs per node"; "once all logical CPU cores ... were allocated to VMs [2 vCPUs
 * per VM, 80 logical processors per node: 40 VMs per node], scalability leveled off at just over 500K IOPS";
 * QD 2 gives "average latency of .97ms ... while delivering over 500K IOPS". In flight = 4 nodes x VMs x 2:
 * <pre>
 *   VMs/node   1     10     20     30     40     50     60     70     80
 *   kIOPS      15    145    280    400    492    503    507    509    510
 *   latency    533   552    571    600    650    795    947    1100   1255 us
 * </pre>
 */
final class SeedCurves {
    static final double FC_8G_PAYLOAD_BYTES_PER_S = 800e6;
    static final double KIB8 = 8192;

    private SeedCurves() {}

    static final double[] SEED000_IOPS = {73_000, 102_200, 122_640, 128_772};
    static final int SEED000_OUTSTANDING_PER_WORKER = 30;

    /** Seed 000, 8 KB: 1-4 workers; the HBA port's RX and TX against {@code payloadBytesPerS}. */
    static List<StepSummary> seed000(double payloadBytesPerS, double cpuPct) {
        List<StepSummary> steps = new ArrayList<>();
        for (int k = 0; k < SEED000_IOPS.length; k++) {
            int workers = k + 1;
            double iops = SEED000_IOPS[k];
            double inFlight = workers * SEED000_OUTSTANDING_PER_WORKER;
            steps.add(StepSummary.builder(k, workers).label(workers + " workers")
                    .iops(iops)
                    .mbPerS(iops * KIB8 / 1e6)
                    .meanLatencyNs(inFlight / iops * 1e9)
                    .outstandingIos(inFlight)
                    .cpu("pe1900", cpuPct, 4)
                    .port("pe1900", "QLE2560-0", Direction.RX, 0.75 * iops * KIB8, payloadBytesPerS)
                    .port("pe1900", "QLE2560-0", Direction.TX, 0.25 * iops * KIB8, payloadBytesPerS)
                    .build());
        }
        return steps;
    }

    static final int[] SEED003_VMS_PER_NODE = {1, 10, 20, 30, 40, 50, 60, 70, 80};
    static final double[] SEED003_IOPS =
            {15_000, 145_000, 280_000, 400_000, 492_000, 503_000, 507_000, 509_000, 510_000};
    static final int SEED003_NODES = 4;
    static final int SEED003_QUEUE_DEPTH = 2;

    /**
     * Seed 003: per step, every node's host CPU from {@code cpuPctAt(vmsPerNode)} (node2 0.5 points hotter than
     * the rest) and each node's RDMA NIC at {@code nicPct} % of 25 GbE in both directions.
     */
    static List<StepSummary> seed003(java.util.function.IntToDoubleFunction cpuPctAt, double nicPct) {
        List<StepSummary> steps = new ArrayList<>();
        for (int k = 0; k < SEED003_VMS_PER_NODE.length; k++) {
            int vms = SEED003_VMS_PER_NODE[k];
            double iops = SEED003_IOPS[k];
            double inFlight = (double) SEED003_NODES * vms * SEED003_QUEUE_DEPTH;
            StepSummary.Builder b = StepSummary.builder(k, vms).label(vms + " VMs per node")
                    .iops(iops)
                    .mbPerS(iops * 4096 / 1e6)
                    .meanLatencyNs(inFlight / iops * 1e9)
                    .outstandingIos(inFlight);
            for (int node = 1; node <= SEED003_NODES; node++) {
                double cpu = Math.min(100, cpuPctAt.applyAsDouble(vms) + (node == 2 ? 0.5 : 0));
                b.cpu("node" + node, cpu, 80);
                double nic = 25e9 / 8;
                b.port("node" + node, "SLOT 3 Port 1", Direction.RX, nic * nicPct / 100, nic);
                b.port("node" + node, "SLOT 3 Port 1", Direction.TX, nic * nicPct / 100, nic);
            }
            steps.add(b.build());
        }
        return steps;
    }

    /** Host CPU that fills with the VMs' vCPUs: 1.86 % per VM per node, 74 % at 40 and 93 % at 50 VMs per node. */
    static double cpuBound(int vmsPerNode) {
        return Math.min(97, 1.86 * vmsPerNode);
    }

    /** The report's figure: 15-16 % once past 40 VMs per node. */
    static double cpuLow(int vmsPerNode) {
        return Math.min(16, 0.4 * vmsPerNode);
    }
}
