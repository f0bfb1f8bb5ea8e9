package io.asicemu.p4rt.service;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.Code;
import io.asicemu.p4rt.backend.DataPlaneTimeoutException;
import io.asicemu.p4rt.backend.EntryKey;
import io.asicemu.p4rt.backend.P4Entity;
import io.asicemu.p4rt.backend.ReadFilter;
import io.asicemu.p4rt.backend.UpdateOutcome;
import io.asicemu.p4rt.backend.UpdateStatus;
import io.asicemu.p4rt.backend.WriteOp;
import io.asicemu.p4rt.codec.CodecException;
import io.asicemu.p4rt.codec.EntityCodec;
import io.asicemu.p4rt.codec.WireWriteRequest;
import io.asicemu.p4rt.info.FixedPipelineInfo;
import io.asicemu.p4rt.info.P4InfoCompatibility;
import io.asicemu.p4rt.info.P4InfoModel;
import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass;
import p4.v1.P4RuntimeOuterClass.CapabilitiesRequest;
import p4.v1.P4RuntimeOuterClass.CapabilitiesResponse;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.ForwardingPipelineConfig;
import p4.v1.P4RuntimeOuterClass.GetForwardingPipelineConfigRequest;
import p4.v1.P4RuntimeOuterClass.GetForwardingPipelineConfigResponse;
import p4.v1.P4RuntimeOuterClass.ReadRequest;
import p4.v1.P4RuntimeOuterClass.ReadResponse;
import p4.v1.P4RuntimeOuterClass.SetForwardingPipelineConfigRequest;
import p4.v1.P4RuntimeOuterClass.SetForwardingPipelineConfigResponse;
import p4.v1.P4RuntimeOuterClass.StreamMessageRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;
import p4.v1.P4RuntimeOuterClass.WriteRequest;
import p4.v1.P4RuntimeOuterClass.WriteResponse;

/**
 * The P4Runtime v1.5 gRPC service over one or more {@link Device}s: Capabilities, pipeline config, arbitration,
 * Write/Read through the codec and the backend, and StreamChannel packet I/O and digests. Threading: called on gRPC
 * executor threads (never on Netty event loops); device state is guarded per device. A Write's handler returns once
 * the backend took the batch ({@link io.asicemu.p4rt.backend.P4Backend#writeAsync}); its reply is sent by the thread
 * that learns the batch was applied.
 */
public final class P4RuntimeService extends P4RuntimeGrpc.P4RuntimeImplBase {
    /** The P4Runtime version this server implements. */
    public static final String API_VERSION = "1.5.0";

    private static final int READ_CHUNK = 1000;

    private final Map<Long, Device> devices = new ConcurrentHashMap<>();

    /** Adds a device (one per emulated switch). */
    public void addDevice(final Device device) {
        if (devices.putIfAbsent(device.deviceId(), device) != null) {
            throw new IllegalArgumentException("device " + device.deviceId() + " exists already");
        }
    }

    private static StatusRuntimeException error(final Code code, final String message) {
        return StatusProto.toStatusRuntimeException(com.google.rpc.Status.newBuilder()
                .setCode(code.getNumber())
                .setMessage(message)
                .build());
    }

    private Device device(final long deviceId) {
        if (deviceId == 0) {
            throw error(Code.INVALID_ARGUMENT, "device_id 0 is invalid");
        }
        final Device d = devices.get(deviceId);
        if (d == null) {
            throw error(Code.NOT_FOUND, "device " + deviceId + " does not exist");
        }
        return d;
    }

    private static void requirePrimary(
            final Device d, final String role, final P4RuntimeOuterClass.Uint128 id, final boolean hasId) {
        if (!d.arbitration().knows(role)) {
            throw error(Code.NOT_FOUND, "role '" + role + "' is unknown on device " + d.deviceId());
        }
        if (!d.arbitration().isPrimary(role, hasId ? ElectionId.of(id) : null)) {
            throw error(
                    Code.PERMISSION_DENIED,
                    "not the primary of role '" + role + "' on device " + d.deviceId() + " for this election id");
        }
    }

    @Override
    public void capabilities(final CapabilitiesRequest request, final StreamObserver<CapabilitiesResponse> out) {
        if (request.getDeviceId() != 0 && !devices.containsKey(request.getDeviceId())) {
            out.onError(error(Code.NOT_FOUND, "device " + request.getDeviceId() + " does not exist"));
            return;
        }
        out.onNext(CapabilitiesResponse.newBuilder()
                .setP4RuntimeApiVersion(API_VERSION)
                .build());
        out.onCompleted();
    }

    // ---- Pipeline config -----------------------------------------------------------------------------------------

    @Override
    public void getForwardingPipelineConfig(
            final GetForwardingPipelineConfigRequest request,
            final StreamObserver<GetForwardingPipelineConfigResponse> out) {
        try {
            final ForwardingPipelineConfig c = device(request.getDeviceId()).committed();
            final ForwardingPipelineConfig.Builder b = ForwardingPipelineConfig.newBuilder();
            if (c.hasCookie()) {
                b.setCookie(c.getCookie());
            }
            switch (request.getResponseType()) {
                case ALL -> b.setP4Info(c.getP4Info()).setP4DeviceConfig(c.getP4DeviceConfig());
                case P4INFO_AND_COOKIE -> b.setP4Info(c.getP4Info());
                case DEVICE_CONFIG_AND_COOKIE -> b.setP4DeviceConfig(c.getP4DeviceConfig());
                case COOKIE_ONLY -> {}
                default -> throw error(Code.INVALID_ARGUMENT, "unknown response_type " + request.getResponseType());
            }
            out.onNext(GetForwardingPipelineConfigResponse.newBuilder()
                    .setConfig(b)
                    .build());
            out.onCompleted();
        } catch (final StatusRuntimeException ex) {
            out.onError(ex);
        }
    }

    @Override
    public void setForwardingPipelineConfig(
            final SetForwardingPipelineConfigRequest request,
            final StreamObserver<SetForwardingPipelineConfigResponse> out) {
        try {
            final Device d = device(request.getDeviceId());
            requirePrimary(d, request.getRole(), request.getElectionId(), request.hasElectionId());
            final Controller primary = d.arbitration().primary(request.getRole());
            if (primary != null && !RoleConfigs.canPushPipeline(primary.roleConfig)) {
                throw error(Code.PERMISSION_DENIED, "role '" + request.getRole() + "' may not push the pipeline");
            }
            synchronized (d) {
                applyPipelineConfig(d, request);
            }
            out.onNext(SetForwardingPipelineConfigResponse.getDefaultInstance());
            out.onCompleted();
        } catch (final StatusRuntimeException ex) {
            out.onError(ex);
        }
    }

    private static P4InfoModel verify(final SetForwardingPipelineConfigRequest request) {
        if (!request.hasConfig() || !request.getConfig().hasP4Info()) {
            throw error(Code.INVALID_ARGUMENT, request.getAction() + " needs a config with a P4Info");
        }
        final P4InfoModel offered = P4InfoModel.of(request.getConfig().getP4Info());
        final List<String> diff = P4InfoCompatibility.differences(FixedPipelineInfo.model(), offered);
        if (!diff.isEmpty()) {
            throw error(
                    Code.INVALID_ARGUMENT,
                    "the P4Info does not fit asic-emu's fixed pipeline: " + String.join("; ", diff));
        }
        return offered;
    }

    private static void applyPipelineConfig(final Device d, final SetForwardingPipelineConfigRequest request) {
        switch (request.getAction()) {
            case VERIFY -> verify(request);
            case VERIFY_AND_SAVE -> d.save(request.getConfig(), verify(request));
            case VERIFY_AND_COMMIT -> d.commit(request.getConfig(), verify(request), true);
            case COMMIT -> {
                if (request.hasConfig()) {
                    throw error(Code.INVALID_ARGUMENT, "COMMIT takes no config: it realizes the saved one");
                }
                final ForwardingPipelineConfig saved = d.saved();
                if (saved == null) {
                    throw error(Code.NOT_FOUND, "COMMIT: no config was saved with VERIFY_AND_SAVE");
                }
                d.commit(saved, P4InfoModel.of(saved.getP4Info()), false);
            }
            case RECONCILE_AND_COMMIT -> {
                final P4InfoModel model = verify(request);
                for (final P4Entity e : d.backend().read(new ReadFilter.Tables(0, null, false, false, false))) {
                    final EntryKey key = ((P4Entity.TableEntry) e).key();
                    if (model.table(key.tableId()) == null) {
                        throw error(
                                Code.INVALID_ARGUMENT,
                                String.format(
                                        "forwarding state cannot be preserved: "
                                                + "table 0x%08x has entries but is not in the new P4Info",
                                        key.tableId()));
                    }
                }
                d.commit(request.getConfig(), model, false);
            }
            default -> throw error(Code.INVALID_ARGUMENT, "action " + request.getAction() + " is not valid");
        }
    }

    // ---- Write ---------------------------------------------------------------------------------------------------

    /**
     * This service as a server binds it: {@link #bindService()}, except that Write's requests are parsed by
     * {@link WriteMarshaller} (the common shape read from the wire, else the generated parser). Same calls, same
     * answers.
     */
    public ServerServiceDefinition serverDefinition() {
        final ServerServiceDefinition generated = bindService();
        final MethodDescriptor<WriteRequest, WriteResponse> write = P4RuntimeGrpc.getWriteMethod();
        final ServerServiceDefinition.Builder b =
                ServerServiceDefinition.builder(generated.getServiceDescriptor().getName());
        for (final ServerMethodDefinition<?, ?> m : generated.getMethods()) {
            if (!m.getMethodDescriptor().getFullMethodName().equals(write.getFullMethodName())) {
                b.addMethod(m);
            }
        }
        return b.addMethod(
                        write.toBuilder(new WriteMarshaller(), write.getResponseMarshaller())
                                .build(),
                        ServerCalls.asyncUnaryCall(this::write))
                .build();
    }

    @Override
    public void write(final WriteRequest request, final StreamObserver<WriteResponse> out) {
        write(request, request.getUpdatesCount(), null, out);
    }

    private void write(final WriteCall call, final StreamObserver<WriteResponse> out) {
        if (call.wire() == null) {
            write(call.request(), out);
        } else {
            write(call.wire().header(), call.wire().updateCount(), call.wire(), out);
        }
    }

    /**
     * One Write: {@code request}'s fields and either its own {@code n} updates ({@code wire} null) or those of
     * {@code wire}, read from the wire (then {@code request} has no updates).
     */
    private void write(
            final WriteRequest request,
            final int n,
            final WireWriteRequest wire,
            final StreamObserver<WriteResponse> out) {
        try {
            final Device d = device(request.getDeviceId());
            requirePrimary(d, request.getRole(), request.getElectionId(), request.hasElectionId());
            final Controller primary = d.arbitration().primary(request.getRole());
            final Any roleConfig = primary == null ? null : primary.roleConfig;
            final boolean allOrNothing = switch (request.getAtomicity()) {
                case CONTINUE_ON_ERROR -> false;
                case ROLLBACK_ON_ERROR, DATAPLANE_ATOMIC -> true;
                default -> throw error(Code.INVALID_ARGUMENT, "unknown atomicity " + request.getAtomicity());
            };
            final EntityCodec codec = d.codec();
            final UpdateOutcome[] outcomes = new UpdateOutcome[n];
            final List<WriteOp> ops = new ArrayList<>(n);
            final int[] opIndex = new int[n]; // the update index of each op (no boxed index per update)
            boolean invalid = false;
            for (int i = 0; i < n; i++) {
                try {
                    final P4RuntimeOuterClass.Update u = wire == null ? request.getUpdates(i) : null;
                    if (!RoleConfigs.allows(roleConfig, u == null ? wire.tableId(i) : p4IdOf(u.getEntity()))) {
                        throw new CodecException(
                                UpdateStatus.PERMISSION_DENIED,
                                "role '" + request.getRole() + "' may not write this P4 object");
                    }
                    ops.add(u == null ? codec.decodeUpdate(wire, i) : codec.decodeUpdate(u));
                    opIndex[ops.size() - 1] = i;
                } catch (final CodecException ex) {
                    outcomes[i] = new UpdateOutcome(ex.status(), ex.getMessage());
                    invalid = true;
                }
            }
            if (invalid && allOrNothing) {
                for (int k = 0; k < ops.size(); k++) {
                    outcomes[opIndex[k]] =
                            new UpdateOutcome(UpdateStatus.ABORTED, "not applied: another update is invalid");
                }
            } else {
                // no thread waits for the data plane: the reply goes out when the backend reports the batch applied
                d.backend()
                        .writeAsync(ops, allOrNothing)
                        .whenComplete((applied, failure) -> replyApplied(out, outcomes, opIndex, applied, failure));
                return;
            }
            reply(out, outcomes);
        } catch (final StatusRuntimeException ex) {
            out.onError(ex);
        }
    }

    /** The reply of a Write the backend took: its outcomes once applied, or why it was not answered in time. */
    private static void replyApplied(
            final StreamObserver<WriteResponse> out,
            final UpdateOutcome[] outcomes,
            final int[] opIndex,
            final List<UpdateOutcome> applied,
            final Throwable failure) {
        if (failure != null) {
            final Throwable cause =
                    failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            out.onError(
                    cause instanceof DataPlaneTimeoutException
                            ? Status.DEADLINE_EXCEEDED
                                    .withDescription(cause.getMessage())
                                    .asRuntimeException()
                            : Status.UNKNOWN
                                    .withDescription("write failed: " + cause)
                                    .withCause(cause)
                                    .asRuntimeException());
            return;
        }
        for (int k = 0; k < applied.size(); k++) {
            outcomes[opIndex[k]] = applied.get(k);
        }
        reply(out, outcomes);
    }

    private static void reply(final StreamObserver<WriteResponse> out, final UpdateOutcome[] outcomes) {
        boolean allOk = true;
        for (final UpdateOutcome o : outcomes) {
            allOk &= o.ok();
        }
        if (allOk) {
            out.onNext(WriteResponse.getDefaultInstance());
            out.onCompleted();
            return;
        }
        out.onError(StatusProto.toStatusRuntimeException(errorStatus(outcomes, "write")));
    }

    private static com.google.rpc.Status errorStatus(final UpdateOutcome[] outcomes, final String what) {
        final com.google.rpc.Status.Builder s =
                com.google.rpc.Status.newBuilder().setCode(Code.UNKNOWN.getNumber());
        int failed = 0;
        for (final UpdateOutcome o : outcomes) {
            if (!o.ok()) {
                failed++;
            }
            s.addDetails(Any.pack(P4RuntimeOuterClass.Error.newBuilder()
                    .setCanonicalCode(StatusCodes.of(o.status()).getNumber())
                    .setMessage(o.message())
                    .build()));
        }
        return s.setMessage(failed + " of " + outcomes.length + " " + what + " updates failed")
                .build();
    }

    private static int p4IdOf(final Entity e) {
        return switch (e.getEntityCase()) {
            case TABLE_ENTRY -> e.getTableEntry().getTableId();
            case ACTION_PROFILE_MEMBER -> e.getActionProfileMember().getActionProfileId();
            case ACTION_PROFILE_GROUP -> e.getActionProfileGroup().getActionProfileId();
            case COUNTER_ENTRY -> e.getCounterEntry().getCounterId();
            case METER_ENTRY -> e.getMeterEntry().getMeterId();
            case REGISTER_ENTRY -> e.getRegisterEntry().getRegisterId();
            case DIRECT_COUNTER_ENTRY ->
                e.getDirectCounterEntry().getTableEntry().getTableId();
            case DIRECT_METER_ENTRY -> e.getDirectMeterEntry().getTableEntry().getTableId();
            case DIGEST_ENTRY -> e.getDigestEntry().getDigestId();
            default -> 0;
        };
    }

    // ---- Read ----------------------------------------------------------------------------------------------------

    @Override
    public void read(final ReadRequest request, final StreamObserver<ReadResponse> out) {
        try {
            final Device d = device(request.getDeviceId());
            final Controller rolePrimary = d.arbitration().primary(request.getRole());
            final Any roleConfig = rolePrimary == null ? null : rolePrimary.roleConfig;
            final EntityCodec codec = d.codec();
            final UpdateOutcome[] outcomes = new UpdateOutcome[request.getEntitiesCount()];
            boolean failed = false;
            ReadResponse.Builder chunk = ReadResponse.newBuilder();
            for (int i = 0; i < request.getEntitiesCount(); i++) {
                try {
                    final ReadFilter filter = codec.decodeRead(request.getEntities(i));
                    for (final P4Entity e : d.backend().read(filter)) {
                        final Entity encoded = codec.encode(e);
                        if (!RoleConfigs.allows(roleConfig, p4IdOf(encoded))) {
                            continue;
                        }
                        chunk.addEntities(encoded);
                        if (chunk.getEntitiesCount() >= READ_CHUNK) {
                            out.onNext(chunk.build());
                            chunk = ReadResponse.newBuilder();
                        }
                    }
                    outcomes[i] = UpdateOutcome.OK;
                } catch (final CodecException ex) {
                    outcomes[i] = new UpdateOutcome(ex.status(), ex.getMessage());
                    failed = true;
                }
            }
            if (chunk.getEntitiesCount() > 0 || !failed) {
                out.onNext(chunk.build());
            }
            if (failed) {
                out.onError(StatusProto.toStatusRuntimeException(errorStatus(outcomes, "read")));
            } else {
                out.onCompleted();
            }
        } catch (final StatusRuntimeException ex) {
            out.onError(ex);
        }
    }

    // ---- StreamChannel -------------------------------------------------------------------------------------------

    @Override
    public StreamObserver<StreamMessageRequest> streamChannel(final StreamObserver<StreamMessageResponse> out) {
        final Controller c = new Controller(out);
        return new StreamObserver<>() {
            @Override
            public void onNext(final StreamMessageRequest message) {
                onStreamMessage(c, message);
            }

            @Override
            public void onError(final Throwable t) {
                leave(c);
                c.markClosed();
            }

            @Override
            public void onCompleted() {
                leave(c);
                c.complete();
            }
        };
    }

    private static void leave(final Controller c) {
        if (c.device != null) {
            c.device.arbitration().leave(c);
        }
    }

    private void onStreamMessage(final Controller c, final StreamMessageRequest message) {
        switch (message.getUpdateCase()) {
            case ARBITRATION -> arbitrate(c, message.getArbitration());
            case PACKET -> PacketIo.packetOut(c, message.getPacket());
            case DIGEST_ACK -> PacketIo.digestAck(c, message.getDigestAck());
            default ->
                PacketIo.streamError(
                        c,
                        Code.UNIMPLEMENTED,
                        "unsupported stream message",
                        P4RuntimeOuterClass.StreamError.newBuilder()
                                .setOther(P4RuntimeOuterClass.StreamOtherError.newBuilder()
                                        .setOther(message.getOther())));
        }
    }

    private void arbitrate(final Controller c, final P4RuntimeOuterClass.MasterArbitrationUpdate u) {
        final boolean first = c.device == null;
        final Device d;
        if (first) {
            d = u.getDeviceId() == 0 ? null : devices.get(u.getDeviceId());
            if (d == null) {
                endStream(
                        c,
                        u.getDeviceId() == 0 ? Status.INVALID_ARGUMENT : Status.NOT_FOUND,
                        "device " + u.getDeviceId() + (u.getDeviceId() == 0 ? " is invalid" : " does not exist"));
                return;
            }
        } else {
            d = c.device;
            if (u.getDeviceId() != d.deviceId()) {
                endStream(c, Status.FAILED_PRECONDITION, "a stream cannot change its device");
                return;
            }
        }
        final Any config = u.hasRole() && u.getRole().hasConfig() ? u.getRole().getConfig() : null;
        try {
            RoleConfigs.parse(config);
        } catch (final InvalidProtocolBufferException ex) {
            endStream(c, Status.INVALID_ARGUMENT, ex.getMessage());
            return;
        }
        final BigInteger electionId = u.hasElectionId() ? ElectionId.of(u.getElectionId()) : null;
        final String[] failure = d.arbitration().update(c, u.getRole().getName(), config, electionId, first);
        if (failure != null) {
            endStream(c, Status.fromCode(Status.Code.valueOf(failure[0])), failure[1]);
            return;
        }
        c.device = d;
    }

    private static void endStream(final Controller c, final Status status, final String message) {
        leave(c);
        c.fail(status.withDescription(message).asRuntimeException());
    }
}
