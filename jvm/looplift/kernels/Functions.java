/*
 * The kernels of PyStrings as SQL functions: each call is a StaticInvoke expression, so
 * Spark's generated code calls the static method on the UTF8String in place (no
 * conversion to a Java String, no UDF boundary).
 *
 * looplift's runtime registers them in a session it prepares (register); a Spark Connect
 * server or a spark-submit job gets them in every session from Extensions.
 */
package looplift.kernels;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.objects.StaticInvoke;
import org.apache.spark.sql.types.AbstractDataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StringType$;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

public final class Functions {
    private Functions() {}

    /** SQL name, PyStrings method; each takes one string and returns a string. */
    static final String[][] KERNELS = {
        {"looplift_strip", "strip"},
        {"looplift_lstrip", "lstrip"},
        {"looplift_rstrip", "rstrip"},
        {"looplift_lower_ascii", "lowerAscii"},
        {"looplift_upper_ascii", "upperAscii"},
    };

    /** "name:method" per kernel (the runtime's table is checked against it). */
    public static String[] table() {
        String[] out = new String[KERNELS.length];
        for (int i = 0; i < KERNELS.length; i++) out[i] = KERNELS[i][0] + ":" + KERNELS[i][1];
        return out;
    }

    static Expression call(String name, String method, Seq<Expression> args) {
        if (args.size() != 1) {
            throw new IllegalArgumentException(name + "() takes 1 argument, got " + args.size());
        }
        Seq<AbstractDataType> types = CollectionConverters.asScala(
            java.util.List.<AbstractDataType>of(StringType$.MODULE$)).toList();
        // propagateNull: null in, null out; returnNullable: lowerAscii returns null off ASCII
        return new StaticInvoke(PyStrings.class, DataTypes.StringType, method, args, types,
            true, true, true, scala.Option.empty());
    }

    /**
     * Register every kernel in the session (replacing a function of the same name). Each
     * is built and evaluated once first, so a Spark whose classes differ from the ones
     * this was compiled against fails here (the runtime then takes another form), not in
     * a query.
     */
    public static void register(SparkSession spark) {
        Seq<Expression> probe = CollectionConverters.asScala(
            java.util.List.<Expression>of(Literal.create(" Ab ", DataTypes.StringType))).toList();
        for (String[] k : KERNELS) {
            call(k[0], k[1], probe).eval(null);
        }
        for (String[] k : KERNELS) {
            String name = k[0], method = k[1];
            spark.sessionState().functionRegistry().createOrReplaceTempFunction(
                name, args -> call(name, method, args), "scala_udf");
        }
    }
}
