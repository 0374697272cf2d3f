/*
 * spark.sql.extensions=looplift.kernels.Extensions: the kernels in every session of a Spark
 * Connect server or a spark-submit job (with the jar on its classpath: --jars).
 */
package looplift.kernels;

import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.expressions.ExpressionInfo;
import scala.Tuple3;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

public final class Extensions extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {
    @Override
    public BoxedUnit apply(SparkSessionExtensions ext) {
        for (String[] k : Functions.KERNELS) {
            String name = k[0], method = k[1];
            ext.injectFunction(new Tuple3<>(new FunctionIdentifier(name),
                new ExpressionInfo(PyStrings.class.getName(), name),
                args -> Functions.call(name, method, args)));
        }
        return BoxedUnit.UNIT;
    }
}
