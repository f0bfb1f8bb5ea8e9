package io.asicemu.switchd;

/**
 * A user error found by a command (a bad file, option or input): the command line prints its message as one line on
 * stderr, prefixed by the command's name, and exits with status 2 ({@link CliErrors}).
 */
final class CliError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message what is wrong, naming the file or option. */
    CliError(final String message) {
        super(message);
    }

    /**
     * @param message what is wrong, naming the file or option.
     * @param cause the underlying exception (printed with {@code --debug}).
     */
    CliError(final String message, final Throwable cause) {
        super(message, cause);
    }
}
