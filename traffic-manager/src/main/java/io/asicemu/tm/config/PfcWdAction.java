package io.asicemu.tm.config;

/** PFC_WD.action (default drop, as orchagent and the CLI default). */
public enum PfcWdAction {
    DROP,
    FORWARD,
    ALERT
}
