package io.asicemu.pipeline.config;

import io.asicemu.pipeline.control.SwitchSetup;

/**
 * A validated configuration: the CONFIG_DB it came from, its port names, and what it installs on a switch in the
 * control model's terms ({@link SwitchSetup}: the compiled data-path tables, the traffic manager's and hash engine's
 * settings, and the routes, interfaces, next hops and groups the control model edits further).
 *
 * @param db the raw CONFIG_DB it came from.
 * @param naming SONiC ↔ Linux names.
 * @param setup what it installs (one instance per compile: the control model tells installs apart by it).
 */
public record CompiledConfig(ConfigDb db, PortNaming naming, SwitchSetup setup) {}
