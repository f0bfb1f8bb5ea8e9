package io.asicemu.pipeline.table;

import java.util.Map;
import java.util.TreeMap;

/**
 * The clone (mirror) sessions an ACL mirror action refers to: per session id, the egress ports that receive a copy
 * and the length copies are truncated to (0: whole frame). A few sessions, so a lookup is a short scan of a sorted
 * id array. Immutable once built: a change builds a new one that replaces this one between batches.
 * <p>
 * Thread safe to read (immutable); looked up on the data-plane thread without allocation.
 */
public final class AclMirrorSessions {
    /** No such session. */
    public static final int NONE = -1;

    private static final AclMirrorSessions EMPTY = new AclMirrorSessions(Map.of());

    private final int[] ids;
    private final int[][] ports;
    private final int[] truncateBytes;

    /** A session as the control side gives it. */
    public record Session(int[] ports, int truncateBytes) {
        /** Copies the ports. */
        public Session {
            ports = ports.clone();
            if (truncateBytes < 0) {
                throw new IllegalArgumentException("truncation must not be negative");
            }
        }
    }

    /** @return no sessions. */
    public static AclMirrorSessions empty() {
        return EMPTY;
    }

    /**
     * @param sessions session id → session.
     */
    public AclMirrorSessions(final Map<Integer, Session> sessions) {
        final TreeMap<Integer, Session> sorted = new TreeMap<>(sessions);
        ids = new int[sorted.size()];
        ports = new int[sorted.size()][];
        truncateBytes = new int[sorted.size()];
        int i = 0;
        for (final Map.Entry<Integer, Session> e : sorted.entrySet()) {
            ids[i] = e.getKey();
            ports[i] = e.getValue().ports();
            truncateBytes[i] = e.getValue().truncateBytes();
            i++;
        }
    }

    /**
     * @param sessionId a session id.
     * @return its index, or {@link #NONE}.
     */
    public int find(final int sessionId) {
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == sessionId) {
                return i;
            }
        }
        return NONE;
    }

    /**
     * @param session a session index.
     * @return how many copies it makes.
     */
    public int portCount(final int session) {
        return ports[session].length;
    }

    /**
     * @param session a session index.
     * @param copy which copy.
     * @return the port it goes to.
     */
    public int port(final int session, final int copy) {
        return ports[session][copy];
    }

    /**
     * @param session a session index.
     * @return the length copies are cut to, or 0 for whole frames.
     */
    public int truncateBytes(final int session) {
        return truncateBytes[session];
    }
}
