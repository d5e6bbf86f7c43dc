package io.ioscale.analytics;

/**
 * One direction of a full-duplex port, as seen from the host (PortSample rx_bytes / tx_bytes): reads arrive
 * on RX, writes leave on TX, so a 75/25 read/write mix saturates RX first.
 */
public enum Direction {
    RX,
    TX
}
