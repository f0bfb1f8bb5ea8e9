package io.asicemu.tm.config;

/**
 * Per-port settings gathered from PORT, PORT_QOS_MAP, its maps, BUFFER_PG/BUFFER_QUEUE, QUEUE, PFC_WD and
 * CABLE_LENGTH. Array fields have 8 entries (index = PG, queue or priority) and must not be mutated; null names mean
 * "not configured".
 *
 * @param name               port name.
 * @param index              dense port index.
 * @param speedMbps          PORT.speed.
 * @param pfcAsym            PORT.pfc_asym == on (RX honours all priorities, TX uses pfc_enable).
 * @param pfcEnableMask      PORT_QOS_MAP.pfc_enable as a bit mask.
 * @param pfcwdSwEnableMask  PORT_QOS_MAP.pfcwd_sw_enable as a bit mask (defaults to pfc_enable).
 * @param pfcPriorityToQueue MAP_PFC_PRIORITY_TO_QUEUE (identity when unset).
 * @param tcToPg             TC_TO_PRIORITY_GROUP_MAP (identity when unset); PFC priority == TC.
 * @param pgProfile          BUFFER_PG profile per PG.
 * @param queueProfile       BUFFER_QUEUE profile per queue.
 * @param queueScheduler     QUEUE.scheduler per queue.
 * @param queueWredProfile   QUEUE.wred_profile per queue.
 * @param shaperScheduler    PORT_QOS_MAP.scheduler (port shaper).
 * @param pfcWd              PFC_WD entry, or null.
 * @param cableLengthM       CABLE_LENGTH in metres, or -1.
 */
public record PortConfig(
        String name,
        int index,
        long speedMbps,
        boolean pfcAsym,
        int pfcEnableMask,
        int pfcwdSwEnableMask,
        int[] pfcPriorityToQueue,
        int[] tcToPg,
        String[] pgProfile,
        String[] queueProfile,
        String[] queueScheduler,
        String[] queueWredProfile,
        String shaperScheduler,
        PfcWdPortConfig pfcWd,
        int cableLengthM) {}
