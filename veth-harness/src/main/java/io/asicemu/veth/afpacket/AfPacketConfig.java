package io.asicemu.veth.afpacket;

/**
 * Settings of one AF_PACKET port, concluded before the port opens.
 *
 * @param rxFrames RX ring depth in frames.
 * @param txFrames TX ring depth in frames.
 * @param acceptGso whether RX frames are sized for GSO super-frames (64 KiB), which are then segmented in software;
 *                  when false, a frame larger than the MTU is dropped and counted.
 * @param promiscuous whether to add a PACKET_MR_PROMISC membership (needed on real NICs and macvlan, harmless on veth).
 * @param speedMbps the modeled line rate reported to the pipeline.
 */
public record AfPacketConfig(int rxFrames, int txFrames, boolean acceptGso, boolean promiscuous, long speedMbps) {
    /** Segments at most this many GSO segments into one receive batch. */
    public static final int MAX_GSO_SEGMENTS = 64;

    /** Validates the settings. */
    public AfPacketConfig {
        if (rxFrames < 8 || Integer.bitCount(rxFrames) != 1 || txFrames < 8 || Integer.bitCount(txFrames) != 1) {
            throw new IllegalArgumentException(
                    "ring depths must be powers of two >= 8: rx " + rxFrames + ", tx " + txFrames);
        }
        if (speedMbps <= 0) {
            throw new IllegalArgumentException("speedMbps must be > 0: " + speedMbps);
        }
    }

    /** RX ring depth of the lab default: 1024 MTU-sized slots (2 MiB at MTU 1500). */
    public static final int DEFAULT_RX_FRAMES = 1024;
    /**
     * TX ring depth of the lab default: 256 slots (512 KiB at MTU 1500; jumbo MTUs get 32 slots of 16 KiB). 64 slots
     * (h12m, session 8) save 384 KiB a port; they were set back when RoceLabTest's receivers counted more CE marks
     * than leaf1 made, which the next run showed was leaf2 marking in its own queue with 256 slots too. 64 can return
     * once `ForwardingBenchmark ... 1024/256,1024/64` and the RoCE lab compare the two.
     */
    public static final int DEFAULT_TX_FRAMES = 256;

    /**
     * Lab defaults: 1024 RX and 256 TX MTU-sized slots (2 MiB + 512 KiB of ring memory per port at MTU 1500 and at
     * MTU 9500; ring pages count in the process's RSS), GSO super-frames up to 64 KiB accepted through the copy path
     * (so docker-compose peers with offloads on still work), promiscuous, 100 Gb/s modeled.
     */
    public static AfPacketConfig defaults() {
        return new AfPacketConfig(DEFAULT_RX_FRAMES, DEFAULT_TX_FRAMES, true, true, 100_000);
    }

    /** Throughput settings: GSO frames dropped and counted instead of segmented, deep rings (1024/1024). */
    public static AfPacketConfig throughput() {
        return new AfPacketConfig(1024, 1024, false, true, 100_000);
    }

    /** @return a copy with another RX ring depth (a power of two >= 8). */
    public AfPacketConfig withRxFrames(final int newRxFrames) {
        return new AfPacketConfig(newRxFrames, txFrames, acceptGso, promiscuous, speedMbps);
    }

    /** @return a copy with another TX ring depth (a power of two >= 8). */
    public AfPacketConfig withTxFrames(final int newTxFrames) {
        return new AfPacketConfig(rxFrames, newTxFrames, acceptGso, promiscuous, speedMbps);
    }

    /** @return a copy with another modeled speed. */
    public AfPacketConfig withSpeedMbps(final long newSpeedMbps) {
        return new AfPacketConfig(rxFrames, txFrames, acceptGso, promiscuous, newSpeedMbps);
    }
}
