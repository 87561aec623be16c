#!/usr/bin/env python3
"""Convert VeriEQL's literature benchmark to sqljudge equiv's pairs.jsonl.

Reads the two files of the VeriEQL repository (github.com/VeriEQL/VeriEQL):
  benchmarks/literature/literature.jsonlines   64 pairs from the papers
                                               (schema + constraints)
  experiments/2023_03_27/literature.out        VeriEQL's own result per pair,
                                               with its counterexample
and writes, into --dst:
  pairs.jsonl     {"id", "q1", "q2", "schema", "note"}
  verieql.jsonl   {"id", "name", "state", "refuted", "bound",
                   "counterexample", "reproduces_postgres", "reproduces_sqlite",
                   "err"}

reproduces_postgres (with --postgres, a psql connection string) and
reproduces_sqlite say whether VeriEQL's counterexample, run as it is written
(its CREATE TABLE and INSERT statements, then both queries), gives the two
queries different results (bags of rows; in order when a query orders its
rows): on PostgreSQL through psql, in a scratch database made and dropped
here, and on SQLite through Python's sqlite3.

  python3 literature_convert.py --pairs literature.jsonlines \
      --results literature.out --dst internal/equiv/testdata/literature \
      [--postgres postgres://user:pw@host:port/postgres]
Only the Python standard library (and psql for --postgres) is used.
"""
import argparse
import collections
import json
import re
import sqlite3
import subprocess

from verieql_schema import create_tables

TYPES = {"INT": "INTEGER", "VARCHAR": "VARCHAR(255)"}


def ddl(schema, constraints):
    """CREATE TABLE statements, referenced tables first
    (verieql_schema.create_tables)."""
    # A column of no type (fkPennTR's TEAMS.TMEMBER) references an INT.
    def column_line(_t, c, ty, not_null):
        return "%s %s%s" % (c, TYPES[(ty or "INT").upper()], " NOT NULL" if not_null else "")
    return create_tables(schema, constraints, column_line)


def statements(script):
    """The statements of a counterexample script (no ';' inside strings)."""
    return [s.strip() for s in re.split(r";\s*(?:\n|$)", script) if s.strip()]


def ordered(q):
    depth = 0
    for m in re.finditer(r"'(?:[^']|'')*'|\(|\)|\bORDER\s+BY\b", q, re.I):
        t = m.group(0)
        if t == "(":
            depth += 1
        elif t == ")":
            depth -= 1
        elif depth == 0 and t.upper().startswith("ORDER"):
            return True
    return False


def differ(a, b, keep):
    if keep:
        return a != b
    return collections.Counter(a) != collections.Counter(b)


def on_sqlite(script, q1, q2):
    con = sqlite3.connect(":memory:")
    try:
        stmts = statements(script)
        for s in stmts[:-2]:
            con.execute(s)
        r1 = [tuple(r) for r in con.execute(q1).fetchall()]
        r2 = [tuple(r) for r in con.execute(q2).fetchall()]
        return differ(r1, r2, ordered(q1) or ordered(q2))
    except sqlite3.Error:
        return None
    finally:
        con.close()


def psql(dsn, sql, db=None):
    if db:
        dsn = re.sub(r"/[^/?]*(\?|$)", "/" + db + r"\1", dsn, count=1)
    p = subprocess.run(["psql", dsn, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql],
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip())
    return p.stdout.splitlines()


def on_postgres(dsn, db, script, q1, q2):
    stmts = statements(script)
    try:
        psql(dsn, "DROP SCHEMA IF EXISTS cx CASCADE; CREATE SCHEMA cx", db)
        setup = "SET search_path = cx; " + "; ".join(stmts[:-2]) + ";"
        r1 = psql(dsn, setup + " " + q1, db)
        r2 = psql(dsn, "SET search_path = cx; " + q2, db)
        return differ(r1, r2, ordered(q1) or ordered(q2))
    except (RuntimeError, subprocess.TimeoutExpired):
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--dst", required=True)
    ap.add_argument("--postgres", help="a psql connection string of a role that may create databases")
    args = ap.parse_args()
    bench = [json.loads(l) for l in open(args.pairs) if l.strip()]
    results = {}
    for l in open(args.results):
        if l.strip():
            r = json.loads(l)
            results[r["index"]] = r
    scratch = "sqljudge_literature_convert"
    if args.postgres:
        psql(args.postgres, "DROP DATABASE IF EXISTS %s" % scratch)
        psql(args.postgres, "CREATE DATABASE %s" % scratch)
    pairs, verdicts = [], []
    try:
        for b in bench:
            i = b["index"]
            q1, q2 = b["pair"]
            pid = "literature-%d" % i
            pairs.append({"id": pid, "q1": q1, "q2": q2, "schema": ddl(b["schema"], b["constraint"]),
                          "note": "VeriEQL literature pair %d (%s, %s)" % (i, b["name"], b["benchmark"])})
            r = results.get(i, {})
            states = r.get("states") or []
            state = states[-1] if states else None
            cx = r.get("counterexample")
            v = {"id": pid, "name": b["name"], "state": state, "refuted": state == "NEQ",
                 "bound": sum(1 for s in states if s == "EQU"), "counterexample": cx,
                 "reproduces_postgres": None, "reproduces_sqlite": None, "err": r.get("err")}
            if cx:
                v["reproduces_sqlite"] = on_sqlite(cx, q1, q2)
                if args.postgres:
                    v["reproduces_postgres"] = on_postgres(args.postgres, scratch, cx, q1, q2)
            verdicts.append(v)
    finally:
        if args.postgres:
            psql(args.postgres, "DROP DATABASE IF EXISTS %s" % scratch)
    with open(args.dst + "/pairs.jsonl", "w") as f:
        for p in pairs:
            f.write(json.dumps(p) + "\n")
    with open(args.dst + "/verieql.jsonl", "w") as f:
        for v in verdicts:
            f.write(json.dumps(v) + "\n")
    c = collections.Counter(v["state"] for v in verdicts)
    print("pairs %d, VeriEQL states %s" % (len(pairs), dict(c)))
    print("refuted %d; counterexample reproduces on PostgreSQL %d, on SQLite %d" % (
        sum(v["refuted"] for v in verdicts), sum(bool(v["reproduces_postgres"]) for v in verdicts),
        sum(bool(v["reproduces_sqlite"]) for v in verdicts)))


if __name__ == "__main__":
    main()
