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
            ext.injectFunction(new Tuple3<>(new FunctionIdentifier(k[0]),
                new ExpressionInfo(Functions.owner(k[1]).getName(), k[0]),
                args -> Functions.call(k, args)));
        }
        return BoxedUnit.UNIT;
    }
}
