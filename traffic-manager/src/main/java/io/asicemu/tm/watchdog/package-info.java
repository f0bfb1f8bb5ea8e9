/** SONiC's PFC watchdog polling state machine ({@link io.asicemu.tm.watchdog.PfcWatchdog}). */
package io.asicemu.tm.watchdog;
