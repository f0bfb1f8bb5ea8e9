package io.asicemu.p4rt.service;

import static io.asicemu.p4rt.service.P4rtFixture.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.rpc.Code;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import p4.v1.P4DataOuterClass.P4Data;
import p4.v1.P4RuntimeOuterClass.ActionProfileAction;
import p4.v1.P4RuntimeOuterClass.ActionProfileActionSet;
import p4.v1.P4RuntimeOuterClass.ActionProfileGroup;
import p4.v1.P4RuntimeOuterClass.ActionProfileMember;
import p4.v1.P4RuntimeOuterClass.CounterData;
import p4.v1.P4RuntimeOuterClass.CounterEntry;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.Index;
import p4.v1.P4RuntimeOuterClass.MeterConfig;
import p4.v1.P4RuntimeOuterClass.MulticastGroupEntry;
import p4.v1.P4RuntimeOuterClass.PacketReplicationEngineEntry;
import p4.v1.P4RuntimeOuterClass.ReadRequest;
import p4.v1.P4RuntimeOuterClass.RegisterEntry;
import p4.v1.P4RuntimeOuterClass.Replica;
import p4.v1.P4RuntimeOuterClass.TableAction;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Update;
import p4.v1.P4RuntimeOuterClass.WriteRequest;

/** Write and Read conformance (spec §Write RPC, §Read RPC, reference checklist) with a real client on loopback. */
@Timeout(60)
class WriteReadTest {
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

    private static final TableEntry ROUTE = route(value(0x0A000000L), 8, 1);

    private List<Integer> failWrite(final WriteRequest request) throws Exception {
        final var ex = catchThrowableOfType(StatusRuntimeException.class, () -> f.blocking.write(request));
        assertThat(ex).as("the write fails").isNotNull();
        return updateCodes(ex);
    }

    private List<Integer> failOne(final Update.Type type, final TableEntry e) throws Exception {
        return failWrite(write(1, 1, update(type, e)));
    }

    private List<Entity> read(final Entity... entities) {
        final List<Entity> out = new ArrayList<>();
        f.blocking
                .read(ReadRequest.newBuilder()
                        .setDeviceId(1)
                        .addAllEntities(List.of(entities))
                        .build())
                .forEachRemaining(r -> out.addAll(r.getEntitiesList()));
        return out;
    }

    private static Entity tableWildcard(final int tableId) {
        return Entity.newBuilder()
                .setTableEntry(TableEntry.newBuilder().setTableId(tableId))
                .build();
    }

    @Test
    void shouldCheckDeviceThenPrimaryWhenWriting() {
        final var unknown = catchThrowableOfType(
                StatusRuntimeException.class, () -> f.blocking.write(write(9, 1, update(Update.Type.INSERT, ROUTE))));
        assertThat(unknown.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
        final var zero = catchThrowableOfType(
                StatusRuntimeException.class, () -> f.blocking.write(write(0, 1, update(Update.Type.INSERT, ROUTE))));
        assertThat(zero.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        final var notPrimary = catchThrowableOfType(
                StatusRuntimeException.class, () -> f.blocking.write(write(1, 2, update(Update.Type.INSERT, ROUTE))));
        assertThat(notPrimary.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(notPrimary.getStatus().getCode()).isNotEqualTo(Status.Code.UNKNOWN);
        final var unknownRole = catchThrowableOfType(
                StatusRuntimeException.class,
                () -> f.blocking.write(write(1, 1, update(Update.Type.INSERT, ROUTE)).toBuilder()
                        .setRole("nobody")
                        .build()));
        assertThat(unknownRole.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
    }

    @Test
    void shouldAnswerExistenceCodesPerUpdateWhenInsertModifyDelete() throws Exception {
        f.blocking.write(write(1, 1, update(Update.Type.INSERT, ROUTE)));
        assertThat(failOne(Update.Type.INSERT, ROUTE)).containsExactly(Code.ALREADY_EXISTS.getNumber());
        final TableEntry other = route(value(0x0B000000L), 8, 1);
        assertThat(failOne(Update.Type.MODIFY, other)).containsExactly(Code.NOT_FOUND.getNumber());
        assertThat(failOne(Update.Type.DELETE, other)).containsExactly(Code.NOT_FOUND.getNumber());
        f.blocking.write(write(1, 1, update(Update.Type.MODIFY, route(value(0x0A000000L), 8, 7))));
        final List<Entity> read = read(tableWildcard(IPV4));
        assertThat(read).hasSize(1);
        assertThat(read.get(0)
                        .getTableEntry()
                        .getAction()
                        .getAction()
                        .getParams(0)
                        .getValue())
                .isEqualTo(bytes(7));
        // DELETE looks only at the key.
        f.blocking.write(write(
                1, 1, update(Update.Type.DELETE, ROUTE.toBuilder().clearAction().build())));
        assertThat(read(tableWildcard(IPV4))).isEmpty();
    }

    @Test
    void shouldReportOneErrorPerUpdateInOrderWhenContinueOnError() throws Exception {
        final TableEntry bad = route(value(0x0A000001L), 8, 1);
        final List<Integer> codes = failWrite(write(
                1,
                1,
                update(Update.Type.INSERT, ROUTE),
                update(Update.Type.INSERT, bad),
                update(Update.Type.INSERT, route(value(0x0C000000L), 8, 1))));
        assertThat(codes).containsExactly(0, Code.INVALID_ARGUMENT.getNumber(), 0);
        assertThat(read(tableWildcard(IPV4))).hasSize(2);
    }

    @Test
    void shouldLeaveStateUnchangedWhenRollbackOrDataplaneAtomicBatchFails() throws Exception {
        f.blocking.write(write(1, 1, update(Update.Type.INSERT, ROUTE)));
        final TableEntry fresh = route(value(0x0B000000L), 8, 1);
        for (final WriteRequest.Atomicity atomicity :
                List.of(WriteRequest.Atomicity.ROLLBACK_ON_ERROR, WriteRequest.Atomicity.DATAPLANE_ATOMIC)) {
            final List<Integer> codes = failWrite(
                    write(1, 1, update(Update.Type.INSERT, fresh), update(Update.Type.INSERT, ROUTE)).toBuilder()
                            .setAtomicity(atomicity)
                            .build());
            assertThat(codes).containsExactly(Code.ABORTED.getNumber(), Code.ALREADY_EXISTS.getNumber());
            final List<Integer> invalid = failWrite(
                    write(1, 1, update(Update.Type.INSERT, fresh), update(Update.Type.INSERT, route(value(1), 8, 1)))
                            .toBuilder()
                            .setAtomicity(atomicity)
                            .build());
            assertThat(invalid).containsExactly(Code.ABORTED.getNumber(), Code.INVALID_ARGUMENT.getNumber());
            assertThat(read(tableWildcard(IPV4))).hasSize(1);
        }
    }

    @Test
    void shouldAnswerResourceExhaustedWhenTableIsFull() throws Exception {
        final List<Update> updates = new ArrayList<>();
        for (int p = 1; p <= 64; p++) {
            updates.add(update(Update.Type.INSERT, admit(p)));
        }
        f.blocking.write(write(1, 1, updates.toArray(new Update[0])));
        assertThat(failOne(Update.Type.INSERT, admit(65))).containsExactly(Code.RESOURCE_EXHAUSTED.getNumber());
    }

    private static TableEntry admit(final int priority) {
        return TableEntry.newBuilder()
                .setTableId(L3_ADMIT)
                .setPriority(priority)
                .addMatch(ternary(1, value(0x020000000000L + priority), value(0xFFFFFFFFFFFFL)))
                .setAction(TableAction.newBuilder().setAction(action(ADMIT)))
                .build();
    }

    @Test
    void shouldRejectMalformedEntriesWithInvalidArgument() throws Exception {
        final int invalid = Code.INVALID_ARGUMENT.getNumber();
        assertThat(failOne(
                        Update.Type.INSERT,
                        ROUTE.toBuilder().setTableId(0x02000999).build()))
                .containsExactly(invalid);
        assertThat(failOne(Update.Type.INSERT, route(value(0x0A000001L), 8, 1)))
                .as("bits below prefix")
                .containsExactly(invalid);
        assertThat(failOne(Update.Type.INSERT, route(value(0), 0, 1)))
                .as("prefix 0 must be omitted")
                .containsExactly(invalid);
        assertThat(failOne(Update.Type.INSERT, ROUTE.toBuilder().setPriority(5).build()))
                .as("priority on LPM table")
                .containsExactly(invalid);
        assertThat(failOne(
                        Update.Type.INSERT, admit(1).toBuilder().setPriority(0).build()))
                .as("ternary needs priority")
                .containsExactly(invalid);
        assertThat(failOne(
                        Update.Type.INSERT,
                        admit(1).toBuilder()
                                .clearMatch()
                                .addMatch(ternary(1, value(0xFF), value(0x0F)))
                                .build()))
                .as("value & mask != value")
                .containsExactly(invalid);
        assertThat(failOne(
                        Update.Type.INSERT,
                        admit(1).toBuilder()
                                .clearMatch()
                                .addMatch(ternary(1, value(0), value(0)))
                                .build()))
                .as("mask 0")
                .containsExactly(invalid);
        assertThat(failOne(Update.Type.INSERT, ROUTE.toBuilder().removeMatch(0).build()))
                .as("exact missing")
                .containsExactly(invalid);
        assertThat(failOne(
                        Update.Type.INSERT,
                        ROUTE.toBuilder().addMatch(exact(9, value(1))).build()))
                .as("unknown field")
                .containsExactly(invalid);
        assertThat(failOne(
                        Update.Type.INSERT,
                        ROUTE.toBuilder()
                                .setAction(TableAction.newBuilder().setAction(action(ADMIT)))
                                .build()))
                .as("action not in table")
                .containsExactly(invalid);
        assertThat(failOne(
                        Update.Type.INSERT,
                        ROUTE.toBuilder()
                                .setAction(TableAction.newBuilder().setAction(action(SET_NEXTHOP)))
                                .build()))
                .as("missing param")
                .containsExactly(invalid);
        assertThat(failOne(Update.Type.INSERT, route(value(0x0A000000L), 8, 0x10000)))
                .as("param too wide")
                .containsExactly(invalid);
        assertThat(failOne(
                        Update.Type.INSERT,
                        ROUTE.toBuilder().setMatch(0, exact(1, bytes())).build()))
                .as("empty bytestring")
                .containsExactly(invalid);
        assertThat(failOne(
                        Update.Type.INSERT, ROUTE.toBuilder().setIsConst(true).build()))
                .as("is_const")
                .containsExactly(invalid);
        assertThat(failOne(
                        Update.Type.INSERT,
                        ROUTE.toBuilder().setIdleTimeoutNs(1000).build()))
                .as("no idle timeout on ipv4_table")
                .containsExactly(invalid);
        assertThat(failWrite(write(
                        1,
                        1,
                        Update.newBuilder()
                                .setType(Update.Type.INSERT)
                                .setEntity(Entity.getDefaultInstance())
                                .build())))
                .as("entity unset")
                .containsExactly(invalid);
        assertThat(read(tableWildcard(0))).isEmpty();
    }

    @Test
    void shouldAcceptPaddedBytesAndReadBackCanonicalWhenWritingBytestrings() throws Exception {
        final TableEntry padded = TableEntry.newBuilder()
                .setTableId(IPV4)
                .addMatch(exact(1, bytes(0, 0)))
                .addMatch(lpm(2, bytes(10, 0, 0, 0), 8))
                .setAction(TableAction.newBuilder().setAction(action(SET_NEXTHOP, bytes(0, 0x63))))
                .build();
        f.blocking.write(write(1, 1, update(Update.Type.INSERT, padded)));
        final TableEntry read = read(tableWildcard(IPV4)).get(0).getTableEntry();
        assertThat(read.getMatch(0).getExact().getValue()).isEqualTo(bytes(0));
        assertThat(read.getAction().getAction().getParams(0).getValue()).isEqualTo(bytes(0x63));
        assertThat(failOne(
                        Update.Type.INSERT,
                        ROUTE.toBuilder().setMatch(0, exact(1, bytes(4, 0))).build()))
                .as("vrf bit<10> 0x400 is too wide")
                .containsExactly(Code.INVALID_ARGUMENT.getNumber());
    }

    @Test
    void shouldEnforceDefaultEntryAndScopeRules() throws Exception {
        final TableEntry.Builder def = TableEntry.newBuilder()
                .setTableId(IPV4)
                .setIsDefaultAction(true)
                .setAction(TableAction.newBuilder().setAction(action(DROP)));
        assertThat(failOne(Update.Type.INSERT, def.build())).containsExactly(Code.INVALID_ARGUMENT.getNumber());
        assertThat(failOne(Update.Type.DELETE, def.build())).containsExactly(Code.INVALID_ARGUMENT.getNumber());
        f.blocking.write(write(1, 1, update(Update.Type.MODIFY, def.build())));
        final List<Entity> read = read(Entity.newBuilder()
                .setTableEntry(TableEntry.newBuilder().setTableId(IPV4).setIsDefaultAction(true))
                .build());
        assertThat(read.get(0).getTableEntry().getAction().getAction().getActionId())
                .isEqualTo(DROP);
        assertThat(failOne(
                        Update.Type.MODIFY,
                        TableEntry.newBuilder()
                                .setTableId(WCMP)
                                .setIsDefaultAction(true)
                                .setAction(TableAction.newBuilder().setAction(action(NO_ACTION)))
                                .build()))
                .as("const default")
                .containsExactly(Code.PERMISSION_DENIED.getNumber());
        assertThat(failOne(
                        Update.Type.MODIFY,
                        TableEntry.newBuilder()
                                .setTableId(L3_ADMIT)
                                .setIsDefaultAction(true)
                                .setAction(TableAction.newBuilder().setAction(action(ADMIT)))
                                .build()))
                .as("TABLE_ONLY action as default")
                .containsExactly(Code.PERMISSION_DENIED.getNumber());
        assertThat(failOne(
                        Update.Type.INSERT,
                        admit(1).toBuilder()
                                .setAction(TableAction.newBuilder().setAction(action(NO_ACTION)))
                                .build()))
                .as("DEFAULT_ONLY action in an entry")
                .containsExactly(Code.PERMISSION_DENIED.getNumber());
    }

    private static TableEntry wcmp(final int group, final ActionProfileAction... actions) {
        return TableEntry.newBuilder()
                .setTableId(WCMP)
                .addMatch(exact(1, value(group)))
                .setAction(TableAction.newBuilder()
                        .setActionProfileActionSet(
                                ActionProfileActionSet.newBuilder().addAllActionProfileActions(List.of(actions))))
                .build();
    }

    private static ActionProfileAction member(final int nexthop, final int weight, final int watchPort) {
        return ActionProfileAction.newBuilder()
                .setAction(action(WCMP_SET_NEXTHOP, value(nexthop)))
                .setWeight(weight)
                .setWatchPort(value(watchPort))
                .build();
    }

    @Test
    void shouldReadBackOriginalOneShotWhenProgrammingSelector() throws Exception {
        final TableEntry group = wcmp(1, member(1, 3, 4), member(2, 1, 5));
        f.blocking.write(write(1, 1, update(Update.Type.INSERT, group)));
        assertThat(read(tableWildcard(WCMP)).get(0).getTableEntry()).isEqualTo(group);
        assertThat(failOne(Update.Type.INSERT, wcmp(2, member(1, 0, 4))))
                .as("weight 0")
                .containsExactly(Code.INVALID_ARGUMENT.getNumber());
        assertThat(failOne(Update.Type.INSERT, wcmp(2, member(1, 200, 4), member(2, 57, 4))))
                .as("sum of weights 257 > max_group_size 256")
                .containsExactly(Code.INVALID_ARGUMENT.getNumber());
        assertThat(failOne(Update.Type.INSERT, wcmp(2, member(1, 1, 99))))
                .as("watch_port does not exist")
                .containsExactly(Code.INVALID_ARGUMENT.getNumber());
        final var memberUpdate = update(
                Update.Type.INSERT,
                Entity.newBuilder()
                        .setActionProfileMember(ActionProfileMember.newBuilder()
                                .setActionProfileId(SELECTOR)
                                .setMemberId(1)
                                .setAction(action(WCMP_SET_NEXTHOP, value(1))))
                        .build());
        assertThat(failWrite(write(1, 1, memberUpdate)))
                .as("mixing one-shot and members")
                .containsExactly(Code.INVALID_ARGUMENT.getNumber());
    }

    @Test
    void shouldProgramMembersAndGroupsWhenNoOneShotUsesTheSelector() throws Exception {
        final Entity m1 = Entity.newBuilder()
                .setActionProfileMember(ActionProfileMember.newBuilder()
                        .setActionProfileId(SELECTOR)
                        .setMemberId(1)
                        .setAction(action(WCMP_SET_NEXTHOP, value(1))))
                .build();
        final Entity g = Entity.newBuilder()
                .setActionProfileGroup(ActionProfileGroup.newBuilder()
                        .setActionProfileId(SELECTOR)
                        .setGroupId(10)
                        .addMembers(ActionProfileGroup.Member.newBuilder()
                                .setMemberId(1)
                                .setWeight(2)))
                .build();
        final Entity missing = Entity.newBuilder()
                .setActionProfileGroup(ActionProfileGroup.newBuilder()
                        .setActionProfileId(SELECTOR)
                        .setGroupId(11)
                        .addMembers(ActionProfileGroup.Member.newBuilder()
                                .setMemberId(9)
                                .setWeight(1)))
                .build();
        assertThat(failWrite(write(
                        1,
                        1,
                        update(Update.Type.INSERT, m1),
                        update(Update.Type.INSERT, g),
                        update(Update.Type.INSERT, missing))))
                .containsExactly(0, 0, Code.NOT_FOUND.getNumber());
        final TableEntry entry = TableEntry.newBuilder()
                .setTableId(WCMP)
                .addMatch(exact(1, value(1)))
                .setAction(TableAction.newBuilder().setActionProfileGroupId(10))
                .build();
        f.blocking.write(write(1, 1, update(Update.Type.INSERT, entry)));
        assertThat(failWrite(write(1, 1, update(Update.Type.DELETE, m1))))
                .as("member in use")
                .containsExactly(Code.FAILED_PRECONDITION.getNumber());
        assertThat(read(Entity.newBuilder()
                        .setActionProfileGroup(ActionProfileGroup.newBuilder().setActionProfileId(SELECTOR))
                        .build()))
                .containsExactly(g);
    }

    @Test
    void shouldWriteAndReadCountersRegistersAndDirectResources() throws Exception {
        final Entity counter = Entity.newBuilder()
                .setCounterEntry(CounterEntry.newBuilder()
                        .setCounterId(0x12000001)
                        .setIndex(Index.newBuilder().setIndex(3))
                        .setData(CounterData.newBuilder().setByteCount(100).setPacketCount(2)))
                .build();
        f.blocking.write(write(1, 1, update(Update.Type.MODIFY, counter)));
        assertThat(read(Entity.newBuilder()
                        .setCounterEntry(CounterEntry.newBuilder()
                                .setCounterId(0x12000001)
                                .setIndex(Index.newBuilder().setIndex(3)))
                        .build()))
                .containsExactly(counter);
        assertThat(read(Entity.newBuilder()
                        .setCounterEntry(CounterEntry.newBuilder().setCounterId(0x12000001))
                        .build()))
                .hasSize(256);
        assertThat(failWrite(write(1, 1, update(Update.Type.INSERT, counter))))
                .as("counters are MODIFY only")
                .containsExactly(Code.INVALID_ARGUMENT.getNumber());
        final Entity ecnMin = Entity.newBuilder()
                .setRegisterEntry(RegisterEntry.newBuilder()
                        .setRegisterId(0x16000001)
                        .setIndex(Index.newBuilder().setIndex(17))
                        .setData(P4Data.newBuilder().setBitstring(value(150_000))))
                .build();
        f.blocking.write(write(1, 1, update(Update.Type.MODIFY, ecnMin)));
        assertThat(read(Entity.newBuilder()
                        .setRegisterEntry(RegisterEntry.newBuilder()
                                .setRegisterId(0x16000001)
                                .setIndex(Index.newBuilder().setIndex(17)))
                        .build()))
                .containsExactly(ecnMin);
        assertThat(failWrite(write(
                        1,
                        1,
                        update(
                                Update.Type.MODIFY,
                                ecnMin.toBuilder()
                                        .setRegisterEntry(ecnMin.getRegisterEntry().toBuilder()
                                                .setIndex(Index.newBuilder().setIndex(2048)))
                                        .build()))))
                .as("index out of range")
                .containsExactly(Code.INVALID_ARGUMENT.getNumber());
        final TableEntry acl = TableEntry.newBuilder()
                .setTableId(ACL_IN)
                .setPriority(10)
                .addMatch(ternary(3, value(0x0806), value(0xFFFF)))
                .setAction(TableAction.newBuilder().setAction(action(ACL_TRAP, value(1), value(2))))
                .setCounterData(CounterData.newBuilder().setPacketCount(5).setByteCount(320))
                .setMeterConfig(MeterConfig.newBuilder()
                        .setCir(1000)
                        .setCburst(100)
                        .setPir(2000)
                        .setPburst(200))
                .build();
        f.blocking.write(write(1, 1, update(Update.Type.INSERT, acl)));
        final TableEntry back = read(Entity.newBuilder()
                        .setTableEntry(TableEntry.newBuilder()
                                .setTableId(ACL_IN)
                                .setCounterData(CounterData.getDefaultInstance())
                                .setMeterConfig(MeterConfig.getDefaultInstance()))
                        .build())
                .get(0)
                .getTableEntry();
        assertThat(back.getCounterData().getPacketCount()).isEqualTo(5);
        assertThat(back.getMeterConfig().getPir()).isEqualTo(2000);
        assertThat(failOne(
                        Update.Type.INSERT,
                        ROUTE.toBuilder()
                                .setCounterData(CounterData.getDefaultInstance())
                                .build()))
                .as("no direct counter on ipv4_table")
                .containsExactly(Code.INVALID_ARGUMENT.getNumber());
    }

    @Test
    void shouldManageMulticastGroupsWhenWritingReplicationEntries() throws Exception {
        final Entity group = Entity.newBuilder()
                .setPacketReplicationEngineEntry(PacketReplicationEngineEntry.newBuilder()
                        .setMulticastGroupEntry(MulticastGroupEntry.newBuilder()
                                .setMulticastGroupId(5)
                                .addReplicas(
                                        Replica.newBuilder().setPort(value(1)).setInstance(0))
                                .addReplicas(
                                        Replica.newBuilder().setPort(value(2)).setInstance(0))))
                .build();
        f.blocking.write(write(1, 1, update(Update.Type.INSERT, group)));
        assertThat(failWrite(write(1, 1, update(Update.Type.INSERT, group))))
                .containsExactly(Code.ALREADY_EXISTS.getNumber());
        assertThat(read(Entity.newBuilder()
                        .setPacketReplicationEngineEntry(PacketReplicationEngineEntry.newBuilder()
                                .setMulticastGroupEntry(MulticastGroupEntry.getDefaultInstance()))
                        .build()))
                .containsExactly(group);
    }

    @Test
    void shouldReadAllTablesWithWildcardAndReportBadEntitiesPerEntity() throws Exception {
        f.blocking.write(write(
                1,
                1,
                update(Update.Type.INSERT, ROUTE),
                update(Update.Type.INSERT, admit(3)),
                update(Update.Type.INSERT, route(value(0x0B000000L), 8, 2))));
        assertThat(read(tableWildcard(0))).hasSize(3);
        assertThat(read(Entity.newBuilder()
                        .setTableEntry(ROUTE.toBuilder().clearAction())
                        .build()))
                .as("one entry by its key")
                .extracting(e -> e.getTableEntry().getMatch(1).getLpm().getValue())
                .containsExactly(value(0x0A000000L));
        assertThat(read(Entity.newBuilder()
                        .setTableEntry(TableEntry.newBuilder().setTableId(IPV4).addMatch(exact(1, value(0))))
                        .build()))
                .as("vrf 0, any prefix")
                .hasSize(2);
        final var ex = catchThrowableOfType(StatusRuntimeException.class, () -> read(Entity.getDefaultInstance()));
        assertThat(updateCodes(ex)).containsExactly(Code.INVALID_ARGUMENT.getNumber());
        final var unknown = catchThrowableOfType(
                StatusRuntimeException.class,
                () -> f.blocking
                        .read(ReadRequest.newBuilder()
                                .setDeviceId(7)
                                .addEntities(tableWildcard(0))
                                .build())
                        .hasNext());
        assertThat(unknown.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
    }

    @Test
    void shouldWriteAndReadMetersCloneSessionsAndDirectCounterEntries() throws Exception {
        final Entity meter = Entity.newBuilder()
                .setMeterEntry(p4.v1.P4RuntimeOuterClass.MeterEntry.newBuilder()
                        .setMeterId(0x14000001)
                        .setIndex(Index.newBuilder().setIndex(2))
                        .setConfig(MeterConfig.newBuilder()
                                .setCir(100)
                                .setCburst(10)
                                .setPir(200)
                                .setPburst(20)))
                .build();
        f.blocking.write(write(1, 1, update(Update.Type.MODIFY, meter)));
        assertThat(read(Entity.newBuilder()
                        .setMeterEntry(p4.v1.P4RuntimeOuterClass.MeterEntry.newBuilder()
                                .setMeterId(0x14000001)
                                .setIndex(Index.newBuilder().setIndex(2)))
                        .build()))
                .containsExactly(meter);
        final Entity clone = Entity.newBuilder()
                .setPacketReplicationEngineEntry(PacketReplicationEngineEntry.newBuilder()
                        .setCloneSessionEntry(p4.v1.P4RuntimeOuterClass.CloneSessionEntry.newBuilder()
                                .setSessionId(3)
                                .addReplicas(
                                        Replica.newBuilder().setPort(value(7)).setInstance(1))
                                .setClassOfService(2)
                                .setPacketLengthBytes(128)))
                .build();
        f.blocking.write(write(1, 1, update(Update.Type.INSERT, clone)));
        assertThat(read(Entity.newBuilder()
                        .setPacketReplicationEngineEntry(PacketReplicationEngineEntry.newBuilder()
                                .setCloneSessionEntry(p4.v1.P4RuntimeOuterClass.CloneSessionEntry.getDefaultInstance()))
                        .build()))
                .containsExactly(clone);
        f.blocking.write(write(1, 1, update(Update.Type.DELETE, clone)));
        assertThat(failWrite(write(1, 1, update(Update.Type.DELETE, clone))))
                .containsExactly(Code.NOT_FOUND.getNumber());
        final TableEntry aclKey = TableEntry.newBuilder()
                .setTableId(ACL_IN)
                .setPriority(10)
                .addMatch(ternary(3, value(0x0806), value(0xFFFF)))
                .build();
        final Entity direct = Entity.newBuilder()
                .setDirectCounterEntry(p4.v1.P4RuntimeOuterClass.DirectCounterEntry.newBuilder()
                        .setTableEntry(aclKey)
                        .setData(CounterData.newBuilder().setPacketCount(9)))
                .build();
        assertThat(failWrite(write(1, 1, update(Update.Type.MODIFY, direct))))
                .as("no such ACL entry")
                .containsExactly(Code.NOT_FOUND.getNumber());
        f.blocking.write(write(
                1,
                1,
                update(
                        Update.Type.INSERT,
                        aclKey.toBuilder()
                                .setAction(TableAction.newBuilder().setAction(action(ACL_TRAP, value(1), value(2))))
                                .build()),
                update(Update.Type.MODIFY, direct)));
        assertThat(read(Entity.newBuilder()
                        .setDirectCounterEntry(p4.v1.P4RuntimeOuterClass.DirectCounterEntry.newBuilder()
                                .setTableEntry(TableEntry.newBuilder().setTableId(ACL_IN)))
                        .build()))
                .containsExactly(direct);
    }
}
