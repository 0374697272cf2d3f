/*
 * The kernels as Java UDFs, for a Spark Connect server without looplift's extension: the
 * client uploads the jar (addArtifacts) and registers these by class name
 * (registerJavaFunction). Each converts to and from Java strings, so it costs more than the
 * StaticInvoke form (Functions), but it is exact and, unlike a SQL function, allowed inside
 * the lambdas of higher-order functions.
 */
package looplift.kernels;

import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.unsafe.types.UTF8String;

public final class Udfs {
    private Udfs() {}

    private static String str(UTF8String s) {
        return s == null ? null : s.toString();
    }

    private static UTF8String utf8(String s) {
        return UTF8String.fromString(s);
    }

    public static final class Strip implements UDF1<String, String> {
        @Override
        public String call(String s) {
            return s == null ? null : str(PyStrings.strip(utf8(s)));
        }
    }

    public static final class Lstrip implements UDF1<String, String> {
        @Override
        public String call(String s) {
            return s == null ? null : str(PyStrings.lstrip(utf8(s)));
        }
    }

    public static final class Rstrip implements UDF1<String, String> {
        @Override
        public String call(String s) {
            return s == null ? null : str(PyStrings.rstrip(utf8(s)));
        }
    }

    public static final class LowerAscii implements UDF1<String, String> {
        @Override
        public String call(String s) {
            return s == null ? null : str(PyStrings.lowerAscii(utf8(s)));
        }
    }

    public static final class UpperAscii implements UDF1<String, String> {
        @Override
        public String call(String s) {
            return s == null ? null : str(PyStrings.upperAscii(utf8(s)));
        }
    }
}
