package io.asicemu.veth.afpacket;

/**
 * Settings of one AF_PACKET port, concluded before the port opens.
 *
 * @param rxFrames RX ring depth in frames (the port rounds it up to whole 16 KiB blocks of slots: 1,030 for 1,024 at MTU
 *                 1500).
 * @param txFrames TX ring depth in frames.
 * @param acceptGso whether RX frames are sized for GSO super-frames (64 KiB), which are then segmented in software;
 *                  when false, a frame larger than the MTU is dropped and counted.
 * @param promiscuous whether to add a PACKET_MR_PROMISC membership (needed on real NICs and macvlan, harmless on veth).
 * @param speedMbps the modeled line rate reported to the pipeline.
 * @param rxRingBudgetBytes RX ring memory of a whole switch ({@link #forPorts(int)} divides it among the configured
 *                          ports, at 2 KiB a slot, the most a slot takes); 0: every port gets {@code rxFrames}.
 */
public record AfPacketConfig(
        int rxFrames, int txFrames, boolean acceptGso, boolean promiscuous, long speedMbps, long rxRingBudgetBytes) {
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
        if (rxRingBudgetBytes < 0) {
            throw new IllegalArgumentException("rxRingBudgetBytes must be >= 0: " + rxRingBudgetBytes);
        }
    }

    /** Settings without an RX ring budget: every port gets {@code rxFrames}. */
    public AfPacketConfig(
            final int rxFrames,
            final int txFrames,
            final boolean acceptGso,
            final boolean promiscuous,
            final long speedMbps) {
        this(rxFrames, txFrames, acceptGso, promiscuous, speedMbps, 0);
    }

    /** The bytes an RX slot takes at most (at MTU 1500 it takes 1,600: the budget is an upper bound). */
    public static final int MAX_RX_SLOT_BYTES = 2048;

    /**
     * RX ring memory of a switch in the lab default: 32 MiB, so 1–2 ports get the full 8192 slots, 3–4 ports 4096,
     * 5–8 ports 2048, 9–16 ports 1024, 17–32 ports 512, 33–64 ports 256 (docs/PERFORMANCE.md "Session 9: RX rings from a
     * budget" measured what the shallower rings absorb).
     */
    public static final long DEFAULT_RX_RING_BUDGET_BYTES = 32L << 20;

    /** No port's RX ring is made shallower than this by the budget (above 64 ports the budget is exceeded). */
    public static final int MIN_BUDGET_RX_FRAMES = 256;

    /**
     * RX ring depth of the lab default: 8192 MTU-sized slots at most (8,200 slots of 1,600 B in 12.8 MiB at MTU 1500),
     * as many as the switch's RX ring budget allows ({@link #forPorts(int)}: 4096 for 3–4 ports, 2048 for 5–8, ...).
     * A ring must outlast the longest stall of the switch's CPU at the rate it forwards: 1,030 slots last 3.9 ms at
     * 260 kpps, less than one scheduler tick (session 13: 15,304 and 18,751 frames lost at half rate in 60 s, 241 with
     * 2048); 2048 slots last 7 ms at 290 kpps, and on this kind of VM the switch's vCPU stalls longer than that a few
     * times a minute (session 15, 7 runs side by side: with 2048 slots the switch's own RX ring dropped frames at half
     * rate in 3 runs, 288, 5,116 and 66, and in no-drop search steps in 5; with 8192 slots in none, at half rate or in
     * any search step; docs/PERFORMANCE.md "Session 15").
     */
    public static final int DEFAULT_RX_FRAMES = 8192;
    /**
     * TX ring depth of the lab default: 64 slots (128 KiB at MTU 1500; jumbo MTUs get 8 slots of 16 KiB). A full TX
     * ring loses nothing (the traffic manager keeps the frames queued, {@code transmitReady}); 64 and 256 slots were
     * compared side by side in session 9 (`ForwardingBenchmark ... 1024/256,1024/64`, docs/PERFORMANCE.md) and 64 was
     * no worse, for 384 KiB less a port.
     */
    public static final int DEFAULT_TX_FRAMES = 64;

    /**
     * Lab defaults: up to 8192 RX and 64 TX MTU-sized slots (12.8 MiB + 128 KiB of ring memory per port at MTU 1500,
     * 16 MiB + 128 KiB at MTU 9500; ring pages count in the process's RSS), an RX ring budget of 32 MiB per switch (so
     * 3–4 ports get 4096 RX slots each, 5–8 ports 2048, 9–16 ports 1024, 17–32 ports 512), GSO super-frames up to 64 KiB accepted through the copy path (so docker-compose
     * peers with offloads on still work), promiscuous, 100 Gb/s modeled.
     */
    public static AfPacketConfig defaults() {
        return new AfPacketConfig(
                DEFAULT_RX_FRAMES, DEFAULT_TX_FRAMES, true, true, 100_000, DEFAULT_RX_RING_BUDGET_BYTES);
    }

    /**
     * The settings of each port of a switch with {@code ports} configured ports: the RX depth is the largest power of two
     * whose 2 KiB slots keep all ports within {@link #rxRingBudgetBytes()}, at most {@link #rxFrames()} and at least
     * {@link #MIN_BUDGET_RX_FRAMES} (or {@code rxFrames} if that is less).
     *
     * @param ports the switch's configured ports (≥ 1).
     * @return this (no budget, or it allows {@code rxFrames}) or a copy with a shallower RX ring.
     */
    public AfPacketConfig forPorts(final int ports) {
        if (rxRingBudgetBytes == 0 || ports < 1) {
            return this;
        }
        final long slotsPerPort = rxRingBudgetBytes / ports / MAX_RX_SLOT_BYTES;
        final int budgeted = (int) Math.max(MIN_BUDGET_RX_FRAMES, Long.highestOneBit(Math.max(1, slotsPerPort)));
        return budgeted >= rxFrames ? this : withRxFrames(budgeted);
    }

    /** @return a copy with another switch-wide RX ring budget in bytes (0: none). */
    public AfPacketConfig withRxRingBudget(final long newRxRingBudgetBytes) {
        return new AfPacketConfig(rxFrames, txFrames, acceptGso, promiscuous, speedMbps, newRxRingBudgetBytes);
    }

    /** Throughput settings: GSO frames dropped and counted instead of segmented, deep rings (1024/1024). */
    public static AfPacketConfig throughput() {
        return new AfPacketConfig(1024, 1024, false, true, 100_000);
    }

    /** @return a copy with another RX ring depth (a power of two >= 8). */
    public AfPacketConfig withRxFrames(final int newRxFrames) {
        return new AfPacketConfig(newRxFrames, txFrames, acceptGso, promiscuous, speedMbps, rxRingBudgetBytes);
    }

    /** @return a copy with another TX ring depth (a power of two >= 8). */
    public AfPacketConfig withTxFrames(final int newTxFrames) {
        return new AfPacketConfig(rxFrames, newTxFrames, acceptGso, promiscuous, speedMbps, rxRingBudgetBytes);
    }

    /** @return a copy with another modeled speed. */
    public AfPacketConfig withSpeedMbps(final long newSpeedMbps) {
        return new AfPacketConfig(rxFrames, txFrames, acceptGso, promiscuous, newSpeedMbps, rxRingBudgetBytes);
    }
}
