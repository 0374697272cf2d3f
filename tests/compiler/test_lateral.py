"""Chains of added columns built as one ``selectExpr`` with lateral aliases (issue 27,
item 5): the peephole over a plan's steps (``tests/spark/test_lateral_chains.py`` runs
merged and unmerged steps on Spark)."""

from looplift.compiler.backend.lateral import merge_added_columns


def merged(*lines: str) -> list[str]:
    return merge_added_columns(["    " + ln for ln in lines])


def test_added_columns_join_the_select_before_them():
    out = merged(
        "sums = rows.groupBy('k').agg(E('sum(`v`) AS `t_t`'))",
        "agg = sums.selectExpr('`k`', 'coalesce(`t_t`, 0) AS `t`')  # why",
        "by_k = agg.withColumn('half', E('`t` / 2'))",
        "by_k_2 = by_k.withColumns({'a': E('`half` + 1'), 'b': E('`t` - 1')})  # and why",
    )
    assert out == [
        "    sums = rows.groupBy('k').agg(E('sum(`v`) AS `t_t`'))",
        "    by_k_2 = sums.selectExpr('`k`', 'coalesce(`t_t`, 0) AS `t`', '`t` / 2 AS `half`', "
        "'`half` + 1 AS `a`', '`t` - 1 AS `b`')  # why; and why",
    ]


def test_a_chain_over_the_entry_starts_with_its_columns():
    out = merged(
        "rows = ll.entry(df, 'rows', ['int', 'str'], names=['k', 's'])",
        "rows_2 = rows.withColumns({'n': E('count(1) OVER (PARTITION BY `k`)')})",
        "rows_3 = rows_2.withColumn('m', E('`n` * 2'))",
        "out = rows_3.selectExpr('`k`', '`m`')",
    )
    assert out[1] == (
        "    rows_3 = rows.selectExpr('`k`', '`s`', 'count(1) OVER (PARTITION BY `k`) AS `n`', "
        "'`n` * 2 AS `m`')"
    )
    # one added column alone stays a withColumn
    alone = ("rows = ll.entry(df, 'rows', ['int'], names=['k'])", "out = rows.withColumn('m', E('1'))")
    assert merged(*alone) == ["    " + ln for ln in alone]


def test_left_alone():
    entry = "a = ll.entry(df, 'rows', ['int', 'int'], names=['k', 'v'])"
    cases = [
        # a computed name the input also has: a later text would read the input's column
        [entry, "b = a.selectExpr('`k`', '`v` * 10 AS `v`')", "c = b.withColumn('w', E('`v` + 1'))"],
        # a renamed column the input also has
        [entry, "b = a.selectExpr('`k` AS `v`')", "c = b.withColumn('w', E('`v` + 1'))"],
        # a column replaced, not added
        [entry, "b = a.selectExpr('`k`', '`v` + 1 AS `w`')", "c = b.withColumn('w', E('0'))"],
        [entry, "b = a.selectExpr('`k`', '`v` + 1 AS `w`')", "c = b.withColumn('K', E('0'))"],
        [entry, "b = a.withColumn('v', E('0'))", "c = b.withColumn('w', E('`v`'))"],
        # an added name the input has (case-insensitively): it would read the input's
        [entry, "b = a.selectExpr('`k` AS `x`')", "c = b.withColumn('V', E('`x`'))"],
        # a window over a computed column
        [entry, "b = a.selectExpr('`k`', '`v` + 1 AS `w`')",
         "c = b.withColumn('s', E('sum(`w`) OVER (PARTITION BY `k`)'))"],
        # a generator
        [entry, "b = a.selectExpr('`k`', 'explode(array(`v`)) AS `e`')", "c = b.withColumn('x', E('`e`'))"],
        # the frame read again
        [entry, "b = a.selectExpr('`k`', '`v` + 1 AS `w`')", "c = b.withColumn('x', E('1')).union(b)"],
        # the input's columns unknown
        ["b = a.selectExpr('`k`', '`v` + 1 AS `w`')", "c = b.withColumn('x', E('`w`'))"],
        # a text without a name the pass can read
        [entry, "b = a.selectExpr('`k`', '`v` + 1')", "c = b.withColumn('x', E('1'))"],
        # a column that is no SQL text
        [entry, "b = a.selectExpr('`k`')", "c = b.withColumn('x', F.lit(1))"],
    ]  # fmt: skip
    for case in cases:
        assert merged(*case) == ["    " + ln for ln in case], case[1:]


def test_steps_apart_do_not_merge():
    lines = [
        "a = ll.entry(df, 'rows', ['int'], names=['k'])",
        "b = a.selectExpr('`k`', '1 AS `one`')",
        "other = rows.selectExpr('`x`')",
        "c = b.withColumn('two', E('`one` + 1'))",
    ]
    assert merged(*lines) == ["    " + ln for ln in lines]
