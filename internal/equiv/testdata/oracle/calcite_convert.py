#!/usr/bin/env python3
"""Convert VeriEQL's Calcite benchmark to sqljudge equiv's pairs.jsonl.

Reads the two files of the VeriEQL repository (github.com/VeriEQL/VeriEQL):
  benchmarks/calcite/calcite2.jsonlines   397 pairs, schema + constraints
  experiments/2023_03_27/calcite.out      VeriEQL's own result per pair
and writes, into --dst:
  pairs.jsonl     {"id", "q1", "q2", "schema"[, "note"]}  PostgreSQL DDL and queries
  verieql.jsonl   {"id", "state", "refuted", "counterexample_rows", ...}

Run from the repository root (see internal/equiv/testdata/calcite/README.md):
  python3 internal/equiv/testdata/oracle/calcite_convert.py \
      --pairs calcite2.jsonlines --results calcite.out \
      --dst internal/equiv/testdata/calcite
Only the Python standard library is used; output is deterministic.
"""
import argparse
import json
import re
import sys

from verieql_schema import create_tables

# VeriEQL's column types (benchmarks/calcite/calcite2.jsonlines "schema") in
# PostgreSQL spelling. VeriEQL encodes BOOLEAN as an integer in its
# counterexamples; PostgreSQL keeps BOOLEAN, as Calcite's own schema does.
TYPES = {"INT": "INTEGER", "VARCHAR": "VARCHAR", "DATE": "DATE",
         "BOOLEAN": "BOOLEAN"}

# STATE in VeriEQL's constants.py.
REFUTED = "NEQ"
UNSUPPORTED = {"NSE", "NIE", "SYN", "UNK", "OTE", "OOM"}


# Calcite's test catalog (MockCatalogReaderSimple) types the columns more
# precisely than VeriEQL's schema object: lengths of the strings and
# HIREDATE a TIMESTAMP(0), as the rewritten queries' casts spell out
# (CAST(ENAME AS VARCHAR(20)), CAST(HIREDATE AS TIMESTAMP(0)), pairs 44,
# 257); those casts are then no-ops, as in Calcite.
CALCITE_TYPES = {"ENAME": "VARCHAR(20)", "JOB": "VARCHAR(10)",
                 "NAME": "VARCHAR(10)", "HIREDATE": "TIMESTAMP(0)"}


# A column list of EMP in VeriEQL's order (DEPTNO second), possibly
# qualified: the VeriEQL authors re-spelled some queries in that order.
Q = r"(?:[\w$]+\.)?"
VERIEQL_ORDER = re.compile(Q + "EMPNO, " + Q + "DEPTNO, " + Q + "ENAME")


def ddl(schema, constraints, calcite_order=True):
    """CREATE TABLE statements, referenced tables first
    (verieql_schema.create_tables); EMP's columns in Calcite's order unless
    calcite_order is false (VeriEQL's order)."""
    def columns(_t, cols):
        if calcite_order and all(c in CALCITE_ORDER for c in cols):
            cols.sort(key=CALCITE_ORDER.index)
        return cols

    def column_line(_t, c, ty, not_null):
        ty = CALCITE_TYPES.get(c, TYPES[ty.upper()])
        if COLUMN_TYPES.setdefault(c, ty) != ty:
            raise ValueError("column %s has two types" % c)
        return "%s %s%s" % (c, ty, " NOT NULL" if not_null else "")
    return create_tables(schema, constraints, column_line, columns)


# Column order of Calcite's test catalog (MockCatalogReader: EMP is EMPNO,
# ENAME, JOB, MGR, HIREDATE, SAL, COMM, DEPTNO, SLACKER), the order the
# rewritten queries (q2) spell out when they expand q1's SELECT *. VeriEQL's
# schema object lists DEPTNO second; its column names and types are kept.
CALCITE_ORDER = ["EMPNO", "ENAME", "JOB", "MGR", "HIREDATE", "SAL", "COMM",
                 "DEPTNO", "SLACKER", "BIRTHDATE"]

# Type of each column name in the schema (one type per name across tables),
# filled by ddl(); used to type the NULLs of VALUES rows.
COLUMN_TYPES = {}

TOKEN = re.compile(r"'(?:[^']|'')*'|\"[^\"]*\"|[A-Za-z_$][\w$]*|\s+|.", re.S)


def quote_dollar(q):
    """Quote Calcite's generated names ($f2, $cor0, $0): not identifiers in
    PostgreSQL unquoted; spelled the same at every use, so quoting keeps them."""
    out = []
    for m in TOKEN.finditer(q):
        tok = m.group(0)
        if tok.startswith("$"):
            tok = '"%s"' % tok
        out.append(tok)
    return "".join(out)


def close_paren(q, i):
    """Index of the parenthesis closing the one at q[i] (strings skipped)."""
    depth = 0
    for m in TOKEN.finditer(q, i):
        t = m.group(0)
        if t == "(":
            depth += 1
        elif t == ")":
            depth -= 1
            if depth == 0:
                return m.start()
    raise ValueError("unbalanced parentheses in %r" % q)


def split_args(body):
    """Top-level comma split of a function's argument text."""
    args, depth, cur = [], 0, []
    for m in TOKEN.finditer(body):
        t = m.group(0)
        depth += t == "("
        depth -= t == ")"
        if t == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
        else:
            cur.append(t)
    args.append("".join(cur).strip())
    return args


def rewrite_calls(q, name, fn):
    """Replace every call NAME(args) by fn(args) (innermost calls untouched)."""
    pat = re.compile(r"\b%s\s*\(" % name, re.I)
    pos = 0
    while True:
        m = pat.search(q, pos)
        if not m:
            return q
        open_ = m.end() - 1
        close = close_paren(q, open_)
        rep = fn(q[open_ + 1:close], q[close + 1:])
        if rep is None:
            pos = m.end()
            continue
        q = q[:m.start()] + rep + q[close + 1:]
        pos = m.start() + len(rep)


def count_multi(body, _rest):
    """COUNT([DISTINCT] a, b, ...): Calcite counts rows (distinct tuples) with
    no NULL among a, b, ...; PostgreSQL's COUNT takes one argument."""
    distinct = re.match(r"\s*DISTINCT\s+", body, re.I)
    args = split_args(body[distinct.end():] if distinct else body)
    if len(args) < 2:
        return None
    cond = " AND ".join("%s IS NOT NULL" % a for a in args)
    val = "ROW(%s)" % ", ".join(args) if distinct else "1"
    return "COUNT(%sCASE WHEN %s THEN %s END)" % (
        "DISTINCT " if distinct else "", cond, val)


def single_value(body, _rest):
    """Calcite's SINGLE_VALUE(x): x of the only row, an error on more than one
    row (as PostgreSQL's scalar subquery). The error is a cast that fails at
    run time only when the group has two rows or more."""
    return ("CASE WHEN COUNT(*) > 1 THEN CAST('SINGLE_VALUE: ' || "
            "CAST(COUNT(*) AS VARCHAR) || ' rows' AS INTEGER) "
            "ELSE MIN(%s) END" % body)


def typed_null_values(q):
    """(VALUES (NULL, ...)) AS t (EMPNO, ...): Calcite types the NULLs by the
    column they stand for; PostgreSQL would make them text."""
    pat = re.compile(r"\(VALUES \((NULL(?:, NULL)*)\)\) AS (\w+) \(([^()]*)\)")

    def fix(m):
        cols = [c.strip() for c in m.group(3).split(",")]
        vals = ["CAST(NULL AS %s)" % COLUMN_TYPES[c] if c in COLUMN_TYPES
                else "NULL" for c in cols]
        return "(VALUES (%s)) AS %s (%s)" % (", ".join(vals), m.group(2),
                                              m.group(3))
    return pat.sub(fix, q)


def lateral_fields(q):
    """Calcite writes a field of a LATERAL subquery as $corN.$fK, qualified by
    the correlated table's alias; PostgreSQL needs the subquery's alias."""
    m = re.search(r"\bLATERAL\s*\(", q)
    if not m:
        return q, False
    close = close_paren(q, m.end() - 1)
    alias = re.match(r"\s*AS\s+(\w+)", q[close + 1:])
    names = set(re.findall(r"\bAS (\$\w+)", q[m.end():close]))
    new = re.sub(r"\$cor\d+\.(\$\w+)",
                 lambda x: "%s.%s" % (alias.group(1), x.group(1))
                 if x.group(1) in names else x.group(0), q)
    return new, new != q


INT_AGG = re.compile(r"\b(AVG|STDDEV_POP|STDDEV_SAMP|VAR_POP|VAR_SAMP)\s*\(", re.I)


def suffix_end(q, i):
    """End of the FILTER (...) and OVER (...) clauses that follow q[:i]."""
    while True:
        m = re.match(r"\s*(FILTER|OVER)\s*\(", q[i:], re.I)
        if not m:
            return i
        i = close_paren(q, i + m.end() - 1) + 1


def integer_aggregates(q):
    """Calcite's AVG, STDDEV_* and VAR_* of an INTEGER are INTEGER, the exact
    value truncated toward zero (its AggregateReduceFunctionsRule writes AVG
    as SUM / COUNT, integer division); PostgreSQL's are numeric. Every such
    argument here is an INTEGER column, which the rewrite checks."""
    pos = 0
    while True:
        m = INT_AGG.search(q, pos)
        if not m:
            return q
        close = close_paren(q, m.end() - 1)
        arg = re.sub(r"^DISTINCT\s+", "", q[m.end():close].strip(), flags=re.I)
        name = arg.split(".")[-1]
        if not (COLUMN_TYPES.get(name) == "INTEGER" or name in INT_ALIASES):
            raise ValueError("%s of %r: not an INTEGER column" % (m.group(1), arg))
        end = suffix_end(q, close + 1)
        rep = "CAST(TRUNC(%s) AS INTEGER)" % q[m.start():end]
        q = q[:m.start()] + rep + q[end:]
        pos = m.start() + len(rep)


# Derived columns that are INTEGER columns renamed (q2 of pair 295).
INT_ALIASES = {"DEPTNO0"}


def truncating_casts(q):
    """CAST(POWER(...) AS INTEGER): Calcite truncates a DOUBLE to INTEGER,
    PostgreSQL rounds; TRUNC keeps Calcite's value."""
    pos = 0
    pat = re.compile(r"\bCAST\s*\(\s*(?=POWER\s*\()", re.I)
    while True:
        m = pat.search(q, pos)
        if not m:
            return q
        close = close_paren(q, m.end())
        q = q[:m.end()] + "TRUNC(" + q[m.end():close + 1] + ")" + q[close + 1:]
        pos = m.end()


# Pairs whose Calcite SQL is not valid SQL (or not valid PostgreSQL) in a way
# no general rule covers: (pair index, query 1 or 2) -> [(old, new)], with why.
FIXES = {
    (9, 2): ([("ORDER BY DEPTNO", "ORDER BY DEPT.DEPTNO")],
             "q2: ORDER BY DEPTNO is ambiguous in PostgreSQL (the CAST "
             "column is named deptno too); qualified as DEPT.DEPTNO"),
    (133, 1): ([("NAME IN (SELECT MGR", "CAST(NAME AS INTEGER) IN (SELECT MGR")],
               "q1: Calcite coerces VARCHAR NAME to the INTEGER of MGR; "
               "the cast is written out"),
    (133, 2): ([("ON DEPT0.NAME = t5.MGR", "ON CAST(DEPT0.NAME AS INTEGER) = t5.MGR")],
               "q2: Calcite coerces VARCHAR NAME to the INTEGER of MGR; "
               "the cast is written out"),
    (182, 2): ([("ON DEPT1.NAME = t2.R", "ON CAST(DEPT1.NAME AS BIGINT) = t2.R")],
               "q2: Calcite coerces VARCHAR NAME to BIGINT as q1 spells it; "
               "the cast is written out"),
    (195, 2): ([("ON EMP1.DEPTNO = DEPT0.DEPTNO) AS $cor0,",
                 "ON EMP1.DEPTNO = DEPT0.DEPTNO) AS $cor0 (EMPNO, ENAME, JOB, "
                 "MGR, HIREDATE, SAL, COMM, DEPTNO, SLACKER, DEPTNO0, NAME),"),
                ("(SELECT SAL FROM EMP WHERE", "(SELECT SAL AS SAL0 FROM EMP WHERE"),
                ("$cor0.SAL = $cor0.SAL0", "$cor0.SAL = t5.SAL0")],
               "q2: Calcite's join alias $cor0 has duplicate DEPTNO and its "
               "SAL0 is the LATERAL subquery's SAL; both named explicitly"),
    (209, 2): ([(") AS t5", ") AS t5 (%s)" % ", ".join(
                   CALCITE_ORDER[:9] + [c + "0" for c in CALCITE_ORDER[:9]]))],
               "q2: the UNION of two EMP x EMP products has duplicate column "
               "names, which Calcite suffixes with 0; named explicitly"),
    (343, 2): ([(") AS t5", ") AS t5 (%s)" % ", ".join(
                   CALCITE_ORDER[:9] + [c + "0" for c in CALCITE_ORDER[:9]]))],
               "q2: the UNION of two EMP x EMP products has duplicate column "
               "names, which Calcite suffixes with 0; named explicitly"),
    (81, 2): ([],
              "not kept exactly: q2's literal 'TABLE ' is a CHAR in Calcite, "
              "equal to q1's 'TABLE' (trailing spaces ignored); in "
              "PostgreSQL it is text and differs"),
    (23, 1): ([],
              "not kept exactly: q1's EMP.JOB in NOT EXISTS (SELECT * FROM EMP "
              "WHERE JOB = EMP.JOB ...) binds to the subquery's own EMP in "
              "SQL; Calcite's plan (q2) correlates it with the outer EMP (the "
              "alias of Calcite's test query was lost in the benchmark); "
              "kept as written"),
    (195, 1): ([],
               "not kept exactly: q1's EMP.DEPTNO in (SELECT SAL FROM EMP WHERE "
               "DEPTNO > EMP.DEPTNO) binds to the subquery's own EMP in SQL; "
               "Calcite's plan (q2) correlates it with the outer EMP (the "
               "alias of Calcite's test query was lost in the benchmark); "
               "kept as written"),
    (393, 2): ([],
               "not kept exactly: q2's CAST(DATE '2020-12-11' AS DATE) AS "
               "HIREDATE assumes HIREDATE is a DATE (VeriEQL's type); the "
               "schema declares Calcite's TIMESTAMP(0), which other pairs' "
               "casts need, so the two results differ in type"),
    (261, 1): ([],
               "not kept exactly: q1's EMP.EMPNO inside the subquery over EMP "
               "binds to the subquery's own EMP in SQL; Calcite's plan (q2) "
               "correlates it with the outer EMP (the alias of Calcite's test "
               "query was lost in the benchmark); kept as written"),
    (261, 2): ([("$cor0.SAL = $cor0.EXPR$0", "$cor0.SAL = t6.EXPR$0")],
               "q2: EXPR$0 is the LATERAL subquery's column, qualified by "
               "Calcite with the outer alias; qualified with t6"),
}

# WHERE * = tN.DEPTNO: Calcite printed the correlated DEPT.DEPTNO as *.
STAR_EQ = re.compile(r"WHERE \* = (t\d+)\.DEPTNO")

# FROM T WHERE EXISTS (SELECT 1 FROM (SELECT DEPTNO FROM U) AS tN WHERE
# DEPTNO = tN.DEPTNO): the unqualified DEPTNO is T's (correlated) in
# Calcite's plan, but binds to tN's own DEPTNO in SQL.
EXISTS_EQ = re.compile(r"FROM (\w+) WHERE EXISTS \(SELECT 1 FROM \(SELECT "
                       r"DEPTNO FROM \w+\) AS (t\d+) WHERE DEPTNO = \2\.DEPTNO\)")


def translate(index, k, q):
    """Calcite spelling of query k (1 or 2) of pair index -> PostgreSQL.
    Returns (sql, [notes]); a note says where the text was not kept as is
    beyond spelling."""
    notes = []
    fix = FIXES.get((index, k))
    if fix:
        for old, new in fix[0]:
            if old not in q:
                raise ValueError("pair %d q%d: fix %r does not apply" % (index, k, old))
            q = q.replace(old, new)
        notes.append(fix[1])
    if STAR_EQ.search(q):
        q = STAR_EQ.sub(r"WHERE DEPT.DEPTNO = \1.DEPTNO", q)
        notes.append("q%d: Calcite printed the correlated DEPT.DEPTNO as "
                     "'*' (WHERE * = t.DEPTNO); written as DEPT.DEPTNO" % k)
    if EXISTS_EQ.search(q):
        q = EXISTS_EQ.sub(lambda m: m.group(0).replace(
            "WHERE DEPTNO = ", "WHERE %s.DEPTNO = " % m.group(1)), q)
        notes.append("q%d: the EXISTS subquery's unqualified DEPTNO is the "
                     "outer table's in Calcite's plan but its own in SQL; "
                     "qualified with the outer table" % k)
    q, moved = lateral_fields(q)
    if moved:
        notes.append("q%d: $corN.$fK named a field of the LATERAL subquery "
                     "through the outer alias; qualified with the subquery's "
                     "alias" % k)
    if re.search(r"\bANY_VALUE\s*\(", q, re.I):
        notes.append("q%d: ANY_VALUE (absent from PostgreSQL 15, "
                     "nondeterministic) written as MIN, one value it may "
                     "return" % k)
        q = rewrite_calls(q, "ANY_VALUE", lambda b, _: "MIN(%s)" % b)
    for fn in ("FIRST_VALUE", "LAST_VALUE"):
        agg = re.compile(r"\b%s\s*\((?:[^()]|\([^()]*\))*\)(?!\s*OVER\b)" % fn, re.I)
        if agg.search(q):
            notes.append("q%d: %s used as an aggregate (Calcite; PostgreSQL "
                         "has it only as a window function) written as MIN, "
                         "exact where its argument is a grouping key" % (k, fn))
            q = rewrite_calls(q, fn, lambda b, rest: None if re.match(
                r"\s*OVER\b", rest, re.I) else "MIN(%s)" % b)
    q = re.sub(r"\bMIN\(TRUE\)", "BOOL_AND(TRUE)", q)
    q = rewrite_calls(q, "COUNT", count_multi)
    q = rewrite_calls(q, "SINGLE_VALUE", single_value)
    q = typed_null_values(q)
    if re.search(r"\b(STDDEV_\w+|VAR_\w+)\s*\(", q, re.I):
        notes.append("not kept exactly: q%d's STDDEV_* / VAR_* of an INTEGER "
                     "are Calcite's integer arithmetic (SUM(x * x) - SUM(x) * "
                     "SUM(x) / COUNT(*), integer division, as its rewrite "
                     "spells out); here the exact value truncated, which "
                     "can differ" % k)
    q = integer_aggregates(q)
    q = truncating_casts(q)
    return quote_dollar(q), notes


def verieql_record(r):
    """One line of calcite.out -> VeriEQL's verdict on the pair.

    states holds one state per bound tried (bound 1, 2, ...): EQU (no
    counterexample up to that bound), then the state that stopped it: NEQ
    (refuted, counterexample = its database as SQL), TMO (the 10-minute
    budget ran out), NSE / NIE / SYN (unsupported feature, not implemented,
    parse error). counterexample_rows counts the counterexample's rows in all
    tables (VeriEQL fills every table of the schema up to the bound);
    counterexample_rows_queried those of the tables either query names."""
    states = r["states"]
    final = states[-1]
    rows = queried = None
    if final == REFUTED:
        ce = r["counterexample"]
        tables = re.findall(r"INSERT INTO (\w+)", ce)
        named = {t for t in tables
                 if any(re.search(r"\b%s\b" % t, q) for q in r["pair"])}
        rows = len(tables)
        queried = sum(1 for t in tables if t in named)
    return {"id": "calcite-%d" % r["index"], "state": final,
            "refuted": final == REFUTED, "counterexample_rows": rows,
            "counterexample_rows_queried": queried,
            "bound": sum(1 for x in states if x == "EQU"),
            "err": r["err"] or None}


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--dst", required=True)
    a = ap.parse_args(argv)
    src = [json.loads(l) for l in open(a.pairs, encoding="utf-8")]
    res = [json.loads(l) for l in open(a.results, encoding="utf-8")]
    with open(a.dst + "/pairs.jsonl", "w", encoding="utf-8") as w:
        for s in src:
            veriorder = any(VERIEQL_ORDER.search(q) for q in s["pair"])
            schema = ddl(s["schema"], s["constraint"], not veriorder)
            q1, n1 = translate(s["index"], 1, s["pair"][0])
            q2, n2 = translate(s["index"], 2, s["pair"][1])
            if veriorder:
                n1.insert(0, "schema: EMP's columns in VeriEQL's order "
                          "(DEPTNO second), the order this pair's column "
                          "list spells out for q1's SELECT *")
            rec = {"id": "calcite-%d" % s["index"], "q1": q1, "q2": q2,
                   "schema": schema}
            notes = n1 + n2
            if notes:
                rec["note"] = "; ".join(notes)
            w.write(json.dumps(rec, ensure_ascii=False) + "\n")
    with open(a.dst + "/verieql.jsonl", "w", encoding="utf-8") as w:
        for s, r in zip(src, res):
            if (s["index"], s["pair"]) != (r["index"], r["pair"]):
                raise ValueError("results out of step at index %d" % s["index"])
            w.write(json.dumps(verieql_record(r), ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
