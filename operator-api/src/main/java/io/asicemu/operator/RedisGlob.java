package io.asicemu.operator;

/**
 * Redis's glob patterns (KEYS, SCAN MATCH): {@code *}, {@code ?}, {@code [abc]}, {@code [^a-z]}, {@code \x}. Matched
 * by dynamic programming over (pattern, text) positions, so a hostile pattern such as {@code *a*a*a*…b} costs
 * pattern × text steps, never exponential backtracking.
 */
final class RedisGlob {
    private RedisGlob() {}

    /**
     * @param pattern the glob.
     * @param text the key.
     * @return whether the key matches.
     */
    static boolean matches(final String pattern, final String text) {
        final int n = text.length();
        // reachable[i]: the pattern consumed so far can end at text position i
        boolean[] reachable = new boolean[n + 1];
        reachable[0] = true;
        int p = 0;
        while (p < pattern.length()) {
            final char c = pattern.charAt(p);
            final boolean[] next = new boolean[n + 1];
            if (c == '*') {
                boolean any = false;
                for (int i = 0; i <= n; i++) {
                    any |= reachable[i];
                    next[i] = any;
                }
                p++;
            } else {
                final int end;
                final CharTest test;
                if (c == '?') {
                    end = p + 1;
                    test = ch -> true;
                } else if (c == '[') {
                    end = classEnd(pattern, p);
                    final String body = pattern.substring(p + 1, Math.max(p + 1, end - 1));
                    test = ch -> inClass(body, ch);
                } else if (c == '\\' && p + 1 < pattern.length()) {
                    end = p + 2;
                    final char literal = pattern.charAt(p + 1);
                    test = ch -> ch == literal;
                } else {
                    end = p + 1;
                    test = ch -> ch == c;
                }
                boolean alive = false;
                for (int i = 0; i < n; i++) {
                    if (reachable[i] && test.accepts(text.charAt(i))) {
                        next[i + 1] = true;
                        alive = true;
                    }
                }
                if (!alive) {
                    return false;
                }
                p = end;
            }
            reachable = next;
        }
        return reachable[n];
    }

    /** The index after the class's closing bracket (or the pattern's end, as Redis treats an unclosed class). */
    private static int classEnd(final String pattern, final int open) {
        int i = open + 1;
        while (i < pattern.length()) {
            final char c = pattern.charAt(i);
            if (c == '\\' && i + 1 < pattern.length()) {
                i += 2;
            } else if (c == ']') {
                return i + 1;
            } else {
                i++;
            }
        }
        return pattern.length() + 1;
    }

    private static boolean inClass(final String body, final char ch) {
        int i = 0;
        boolean negate = false;
        if (!body.isEmpty() && body.charAt(0) == '^') {
            negate = true;
            i = 1;
        }
        boolean match = false;
        while (i < body.length()) {
            char c = body.charAt(i);
            if (c == '\\' && i + 1 < body.length()) {
                match |= body.charAt(i + 1) == ch;
                i += 2;
            } else if (i + 2 < body.length() && body.charAt(i + 1) == '-') {
                char lo = c;
                char hi = body.charAt(i + 2);
                if (lo > hi) {
                    final char t = lo;
                    lo = hi;
                    hi = t;
                }
                match |= ch >= lo && ch <= hi;
                i += 3;
            } else {
                match |= c == ch;
                i++;
            }
        }
        return negate != match;
    }

    @FunctionalInterface
    private interface CharTest {
        boolean accepts(char c);
    }
}
