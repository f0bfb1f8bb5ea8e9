package io.asicemu.p4rt.service;

import io.asicemu.p4rt.backend.P4Entity;
import io.asicemu.p4rt.backend.ReadFilter;
import io.asicemu.p4rt.codec.ByteStrings;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import p4.v1.P4DataOuterClass.P4Data;
import p4.v1.P4DataOuterClass.P4StructLike;
import p4.v1.P4RuntimeOuterClass.DigestList;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;

/**
 * Batches digest data into DigestList messages per the digest's config (max_list_size, max_timeout_ns) and
 * de-duplicates: data already pending or sent stays suppressed until its list is acked or ack_timeout_ns passes
 * (spec "DigestList"). Digests without a config are dropped. Thread safe (monitor); timers run on one daemon thread.
 */
final class DigestEngine {
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        final Thread t = new Thread(r, "p4rt-digest-timer");
        t.setDaemon(true);
        return t;
    });

    private final Device device;
    private final Map<Integer, List<List<BigInteger>>> pending = new HashMap<>();
    private final Set<List<BigInteger>> suppressed = new HashSet<>();
    private final Map<Long, List<List<BigInteger>>> unacked = new HashMap<>();
    private long nextListId = 1;

    DigestEngine(final Device device) {
        this.device = device;
    }

    private P4Entity.DigestConfig config(final int digestId) {
        final List<P4Entity> configs = device.backend().read(new ReadFilter.Digests(digestId));
        return configs.isEmpty() ? null : (P4Entity.DigestConfig) configs.get(0);
    }

    synchronized void offer(final int digestId, final List<BigInteger> members) {
        final P4Entity.DigestConfig config = config(digestId);
        if (config == null || !suppressed.add(members)) {
            return;
        }
        final List<List<BigInteger>> list = pending.computeIfAbsent(digestId, k -> new ArrayList<>());
        list.add(members);
        if (list.size() >= Math.max(1, config.maxListSize()) || config.maxTimeoutNs() == 0) {
            flush(digestId, config);
        } else if (list.size() == 1) {
            TIMER.schedule(() -> flushLater(digestId), config.maxTimeoutNs(), TimeUnit.NANOSECONDS);
        }
    }

    private synchronized void flushLater(final int digestId) {
        final P4Entity.DigestConfig config = config(digestId);
        if (config != null) {
            flush(digestId, config);
        }
    }

    private void flush(final int digestId, final P4Entity.DigestConfig config) {
        final List<List<BigInteger>> list = pending.remove(digestId);
        if (list == null || list.isEmpty()) {
            return;
        }
        final long listId = nextListId++;
        final DigestList.Builder b = DigestList.newBuilder()
                .setDigestId(digestId)
                .setListId(listId)
                .setTimestamp(System.currentTimeMillis() * 1_000_000L);
        for (final List<BigInteger> entry : list) {
            final P4StructLike.Builder s = P4StructLike.newBuilder();
            for (final BigInteger v : entry) {
                s.addMembers(P4Data.newBuilder().setBitstring(ByteStrings.encode(v)));
            }
            b.addData(P4Data.newBuilder().setStruct(s));
        }
        unacked.put(listId, list);
        final StreamMessageResponse message =
                StreamMessageResponse.newBuilder().setDigest(b).build();
        for (final Controller c : device.arbitration().primaries()) {
            if (RoleConfigs.receivesPacketIns(c.roleConfig)) {
                c.send(message);
            }
        }
        TIMER.schedule(() -> expire(listId), Math.max(0, config.ackTimeoutNs()), TimeUnit.NANOSECONDS);
    }

    private synchronized void expire(final long listId) {
        final List<List<BigInteger>> list = unacked.remove(listId);
        if (list != null) {
            list.forEach(suppressed::remove);
        }
    }

    /** @return false when no such list is waiting for an ack. */
    synchronized boolean ack(final int digestId, final long listId) {
        final List<List<BigInteger>> list = unacked.remove(listId);
        if (list == null) {
            return false;
        }
        list.forEach(suppressed::remove);
        return true;
    }
}
