package io.asicemu.tm.config;

/**
 * One PFC_WD|&lt;port&gt; entry.
 *
 * @param action            drop, forward or alert.
 * @param detectionTimeMs   100..5000 ms.
 * @param restorationTimeMs 100..60000 ms, or -1 when absent (never restore).
 */
public record PfcWdPortConfig(PfcWdAction action, int detectionTimeMs, int restorationTimeMs) {}
