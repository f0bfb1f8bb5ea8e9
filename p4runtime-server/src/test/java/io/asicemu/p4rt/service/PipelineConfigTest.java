package io.asicemu.p4rt.service;

import static io.asicemu.p4rt.service.P4rtFixture.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.protobuf.ByteString;
import io.asicemu.p4rt.info.FixedPipelineInfo;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.v1.P4RuntimeOuterClass.CapabilitiesRequest;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.ForwardingPipelineConfig;
import p4.v1.P4RuntimeOuterClass.GetForwardingPipelineConfigRequest;
import p4.v1.P4RuntimeOuterClass.GetForwardingPipelineConfigRequest.ResponseType;
import p4.v1.P4RuntimeOuterClass.ReadRequest;
import p4.v1.P4RuntimeOuterClass.SetForwardingPipelineConfigRequest;
import p4.v1.P4RuntimeOuterClass.SetForwardingPipelineConfigRequest.Action;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Update;

/** Capabilities and Set/GetForwardingPipelineConfig (spec §SetForwardingPipelineConfig RPC). */
@Timeout(60)
class PipelineConfigTest {
    private P4rtFixture f;
    private P4rtFixture.Stream primary;

    @BeforeEach
    void start() throws Exception {
        f = new P4rtFixture();
        primary = f.primary(1, 1);
    }

    @AfterEach
    void stop() throws Exception {
        primary.close();
        f.close();
    }

    private static SetForwardingPipelineConfigRequest set(final Action action, final P4Info info, final long cookie) {
        final var b = SetForwardingPipelineConfigRequest.newBuilder()
                .setDeviceId(1)
                .setElectionId(eid(1))
                .setAction(action);
        if (info != null) {
            b.setConfig(ForwardingPipelineConfig.newBuilder()
                    .setP4Info(info)
                    .setP4DeviceConfig(ByteString.copyFromUtf8("asic-emu"))
                    .setCookie(ForwardingPipelineConfig.Cookie.newBuilder().setCookie(cookie)));
        }
        return b.build();
    }

    private Status.Code failSet(final SetForwardingPipelineConfigRequest request) {
        return catchThrowableOfType(StatusRuntimeException.class, () -> f.blocking.setForwardingPipelineConfig(request))
                .getStatus()
                .getCode();
    }

    private ForwardingPipelineConfig get(final ResponseType type) {
        return f.blocking
                .getForwardingPipelineConfig(GetForwardingPipelineConfigRequest.newBuilder()
                        .setDeviceId(1)
                        .setResponseType(type)
                        .build())
                .getConfig();
    }

    private int tableEntries() {
        final List<Entity> out = new ArrayList<>();
        f.blocking
                .read(ReadRequest.newBuilder()
                        .setDeviceId(1)
                        .addEntities(Entity.newBuilder().setTableEntry(TableEntry.getDefaultInstance()))
                        .build())
                .forEachRemaining(r -> out.addAll(r.getEntitiesList()));
        return out.size();
    }

    @Test
    void shouldReport150WhenAskedForCapabilities() {
        assertThat(f.blocking
                        .capabilities(CapabilitiesRequest.getDefaultInstance())
                        .getP4RuntimeApiVersion())
                .isEqualTo("1.5.0");
        assertThat(f.blocking
                        .capabilities(
                                CapabilitiesRequest.newBuilder().setDeviceId(2).build())
                        .getP4RuntimeApiVersion())
                .isEqualTo("1.5.0");
        final var ex = catchThrowableOfType(
                StatusRuntimeException.class,
                () -> f.blocking.capabilities(
                        CapabilitiesRequest.newBuilder().setDeviceId(42).build()));
        assertThat(ex.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
    }

    @Test
    void shouldServeFixedP4InfoFromStartupWithEveryResponseType() {
        assertThat(get(ResponseType.ALL).getP4Info()).isEqualTo(FixedPipelineInfo.p4info());
        assertThat(get(ResponseType.P4INFO_AND_COOKIE).getP4Info()).isEqualTo(FixedPipelineInfo.p4info());
        assertThat(get(ResponseType.COOKIE_ONLY).hasP4Info()).isFalse();
        assertThat(get(ResponseType.DEVICE_CONFIG_AND_COOKIE).hasP4Info()).isFalse();
    }

    @Test
    void shouldRefuseIncompatibleP4InfoWithMessageSayingWhatDiffers() {
        final P4Info.Builder bad = FixedPipelineInfo.p4info().toBuilder();
        bad.setTables(2, bad.getTables(2).toBuilder().setSize(1_000_000));
        final var ex = catchThrowableOfType(
                StatusRuntimeException.class,
                () -> f.blocking.setForwardingPipelineConfig(set(Action.VERIFY, bad.build(), 1)));
        assertThat(ex.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(ex.getStatus().getDescription())
                .contains("ipv4_table")
                .contains("size 1000000")
                .contains("131072");
        assertThat(failSet(set(Action.VERIFY, null, 0))).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(failSet(set(Action.UNSPECIFIED, FixedPipelineInfo.p4info(), 0)))
                .isEqualTo(Status.Code.INVALID_ARGUMENT);
    }

    @Test
    void shouldClearStateAndEchoCookieWhenVerifyAndCommit() {
        f.blocking.write(write(1, 1, update(Update.Type.INSERT, route(value(0x0A000000L), 8, 1))));
        f.blocking.setForwardingPipelineConfig(set(Action.VERIFY, FixedPipelineInfo.p4info(), 5));
        assertThat(tableEntries()).isEqualTo(1);
        f.blocking.setForwardingPipelineConfig(set(Action.VERIFY_AND_COMMIT, FixedPipelineInfo.p4info(), 5));
        assertThat(tableEntries()).isZero();
        assertThat(get(ResponseType.COOKIE_ONLY).getCookie().getCookie()).isEqualTo(5);
        assertThat(get(ResponseType.DEVICE_CONFIG_AND_COOKIE)
                        .getP4DeviceConfig()
                        .toStringUtf8())
                .isEqualTo("asic-emu");
    }

    @Test
    void shouldCommitSavedConfigOnlyWhenOneWasSaved() {
        assertThat(failSet(set(Action.COMMIT, null, 0))).isEqualTo(Status.Code.NOT_FOUND);
        assertThat(failSet(set(Action.COMMIT, FixedPipelineInfo.p4info(), 0))).isEqualTo(Status.Code.INVALID_ARGUMENT);
        f.blocking.write(write(1, 1, update(Update.Type.INSERT, route(value(0x0A000000L), 8, 1))));
        f.blocking.setForwardingPipelineConfig(set(Action.VERIFY_AND_SAVE, FixedPipelineInfo.p4info(), 9));
        assertThat(get(ResponseType.COOKIE_ONLY).hasCookie()).isFalse();
        f.blocking.setForwardingPipelineConfig(set(Action.COMMIT, null, 0));
        assertThat(get(ResponseType.COOKIE_ONLY).getCookie().getCookie()).isEqualTo(9);
        assertThat(tableEntries()).isEqualTo(1);
    }

    @Test
    void shouldKeepStateWhenReconcileAndCommitAndRefuseWhenStateCannotBeKept() {
        f.blocking.write(write(1, 1, update(Update.Type.INSERT, route(value(0x0A000000L), 8, 1))));
        f.blocking.setForwardingPipelineConfig(set(Action.RECONCILE_AND_COMMIT, FixedPipelineInfo.p4info(), 3));
        assertThat(tableEntries()).isEqualTo(1);
        final P4Info.Builder withoutIpv4 =
                FixedPipelineInfo.p4info().toBuilder().removeTables(2);
        assertThat(failSet(set(Action.RECONCILE_AND_COMMIT, withoutIpv4.build(), 3)))
                .isEqualTo(Status.Code.INVALID_ARGUMENT);
        // A compatible subset is accepted by VERIFY.
        f.blocking.setForwardingPipelineConfig(set(Action.VERIFY, withoutIpv4.build(), 3));
    }

    @Test
    void shouldCheckDeviceThenPrimaryWhenSettingConfig() {
        assertThat(failSet(set(Action.VERIFY, FixedPipelineInfo.p4info(), 0).toBuilder()
                        .setDeviceId(8)
                        .build()))
                .isEqualTo(Status.Code.NOT_FOUND);
        assertThat(failSet(set(Action.VERIFY, FixedPipelineInfo.p4info(), 0).toBuilder()
                        .setElectionId(eid(0))
                        .build()))
                .isEqualTo(Status.Code.PERMISSION_DENIED);
    }
}
