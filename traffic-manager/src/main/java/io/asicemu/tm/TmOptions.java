package io.asicemu.tm;

import io.asicemu.tm.watchdog.StormPredicate;

/**
 * Emulator settings that CONFIG_DB does not carry (ASIC constants and modelling choices).
 *
 * @param cellBytes                 buffer cell size; every packet is charged and stored in whole cells. Default 208 B,
 *                                  the Broadcom Tomahawk MMU cell (sonic-net/sonic-mgmt
 *                                  tests/qos/files/qos_params.th.yaml: {@code cell_size: 208}, the value SONiC's QoS
 *                                  tests use to turn Tomahawk watermarks into cells).
 * @param wireOverheadBytes         bytes added on the wire per frame: preamble+SFD 8, IFG 12, FCS 4 (frames given to
 *                                  admit are counted without FCS, as captured).
 * @param wredSeed                  seed of the data thread's WRED generator.
 * @param wredDropAboveMax          false = SONiC (mark 100 % at/above Kmax); true = drop there.
 * @param stormPredicate            watchdog storm test (Broadcom or Mellanox form).
 * @param pfcQuanta                 quanta of generated XOFF frames (default 0xFFFF).
 * @param pfcRefreshNs              refresh period while in XOFF; 0 = half the pause time at the port speed.
 * @param dwrrQuantumBytesPerWeight DWRR bytes earned per round per unit of weight.
 * @param wredAtEnqueue             false = WRED/ECN decided at dequeue (default, SONiC's egress marking); true = at
 *                                  enqueue on the depth including the arriving packet.
 * @param wredWeight                SAI_WRED_ATTR_WEIGHT 0..15: 0 = instantaneous queue (SONiC); w &gt; 0 = EWMA
 *                                  avg += (q − avg) / 2^w, updated at every decision.
 */
public record TmOptions(
        int cellBytes,
        int wireOverheadBytes,
        long wredSeed,
        boolean wredDropAboveMax,
        StormPredicate stormPredicate,
        int pfcQuanta,
        long pfcRefreshNs,
        long dwrrQuantumBytesPerWeight,
        boolean wredAtEnqueue,
        int wredWeight) {
    /** Validates ranges. */
    public TmOptions {
        if (cellBytes < 1
                || wireOverheadBytes < 0
                || pfcQuanta < 1
                || pfcQuanta > 0xFFFF
                || wredWeight < 0
                || wredWeight > 15
                || dwrrQuantumBytesPerWeight < 1
                || pfcRefreshNs < 0) {
            throw new IllegalArgumentException(
                    "invalid TmOptions: cellBytes " + cellBytes + ", wireOverheadBytes " + wireOverheadBytes
                            + ", pfcQuanta " + pfcQuanta + ", wredWeight " + wredWeight + ", dwrrQuantumBytesPerWeight "
                            + dwrrQuantumBytesPerWeight + ", pfcRefreshNs " + pfcRefreshNs);
        }
    }

    /** @return Tomahawk's 208 B cell, overhead 24 B, seed 1, SONiC WRED, Broadcom watchdog. */
    public static TmOptions defaults() {
        return new TmOptions(208, 24, 1, false, StormPredicate.BROADCOM, 0xFFFF, 0, 1024, false, 0);
    }

    /** @param v cell size. @return a copy. */
    public TmOptions withCellBytes(final int v) {
        return new TmOptions(
                v,
                wireOverheadBytes,
                wredSeed,
                wredDropAboveMax,
                stormPredicate,
                pfcQuanta,
                pfcRefreshNs,
                dwrrQuantumBytesPerWeight,
                wredAtEnqueue,
                wredWeight);
    }

    /** @param v seed. @return a copy. */
    public TmOptions withWredSeed(final long v) {
        return new TmOptions(
                cellBytes,
                wireOverheadBytes,
                v,
                wredDropAboveMax,
                stormPredicate,
                pfcQuanta,
                pfcRefreshNs,
                dwrrQuantumBytesPerWeight,
                wredAtEnqueue,
                wredWeight);
    }

    /** @param v drop above Kmax. @return a copy. */
    public TmOptions withWredDropAboveMax(final boolean v) {
        return new TmOptions(
                cellBytes,
                wireOverheadBytes,
                wredSeed,
                v,
                stormPredicate,
                pfcQuanta,
                pfcRefreshNs,
                dwrrQuantumBytesPerWeight,
                wredAtEnqueue,
                wredWeight);
    }

    /** @param v storm predicate. @return a copy. */
    public TmOptions withStormPredicate(final StormPredicate v) {
        return new TmOptions(
                cellBytes,
                wireOverheadBytes,
                wredSeed,
                wredDropAboveMax,
                v,
                pfcQuanta,
                pfcRefreshNs,
                dwrrQuantumBytesPerWeight,
                wredAtEnqueue,
                wredWeight);
    }

    /** @param quanta XOFF quanta. @param refreshNs refresh period (0 = auto). @return a copy. */
    public TmOptions withPfc(final int quanta, final long refreshNs) {
        return new TmOptions(
                cellBytes,
                wireOverheadBytes,
                wredSeed,
                wredDropAboveMax,
                stormPredicate,
                quanta,
                refreshNs,
                dwrrQuantumBytesPerWeight,
                wredAtEnqueue,
                wredWeight);
    }

    /** @param atEnqueue decide at enqueue. @param weight EWMA weight 0..15. @return a copy. */
    public TmOptions withWred(final boolean atEnqueue, final int weight) {
        return new TmOptions(
                cellBytes,
                wireOverheadBytes,
                wredSeed,
                wredDropAboveMax,
                stormPredicate,
                pfcQuanta,
                pfcRefreshNs,
                dwrrQuantumBytesPerWeight,
                atEnqueue,
                weight);
    }
}
