package io.asicemu.operator.gnmi;

import io.asicemu.operator.SnapshotCache;
import io.asicemu.operator.SonicDatabases;
import io.asicemu.operator.gnmi.proto.CapabilityRequest;
import io.asicemu.operator.gnmi.proto.CapabilityResponse;
import io.asicemu.operator.gnmi.proto.GetRequest;
import io.asicemu.operator.gnmi.proto.GetResponse;
import io.asicemu.operator.gnmi.proto.GnmiProto;
import io.asicemu.operator.gnmi.proto.Notification;
import io.asicemu.operator.gnmi.proto.Path;
import io.asicemu.operator.gnmi.proto.SetRequest;
import io.asicemu.operator.gnmi.proto.SetResponse;
import io.asicemu.operator.gnmi.proto.SubscribeRequest;
import io.asicemu.operator.gnmi.proto.SubscribeResponse;
import io.asicemu.operator.gnmi.proto.Update;
import io.asicemu.operator.gnmi.proto.gNMIGrpc;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The gNMI service (spec 0.7.0) over SONiC's databases of the running switch: Capabilities, Get, and Subscribe
 * (STREAM with SAMPLE, ON_CHANGE and TARGET_DEFINED; ONCE; POLL), read-only (Set is UNIMPLEMENTED). Paths and values
 * as SONiC's telemetry server serves them ({@link SonicPathResolver}, {@link GnmiValues}), read from the same
 * {@link SnapshotCache} the Redis front and Prometheus read, so the data plane hands its counters over at most once
 * per the cache's max age however many subscribers there are.
 * <p>
 * Threading: gRPC executor threads run the RPCs; one sampler thread ({@code ScheduledExecutorService}) runs the
 * STREAM subscriptions' ticks. Each subscription serializes its own sends ({@link SubscribeSession}).
 */
public final class GnmiService extends gNMIGrpc.gNMIImplBase {
    /**
     * The service's bounds.
     *
     * @param minSampleInterval the shortest SAMPLE interval accepted (0 asks for it), and the interval ON_CHANGE
     *     subscriptions look for changes at; shorter would only resend the cache's same snapshot.
     * @param maxSubscriptions Subscribe RPCs open at once (more get RESOURCE_EXHAUSTED).
     * @param maxPaths paths in one Get or subscription list.
     */
    public record Limits(Duration minSampleInterval, int maxSubscriptions, int maxPaths) {
        /** Checks. */
        public Limits {
            if (minSampleInterval.isNegative() || minSampleInterval.isZero()) {
                throw new IllegalArgumentException("minSampleInterval must be > 0, not " + minSampleInterval);
            }
            if (maxSubscriptions < 1 || maxPaths < 1) {
                throw new IllegalArgumentException("maxSubscriptions and maxPaths must be >= 1");
            }
        }

        /**
         * @param minSampleInterval the snapshot cache's max age.
         * @return 64 subscriptions of at most 256 paths each.
         */
        public static Limits defaults(final Duration minSampleInterval) {
            return new Limits(minSampleInterval, 64, 256);
        }
    }

    private final SnapshotCache cache;
    private final Limits limits;
    private final ScheduledExecutorService sampler;
    private final LongSupplier epochNs;
    private final AtomicInteger openSubscriptions = new AtomicInteger();
    private final AtomicLong coalescedUpdates = new AtomicLong();
    private final AtomicLong missedSamples = new AtomicLong();

    /**
     * @param cache the databases to serve.
     * @param limits the bounds.
     * @param sampler runs the STREAM subscriptions' ticks (the caller owns and shuts it down).
     */
    public GnmiService(final SnapshotCache cache, final Limits limits, final ScheduledExecutorService sampler) {
        this.cache = cache;
        this.limits = limits;
        this.sampler = sampler;
        this.epochNs = () -> {
            final Instant now = Instant.now();
            return now.getEpochSecond() * 1_000_000_000L + now.getNano();
        };
    }

    /** @return Subscribe RPCs open now. */
    public int openSubscriptions() {
        return openSubscriptions.get();
    }

    /** @return updates replaced by a newer value of the same path because their subscriber was not reading. */
    public long coalescedUpdates() {
        return coalescedUpdates.get();
    }

    /** @return STREAM ticks skipped because the data plane did not hand a snapshot over in time. */
    public long missedSamples() {
        return missedSamples.get();
    }

    /** @return the gNMI version of our gnmi.proto ({@code gnmi_service} file option). */
    static String version() {
        return GnmiProto.getDescriptor().getOptions().getExtension(GnmiProto.gnmiService);
    }

    @Override
    public void capabilities(final CapabilityRequest request, final StreamObserver<CapabilityResponse> out) {
        out.onNext(CapabilityResponse.newBuilder()
                .addSupportedModels(GnmiRequests.SONIC_DB)
                .addAllSupportedEncodings(GnmiValues.SUPPORTED)
                .setGNMIVersion(version())
                .build());
        out.onCompleted();
    }

    @Override
    public void get(final GetRequest request, final StreamObserver<GetResponse> out) {
        try {
            out.onNext(answer(request));
            out.onCompleted();
        } catch (final StatusException e) {
            out.onError(e);
        }
    }

    private GetResponse answer(final GetRequest request) throws StatusException {
        GnmiRequests.checkExtensions(request.getExtensionList());
        GnmiValues.checkEncoding(request.getEncoding());
        GnmiRequests.checkModels(request.getUseModelsList());
        if (request.getPathCount() == 0 || request.getPathCount() > limits.maxPaths()) {
            throw GnmiRequests.invalid("a Get names 1.." + limits.maxPaths() + " paths, not " + request.getPathCount());
        }
        final Path prefix = request.getPrefix();
        final int db = SonicPathResolver.database(prefix.getTarget());
        // CONFIG_DB is configuration; COUNTERS_DB and STATE_DB are state (and operational)
        final boolean wanted = switch (request.getType()) {
            case CONFIG -> db == SonicDatabases.CONFIG_DB;
            case STATE, OPERATIONAL -> db != SonicDatabases.CONFIG_DB;
            default -> true;
        };
        final SonicDatabases dbs = databases();
        final long now = epochNs.getAsLong();
        final GetResponse.Builder response = GetResponse.newBuilder();
        for (final Path path : request.getPathList()) {
            final SonicPathResolver.Resolved value =
                    SonicPathResolver.resolve(dbs, db, GnmiRequests.elements(prefix, path));
            final Notification.Builder n = Notification.newBuilder().setTimestamp(now);
            if (request.hasPrefix()) {
                n.setPrefix(prefix);
            }
            if (wanted) {
                n.addUpdate(Update.newBuilder().setPath(path).setVal(GnmiValues.typed(value, request.getEncoding())));
            }
            response.addNotification(n);
        }
        return response.build();
    }

    @Override
    public void set(final SetRequest request, final StreamObserver<SetResponse> out) {
        out.onError(Status.UNIMPLEMENTED
                .withDescription("this gNMI server is read-only: it serves COUNTERS_DB, STATE_DB and CONFIG_DB as "
                        + "the switch runs")
                .asException());
    }

    @Override
    public StreamObserver<SubscribeRequest> subscribe(final StreamObserver<SubscribeResponse> out) {
        final ServerCallStreamObserver<SubscribeResponse> call = (ServerCallStreamObserver<SubscribeResponse>) out;
        final SubscribeSession session = new SubscribeSession(this, call);
        call.setOnReadyHandler(session::drain);
        call.setOnCancelHandler(session::close);
        return session;
    }

    /** @return the latest databases; UNAVAILABLE if the data plane did not hand its counters over in time. */
    SonicDatabases databases() throws StatusException {
        try {
            return cache.databases();
        } catch (final TimeoutException e) {
            throw Status.UNAVAILABLE
                    .withDescription("the data plane did not hand its counters over in time")
                    .asException();
        }
    }

    Limits limits() {
        return limits;
    }

    ScheduledExecutorService sampler() {
        return sampler;
    }

    long epochNs() {
        return epochNs.getAsLong();
    }

    /** @return whether a subscription may open (and counts it). */
    boolean openSubscription() {
        if (openSubscriptions.incrementAndGet() > limits.maxSubscriptions()) {
            openSubscriptions.decrementAndGet();
            return false;
        }
        return true;
    }

    void closeSubscription() {
        openSubscriptions.decrementAndGet();
    }

    void countCoalesced() {
        coalescedUpdates.incrementAndGet();
    }

    void countMissedSample() {
        missedSamples.incrementAndGet();
    }
}
