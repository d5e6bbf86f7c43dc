package io.ioscale.analytics;

import java.io.Serializable;
import java.util.Locale;

/**
 * Traffic through one port in one direction over a step's steady state, against its usable payload rate.
 *
 * @param host              host the port is on
 * @param portId            port name as in PortSample.port_id
 * @param direction         RX or TX
 * @param bytesPerS         mean payload rate in the steady state, bytes/s
 * @param capacityBytesPerS usable payload rate of that direction, bytes/s (RunEvent LinkCapacity
 *                          payload_bytes_per_s, e.g. 8 Gbps FC ~ 800e6); &gt; 0
 */
public record PortLoad(String host, String portId, Direction direction, double bytesPerS, double capacityBytesPerS)
        implements Serializable {
    public PortLoad {
        if (host == null || portId == null || direction == null) {
            throw new IllegalArgumentException("port host, port_id and direction are required");
        }
        if (!(bytesPerS >= 0) || Double.isInfinite(bytesPerS)) {
            throw new IllegalArgumentException("port " + host + "/" + portId + " " + direction
                    + ": bytes_per_s must be a finite number >= 0, got " + bytesPerS);
        }
        if (!(capacityBytesPerS > 0) || Double.isInfinite(capacityBytesPerS)) {
            throw new IllegalArgumentException("port " + host + "/" + portId + " " + direction
                    + ": capacity_bytes_per_s must be a finite number > 0, got " + capacityBytesPerS);
        }
    }

    /** bytesPerS / capacityBytesPerS x 100. */
    public double utilizationPct() {
        return bytesPerS / capacityBytesPerS * 100.0;
    }

    /** "host/port RX". */
    public String name() {
        return host + "/" + portId + " " + direction;
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%s at %.1f%% of %.1f MB/s (%.1f MB/s)", name(), utilizationPct(),
                capacityBytesPerS / 1e6, bytesPerS / 1e6);
    }
}
