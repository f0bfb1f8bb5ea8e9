package io.asicemu.switchd;

import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.ConfigSchema;
import java.io.PrintWriter;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** How a command reads its config_db.json: strict by default, {@code --lenient} for configs from a real SONiC. */
final class ConfigOptions {
    @Option(
            names = "--lenient",
            description = "ignore config_db tables and fields asic-emu does not model (one"
                    + " warning line each) instead of refusing the config; for configs taken from a real SONiC")
    boolean lenient;

    /**
     * @param file the config_db.json.
     * @param err where warnings go.
     * @param command the command's name, prefixed to each warning.
     * @return the store, without what lenient mode dropped.
     * @throws CliError if the file cannot be read as a bounded UTF-8 text or is not CONFIG_DB JSON (one line naming
     *     the file); the tables are checked when the config is applied.
     */
    ConfigDb load(final Path file, final PrintWriter err, final String command) {
        final ConfigDb db = ConfigFiles.load(file);
        return lenient ? ConfigSchema.check(db, true, w -> err.println(command + ": warning: " + w)) : db;
    }
}
