package io.asicemu.routing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Route protocol numbers as fpmsyncd names them in APPL_DB's {@code protocol} field: libnl's
 * {@code rtnl_route_proto2str} over the iproute2 {@code rt_protos} file fpmsyncd loads at start
 * ({@code /etc/iproute2/rt_protos} if present, else {@code /usr/share/iproute2/rt_protos}; sonic-swss
 * fpmsyncd/fpmsyncd.cpp and routesync.h), and {@code 0x<hex>} for a number the file does not name (libnl's
 * {@code __list_type2str}). Only that one file is read, not {@code rt_protos.d/}: so FRR's staticd routes (196) are
 * {@code 0xc4} in SONiC, while BGP's (186) are {@code bgp}. Immutable.
 */
public final class ProtocolNames {
    /** The file fpmsyncd prefers, then the one it falls back to. */
    static final List<Path> FILES =
            List.of(Path.of("/etc/iproute2/rt_protos"), Path.of("/usr/share/iproute2/rt_protos"));

    /**
     * Debian bookworm iproute2 6.1's {@code rt_protos} (the base of SONiC's docker-fpm-frr), used when neither file
     * exists.
     */
    private static final String BOOKWORM_RT_PROTOS = """
            0 unspec
            1 redirect
            2 kernel
            3 boot
            4 static
            8 gated
            9 ra
            10 mrt
            11 zebra
            12 bird
            13 dnrouted
            14 xorp
            15 ntk
            16 dhcp
            18 keepalived
            42 babel
            99 openr
            186 bgp
            187 isis
            188 ospf
            189 rip
            192 eigrp
            """;

    private final Map<Integer, String> names;

    private ProtocolNames(final Map<Integer, String> names) {
        this.names = Map.copyOf(names);
    }

    /** @return the names fpmsyncd would use on this machine (its files, or bookworm's table when there are none). */
    public static ProtocolNames fromSystem() {
        for (final Path file : FILES) {
            if (Files.isRegularFile(file)) {
                try {
                    return parse(Files.readString(file));
                } catch (final IOException e) {
                    break;
                }
            }
        }
        return debianBookworm();
    }

    /** @return Debian bookworm's table, what SONiC's fpmsyncd reads in its container. */
    public static ProtocolNames debianBookworm() {
        return parse(BOOKWORM_RT_PROTOS);
    }

    /** @return names parsed from an {@code rt_protos} file's text ("number name" lines, '#' comments). */
    public static ProtocolNames parse(final String text) {
        final Map<Integer, String> names = new HashMap<>();
        for (final String raw : text.split("\n")) {
            final int hash = raw.indexOf('#');
            final String line = (hash < 0 ? raw : raw.substring(0, hash)).trim();
            if (line.isEmpty()) {
                continue;
            }
            final String[] parts = line.split("\\s+");
            if (parts.length < 2) {
                continue;
            }
            try {
                names.put(Integer.decode(parts[0]), parts[1]);
            } catch (final NumberFormatException e) {
                // libnl skips a line it cannot read as a number
            }
        }
        return new ProtocolNames(names);
    }

    /** @return the name of protocol {@code number}, or {@code 0x<hex>}. */
    public String nameOf(final int number) {
        final String name = names.get(number);
        return name != null ? name : "0x" + Integer.toHexString(number);
    }
}
