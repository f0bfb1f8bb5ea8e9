package io.asicemu.switchd.registers;

import io.asicemu.pipeline.config.CompiledConfig;
import io.asicemu.tm.TmOptions;
import io.asicemu.tm.config.BufferPoolConfig;
import io.asicemu.tm.config.PortConfig;
import java.util.List;

/**
 * What the read-only registers read: the configuration in force and the traffic manager's options.
 *
 * @param compiled the compiled CONFIG_DB in force.
 * @param tmOptions the traffic manager's options it was applied with.
 */
record LiveConfig(CompiledConfig compiled, TmOptions tmOptions) {
    PortConfig port(final int index) {
        return compiled.setup().tmConfig().ports().get(index);
    }

    List<String> poolNames() {
        return compiled.setup().tmConfig().pools().keySet().stream().sorted().toList();
    }

    BufferPoolConfig pool(final int index) {
        return compiled.setup().tmConfig().pools().get(poolNames().get(index));
    }
}
