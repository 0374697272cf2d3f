"""Splicing compiled algorithms into Spark SQL queries (the machinery of :func:`looplift.sql`).

- :mod:`.parse` — sqlglot parsing (Spark's dialect, registered names as plain calls),
  call discovery, and :class:`~.parse.Spliced`, the typed placeholder a call becomes;
- :mod:`.checks` — argument checks and :class:`~.checks.LoopliftSQLError` (errors with the
  position of the call in the query);
- :mod:`.splice` — replacing calls by scalar SQL, aggregate expressions and table plans;
- :mod:`.udfs` — the Arrow functions aggregates need (reference fallback, action reducers);
- :mod:`.registration` — :func:`~.registration.register`: the algorithms of a session, and
  their plain ``spark.sql`` forms (SQL functions, UDAFs, UDTFs).
"""
