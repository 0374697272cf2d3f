/*
 * Spark's regexp_like and regexp_extract, reading each row's match once.
 *
 * regexp_like(s, p) and regexp_extract(s, p, k) run the pattern over the row again for
 * every call: a filter on a match and five of its groups cost six matches. These kernels
 * mean exactly what Spark's functions mean (java.util.regex, Matcher.find(); a group that
 * took no part, or no match, is ""), but each thread keeps, per pattern, the last subject
 * it matched and the groups: the calls for one row after the first (the filter's test,
 * then each group in the projection, in the same generated code) read them.
 *
 * The cache is keyed by the subject's bytes, compared in full, so a hit is the same answer
 * as running the pattern again; the patterns are the plan's literals (one Pattern compiled
 * per pattern and thread).
 */
package looplift.kernels;

import java.util.HashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.array.ByteArrayMethods;
import org.apache.spark.unsafe.types.UTF8String;

public final class Regex {
    private Regex() {}

    /** One pattern of a thread, and its last subject's match. */
    static final class Entry {
        final UTF8String key;  // the pattern's text (a copy)
        final Pattern pattern;
        byte[] subject;  // null: nothing matched yet
        boolean found;
        UTF8String[] groups;

        Entry(UTF8String key, Pattern pattern) {
            this.key = key;
            this.pattern = pattern;
        }

        boolean holds(UTF8String s) {
            int n = s.numBytes();
            return subject != null && subject.length == n && ByteArrayMethods.arrayEquals(
                s.getBaseObject(), s.getBaseOffset(), subject, Platform.BYTE_ARRAY_OFFSET, n);
        }
    }

    /** A thread's patterns: the last one used (compared by its bytes, no hash), then all of
     * them by text. Keys are copies: a pattern read from a column may point into a buffer
     * that is reused. */
    static final class Patterns {
        UTF8String lastKey;
        Entry last;
        final HashMap<UTF8String, Entry> all = new HashMap<>();

        Entry of(UTF8String p) {
            if (lastKey != null && p.equals(lastKey)) return last;
            Entry e = all.get(p);
            if (e == null) {
                if (all.size() >= 256) all.clear();  // a plan has a few patterns; bound the rest
                e = new Entry(p.copy(), Pattern.compile(p.toString()));
                all.put(e.key, e);
            }
            lastKey = e.key;
            last = e;
            return e;
        }
    }

    private static final ThreadLocal<Patterns> PATTERNS = ThreadLocal.withInitial(Patterns::new);

    static Entry match(UTF8String s, UTF8String p) {
        Entry e = PATTERNS.get().of(p);
        if (e.holds(s)) return e;
        Matcher m = e.pattern.matcher(s.toString());
        e.subject = null;  // (should a group's conversion throw, no half-written entry)
        e.found = m.find();
        if (e.found) {
            int n = m.groupCount();
            if (e.groups == null || e.groups.length != n + 1) e.groups = new UTF8String[n + 1];
            for (int i = 0; i <= n; i++) {
                String g = m.group(i);
                e.groups[i] = g == null ? UTF8String.EMPTY_UTF8 : UTF8String.fromString(g);
            }
        }
        // a copy (getBytes may return the string's own array, which its reader may reuse)
        byte[] copy = new byte[s.numBytes()];
        Platform.copyMemory(s.getBaseObject(), s.getBaseOffset(), copy, Platform.BYTE_ARRAY_OFFSET,
            copy.length);
        e.subject = copy;
        return e;
    }

    /** regexp_like(s, p): does p find a match in s. */
    public static boolean like(UTF8String s, UTF8String p) {
        return match(s, p).found;
    }

    /** regexp_extract(s, p, k): group k of the first match; "" where there is no match or
     * the group took no part in it. */
    public static UTF8String group(UTF8String s, UTF8String p, int k) {
        Entry e = match(s, p);
        if (!e.found) return UTF8String.EMPTY_UTF8;
        if (k < 0 || k >= e.groups.length) {
            throw new IllegalArgumentException("regex group " + k + " of a pattern with "
                + (e.groups.length - 1) + " groups");
        }
        return e.groups[k];
    }
}
