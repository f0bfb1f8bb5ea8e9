/**
 * CONFIG_DB tables → typed config: {@link io.asicemu.tm.config.TmConfigParser#parse}, the built-in
 * {@link io.asicemu.tm.config.SonicDefaults} and SONiC's {@link io.asicemu.tm.config.HeadroomCalculator}.
 */
package io.asicemu.tm.config;
