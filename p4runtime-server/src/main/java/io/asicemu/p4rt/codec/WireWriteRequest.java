package io.asicemu.p4rt.codec;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.ExtensionRegistryLite;
import com.google.protobuf.UnsafeByteOperations;
import com.google.protobuf.WireFormat;
import java.io.IOException;
import java.util.Arrays;
import p4.v1.P4RuntimeOuterClass.FieldMatch.FieldMatchTypeCase;
import p4.v1.P4RuntimeOuterClass.Uint128;
import p4.v1.P4RuntimeOuterClass.WriteRequest;

/**
 * A Write request of the common shape (table entries with match fields, a direct action, priority and metadata) read
 * from its wire bytes into flat arrays, without the generated parser's builder tree per message (issue 15: that tree
 * was 35–46 % of a large Write). {@link #parse} answers null for anything else — another entity, a field it does not
 * read, a field given twice (the generated parser would merge or overwrite), a wrong wire type, malformed bytes — and
 * the caller then parses with the generated parser, which also gives malformed bytes their usual error.
 * {@link EntityCodec#decodeUpdate(WireWriteRequest, int)} validates each update exactly as the protobuf path does.
 * Immutable once parsed; its byte strings alias the request's bytes, which the caller must not change.
 */
public final class WireWriteRequest {
    private static final int VARINT = WireFormat.WIRETYPE_VARINT;
    private static final int LEN = WireFormat.WIRETYPE_LENGTH_DELIMITED;

    private final WriteRequest.Builder header = WriteRequest.newBuilder();
    private int updates;
    // per update
    private int[] type;
    private int[] tableId;
    private int[] priority;
    private ByteString[] metadata;
    private boolean[] hasAction;
    private int[] actionId;
    /** Update i's matches are [matchEnd[i - 1], matchEnd[i]) of the match arrays; its params likewise. */
    private int[] matchEnd;

    private int[] paramEnd;
    // per match field
    private int matches;
    private int[] fieldId;
    private FieldMatchTypeCase[] matchCase;
    /** exact/ternary/LPM/optional value, range low. */
    private ByteString[] first;
    /** ternary mask, range high. */
    private ByteString[] second;

    private int[] prefixLen;
    // per action parameter
    private int params;
    private int[] paramId;
    private ByteString[] paramValue;

    /**
     * @param updates the number of updates expected: the per-update arrays are sized for them, the match arrays for
     *     two matches and the parameter arrays for one parameter each (a route's shape), so a batch's arrays are
     *     allocated once instead of grown by doubling (which allocated about as much again as they hold).
     */
    private WireWriteRequest(final int updates) {
        final int u = Math.max(8, updates);
        type = new int[u];
        tableId = new int[u];
        priority = new int[u];
        metadata = new ByteString[u];
        hasAction = new boolean[u];
        actionId = new int[u];
        matchEnd = new int[u];
        paramEnd = new int[u];
        final int m = Math.max(16, 2 * updates);
        fieldId = new int[m];
        matchCase = new FieldMatchTypeCase[m];
        first = new ByteString[m];
        second = new ByteString[m];
        prefixLen = new int[m];
        paramId = new int[u];
        paramValue = new ByteString[u];
    }

    /**
     * Reads a serialized {@code WriteRequest} of the common shape.
     *
     * @param bytes the message; its byte strings are aliased, not copied.
     * @return the request, or null when it is not of the common shape or not well formed.
     */
    public static WireWriteRequest parse(final byte[] bytes) {
        // a wrapped (immutable) input is what lets the stream hand out slices of the bytes instead of copies
        final CodedInputStream in = UnsafeByteOperations.unsafeWrap(bytes).newCodedInput();
        in.enableAliasing(true);
        final WireWriteRequest w = new WireWriteRequest(countUpdates(bytes));
        try {
            return w.request(in) ? w : null;
        } catch (final IOException malformed) {
            return null; // the generated parser reports it
        }
    }

    /**
     * Counts the request's {@code updates} fields (4) by skipping over the top level; a malformed message ends the
     * count early (the parse that follows reports it).
     */
    private static int countUpdates(final byte[] bytes) {
        final CodedInputStream in = CodedInputStream.newInstance(bytes);
        int n = 0;
        try {
            int tag;
            while ((tag = in.readTag()) != 0) {
                if (tag == tag(4, LEN)) {
                    n++;
                }
                if (!in.skipField(tag)) {
                    break;
                }
            }
        } catch (final IOException malformed) {
            // only a size hint
        }
        return n;
    }

    /** @return the request's fields other than its updates (which this class holds). */
    public WriteRequest header() {
        return header.build();
    }

    public int updateCount() {
        return updates;
    }

    /** @return update i's type as its wire number (it may be unknown). */
    public int type(final int i) {
        return type[i];
    }

    public int tableId(final int i) {
        return tableId[i];
    }

    int priority(final int i) {
        return priority[i];
    }

    ByteString metadata(final int i) {
        return metadata[i];
    }

    /** @return whether update i has a {@code TableAction} (then always with a direct action). */
    boolean hasAction(final int i) {
        return hasAction[i];
    }

    int actionId(final int i) {
        return actionId[i];
    }

    int matchStart(final int i) {
        return i == 0 ? 0 : matchEnd[i - 1];
    }

    int matchEnd(final int i) {
        return matchEnd[i];
    }

    int fieldId(final int m) {
        return fieldId[m];
    }

    FieldMatchTypeCase matchCase(final int m) {
        return matchCase[m];
    }

    ByteString first(final int m) {
        return first[m];
    }

    ByteString second(final int m) {
        return second[m];
    }

    int prefixLen(final int m) {
        return prefixLen[m];
    }

    int paramStart(final int i) {
        return i == 0 ? 0 : paramEnd[i - 1];
    }

    int paramEnd(final int i) {
        return paramEnd[i];
    }

    int paramId(final int p) {
        return paramId[p];
    }

    ByteString paramValue(final int p) {
        return paramValue[p];
    }

    // ---- reading: each method answers false for what is not the common shape ---------------------------------------

    /** A field's tag (protobuf's {@code WireFormat.makeTag} is package-private). */
    private static int tag(final int field, final int wireType) {
        return (field << 3) | wireType;
    }

    private static int enter(final CodedInputStream in) throws IOException {
        return in.pushLimit(in.readRawVarint32());
    }

    @SuppressWarnings("deprecation") // role_id is deprecated but kept, as the generated parser keeps it
    private boolean request(final CodedInputStream in) throws IOException {
        int seen = 0;
        int tag;
        while ((tag = in.readTag()) != 0) {
            final int field = WireFormat.getTagFieldNumber(tag);
            final int wire = WireFormat.getTagWireType(tag);
            if (field == 4 && wire == LEN) {
                final int limit = enter(in);
                if (!update(in)) {
                    return false;
                }
                in.popLimit(limit);
                continue;
            }
            if (field > 6 || (seen & (1 << field)) != 0) {
                return false;
            }
            seen |= 1 << field;
            switch (field) {
                case 1 -> {
                    if (wire != VARINT) {
                        return false;
                    }
                    header.setDeviceId(in.readUInt64());
                }
                case 2 -> {
                    if (wire != VARINT) {
                        return false;
                    }
                    header.setRoleId(in.readUInt64());
                }
                case 3 -> {
                    if (wire != LEN) {
                        return false;
                    }
                    header.setElectionId(in.readMessage(Uint128.parser(), ExtensionRegistryLite.getEmptyRegistry()));
                }
                case 5 -> {
                    if (wire != VARINT) {
                        return false;
                    }
                    header.setAtomicityValue(in.readEnum());
                }
                case 6 -> {
                    if (wire != LEN) {
                        return false;
                    }
                    header.setRole(in.readStringRequireUtf8());
                }
                default -> {
                    return false;
                }
            }
        }
        return true;
    }

    private boolean update(final CodedInputStream in) throws IOException {
        final int u = updates;
        if (u == type.length) {
            growUpdates();
        }
        type[u] = 0;
        tableId[u] = 0;
        priority[u] = 0;
        metadata[u] = ByteString.EMPTY;
        hasAction[u] = false;
        actionId[u] = 0;
        boolean typeSeen = false;
        boolean entitySeen = false;
        int tag;
        while ((tag = in.readTag()) != 0) {
            if (tag == tag(1, VARINT) && !typeSeen) {
                typeSeen = true;
                type[u] = in.readEnum();
            } else if (tag == tag(2, LEN) && !entitySeen) {
                entitySeen = true;
                final int limit = enter(in);
                // Entity: only its table_entry (field 2), once
                if (in.readTag() != tag(2, LEN)) {
                    return false;
                }
                final int entryLimit = enter(in);
                if (!tableEntry(in, u)) {
                    return false;
                }
                in.popLimit(entryLimit);
                if (in.readTag() != 0) {
                    return false;
                }
                in.popLimit(limit);
            } else {
                return false;
            }
        }
        if (!entitySeen) {
            return false;
        }
        matchEnd[u] = matches;
        paramEnd[u] = params;
        updates = u + 1;
        return true;
    }

    private boolean tableEntry(final CodedInputStream in, final int u) throws IOException {
        int seen = 0;
        int tag;
        while ((tag = in.readTag()) != 0) {
            final int field = WireFormat.getTagFieldNumber(tag);
            final int wire = WireFormat.getTagWireType(tag);
            if (field == 2 && wire == LEN) {
                final int limit = enter(in);
                if (!fieldMatch(in)) {
                    return false;
                }
                in.popLimit(limit);
                continue;
            }
            if (field > 11 || (seen & (1 << field)) != 0) {
                return false;
            }
            seen |= 1 << field;
            if (field == 1 && wire == VARINT) {
                tableId[u] = in.readUInt32();
            } else if (field == 4 && wire == VARINT) {
                priority[u] = in.readInt32();
            } else if (field == 11 && wire == LEN) {
                metadata[u] = in.readBytes();
            } else if (field == 3 && wire == LEN) {
                final int limit = enter(in);
                if (!tableAction(in, u)) {
                    return false;
                }
                in.popLimit(limit);
            } else {
                return false; // meter/counter data, default or const entries, idle timeouts: the generated parser
            }
        }
        return true;
    }

    private boolean tableAction(final CodedInputStream in, final int u) throws IOException {
        // TableAction with its direct action (field 1), once; profile references and one-shot sets are not read here
        if (in.readTag() != tag(1, LEN)) {
            return false;
        }
        final int limit = enter(in);
        boolean idSeen = false;
        int tag;
        while ((tag = in.readTag()) != 0) {
            if (tag == tag(1, VARINT) && !idSeen) {
                idSeen = true;
                actionId[u] = in.readUInt32();
            } else if (tag == tag(4, LEN)) {
                final int paramLimit = enter(in);
                if (!param(in)) {
                    return false;
                }
                in.popLimit(paramLimit);
            } else {
                return false;
            }
        }
        in.popLimit(limit);
        hasAction[u] = true;
        return in.readTag() == 0;
    }

    private boolean param(final CodedInputStream in) throws IOException {
        final int p = params;
        if (p == paramId.length) {
            paramId = Arrays.copyOf(paramId, p * 2);
            paramValue = Arrays.copyOf(paramValue, p * 2);
        }
        paramId[p] = 0;
        paramValue[p] = ByteString.EMPTY;
        boolean idSeen = false;
        boolean valueSeen = false;
        int tag;
        while ((tag = in.readTag()) != 0) {
            if (tag == tag(2, VARINT) && !idSeen) {
                idSeen = true;
                paramId[p] = in.readUInt32();
            } else if (tag == tag(3, LEN) && !valueSeen) {
                valueSeen = true;
                paramValue[p] = in.readBytes();
            } else {
                return false;
            }
        }
        params = p + 1;
        return true;
    }

    private boolean fieldMatch(final CodedInputStream in) throws IOException {
        final int m = matches;
        if (m == fieldId.length) {
            growMatches();
        }
        fieldId[m] = 0;
        matchCase[m] = FieldMatchTypeCase.FIELDMATCHTYPE_NOT_SET;
        first[m] = ByteString.EMPTY;
        second[m] = ByteString.EMPTY;
        prefixLen[m] = 0;
        boolean idSeen = false;
        int tag;
        while ((tag = in.readTag()) != 0) {
            final int field = WireFormat.getTagFieldNumber(tag);
            final int wire = WireFormat.getTagWireType(tag);
            if (field == 1 && wire == VARINT && !idSeen) {
                idSeen = true;
                fieldId[m] = in.readUInt32();
                continue;
            }
            // one of exact 2, ternary 3, LPM 4, range 6, optional 7, once (a second would replace or merge)
            final FieldMatchTypeCase c = field == 100 ? null : FieldMatchTypeCase.forNumber(field);
            if (wire != LEN
                    || c == null
                    || c == FieldMatchTypeCase.FIELDMATCHTYPE_NOT_SET
                    || matchCase[m] != FieldMatchTypeCase.FIELDMATCHTYPE_NOT_SET) {
                return false;
            }
            matchCase[m] = c;
            final int limit = enter(in);
            if (!matchValue(in, m, c == FieldMatchTypeCase.LPM)) {
                return false;
            }
            in.popLimit(limit);
        }
        matches = m + 1;
        return true;
    }

    /** Exact/optional {value = 1}, ternary {value = 1, mask = 2}, range {low = 1, high = 2}, LPM {value = 1, len = 2}. */
    private boolean matchValue(final CodedInputStream in, final int m, final boolean lpm) throws IOException {
        final boolean two = matchCase[m] != FieldMatchTypeCase.EXACT && matchCase[m] != FieldMatchTypeCase.OPTIONAL;
        boolean firstSeen = false;
        boolean secondSeen = false;
        int tag;
        while ((tag = in.readTag()) != 0) {
            if (tag == tag(1, LEN) && !firstSeen) {
                firstSeen = true;
                first[m] = in.readBytes();
            } else if (two && !secondSeen && tag == tag(2, lpm ? VARINT : LEN)) {
                secondSeen = true;
                if (lpm) {
                    prefixLen[m] = in.readInt32();
                } else {
                    second[m] = in.readBytes();
                }
            } else {
                return false;
            }
        }
        return true;
    }

    private void growUpdates() {
        final int n = type.length * 2;
        type = Arrays.copyOf(type, n);
        tableId = Arrays.copyOf(tableId, n);
        priority = Arrays.copyOf(priority, n);
        metadata = Arrays.copyOf(metadata, n);
        hasAction = Arrays.copyOf(hasAction, n);
        actionId = Arrays.copyOf(actionId, n);
        matchEnd = Arrays.copyOf(matchEnd, n);
        paramEnd = Arrays.copyOf(paramEnd, n);
    }

    private void growMatches() {
        final int n = fieldId.length * 2;
        fieldId = Arrays.copyOf(fieldId, n);
        matchCase = Arrays.copyOf(matchCase, n);
        first = Arrays.copyOf(first, n);
        second = Arrays.copyOf(second, n);
        prefixLen = Arrays.copyOf(prefixLen, n);
    }
}
