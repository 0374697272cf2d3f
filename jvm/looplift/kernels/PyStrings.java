/*
 * Python's str primitives over Spark's UTF8String, read in place (no String conversion).
 *
 * Each kernel is exact against CPython on every valid UTF-8 string, or returns null where it
 * does not decide (lowerAscii on a string with a non-ASCII character); the plan around it
 * says what happens then. Registered by Functions.register as StaticInvoke expressions, so
 * Spark's generated code calls them directly (issue 27: strip and lower at native cost).
 */
package looplift.kernels;

import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

public final class PyStrings {
    private PyStrings() {}

    /** CPython's str.isspace() of one code point: 29 characters, all below U+3001. */
    public static boolean isSpace(int c) {
        if (c < 0x80) return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20);
        return c == 0x85 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a)
            || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
    }

    /** Every code point isSpace holds (for the tests that compare it with CPython). */
    public static int[] spaces() {
        int n = 0;
        for (int c = 0; c < 0x110000; c++) if (isSpace(c)) n++;
        int[] out = new int[n];
        n = 0;
        for (int c = 0; c < 0x110000; c++) if (isSpace(c)) out[n++] = c;
        return out;
    }

    private static int at(Object base, long off, int i) {
        return Platform.getByte(base, off + i) & 0xff;
    }

    /**
     * The width of the whitespace character starting at byte i of [i, end), or 0 if the
     * character there is not whitespace (or not valid UTF-8). Whitespace is 1 to 3 bytes.
     */
    private static int spaceAt(Object base, long off, int i, int end) {
        int b0 = at(base, off, i);
        if (b0 < 0x80) return isSpace(b0) ? 1 : 0;
        if (b0 >= 0xc2 && b0 < 0xe0 && i + 1 < end) {
            int b1 = at(base, off, i + 1);
            if ((b1 & 0xc0) != 0x80) return 0;
            return isSpace(((b0 & 0x1f) << 6) | (b1 & 0x3f)) ? 2 : 0;
        }
        if (b0 >= 0xe0 && b0 < 0xf0 && i + 2 < end) {
            int b1 = at(base, off, i + 1), b2 = at(base, off, i + 2);
            if ((b1 & 0xc0) != 0x80 || (b2 & 0xc0) != 0x80) return 0;
            int c = ((b0 & 0x0f) << 12) | ((b1 & 0x3f) << 6) | (b2 & 0x3f);
            return isSpace(c) ? 3 : 0;
        }
        return 0;
    }

    /** The width of the whitespace character ending at byte end - 1 of [start, end), or 0. */
    private static int spaceBefore(Object base, long off, int start, int end) {
        int last = at(base, off, end - 1);
        if (last < 0x80) return isSpace(last) ? 1 : 0;
        for (int w = 2; w <= 3 && end - w >= start; w++) {
            int lead = at(base, off, end - w);
            if ((lead & 0xc0) != 0x80) return spaceAt(base, off, end - w, end) == w ? w : 0;
        }
        return 0;
    }

    private static UTF8String trim(UTF8String s, boolean lead, boolean trail) {
        Object base = s.getBaseObject();
        long off = s.getBaseOffset();
        int n = s.numBytes();
        int a = 0, b = n, w;
        if (lead) while (a < b && (w = spaceAt(base, off, a, b)) > 0) a += w;
        if (trail) while (b > a && (w = spaceBefore(base, off, a, b)) > 0) b -= w;
        if (a == 0 && b == n) return s;
        return UTF8String.fromAddress(base, off + a, b - a).copy();
    }

    /** s.strip() */
    public static UTF8String strip(UTF8String s) {
        return trim(s, true, true);
    }

    /** s.lstrip() */
    public static UTF8String lstrip(UTF8String s) {
        return trim(s, true, false);
    }

    /** s.rstrip() */
    public static UTF8String rstrip(UTF8String s) {
        return trim(s, false, true);
    }

    /** Is every character of s ASCII (length(s) = octet_length(s), without counting the
     * characters: 8 bytes a test). */
    public static boolean isAscii(UTF8String s) {
        Object base = s.getBaseObject();
        long off = s.getBaseOffset();
        int n = s.numBytes();
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            if ((Platform.getLong(base, off + i) & 0x8080808080808080L) != 0) return false;
        }
        for (; i < n; i++) {
            if (Platform.getByte(base, off + i) < 0) return false;
        }
        return true;
    }

    private static UTF8String mapAscii(UTF8String s, int from, int to, int shift) {
        Object base = s.getBaseObject();
        long off = s.getBaseOffset();
        int n = s.numBytes();
        int i = 0;
        for (; i < n; i++) {
            int c = Platform.getByte(base, off + i);
            if (c < 0) return null;
            if (c >= from && c <= to) break;
        }
        if (i == n) return s;
        byte[] out = new byte[n];
        Platform.copyMemory(base, off, out, Platform.BYTE_ARRAY_OFFSET, i);
        for (; i < n; i++) {
            int c = Platform.getByte(base, off + i);
            if (c < 0) return null;
            out[i] = (byte) (c >= from && c <= to ? c + shift : c);
        }
        return UTF8String.fromBytes(out);
    }

    /** s.lower() if s is all ASCII, else null (the plan takes its exact path then). */
    public static UTF8String lowerAscii(UTF8String s) {
        return mapAscii(s, 'A', 'Z', 'a' - 'A');
    }

    /** s.upper() if s is all ASCII, else null. */
    public static UTF8String upperAscii(UTF8String s) {
        return mapAscii(s, 'a', 'z', 'A' - 'a');
    }
}
