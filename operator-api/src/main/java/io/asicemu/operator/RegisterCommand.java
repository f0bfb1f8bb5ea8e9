package io.asicemu.operator;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * asic-emu's Redis command for the chip's registers, in the {@code MODULE.COMMAND} namespace Redis modules use, so
 * that SONiC's databases keep SONiC's semantics (no register keys appear in any DB):
 * <ul>
 *   <li>{@code ASICEMU.REGISTER GET [NAME [INSTANCE]]}: an array of rows, each an array of seven bulk strings —
 *       name, instance ({@code ""}, {@code Ethernet8}, {@code Ethernet8|3}, a pool name or a group id), address
 *       ({@code 0x%08X}), value (decimal), unit, access ({@code RW}/{@code RO}), decoded bit fields;
 *   <li>{@code ASICEMU.REGISTER SET NAME INSTANCE VALUE}: the row after the write, or an error naming register and
 *       instance (nothing changed).
 * </ul>
 * {@code redis-cli ASICEMU.REGISTER SET ECN_KMIN 'Ethernet8|3' 20000} works as the CLI's {@code config register}.
 */
final class RegisterCommand {
    /** The command's name. */
    static final String NAME = "ASICEMU.REGISTER";

    private RegisterCommand() {}

    /**
     * @param args the command and its arguments.
     * @param registers the register map, or null when this server has none.
     * @return the reply.
     */
    static RedisMessage execute(final List<byte[]> args, final RegisterAccess registers) {
        if (registers == null) {
            return new ErrorRedisMessage("ERR this server has no register map (a running switch's `asic-emu run` has)");
        }
        final String sub = args.size() < 2 ? "" : text(args.get(1)).toUpperCase(Locale.ROOT);
        try {
            return switch (sub) {
                case "GET" -> {
                    if (args.size() > 4) {
                        yield usage();
                    }
                    final String name = args.size() > 2 ? text(args.get(2)) : null;
                    final String instance = args.size() > 3 ? text(args.get(3)) : null;
                    final List<RedisMessage> rows = new ArrayList<>();
                    for (final RegisterAccess.Row row : registers.read(name, instance)) {
                        rows.add(row(row));
                    }
                    yield new ArrayRedisMessage(rows);
                }
                case "SET" ->
                    args.size() == 5
                            ? row(registers.write(text(args.get(2)), text(args.get(3)), text(args.get(4))))
                            : usage();
                default -> usage();
            };
        } catch (final RegisterAccess.RegisterException e) {
            return new ErrorRedisMessage("ERR " + oneLine(e.getMessage()));
        }
    }

    private static RedisMessage usage() {
        return new ErrorRedisMessage(
                "ERR usage: ASICEMU.REGISTER GET [NAME [INSTANCE]] | ASICEMU.REGISTER SET NAME INSTANCE VALUE");
    }

    private static RedisMessage row(final RegisterAccess.Row r) {
        return new ArrayRedisMessage(List.of(
                bulk(r.name()),
                bulk(r.instance()),
                bulk(String.format(Locale.ROOT, "0x%08X", r.address())),
                bulk(Long.toString(r.value())),
                bulk(r.unit()),
                bulk(r.access()),
                bulk(r.decoded())));
    }

    /**
     * @param reply an {@code ASICEMU.REGISTER} reply as {@link RedisCountersClient} gives it (a list of lists).
     * @return its rows.
     */
    static List<RegisterAccess.Row> rows(final Object reply) {
        final List<RegisterAccess.Row> out = new ArrayList<>();
        if (reply instanceof List<?> list) {
            for (final Object item : list) {
                if (item instanceof List<?> f && f.size() == 7) {
                    out.add(new RegisterAccess.Row(
                            String.valueOf(f.get(0)),
                            String.valueOf(f.get(1)),
                            Long.decode(String.valueOf(f.get(2))),
                            Long.parseLong(String.valueOf(f.get(3))),
                            String.valueOf(f.get(4)),
                            String.valueOf(f.get(5)),
                            String.valueOf(f.get(6))));
                }
            }
        }
        return out;
    }

    /** An error reply is one line: no CR/LF, bounded, so a hostile instance name cannot break the framing. */
    private static String oneLine(final String s) {
        final StringBuilder out = new StringBuilder();
        for (int i = 0; i < s.length() && out.length() < 400; i++) {
            final char c = s.charAt(i);
            out.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        return out.toString();
    }

    private static RedisMessage bulk(final String value) {
        return new FullBulkStringRedisMessage(Unpooled.wrappedBuffer(value.getBytes(StandardCharsets.UTF_8)));
    }

    private static String text(final byte[] raw) {
        return new String(raw, StandardCharsets.UTF_8);
    }
}
