/*
 * The kernels as Java UDFs, for a Spark Connect server without looplift's extension: the
 * client uploads the jar (addArtifacts) and registers these by class name
 * (registerJavaFunction). Each converts to and from Java strings, so it costs more than the
 * StaticInvoke form (Functions), but it is exact and, unlike a SQL function, allowed inside
 * the lambdas of higher-order functions.
 */
package looplift.kernels;

import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.api.java.UDF3;
import org.apache.spark.unsafe.types.UTF8String;

public final class Udfs {
    private Udfs() {}

    /** A kernel over Java strings: null in, null out. (Spark reads the UDF interface off
     * the registered class itself, so each subclass names it again.) */
    abstract static class Kernel implements UDF1<String, String> {
        abstract UTF8String apply(UTF8String s);

        @Override
        public String call(String s) {
            if (s == null) return null;
            UTF8String out = apply(UTF8String.fromString(s));
            return out == null ? null : out.toString();
        }
    }

    public static final class Strip extends Kernel implements UDF1<String, String> {
        UTF8String apply(UTF8String s) { return PyStrings.strip(s); }
    }

    public static final class Lstrip extends Kernel implements UDF1<String, String> {
        UTF8String apply(UTF8String s) { return PyStrings.lstrip(s); }
    }

    public static final class Rstrip extends Kernel implements UDF1<String, String> {
        UTF8String apply(UTF8String s) { return PyStrings.rstrip(s); }
    }

    public static final class LowerAscii extends Kernel implements UDF1<String, String> {
        UTF8String apply(UTF8String s) { return PyStrings.lowerAscii(s); }
    }

    public static final class UpperAscii extends Kernel implements UDF1<String, String> {
        UTF8String apply(UTF8String s) { return PyStrings.upperAscii(s); }
    }

    public static final class IsAscii implements UDF1<String, Boolean> {
        @Override
        public Boolean call(String s) {
            return s == null ? null : PyStrings.isAscii(UTF8String.fromString(s));
        }
    }

    public static final class RegexLike implements UDF2<String, String, Boolean> {
        @Override
        public Boolean call(String s, String p) {
            if (s == null || p == null) return null;
            return Regex.like(UTF8String.fromString(s), UTF8String.fromString(p));
        }
    }

    public static final class RegexGroup implements UDF3<String, String, Integer, String> {
        @Override
        public String call(String s, String p, Integer k) {
            if (s == null || p == null || k == null) return null;
            return Regex.group(UTF8String.fromString(s), UTF8String.fromString(p), k).toString();
        }
    }
}
