package io.asicemu.p4rt.service;

import static io.asicemu.p4rt.service.P4rtFixture.route;
import static io.asicemu.p4rt.service.P4rtFixture.update;
import static io.asicemu.p4rt.service.P4rtFixture.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.protobuf.Any;
import com.google.rpc.Code;
import io.asicemu.p4rt.proto.RoleConfig;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import p4.v1.P4RuntimeOuterClass.MasterArbitrationUpdate;
import p4.v1.P4RuntimeOuterClass.Role;
import p4.v1.P4RuntimeOuterClass.StreamMessageRequest;
import p4.v1.P4RuntimeOuterClass.Update;

/** Arbitration per (device, role) over a real StreamChannel (spec §Client Arbitration). */
@Timeout(60)
class ArbitrationTest {
    private P4rtFixture f;

    @BeforeEach
    void start() throws Exception {
        f = new P4rtFixture();
    }

    @AfterEach
    void stop() throws Exception {
        f.close();
    }

    @Test
    void shouldMakeControllerPrimaryWhenItArbitratesFirst() throws Exception {
        try (var a = f.new Stream().arbitrate(1, "", 10L)) {
            final var u = a.next().getArbitration();
            assertThat(u.getStatus().getCode()).isEqualTo(Code.OK.getNumber());
            assertThat(u.getElectionId().getLow()).isEqualTo(10);
            assertThat(u.getDeviceId()).isEqualTo(1);
        }
    }

    @Test
    void shouldNotifyEveryControllerWhenPrimaryChangesAndNotPromoteBackupWhenPrimaryLeaves() throws Exception {
        final var a = f.primary(1, 10);
        final var b = f.new Stream().arbitrate(1, "", 5L);
        assertThat(b.nextArbitrationCode()).isEqualTo(Code.ALREADY_EXISTS.getNumber());
        // B with a lower id is refused writes.
        final var denied = catchThrowableOfType(
                StatusRuntimeException.class,
                () -> f.blocking.write(
                        write(1, 5, update(Update.Type.INSERT, route(P4rtFixture.value(0x0A000000L), 8, 1)))));
        assertThat(denied.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        f.blocking.write(write(1, 10, update(Update.Type.INSERT, route(P4rtFixture.value(0x0A000000L), 8, 1))));
        a.close();
        final var gone = b.next().getArbitration();
        assertThat(gone.getStatus().getCode()).isEqualTo(Code.NOT_FOUND.getNumber());
        assertThat(gone.getElectionId().getLow()).isEqualTo(10);
        // Not promoted: B still cannot write until it re-arbitrates at least as high as 10.
        final var still = catchThrowableOfType(
                StatusRuntimeException.class,
                () -> f.blocking.write(
                        write(1, 5, update(Update.Type.INSERT, route(P4rtFixture.value(0x0B000000L), 8, 1)))));
        assertThat(still.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        b.arbitrate(1, "", 11L);
        assertThat(b.nextArbitrationCode()).isEqualTo(Code.OK.getNumber());
        f.blocking.write(write(1, 11, update(Update.Type.INSERT, route(P4rtFixture.value(0x0B000000L), 8, 1))));
        b.close();
    }

    @Test
    void shouldNotifyAllWhenHigherIdTakesOver() throws Exception {
        final var a = f.primary(1, 10);
        final var b = f.new Stream().arbitrate(1, "", 20L);
        assertThat(b.nextArbitrationCode()).isEqualTo(Code.OK.getNumber());
        assertThat(a.nextArbitrationCode()).isEqualTo(Code.ALREADY_EXISTS.getNumber());
        a.close();
        b.close();
    }

    @Test
    void shouldEndStreamWithNotFoundWhenDeviceUnknown() throws Exception {
        final var s = f.new Stream().arbitrate(99, "", 1L);
        assertThat(s.endedWith()).isEqualTo(Status.Code.NOT_FOUND);
    }

    @Test
    void shouldEndStreamWithInvalidArgumentWhenElectionIdIsHeldByAnotherLiveStream() throws Exception {
        final var a = f.primary(1, 7);
        final var b = f.new Stream().arbitrate(1, "", 7L);
        assertThat(b.endedWith()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        a.close();
    }

    @Test
    void shouldEndStreamWithFailedPreconditionWhenStreamChangesRole() throws Exception {
        final var a = f.primary(1, 7);
        a.arbitrate(1, "other", 7L);
        assertThat(a.endedWith()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    }

    @Test
    void shouldEndStreamWithInvalidArgumentWhenRoleConfigIsNotOurs() throws Exception {
        final var s = f.new Stream();
        s.out.onNext(StreamMessageRequest.newBuilder()
                .setArbitration(MasterArbitrationUpdate.newBuilder()
                        .setDeviceId(1)
                        .setElectionId(P4rtFixture.eid(1))
                        .setRole(Role.newBuilder().setName("r").setConfig(Any.pack(P4rtFixture.eid(3)))))
                .build());
        assertThat(s.endedWith()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    }

    @Test
    void shouldKeepRolesAndDevicesApartWhenElecting() throws Exception {
        final var a = f.primary(1, 10);
        final var onDevice2 = f.primary(2, 1);
        final var otherRole = f.new Stream().arbitrate(1, "acl", 1L);
        assertThat(otherRole.nextArbitrationCode()).isEqualTo(Code.OK.getNumber());
        f.blocking.write(write(2, 1, update(Update.Type.INSERT, route(P4rtFixture.value(0x0A000000L), 8, 1))));
        a.close();
        onDevice2.close();
        otherRole.close();
    }

    @Test
    void shouldDenyUpdateOutsideRoleWhenRoleConfigListsP4Ids() throws Exception {
        final var s = f.new Stream();
        s.out.onNext(StreamMessageRequest.newBuilder()
                .setArbitration(MasterArbitrationUpdate.newBuilder()
                        .setDeviceId(1)
                        .setElectionId(P4rtFixture.eid(1))
                        .setRole(Role.newBuilder()
                                .setName("acl")
                                .setConfig(Any.pack(RoleConfig.newBuilder()
                                        .addP4Ids(P4rtFixture.ACL_IN)
                                        .build()))))
                .build());
        assertThat(s.nextArbitrationCode()).isEqualTo(Code.OK.getNumber());
        final var ex = catchThrowableOfType(
                StatusRuntimeException.class,
                () -> f.blocking.write(
                        write(1, 1, update(Update.Type.INSERT, route(P4rtFixture.value(0x0A000000L), 8, 1))).toBuilder()
                                .setRole("acl")
                                .build()));
        assertThat(P4rtFixture.updateCodes(ex)).containsExactly(Code.PERMISSION_DENIED.getNumber());
        s.close();
    }

    @Test
    void shouldEndStreamWithResourceExhaustedWhenDeviceHasTooManyStreams() throws Exception {
        final java.util.List<P4rtFixture.Stream> streams = new java.util.ArrayList<>();
        for (int i = 0; i < Arbitration.MAX_STREAMS; i++) {
            final var s = f.new Stream().arbitrate(2, "", (long) (i + 1));
            s.next();
            streams.add(s);
        }
        final var extra = f.new Stream().arbitrate(2, "", 1000L);
        assertThat(extra.endedWith()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        streams.forEach(P4rtFixture.Stream::close);
    }
}
