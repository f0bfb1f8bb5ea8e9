package io.asicemu.testsupport.netns;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Interface names of a network namespace by index, from {@code ip -n <ns> -o link}: this JVM's {@code /sys/class/net}
 * shows the namespace sysfs was mounted in (the host's), not the one a thread entered. The names are re-read on a miss
 * (an interface created after the last read). Use as the FPM listener's interface names: {@code new
 * IpLinkNames(ns)::nameOf}. Not thread safe: one I/O thread asks.
 */
public final class IpLinkNames {
    private final String namespace;
    private Map<Integer, String> names = Map.of();

    /** @param namespace the namespace's name ({@link Netns#name()}). */
    public IpLinkNames(final String namespace) {
        this.namespace = namespace;
    }

    /** @return the name of interface {@code ifindex} in the namespace, or null when there is none. */
    public String nameOf(final int ifindex) {
        if (!names.containsKey(ifindex)) {
            final Map<Integer, String> read = new HashMap<>();
            final String links = Commands.run(Duration.ofSeconds(10), List.of("ip", "-n", namespace, "-o", "link"))
                    .requireSuccess()
                    .stdout();
            for (final String line : links.split("\n")) {
                final String[] parts = line.split(": ");
                if (parts.length >= 2) {
                    read.put(Integer.parseInt(parts[0].trim()), parts[1].split("@")[0].trim());
                }
            }
            names = read;
        }
        return names.get(ifindex);
    }
}
