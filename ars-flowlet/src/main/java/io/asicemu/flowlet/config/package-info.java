/**
 * CONFIG_DB tables of hashing and ARS parsed into immutable records:
 * {@link io.asicemu.flowlet.config.FlowletConfigParser#parse} → {@link io.asicemu.flowlet.config.FlowletConfig}.
 */
package io.asicemu.flowlet.config;
