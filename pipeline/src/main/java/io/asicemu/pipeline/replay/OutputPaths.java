package io.asicemu.pipeline.replay;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * Where a replay may write: directly inside its output directory, whatever a configuration calls its ports. The
 * config loader refuses port names that are not safe file names; this is the second line of defence, in the writer:
 * the name is resolved against the normalised output directory and refused unless the result is a plain file name
 * in that directory (no separator, no {@code ..}, no absolute path) that is not a symbolic link.
 */
final class OutputPaths {
    private OutputPaths() {}

    /**
     * @param outDir the output directory.
     * @param fileName a file name derived from input (for example {@code <port>.pcap}).
     * @return the file inside {@code outDir}.
     * @throws IllegalArgumentException if the name would escape {@code outDir} or names a symbolic link.
     */
    public static Path confined(final Path outDir, final String fileName) {
        final Path dir = outDir.toAbsolutePath().normalize();
        final Path file;
        try {
            file = dir.resolve(fileName).normalize();
        } catch (final java.nio.file.InvalidPathException e) {
            throw new IllegalArgumentException(
                    "output file name " + quoted(fileName) + " is not a valid path: " + e.getReason());
        }
        if (fileName.isEmpty()
                || fileName.indexOf('/') >= 0
                || fileName.indexOf('\\') >= 0
                || fileName.indexOf('\0') >= 0
                || !dir.equals(file.getParent())
                || !file.getFileName().toString().equals(fileName)) {
            throw new IllegalArgumentException("output file name " + quoted(fileName) + " would be written outside "
                    + dir + "; only plain file names are allowed");
        }
        if (Files.isSymbolicLink(file)) {
            throw new IllegalArgumentException(
                    "output file " + file + " is a symbolic link; refusing to write " + "through it");
        }
        return file;
    }

    /**
     * Creates the output directory (and its parents).
     *
     * @param outDir the directory.
     * @throws IllegalArgumentException if it exists and is not a directory.
     * @throws UncheckedIOException if it cannot be created.
     */
    public static void createDirectory(final Path outDir) {
        if (Files.exists(outDir, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(outDir)) {
            throw new IllegalArgumentException("the output directory " + outDir + " exists and is not a directory");
        }
        try {
            Files.createDirectories(outDir);
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot create the output directory " + outDir + ": " + e, e);
        }
    }

    private static String quoted(final String name) {
        return '"' + name.replace("\0", "\\0") + '"';
    }
}
