-- SELECT * FROM g_cohorts_cohort_summary(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_cohorts_cohort_summary> AS g_cohorts_cohort_summary
