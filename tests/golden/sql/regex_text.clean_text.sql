-- SELECT g_regex_text_clean_text(c0) AS result FROM looplift_golden_input
SELECT `looplift_clean_text_13d14e0013`((c0)) AS result FROM looplift_golden_input
