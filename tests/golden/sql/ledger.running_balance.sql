-- SELECT * FROM g_ledger_running_balance(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_ledger_running_balance> AS g_ledger_running_balance
