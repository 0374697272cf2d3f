// Python's str.strip() as a Spark Java UDF: the 29 characters str.isspace() holds, all in
// the BMP. Not part of looplift: tests/perf/strscalars.py --java-udf compiles it (javac) and
// times it against Spark's trim(s) and the compiled plan, to measure what an expression
// inside the JVM would gain (issue 27: strip is 1.5-1.8x trim(s) as Spark SQL).
import org.apache.spark.sql.api.java.UDF1;

public class PyStrip implements UDF1<String, String> {
    private static boolean ws(int c) {
        return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0x85 || c == 0xa0
            || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029
            || c == 0x202f || c == 0x205f || c == 0x3000;
    }
    @Override
    public String call(String s) {
        if (s == null) return null;
        int a = 0, b = s.length();
        while (a < b && ws(s.charAt(a))) a++;
        while (b > a && ws(s.charAt(b - 1))) b--;
        return (a == 0 && b == s.length()) ? s : s.substring(a, b);
    }
}
