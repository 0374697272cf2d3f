"""Adjacent projections merged (issue 27, item 5): the peephole over a plan's steps."""

from looplift.compiler.backend.projections import merge_projections


def merged(*lines: str) -> list[str]:
    return merge_projections(["    " + ln for ln in lines])


def test_select_then_renaming_select_is_one_select():
    out = merged(
        "# the best row",
        "agg = best.select(F.col('k'), E('<a>').alias('a'), E('<b>').alias('b'))  # why",
        "out = agg.select(F.col('k').alias('key'), F.col('b'), F.col('a').alias('x'))",
    )
    assert out == [
        "    # the best row",
        "    out = best.select(F.col('k').alias('key'), E('<b>').alias('b'), E('<a>').alias('x'))  # why",
    ]


def test_with_column_then_select():
    out = merged(
        "by = agg.withColumn('n', E('<n>'))",
        "out = by.select(F.col('u').alias('user'), F.col('n'))",
    )
    assert out == ["    out = agg.select(F.col('u').alias('user'), E('<n>').alias('n'))"]


def test_chains_merge_to_one_step():
    out = merged(
        "a = b.select(F.col('k'), E('<x>').alias('x'))",
        "c = a.select(F.col('x').alias('y'), F.col('k'))",
        "out = c.select(F.col('k'), F.col('y').alias('z'))",
    )
    assert out == ["    out = b.select(F.col('k'), E('<x>').alias('z'))"]


def test_left_alone():
    cases = [
        # an expression dropped (an aggregate or a generator changes the number of rows)
        ("a = b.select(F.col('k'), E('explode(<v>)').alias('v'))", "out = a.select(F.col('k'))"),
        # an expression read twice would be computed twice
        ("a = b.select(E('<x>').alias('x'))", "out = a.select(F.col('x'), F.col('x').alias('y'))"),
        # the second step computes: its SQL reads the first's names
        ("a = b.select(E('<x>').alias('x'))", "out = a.select(E('`x` + 1').alias('y'))"),
        # a column without a name the pass can read
        ("a = b.select(F.inline(E('<rows>')))", "out = a.select(F.col('o0').alias('k'))"),
        # the first step's frame is used again
        ("a = b.select(F.col('k'))", "out = a.select(F.col('k')).union(a)"),
        # a name differing only in case (Spark resolves it case-insensitively)
        ("a = b.withColumn('N', E('<n>'))", "out = a.select(F.col('n'))"),
    ]
    for first, second in cases:
        assert merged(first, second) == ["    " + first, "    " + second], first
    # the plan returns `out`: a step reading it is not merged into it
    assert merged("out = b.select(F.col('k'))", "c = out.select(F.col('k'))")[0].startswith(
        "    out ="
    )


def test_select_of_sql_texts():
    from looplift.compiler.backend.projections import aggregate_texts, select_texts

    out = select_texts(
        ["    out = best.select(F.col('k'), E('<a>').alias('a'), F.col('x').alias('y'), E('<b>'))"]
    )
    assert out == ["    out = best.selectExpr('`k`', '<a> AS `a`', '`x` AS `y`', '<b>')"]
    # a column that is neither: the select stays
    kept = [
        "    out = a.select(F.inline(E('<rows>')))",
        "    out = a.select(F.col('s._1').alias('p'))",
    ]
    assert select_texts(kept) == kept
    out = aggregate_texts(
        ["    best = rows.groupBy('k').agg(E('min(`v`)').alias('m'), F.sum('w').alias('s'))"]
    )
    assert out == ["    best = rows.groupBy('k').agg(E('min(`v`) AS `m`'), F.sum('w').alias('s'))"]
