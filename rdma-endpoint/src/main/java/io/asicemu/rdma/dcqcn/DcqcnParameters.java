package io.asicemu.rdma.dcqcn;

/**
 * The DCQCN knobs of one endpoint, named and scaled as NVIDIA ConnectX NICs expose them (mlxconfig {@code RPG_*},
 * {@code DCE_TCP_*}, {@code CNP_*}; sysfs {@code ecn/roce_rp} and {@code ecn/roce_np}), so a lab user can copy values
 * from a NIC. Units and the choices made where the sources leave a unit or scope open: rdma-endpoint/DCQCN.md.
 *
 * @param rpgTimeResetUs time between rate increases while no CNP arrives (µs; the paper's timer T)
 * @param rpgByteResetBytes bytes sent between rate increases while no CNP arrives (the paper's byte counter B; 0 turns
 *     the byte counter off)
 * @param rpgThreshold increase events of one kind before the next stage (the paper's F): fast recovery while both
 *     counters are below it, hyper increase once both exceed it, additive increase in between
 * @param rpgMaxRateMbps highest rate a QP may reach (Mb/s; 0 = the line rate)
 * @param rpgAiRateMbps additive-increase step of the target rate (Mb/s; the paper's R_AI)
 * @param rpgHaiRateMbps hyper-increase step of the target rate (Mb/s; the paper's R_HAI)
 * @param rpgGd rate cut shift: one cut multiplies the rate by {@code 1 - alpha * 1024 / 2^rpgGd} with alpha in
 *     [0, 1); 11 gives the paper's {@code 1 - alpha/2}
 * @param rpgMinDecFacPercent one cut never takes the rate below this share of the rate before it (%)
 * @param rpgMinRateMbps lowest rate a cut may reach (Mb/s)
 * @param rateToSetOnFirstCnpMbps rate (current and target) set by the first CNP of a QP (Mb/s; 0 = cut as usual)
 * @param dceTcpG alpha gain as a 10-bit fraction: alpha decays by {@code dceTcpG/1024} per update period and a CNP
 *     raises it by {@code (1024 - dceTcpG)/1024} of the way to 1; the paper's g is {@code 1 - dceTcpG/1024}
 * @param dceTcpRttUs alpha update period (µs; the paper's K)
 * @param rateReduceMonitorPeriodUs least time between two rate cuts (µs; CNPs inside it coalesce into one cut at
 *     its end; 0 = a cut per CNP, as the paper)
 * @param initialAlphaValue alpha set by the first CNP of a QP, as a 10-bit fraction (1023 ≈ 1)
 * @param clampTgtRate a cut always sets the target rate to the rate before the cut (the paper's {@code R_T ← R_C})
 * @param clampTgtRateAfterTimeInc a cut sets the target rate to the rate before the cut when the last increase was
 *     timer-driven
 * @param minTimeBetweenCnpsUs notification point: least time between two CNPs for one QP (µs; the paper's N)
 * @param cnpDscp DSCP of the CNPs this endpoint sends
 * @param cnp802pPrio 802.1p priority of the CNPs this endpoint sends (used when the port is VLAN-tagged)
 */
public record DcqcnParameters(
        long rpgTimeResetUs,
        long rpgByteResetBytes,
        int rpgThreshold,
        long rpgMaxRateMbps,
        long rpgAiRateMbps,
        long rpgHaiRateMbps,
        int rpgGd,
        int rpgMinDecFacPercent,
        long rpgMinRateMbps,
        long rateToSetOnFirstCnpMbps,
        int dceTcpG,
        long dceTcpRttUs,
        long rateReduceMonitorPeriodUs,
        int initialAlphaValue,
        boolean clampTgtRate,
        boolean clampTgtRateAfterTimeInc,
        long minTimeBetweenCnpsUs,
        int cnpDscp,
        int cnp802pPrio) {

    /** Far beyond any NIC's field (mlxconfig's are 15–32 bits) but keeps every product in a long of nanoseconds. */
    static final long MAX_TIME_US = 1_000_000_000L;

    static final long MAX_RATE_MBPS = 1_600_000L;

    public DcqcnParameters {
        requireRange("rpg_time_reset", rpgTimeResetUs, 1, MAX_TIME_US);
        requireRange("rpg_byte_reset", rpgByteResetBytes, 0, Integer.MAX_VALUE);
        requireRange("rpg_threshold", rpgThreshold, 1, 31);
        requireRange("rpg_max_rate", rpgMaxRateMbps, 0, MAX_RATE_MBPS);
        requireRange("rpg_ai_rate", rpgAiRateMbps, 1, MAX_RATE_MBPS);
        requireRange("rpg_hai_rate", rpgHaiRateMbps, 1, MAX_RATE_MBPS);
        requireRange("rpg_gd", rpgGd, 10, 20);
        requireRange("rpg_min_dec_fac", rpgMinDecFacPercent, 0, 100);
        requireRange("rpg_min_rate", rpgMinRateMbps, 1, MAX_RATE_MBPS);
        requireRange("rate_to_set_on_first_cnp", rateToSetOnFirstCnpMbps, 0, MAX_RATE_MBPS);
        requireRange("dce_tcp_g", dceTcpG, 0, 1023);
        requireRange("dce_tcp_rtt", dceTcpRttUs, 1, MAX_TIME_US);
        requireRange("rate_reduce_monitor_period", rateReduceMonitorPeriodUs, 0, MAX_TIME_US);
        requireRange("initial_alpha_value", initialAlphaValue, 0, 1023);
        requireRange("min_time_between_cnps", minTimeBetweenCnpsUs, 0, MAX_TIME_US);
        requireRange("cnp_dscp", cnpDscp, 0, 63);
        requireRange("cnp_802p_prio", cnp802pPrio, 0, 7);
    }

    /**
     * The defaults a ConnectX-4 or later NIC ships with (mlxconfig {@code -e query}): byte-counter-heavy increase
     * (32,767 B, F = 1), 300 µs timer, alpha updated every microsecond with g = 5/1024.
     */
    public static DcqcnParameters nicDefaults() {
        return new DcqcnParameters(300, 32_767, 1, 0, 5, 50, 11, 50, 1, 0, 1019, 1, 4, 1023, false, true, 4, 48, 6);
    }

    /**
     * The settings of the DCQCN paper (Zhu et al., SIGCOMM 2015): g = 1/256, alpha timer K = 55 µs, CNP interval
     * N = 50 µs, increase timer T = 55 µs, byte counter B = 10 MB (so increase is timer-driven), F = 5, R_AI = 40 Mb/s,
     * {@code R_T ← R_C} on every cut. R_HAI is not fixed by the paper; 400 Mb/s keeps the NICs' 1:10 ratio.
     */
    public static DcqcnParameters paperSettings() {
        return new DcqcnParameters(
                55, 10_000_000, 5, 0, 40, 400, 11, 50, 1, 0, 1020, 55, 0, 1023, true, true, 50, 48, 6);
    }

    /** The paper's alpha gain g as a fraction. */
    public double alphaGain() {
        return (1024 - dceTcpG) / 1024.0;
    }

    private static void requireRange(String field, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException("DCQCN " + field + " = " + value + " is outside " + min + ".." + max);
        }
    }
}
