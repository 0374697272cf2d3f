/*
 * The kernels (PyStrings, Regex) as SQL functions: each call is a StaticInvoke expression,
 * so Spark's generated code calls the static method directly (on the UTF8String in place:
 * no conversion to a Java String, no UDF boundary).
 *
 * looplift's runtime registers them in a session it prepares (register); a Spark Connect
 * server or a spark-submit job gets them in every session from Extensions.
 */
package looplift.kernels;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.objects.StaticInvoke;
import org.apache.spark.sql.types.AbstractDataType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

public final class Functions {
    private Functions() {}

    /** SQL name, class, static method, return type, parameter types (SQL type names). */
    static final String[][] KERNELS = {
        {"looplift_strip", "PyStrings", "strip", "string", "string"},
        {"looplift_lstrip", "PyStrings", "lstrip", "string", "string"},
        {"looplift_rstrip", "PyStrings", "rstrip", "string", "string"},
        {"looplift_lower_ascii", "PyStrings", "lowerAscii", "string", "string"},
        {"looplift_upper_ascii", "PyStrings", "upperAscii", "string", "string"},
        {"looplift_is_ascii", "PyStrings", "isAscii", "boolean", "string"},
        {"looplift_regex_like", "Regex", "like", "boolean", "string,string"},
        {"looplift_regex_group", "Regex", "group", "string", "string,string,int"},
    };

    /** "name:Class.method(types)->type" per kernel (the runtime's table is checked against it). */
    public static String[] table() {
        String[] out = new String[KERNELS.length];
        for (int i = 0; i < KERNELS.length; i++) {
            String[] k = KERNELS[i];
            out[i] = k[0] + ":" + k[1] + "." + k[2] + "(" + k[4] + ")->" + k[3];
        }
        return out;
    }

    static DataType type(String name) {
        switch (name) {
            case "string": return DataTypes.StringType;
            case "boolean": return DataTypes.BooleanType;
            case "int": return DataTypes.IntegerType;
            default: throw new IllegalArgumentException("no kernel type " + name);
        }
    }

    static Class<?> owner(String name) {
        switch (name) {
            case "PyStrings": return PyStrings.class;
            case "Regex": return Regex.class;
            default: throw new IllegalArgumentException("no kernel class " + name);
        }
    }

    static Expression call(String[] k, Seq<Expression> args) {
        String[] params = k[4].split(",");
        if (args.size() != params.length) {
            throw new IllegalArgumentException(k[0] + "() takes " + params.length
                + " argument(s), got " + args.size());
        }
        List<AbstractDataType> types = new ArrayList<>();
        for (String p : params) types.add(type(p));
        // inputTypes: Spark casts the arguments to them; propagateNull: null in, null out;
        // returnNullable: lowerAscii returns null off ASCII
        return new StaticInvoke(owner(k[1]), type(k[3]), k[2], args,
            CollectionConverters.asScala(types).toList(), true, true, true, scala.Option.empty());
    }

    static Expression probe(String[] k) {
        List<Expression> args = new ArrayList<>();
        for (String p : k[4].split(",")) {
            args.add(p.equals("int") ? Literal.create(0, DataTypes.IntegerType)
                                     : Literal.create(" Ab ", DataTypes.StringType));
        }
        return call(k, CollectionConverters.asScala(args).toList());
    }

    /**
     * Register every kernel in the session (replacing a function of the same name). Each
     * is built and evaluated once first, so a Spark whose classes differ from the ones
     * this was compiled against fails here (the runtime then takes another form), not in
     * a query.
     */
    public static void register(SparkSession spark) {
        for (String[] k : KERNELS) {
            probe(k).eval(null);
        }
        for (String[] k : KERNELS) {
            spark.sessionState().functionRegistry().createOrReplaceTempFunction(
                k[0], args -> call(k, args), "scala_udf");
        }
    }
}
