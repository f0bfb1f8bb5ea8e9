/** SONiC configuration: {@link io.asicemu.pipeline.config.ConfigDb} (raw CONFIG_DB from config_db.json),
 * {@link io.asicemu.pipeline.config.ConfigCompiler} (validate whole, compile to tables) and
 * {@link io.asicemu.pipeline.config.PortNaming} (EthernetN ↔ Linux names). */
package io.asicemu.pipeline.config;
