-- SELECT * FROM g_funds_fund_report(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_funds_fund_report> AS g_funds_fund_report
