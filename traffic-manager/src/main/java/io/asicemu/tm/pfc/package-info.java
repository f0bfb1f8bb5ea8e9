/**
 * PFC generation ({@link io.asicemu.tm.pfc.PfcGenerator} → {@link io.asicemu.tm.pfc.PfcFrameSink}) and reception
 * pause timers ({@link io.asicemu.tm.pfc.PfcPauseTimers}).
 */
package io.asicemu.tm.pfc;
