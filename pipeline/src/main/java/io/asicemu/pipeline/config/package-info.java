/**
 * SONiC configuration, the config side of the control model: {@link io.asicemu.pipeline.config.ConfigDb} (raw
 * CONFIG_DB from config_db.json), {@link io.asicemu.pipeline.config.ConfigCompiler} (validate whole, compile to tables
 * and the control model's {@code SwitchSetup}), {@link io.asicemu.pipeline.config.PortNaming} (EthernetN ↔ Linux
 * names) and {@link io.asicemu.pipeline.config.SwitchConfig} (start-up / reload install, running-config changes staged
 * as the control model's batch changes, the running config). Depends on {@code control} through its public API, as
 * the P4Runtime adapter does; {@code control} names nothing of this package (config → control → table).
 */
package io.asicemu.pipeline.config;
