-- SELECT * FROM g_logparse_parse_access(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_logparse_parse_access> AS g_logparse_parse_access
