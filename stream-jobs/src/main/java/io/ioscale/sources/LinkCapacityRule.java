package io.ioscale.sources;

import io.ioscale.records.RunEvent;

/**
 * Usable payload rate of a link per direction, bytes/s, from what is known about it. Precedence:
 * <ol>
 *   <li>the run's {@code LinkCapacity.payload_bytes_per_s} when &gt; 0 (the operator knows best);</li>
 *   <li>else the run's {@code LinkCapacity.speed_bps} through the rule below;</li>
 *   <li>else the sample's {@code link_speed_bps} through the rule below;</li>
 *   <li>else unknown (0): no utilization is reported.</li>
 * </ol>
 *
 * <h2>Rule: line rate to payload rate</h2>
 * <pre>
 *   kind             payload bytes/s                         why
 *   FC_HBA           class x 100 MB/s                        FC is sold by "Gbps class": 1GFC = 100 MB/s, 2GFC 200,
 *                    class = nearest of 1,2,4,8,16,32,64,128  4GFC 400, 8GFC 800 MB/s (8b/10b on 1.0625 x class
 *                    to speed_bps / 10^9 (log scale)          Gbaud), 16GFC 1600, 32GFC 3200 (64b/66b at a higher
 *                                                             baud, same 100 MB/s per class). 8.5 Gbps -> 8GFC.
 *   NIC, NIC_VMQ     speed_bps / 8 x 1460 / 1538 (0.949)      TCP/IPv4 payload of full 1500-byte frames: 1460 B
 *                                                             per 1538 B on the wire (preamble, header, FCS, gap).
 *   SAS              speed_bps / 10                           8b/10b: 3/6/12 Gbps -> 300/600/1200 MB/s per lane.
 *   OTHER            speed_bps / 8                            no encoding known.
 * </pre>
 * A NIC VM queue shares its port's capacity, so its utilization is its share of the port.
 */
public final class LinkCapacityRule {
    public static final String FROM_RUN_EVENT = "run_event";
    public static final String FROM_LINK_SPEED = "link_speed";
    public static final String UNKNOWN = "unknown";

    private static final int[] FC_CLASSES_GBPS = {1, 2, 4, 8, 16, 32, 64, 128};
    static final double ETHERNET_PAYLOAD_FRACTION = 1460.0 / 1538.0;

    private LinkCapacityRule() {}

    /** Payload bytes/s per direction for a line rate of {@code speedBps}; 0 when the speed is unknown (0). */
    public static double payloadBytesPerS(String kind, long speedBps) {
        if (speedBps <= 0) {
            return 0;
        }
        return switch (kind) {
            case "FC_HBA" -> fcClassGbps(speedBps) * 100e6;
            case "NIC", "NIC_VMQ" -> speedBps / 8.0 * ETHERNET_PAYLOAD_FRACTION;
            case "SAS" -> speedBps / 10.0;
            default -> speedBps / 8.0;
        };
    }

    /** The nominal FC class (Gbps) nearest to the line rate on a log scale (8.5 Gbps -> 8, 14.025 -> 16). */
    static int fcClassGbps(long speedBps) {
        double gbps = speedBps / 1e9;
        int best = FC_CLASSES_GBPS[0];
        double bestDistance = Double.MAX_VALUE;
        for (int c : FC_CLASSES_GBPS) {
            double d = Math.abs(Math.log(gbps / c));
            if (d < bestDistance) {
                bestDistance = d;
                best = c;
            }
        }
        return best;
    }

    /**
     * Whether a capacity from {@code source} replaces the one held from {@code heldSource}. A run's declared link
     * beats a sample's own speed whatever the numbers: a sample processed before its run's links (the topics are
     * not ordered against each other) must not lift a declared capacity or turn a half-duplex link full duplex.
     * Within one source the larger capacity wins.
     */
    public static boolean supersedes(String source, double bytesPerS, String heldSource, double heldBytesPerS) {
        if (!(bytesPerS > 0)) {
            return false;
        }
        int rank = rank(source);
        int held = heldBytesPerS > 0 ? rank(heldSource) : -1;
        return rank > held || (rank == held && bytesPerS > heldBytesPerS);
    }

    private static int rank(String source) {
        return switch (source) {
            case FROM_RUN_EVENT -> 2;
            case FROM_LINK_SPEED -> 1;
            default -> 0;
        };
    }

    /** Payload bytes/s of a run's declared link: payload_bytes_per_s when given, else the rule on speed_bps. */
    public static double payloadBytesPerS(RunEvent.LinkCapacity link) {
        return link.payloadBytesPerS > 0 ? link.payloadBytesPerS : payloadBytesPerS(link.kind, link.speedBps);
    }
}
