package io.asicemu.switchd.routing;

import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.control.ControlAgent;
import io.asicemu.routing.FpmServer;
import io.asicemu.routing.ProtocolNames;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The switch as a router, SONiC's way: Debian's FRR beside it ({@link FrrDaemons}, configured from CONFIG_DB by
 * {@link FrrConfig} or from a mounted frr.conf), zebra streaming the routes it selects to the FPM listener, and the
 * listener writing them to the control model as the protocol writer ({@link ProtocolRouteWriter}) and to APPL_DB's
 * ROUTE_TABLE ({@link ApplDbRouteTable}). Started only when the config asks for routing ({@link #wanted}).
 * <p>
 * Not thread safe: started and closed by the switch's start-up thread.
 */
public final class Routing implements AutoCloseable {
    private final FpmServer fpm;
    private final ProtocolRouteWriter writer;
    private final ApplDbRouteTable applDb;
    private final FrrDaemons daemons;

    /**
     * Where routing runs.
     *
     * @param runDir FRR's run directory (pid files and sockets; {@code vtysh}'s default is /var/run/frr).
     * @param fpm the FPM listener's address (127.0.0.1:2620; port 0 picks a free one, written into frr.conf).
     * @param commandPrefix what runs FRR's commands ({@code ip netns exec NS} in tests; empty in the appliance).
     * @param logDir where the daemons' logs go, or null for this process's stdout.
     * @param frrConf a mounted frr.conf to run instead of the one rendered from CONFIG_DB, or null.
     */
    public record Settings(Path runDir, InetSocketAddress fpm, List<String> commandPrefix, Path logDir, Path frrConf) {
        /** @return the appliance's settings: /var/run/frr, 127.0.0.1:2620, logs to stdout, the rendered frr.conf. */
        public static Settings appliance() {
            return new Settings(
                    Path.of("/var/run/frr"),
                    new InetSocketAddress("127.0.0.1", FrrConfig.FPM_PORT),
                    List.of(),
                    null,
                    null);
        }
    }

    private Routing(
            final FpmServer fpm,
            final ProtocolRouteWriter writer,
            final ApplDbRouteTable applDb,
            final FrrDaemons daemons) {
        this.fpm = fpm;
        this.writer = writer;
        this.applDb = applDb;
        this.daemons = daemons;
    }

    /**
     * @return whether the config asks for routing: BGP sessions (BGP_NEIGHBOR), or a mounted frr.conf.
     */
    public static boolean wanted(final ConfigDb db, final Path mountedFrrConf) {
        return !db.table("BGP_NEIGHBOR").isEmpty() || (mountedFrrConf != null && Files.isRegularFile(mountedFrrConf));
    }

    /**
     * Starts the FPM listener, then FRR.
     *
     * @param db the running config.
     * @param control the switch's control agent (the protocol writer's routes go through it).
     * @throws IOException if the listener cannot bind or FRR cannot start (nothing is left running).
     */
    public static Routing start(final ConfigDb db, final ControlAgent control, final Settings settings)
            throws IOException {
        final ProtocolRouteWriter writer = new ProtocolRouteWriter(control);
        final ApplDbRouteTable applDb = new ApplDbRouteTable(ProtocolNames.fromSystem());
        final FpmServer fpm;
        try {
            fpm = FpmServer.start(
                    FpmServer.Settings.defaults().withAddress(settings.fpm()), new BothSinks(writer, applDb));
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while binding the FPM listener", e);
        }
        try {
            final String conf = settings.frrConf() != null
                    ? Files.readString(settings.frrConf())
                    : FrrConfig.render(db, fpm.port());
            final FrrDaemons daemons =
                    FrrDaemons.start(settings.runDir(), conf, settings.commandPrefix(), settings.logDir());
            return new Routing(fpm, writer, applDb, daemons);
        } catch (final IOException | RuntimeException e) {
            fpm.close();
            throw e;
        }
    }

    /** @return the control model's writer (its counters: routes written, withdrawn, refused by reason). */
    public ProtocolRouteWriter writer() {
        return writer;
    }

    /** @return APPL_DB's ROUTE_TABLE. */
    public ApplDbRouteTable applDb() {
        return applDb;
    }

    /** @return the FPM listener (its counters). */
    public FpmServer fpm() {
        return fpm;
    }

    /** @return the FRR daemons (vtysh). */
    public FrrDaemons daemons() {
        return daemons;
    }

    /** Stops FRR, then the listener; the routes written stay in the data path until the switch stops. */
    @Override
    public void close() {
        try {
            daemons.close();
        } finally {
            fpm.close();
        }
    }
}
