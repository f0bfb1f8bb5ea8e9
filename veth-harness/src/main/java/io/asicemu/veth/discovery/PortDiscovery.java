package io.asicemu.veth.discovery;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.asicemu.veth.ffm.Kernel;
import io.asicemu.veth.ffm.Libc;
import io.asicemu.veth.ffm.PollSet;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Hot-plug port discovery: follows rtnetlink link events (NETLINK_ROUTE, group RTMGRP_LINK, through FFM) and, on each
 * event batch and on a slow fallback timer, reconciles the data ports present in /sys/class/net with the ports it has
 * reported (the timer is only a safety net: netlink reports every link change, and a socket that overflowed and lost
 * events is readable with ENOBUFS, which wakes the thread and so reconciles too). A port that appears is reported added; one that disappears is reported removed; one deleted and created
 * again (a new ifindex) is reported removed, then added. Link up/down events of known ports are reported too. Never
 * requires a port to exist; never fails because one vanished.
 * <p>
 * Threading: {@link #start()} runs it on its own thread ("port-discovery"), or a caller polls {@link #pollFd()} and
 * calls {@link #onReadable()}/{@link #reconcile()} on one thread. The listener runs on that thread.
 */
public final class PortDiscovery implements AutoCloseable {
    /** Receives port changes. */
    public interface Listener {
        /** A data port appeared (or came back with a new ifindex). */
        void onPortAdded(String name, int ifIndex);

        /** A data port disappeared. */
        void onPortRemoved(String name, int ifIndex);

        /** A known data port's operational state changed (IFF_RUNNING). */
        default void onLinkState(final String name, final boolean running) {}

        /** A known data port's MTU changed (IFLA_MTU of RTM_NEWLINK), e.g. {@code ip link set <port> mtu 200}. */
        default void onLinkMtu(final String name, final int mtu) {}
    }

    private static final Path SYS_CLASS_NET = Path.of("/sys/class/net");
    private static final int BUFFER_BYTES = 64 * 1024;
    /**
     * The safety net's period. A rescan lists /sys/class/net and reads each port's ifindex, 1-3 ms of CPU on a 2-core VM
     * in code that, run this rarely, stays cold: every 10 s it was a steady idle cost (docs/LAB.md session 10), while
     * plug-in never waited for it (events wake the thread at once).
     */
    private static final long FALLBACK_RESCAN_NS = 300_000_000_000L;

    private static final int EFD_NONBLOCK = 0x800;
    private static final int EFD_CLOEXEC = 0x80000;

    private final Predicate<String> isDataPort;
    private final Listener listener;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment errno = Libc.newErrnoSegment(arena);
    private final MemorySegment buffer = arena.allocate(BUFFER_BYTES, 8);
    private final int fd;
    /** Written by {@link #close()} so the discovery thread leaves its (up to 5 min) wait at once. */
    private final int wakeFd;

    private final Map<String, Integer> known = new TreeMap<>();
    private final Map<Integer, Boolean> running = new HashMap<>();
    private final Map<Integer, Integer> mtus = new HashMap<>();
    private volatile boolean stopping;
    private Thread thread;

    /**
     * Opens the netlink socket; nothing is reported until the first {@link #reconcile()} (or {@link #start()}).
     *
     * @param isDataPort which interface names are data ports (see {@link #dataPorts(String, String)}).
     * @param listener where changes go.
     */
    public PortDiscovery(final Predicate<String> isDataPort, final Listener listener) {
        this.isDataPort = isDataPort;
        this.listener = listener;
        final int socketFd = Libc.socket(
                errno,
                Kernel.AF_NETLINK,
                Kernel.SOCK_RAW | Kernel.SOCK_NONBLOCK | Kernel.SOCK_CLOEXEC,
                Kernel.NETLINK_ROUTE);
        if (socketFd < 0) {
            arena.close();
            throw new IllegalStateException(Libc.describe("socket(AF_NETLINK)", errno));
        }
        try (Arena setup = Arena.ofConfined()) {
            final MemorySegment address = setup.allocate(Kernel.SOCKADDR_NL);
            address.set(JAVA_SHORT, Kernel.NL_FAMILY, (short) Kernel.AF_NETLINK);
            address.set(JAVA_INT, Kernel.NL_GROUPS, Kernel.RTMGRP_LINK);
            if (Libc.bind(errno, socketFd, address, (int) Kernel.SOCKADDR_NL.byteSize()) < 0) {
                final String message = Libc.describe("bind netlink RTMGRP_LINK", errno);
                Libc.close(errno, socketFd);
                arena.close();
                throw new IllegalStateException(message);
            }
        }
        this.fd = socketFd;
        this.wakeFd = Libc.eventfd(errno, 0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (wakeFd < 0) {
            final String message = Libc.describe("eventfd", errno);
            Libc.close(errno, socketFd);
            arena.close();
            throw new IllegalStateException(message);
        }
    }

    /**
     * The usual data-port rule: every interface except {@code lo}, the management interface, and names not matching
     * {@code includeRegex}.
     *
     * @param managementInterface e.g. {@code eth0} (null: none, every interface may be a data port).
     * @param includeRegex e.g. {@code eth[0-9]+|e[0-9]+-[0-9]+|swp[0-9]+} or a lab prefix.
     */
    public static Predicate<String> dataPorts(final String managementInterface, final String includeRegex) {
        final Pattern include = Pattern.compile(includeRegex);
        return name -> !"lo".equals(name)
                && !name.equals(managementInterface)
                && include.matcher(name).matches();
    }

    /** @return the netlink descriptor (readable when link events are pending). */
    public int pollFd() {
        return fd;
    }

    /** Starts the discovery thread: reconcile now, then on every link event and at least every 5 minutes. */
    public synchronized void start() {
        if (thread != null) {
            throw new IllegalStateException("already started");
        }
        reconcile();
        thread = new Thread(this::run, "port-discovery");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try (PollSet poll = new PollSet(2)) {
            poll.add(fd);
            poll.add(wakeFd);
            while (!stopping) {
                poll.await(FALLBACK_RESCAN_NS);
                if (stopping) {
                    break;
                }
                onReadable();
                reconcile();
            }
        }
    }

    /**
     * Drains pending netlink messages and reports link-state changes of known ports.
     *
     * @return how many link messages were read.
     */
    public int onReadable() {
        int messages = 0;
        while (true) {
            final long read = Libc.recv(errno, fd, buffer, BUFFER_BYTES, Kernel.MSG_DONTWAIT);
            if (read <= 0) {
                return messages;
            }
            long at = 0;
            while (at + Kernel.NLMSGHDR.byteSize() <= read) {
                final int length = buffer.get(JAVA_INT, at + Kernel.NLMSG_LEN);
                final int type = buffer.get(JAVA_SHORT, at + Kernel.NLMSG_TYPE);
                if (length < Kernel.NLMSGHDR.byteSize() || at + length > read) {
                    break;
                }
                if (type == Kernel.RTM_NEWLINK || type == Kernel.RTM_DELLINK) {
                    messages++;
                    final long info = at + Kernel.NLMSGHDR.byteSize();
                    final int ifIndex = buffer.get(JAVA_INT, info + Kernel.IFI_INDEX);
                    final int flags = buffer.get(JAVA_INT, info + Kernel.IFI_FLAGS);
                    if (type == Kernel.RTM_NEWLINK) {
                        onLinkFlags(ifIndex, (flags & Kernel.IFF_RUNNING) != 0);
                        final int mtu = mtuAttribute(
                                at + Kernel.NLMSGHDR.byteSize() + Kernel.IFINFOMSG.byteSize(), at + length);
                        if (mtu > 0) {
                            onLinkMtu(ifIndex, mtu);
                        }
                    }
                }
                at += (length + 3) & ~3;
            }
        }
    }

    /** @return IFLA_MTU among the rtattrs in [from, end), or -1. */
    private int mtuAttribute(final long from, final long end) {
        long at = from;
        while (at + Kernel.RTA_HEADER_BYTES <= end) {
            final int rtaLength = buffer.get(JAVA_SHORT, at) & 0xffff;
            final int rtaType = buffer.get(JAVA_SHORT, at + 2) & 0x3fff;
            if (rtaLength < Kernel.RTA_HEADER_BYTES || at + rtaLength > end) {
                return -1;
            }
            if (rtaType == Kernel.IFLA_MTU && rtaLength >= Kernel.RTA_HEADER_BYTES + 4) {
                return buffer.get(JAVA_INT, at + Kernel.RTA_HEADER_BYTES);
            }
            at += (rtaLength + 3) & ~3;
        }
        return -1;
    }

    private void onLinkMtu(final int ifIndex, final int mtu) {
        for (final Map.Entry<String, Integer> entry : known.entrySet()) {
            if (entry.getValue() == ifIndex) {
                final Integer before = mtus.put(ifIndex, mtu);
                if (before != null && before != mtu) {
                    listener.onLinkMtu(entry.getKey(), mtu);
                }
                return;
            }
        }
    }

    private void onLinkFlags(final int ifIndex, final boolean isRunning) {
        for (final Map.Entry<String, Integer> entry : known.entrySet()) {
            if (entry.getValue() == ifIndex) {
                final Boolean before = running.put(ifIndex, isRunning);
                if (before == null || before != isRunning) {
                    listener.onLinkState(entry.getKey(), isRunning);
                }
                return;
            }
        }
    }

    /**
     * Compares the data ports present now with those reported and reports the differences.
     *
     * @return how many changes were reported.
     */
    public int reconcile() {
        final Map<String, Integer> present = scan();
        int changes = 0;
        for (final Map.Entry<String, Integer> entry : Map.copyOf(known).entrySet()) {
            final Integer now = present.get(entry.getKey());
            if (now == null || !now.equals(entry.getValue())) {
                known.remove(entry.getKey());
                running.remove(entry.getValue());
                mtus.remove(entry.getValue());
                listener.onPortRemoved(entry.getKey(), entry.getValue());
                changes++;
            }
        }
        for (final Map.Entry<String, Integer> entry : present.entrySet()) {
            if (!known.containsKey(entry.getKey())) {
                known.put(entry.getKey(), entry.getValue());
                mtus.put(entry.getValue(), readMtu(entry.getKey()));
                listener.onPortAdded(entry.getKey(), entry.getValue());
                changes++;
            }
        }
        return changes;
    }

    /** @return the data ports reported and not removed, name → ifindex (a copy). */
    public Map<String, Integer> ports() {
        return Map.copyOf(known);
    }

    private static int readMtu(final String name) {
        try {
            return Integer.parseInt(
                    Files.readString(SYS_CLASS_NET.resolve(name).resolve("mtu")).trim());
        } catch (final IOException | NumberFormatException e) {
            return -1; // vanished: the first MTU event then counts as a change only against -1
        }
    }

    private Map<String, Integer> scan() {
        final Map<String, Integer> present = new TreeMap<>();
        try (Stream<Path> entries = Files.list(SYS_CLASS_NET)) {
            entries.forEach(entry -> {
                final String name = entry.getFileName().toString();
                if (isDataPort.test(name)) {
                    try {
                        present.put(
                                name,
                                Integer.parseInt(Files.readString(entry.resolve("ifindex"))
                                        .trim()));
                    } catch (final IOException | NumberFormatException e) {
                        // vanished between list and read: it is simply not present
                    }
                }
            });
        } catch (final IOException e) {
            throw new IllegalStateException("cannot list " + SYS_CLASS_NET, e);
        }
        return present;
    }

    @Override
    public void close() {
        stopping = true;
        final Thread discoveryThread = thread;
        if (discoveryThread != null) {
            try (Arena one = Arena.ofConfined()) {
                final MemorySegment value = one.allocate(JAVA_LONG);
                value.set(JAVA_LONG, 0, 1L);
                Libc.write(errno, wakeFd, value, 8);
            }
            try {
                discoveryThread.join(3_000);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (arena.scope().isAlive()) {
            Libc.close(errno, fd);
            Libc.close(errno, wakeFd);
            arena.close();
        }
    }
}
