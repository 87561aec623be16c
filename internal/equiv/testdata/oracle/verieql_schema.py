"""VeriEQL's schema objects as CREATE TABLE statements.

VeriEQL's benchmarks (github.com/VeriEQL/VeriEQL, benchmarks/*/*.jsonlines)
give each pair a "schema" ({table: {column: type}}) and a "constraint" list
({"primary": [refs]}, {"foreign": [ref, ref]}, {"not_null": ref}; a ref is
{"value": "TABLE__COLUMN"}). calcite_convert.py and literature_convert.py
both turn them into DDL with create_tables; each says how a column is
spelled. Only the Python standard library is used.
"""


def col(ref):
    """'EMP__DEPTNO' -> ('EMP', 'DEPTNO')."""
    table, _, column = ref["value"].partition("__")
    return table, column


def create_tables(schema, constraints, column_line, columns=None):
    """CREATE TABLE statements of schema, referenced tables first (in
    schema order otherwise), one string ending in a newline.

    column_line(table, column, type, not_null) returns a column's
    declaration ("DEPTNO INTEGER NOT NULL"); columns(table, names) the
    order to declare them in (schema order by default). A primary key and
    the foreign keys follow the columns as table constraints; an unknown
    constraint raises ValueError."""
    notnull, pk, fks = set(), {}, {}
    for c in constraints or []:
        if "not_null" in c:
            notnull.add(col(c["not_null"]))
        elif "primary" in c:
            cols = [col(r) for r in c["primary"]]
            pk.setdefault(cols[0][0], []).extend(x[1] for x in cols)
        elif "foreign" in c:
            (t, c1), (rt, rc) = col(c["foreign"][0]), col(c["foreign"][1])
            fks.setdefault(t, []).append((c1, rt, rc))
        else:
            raise ValueError("unknown constraint %r" % c)
    order, seen = [], set()

    def visit(t):
        if t in seen:
            return
        seen.add(t)
        for _, rt, _ in fks.get(t, []):
            visit(rt)
        order.append(t)
    for t in schema:
        visit(t)
    out = []
    for t in order:
        names = list(schema[t])
        if columns is not None:
            names = columns(t, names)
        lines = ["  " + column_line(t, c, schema[t][c], (t, c) in notnull)
                 for c in names]
        if t in pk:
            lines.append("  PRIMARY KEY (%s)" % ", ".join(pk[t]))
        for c, rt, rc in fks.get(t, []):
            lines.append("  FOREIGN KEY (%s) REFERENCES %s (%s)" % (c, rt, rc))
        out.append("CREATE TABLE %s (\n%s\n);" % (t, ",\n".join(lines)))
    return "\n".join(out) + "\n"
