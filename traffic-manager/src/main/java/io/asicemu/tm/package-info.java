/**
 * The traffic manager: {@link io.asicemu.tm.TrafficManager} (admit, nextTransmitNs, dequeue, onPfcReceived, poll,
 * snapshot), built from a {@link io.asicemu.tm.config.TmConfig} and {@link io.asicemu.tm.TmOptions}.
 */
package io.asicemu.tm;
