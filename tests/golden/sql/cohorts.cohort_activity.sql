-- SELECT * FROM g_cohorts_cohort_activity(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_cohorts_cohort_activity> AS g_cohorts_cohort_activity
