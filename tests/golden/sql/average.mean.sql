-- SELECT g_average_mean(`c0`, `c1`) AS result FROM looplift_golden_input
SELECT ((CASE WHEN (coalesce(sum(1L), 0) = 0L) THEN 0.0D ELSE (CAST(coalesce(sum(((`c1`))), 0) AS DOUBLE) / CAST(coalesce(sum(1L), 0) AS DOUBLE)) END)) AS result FROM looplift_golden_input
