package io.asicemu.switchd;

import io.asicemu.config.ConfigException;
import io.asicemu.pipeline.config.ConfigDb;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads config_db.json the way a hostile or careless user's file deserves: checked to be a readable file, its size
 * bounded before anything is parsed (a regular file by its length, a pipe or device while it is read), NUL bytes and
 * invalid UTF-8 refused with the byte offset. Every refusal is a {@link CliError} naming the file.
 */
final class ConfigFiles {
    /**
     * The largest config_db.json accepted: 128 MiB, about 1.5M routes in STATIC_ROUTE form; parsing it needs roughly
     * 8x its size of heap (the launcher's default 256 MiB heap holds ~30 MiB of config, {@code -Xmx1g} ~120 MiB).
     */
    static final long MAX_CONFIG_BYTES = 128L << 20;

    private static final int CHUNK = 64 << 10;

    private ConfigFiles() {}

    /**
     * @param file config_db.json.
     * @return the parsed store.
     * @throws CliError if the file is missing, a directory, unreadable, too large, not UTF-8 text, or refused by the
     *     config loader (the message names the file, then {@code TABLE|key|field}).
     */
    static ConfigDb load(final Path file) {
        final String text = read(file, MAX_CONFIG_BYTES);
        try {
            return ConfigDb.parse(text);
        } catch (final ConfigException e) {
            throw new CliError(file + ": configuration refused: " + e.getMessage(), e);
        }
    }

    /**
     * @param file a text file.
     * @param maxBytes the size bound.
     * @return its text.
     * @throws CliError naming the file and what is wrong.
     */
    static String read(final Path file, final long maxBytes) {
        RunCommand.readableConfig(file);
        try {
            if (Files.isRegularFile(file) && Files.size(file) > maxBytes) {
                throw tooLarge(file, Files.size(file), maxBytes);
            }
            final byte[] bytes = readBounded(file, maxBytes);
            for (int i = 0; i < bytes.length; i++) {
                if (bytes[i] == 0) {
                    throw new CliError(file + ": not a text file (a NUL byte at offset " + i + ")");
                }
            }
            try {
                return StandardCharsets.UTF_8
                        .newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(bytes))
                        .toString();
            } catch (final CharacterCodingException e) {
                throw new CliError(file + ": not UTF-8 text (" + firstInvalidUtf8(bytes) + ")");
            }
        } catch (final IOException e) {
            throw new CliError(file + ": cannot read: " + e.getMessage(), e);
        }
    }

    private static byte[] readBounded(final Path file, final long maxBytes) throws IOException {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final byte[] chunk = new byte[CHUNK];
        long total = 0;
        try (InputStream in = Files.newInputStream(file)) {
            for (int n = in.read(chunk); n >= 0; n = in.read(chunk)) {
                total += n;
                if (total > maxBytes) {
                    throw tooLarge(file, total, maxBytes);
                }
                for (int i = 0; i < n; i++) {
                    if (chunk[i] == 0) {
                        // a device such as /dev/zero: stop at the first chunk instead of reading the whole bound
                        throw new CliError(file + ": not a text file (a NUL byte at offset " + (total - n + i) + ")");
                    }
                }
                out.write(chunk, 0, n);
            }
        }
        return out.toByteArray();
    }

    private static CliError tooLarge(final Path file, final long size, final long maxBytes) {
        return new CliError(file + ": larger than the " + (maxBytes >> 20) + " MiB a configuration may have (at least "
                + size + " bytes)");
    }

    private static String firstInvalidUtf8(final byte[] bytes) {
        final var decoder = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        final ByteBuffer in = ByteBuffer.wrap(bytes);
        final java.nio.CharBuffer out = java.nio.CharBuffer.allocate(bytes.length + 1);
        final var result = decoder.decode(in, out, true);
        return result.isError()
                ? "invalid byte 0x" + Integer.toHexString(bytes[in.position()] & 0xFF) + " at offset " + in.position()
                : "invalid encoding";
    }
}
