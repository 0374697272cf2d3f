/*
 * Spark's statistics of a plan's input, read in the JVM in one call: what
 * looplift.groupform.group_statistics reads through Py4J (about 40 calls, 15 ms a plan
 * build), with the same rules.
 */
package looplift.kernels;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.plans.logical.ColumnStat;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Statistics;
import org.apache.spark.sql.execution.QueryExecution;
import scala.Option;
import scala.Tuple2;
import scala.jdk.javaapi.CollectionConverters;
import scala.math.BigInt;

public final class Stats {
    private Stats() {}

    /**
     * "rows keys" of the plan's input for the key columns ("-1" where Spark does not know):
     * the rows of the largest leaf holding a key column's statistics (fewer where Spark
     * knows the whole plan's, a limit), and the product of the keys' distinct counts.
     */
    public static String groupStatistics(QueryExecution qe, List<String> columns) {
        Map<String, Long> ids = new HashMap<>();
        for (Attribute a : CollectionConverters.asJava(qe.analyzed().output())) {
            ids.putIfAbsent(a.name(), a.exprId().id());
        }
        Set<Long> wanted = new HashSet<>();
        for (String c : columns) {
            if (ids.containsKey(c)) wanted.add(ids.get(c));
        }
        LogicalPlan plan = qe.withCachedData();
        long rows = -1;
        Map<Long, Long> distinct = new HashMap<>();
        for (LogicalPlan leaf : CollectionConverters.asJava(plan.collectLeaves())) {
            Statistics stats = leaf.stats();
            boolean here = false;
            scala.collection.Iterator<Tuple2<Attribute, ColumnStat>> it =
                stats.attributeStats().iterator();
            while (it.hasNext()) {
                Tuple2<Attribute, ColumnStat> kv = it.next();
                long id = kv._1().exprId().id();
                Option<BigInt> count = kv._2().distinctCount();
                if (wanted.contains(id) && count.isDefined()) {
                    distinct.put(id, count.get().longValue());
                    here = true;
                }
            }
            if (here && stats.rowCount().isDefined()) {
                rows = Math.max(rows, stats.rowCount().get().longValue());
            }
        }
        Option<BigInt> top = plan.stats().rowCount();
        if (rows >= 0 && top.isDefined()) rows = Math.min(rows, top.get().longValue());
        long keys = -1;
        if (wanted.size() == columns.size() && distinct.keySet().containsAll(wanted)) {
            keys = 1;
            for (long id : wanted) {
                try {
                    keys = Math.multiplyExact(keys, Math.max(1, distinct.get(id)));
                } catch (ArithmeticException e) {
                    keys = Long.MAX_VALUE;
                }
            }
        }
        return rows + " " + keys;
    }
}
