/**
 * Adaptive routing: per-port path quality in 8 bands ({@link io.asicemu.flowlet.ars.PortQuality}) and the
 * per-group flowlet table ({@link io.asicemu.flowlet.ars.FlowletTable}).
 */
package io.asicemu.flowlet.ars;
