#!/usr/bin/env python3
"""Build the BIRD-style evaluation set of `sqljudge equiv` from BIRD mini-dev.

Reads BIRD mini-dev (bird-bench/mini_dev: llm/data/mini_dev_sqlite.json, the
500 gold queries; llm/data/dev_tables.json, the schemas of its 11 databases;
llm/exp_result/*/predict_mini_dev_*SQLite.json, the predictions of LLMs) and
writes, into --dst:

  schemas/<db_id>.sql   the DDL of each database, in the shape of BIRD's own
                        sqlite_master (lower-case keywords, table constraints
                        that follow each other without a comma)
  pairs.jsonl           kind (a): gold vs a corrupted variant, {"id", "q1",
                        "q2", "schema", "note"}; q1 is the gold (or the gold
                        rewritten without changing its meaning, said in the
                        note), q2 the variant
  labels.jsonl          {"id", "kind", "db_id", "question_id", "database"}:
                        the separating database of each kind-(a) pair, as
                        INSERT statements, on which q1 and q2 differ
  predictions.jsonl     kind (b): gold vs an LLM's prediction (unlabelled),
                        {"id", "q1", "q2", "schema", "note"}

A variant is made by rewriting the gold's text (one rewrite per kind, below).
Its separating database is found here, not by sqljudge: a database of one row
per table occurrence that satisfies every condition the gold states on
literals and joins (XData's idea: Chandra et al., VLDB J. 2015), then small
changes of it (rows duplicated with fresh keys, a value moved across a
literal's boundary, a NULL) until q1 and q2 differ on it, with the rows in
either order. Every label is checked again, by equiv's own definition of a
database of the schema and of a difference, by TestBIRDLabelsSeparate.

Only the Python standard library is used; the same inputs give the same bytes.

  python3 bird_convert.py --minidev DIR --dst internal/equiv/testdata/bird
"""

import argparse
import collections
import itertools
import json
import os
import re
import sqlite3

# ---------------------------------------------------------------- schemas

SQL_TYPES = {"integer": "INTEGER", "text": "TEXT", "real": "REAL", "date": "DATE", "datetime": "DATETIME"}


class Table:
    def __init__(self, name):
        self.name = name
        self.cols = []  # (name, type)
        self.pk = []
        self.fks = []  # (cols, parent, parent_cols)

    def col(self, name):
        for c, t in self.cols:
            if c.lower() == name.lower():
                return c
        return None

    def ctype(self, name):
        for c, t in self.cols:
            if c.lower() == name.lower():
                return t
        return None


SQLITE_KEYWORDS = set("""ABORT ACTION ADD AFTER ALL ALTER ALWAYS ANALYZE AND AS ASC ATTACH AUTOINCREMENT
BEFORE BEGIN BETWEEN BY CASCADE CASE CAST CHECK COLLATE COLUMN COMMIT CONFLICT CONSTRAINT CREATE CROSS
CURRENT CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP DATABASE DEFAULT DEFERRABLE DEFERRED DELETE DESC
DETACH DISTINCT DO DROP EACH ELSE END ESCAPE EXCEPT EXCLUDE EXCLUSIVE EXISTS EXPLAIN FAIL FILTER FIRST
FOLLOWING FOR FOREIGN FROM FULL GENERATED GLOB GROUP GROUPS HAVING IF IGNORE IMMEDIATE IN INDEX INDEXED
INITIALLY INNER INSERT INSTEAD INTERSECT INTO IS ISNULL JOIN KEY LAST LEFT LIKE LIMIT MATCH MATERIALIZED
NATURAL NO NOT NOTHING NOTNULL NULL NULLS OF OFFSET ON OR ORDER OTHERS OUTER OVER PARTITION PLAN PRAGMA
PRECEDING PRIMARY QUERY RAISE RANGE RECURSIVE REFERENCES REGEXP REINDEX RELEASE RENAME REPLACE RESTRICT
RETURNING RIGHT ROLLBACK ROW ROWS SAVEPOINT SELECT SET TABLE TEMP TEMPORARY THEN TIES TO TRANSACTION
TRIGGER UNBOUNDED UNION UNIQUE UPDATE USING VACUUM VALUES VIEW VIRTUAL WHEN WHERE WINDOW WITH WITHOUT""".split())


def quote(n):
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n) and n.upper() not in SQLITE_KEYWORDS:
        return n
    return "`" + n.replace("`", "``") + "`"


def load_schemas(path):
    out = {}
    for d in json.load(open(path)):
        tables = [Table(n) for n in d["table_names_original"]]
        for i, (ti, cn) in enumerate(d["column_names_original"]):
            if ti < 0:
                continue
            tables[ti].cols.append((cn, SQL_TYPES[d["column_types"][i]]))
        cols = d["column_names_original"]
        for pk in d["primary_keys"]:
            ids = pk if isinstance(pk, list) else [pk]
            t = tables[cols[ids[0]][0]]
            t.pk = [cols[i][1] for i in ids]
        fks = collections.OrderedDict()
        for a, b in d["foreign_keys"]:
            child, parent = cols[a], cols[b]
            key = (child[0], parent[0])
            fks.setdefault(key, ([], []))
            fks[key][0].append(child[1])
            fks[key][1].append(parent[1])
        for (ct, pt), (cc, pc) in fks.items():
            # BIRD lists a reference over several columns as one pair per
            # column: it is one when its columns are the parent's key.
            if len(pc) > 1 and sorted(pc) == sorted(tables[pt].pk) and len(set(pc)) == len(pc):
                tables[ct].fks.append((cc, tables[pt].name, pc))
                continue
            for c, p in zip(cc, pc):
                if ([c], tables[pt].name, [p]) not in tables[ct].fks:
                    tables[ct].fks.append(([c], tables[pt].name, [p]))
        out[d["db_id"]] = tables
    return out


def ddl(tables):
    """BIRD's sqlite_master shape: lower-case constraints, a one-column key
    on its column, foreign keys one after the other without commas."""
    out = []
    for t in tables:
        lines = []
        for c, ty in t.cols:
            line = "    %s %s" % (quote(c), ty)
            if t.pk == [c]:
                line += "\n        primary key"
            lines.append(line)
        cons = []
        if len(t.pk) > 1:
            cons.append("primary key (%s)" % ", ".join(quote(c) for c in t.pk))
        for cc, pt, pc in t.fks:
            cons.append("foreign key (%s) references %s (%s)" % (", ".join(quote(c) for c in cc), quote(pt), ", ".join(quote(c) for c in pc)))
        body = ",\n".join(lines)
        if cons:
            body += ",\n    " + "\n    ".join(cons)
        out.append("CREATE TABLE %s\n(\n%s\n);" % (quote(t.name), body))
    return "\n\n".join(out) + "\n"


# ---------------------------------------------------------------- SQL tokens

TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<str>'(?:[^']|'')*')
  | (?P<qid>"(?:[^"]|"")*"|`(?:[^`]|``)*`|\[[^\]]*\])
  | (?P<num>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+)
  | (?P<word>[A-Za-z_][A-Za-z0-9_$]*)
  | (?P<op><=|>=|<>|!=|==|\|\||[-+*/%=<>(),.;])
""", re.X)


class Tok:
    def __init__(self, kind, text, pos):
        self.kind, self.text, self.pos = kind, text, pos

    @property
    def up(self):
        return self.text.upper()

    def __repr__(self):
        return self.text


def tokens(sql):
    out, i = [], 0
    while i < len(sql):
        m = TOKEN.match(sql, i)
        if not m:
            out.append(Tok("op", sql[i], i))
            i += 1
            continue
        if m.lastgroup != "space":
            out.append(Tok(m.lastgroup, m.group(), i))
        i = m.end()
    return out


def unquote(text):
    if text[:1] in "\"`":
        return text[1:-1].replace(text[0] * 2, text[0])
    if text[:1] == "[":
        return text[1:-1]
    return text


def literal(t):
    if t.kind == "num":
        v = float(t.text)
        return int(v) if v == int(v) and "." not in t.text and "e" not in t.text.lower() else v
    if t.kind == "str":
        return t.text[1:-1].replace("''", "'")
    return None


# ---------------------------------------------------------------- analysis

KEYWORDS = set("""SELECT FROM WHERE GROUP BY ORDER HAVING LIMIT OFFSET UNION EXCEPT INTERSECT
ALL DISTINCT AS ON JOIN INNER LEFT RIGHT OUTER CROSS AND OR NOT IN IS NULL LIKE BETWEEN CASE
WHEN THEN ELSE END ASC DESC EXISTS CAST USING GLOB""".split())
CLAUSE_END = {"WHERE", "GROUP", "ORDER", "HAVING", "LIMIT", "UNION", "EXCEPT", "INTERSECT", ")"}


class Scope:
    def __init__(self, start, end):
        self.start, self.end = start, end
        self.aliases = collections.OrderedDict()  # alias lower -> table name


class Analysis:
    """Where the gold's literals and joins constrain columns: classes of
    columns equal by a join, and the literal conditions on each."""

    def __init__(self, sql, tables):
        self.sql, self.toks = sql, tokens(sql)
        self.tables = {t.name.lower(): t for t in tables}
        self.scopes = []
        self.ok = True
        self.parent = {}
        self.conds = collections.defaultdict(list)  # column -> [(op, value)]
        self.find_scopes()
        for s in self.scopes:
            self.read_from(s)
        self.read_conditions()

    # column identity: (scope index, alias, column)
    def find(self, c):
        while self.parent.get(c, c) != c:
            c = self.parent[c]
        return c

    def union(self, a, b):
        a, b = self.find(a), self.find(b)
        if a != b:
            self.parent[b] = a

    def find_scopes(self):
        depth, stack = 0, []
        close = {}
        for i, t in enumerate(self.toks):
            if t.text == "(":
                stack.append(i)
            elif t.text == ")" and stack:
                close[stack.pop()] = i
        opens = []
        for i, t in enumerate(self.toks):
            if t.text == "(":
                opens.append(i)
            elif t.text == ")" and opens:
                opens.pop()
            elif t.up == "SELECT":
                end = close.get(opens[-1], len(self.toks)) if opens else len(self.toks)
                self.scopes.append(Scope(i, end))

    def scope_of(self, i):
        best = None
        for k, s in enumerate(self.scopes):
            if s.start <= i < s.end and (best is None or s.start > self.scopes[best].start):
                best = k
        return best

    def read_from(self, s):
        toks, i = self.toks, s.start
        depth = 0
        while i < s.end:
            t = toks[i]
            if t.text == "(":
                depth += 1
            elif t.text == ")":
                depth -= 1
            elif depth == 0 and t.up == "FROM":
                break
            i += 1
        i += 1
        while i < s.end:
            t = toks[i]
            if t.up in CLAUSE_END and t.up != ")":
                break
            if t.text == "(":
                # a derived table: its columns are not a table's
                self.ok = False
                return
            if t.kind in ("word", "qid") and t.up not in KEYWORDS:
                name = unquote(t.text)
                if name.lower() not in self.tables:
                    self.ok = False
                    return
                alias = name
                j = i + 1
                if j < s.end and toks[j].up == "AS":
                    j += 1
                if j < s.end and toks[j].kind in ("word", "qid") and toks[j].up not in KEYWORDS:
                    alias = unquote(toks[j].text)
                    j += 1
                s.aliases[alias.lower()] = self.tables[name.lower()].name
                i = j
                # skip to the next table: after ',' or JOIN
                while i < s.end and toks[i].up not in ("JOIN", ",") and not (toks[i].up in CLAUSE_END and toks[i].up != ")"):
                    if toks[i].text == "(":
                        d = 1
                        i += 1
                        while i < s.end and d:
                            d += {"(": 1, ")": -1}.get(toks[i].text, 0)
                            i += 1
                        continue
                    i += 1
                if i < s.end and toks[i].up in ("JOIN", ","):
                    i += 1
                continue
            i += 1

    def ref_at(self, i):
        """A column reference starting at token i: (column id, next index)."""
        toks = self.toks
        t = toks[i]
        if t.kind not in ("word", "qid") or t.up in KEYWORDS:
            return None, i
        k = self.scope_of(i)
        if k is None:
            return None, i
        if i + 2 < len(toks) and toks[i + 1].text == "." and toks[i + 2].kind in ("word", "qid"):
            alias, col = unquote(t.text).lower(), unquote(toks[i + 2].text)
            for sk in self.enclosing(k):
                s = self.scopes[sk]
                if alias in s.aliases:
                    c = self.tables[s.aliases[alias].lower()].col(col)
                    return ((sk, alias, c) if c else None), i + 3
            return None, i + 3
        if i + 1 < len(toks) and toks[i + 1].text == "(":
            return None, i
        col = unquote(t.text)
        for sk in self.enclosing(k):
            s = self.scopes[sk]
            for alias, tn in s.aliases.items():
                c = self.tables[tn.lower()].col(col)
                if c:
                    return (sk, alias, c), i + 1
        return None, i + 1

    def enclosing(self, k):
        out = []
        for j, s in enumerate(self.scopes):
            if s.start <= self.scopes[k].start < s.end:
                out.append(j)
        out.sort(key=lambda j: -self.scopes[j].start)
        return out

    def table_of(self, ref):
        sk, alias, col = ref
        return self.tables[self.scopes[sk].aliases[alias].lower()]

    def read_conditions(self):
        toks = self.toks
        n = len(toks)
        i = 0
        while i < n:
            t = toks[i]
            # function-wrapped: STRFTIME('%Y', ref) OP lit; SUBSTR(ref, 1, k) OP lit; CAST(ref AS T) OP lit
            if t.up in ("STRFTIME", "SUBSTR", "CAST", "LOWER", "UPPER", "TRIM") and i + 1 < n and toks[i + 1].text == "(":
                j = i + 2
                fmt = None
                if t.up == "STRFTIME" and j < n and toks[j].kind == "str":
                    fmt = literal(toks[j])
                    j += 2
                ref, k = self.ref_at(j) if j < n else (None, j)
                depth, m = 1, j
                while m < n and depth:
                    m += 1
                    if m < n:
                        depth += {"(": 1, ")": -1}.get(toks[m].text, 0)
                if ref and m + 2 < n and toks[m + 1].text in ("=", ">", "<", ">=", "<=", "!=", "<>"):
                    v = literal(toks[m + 2])
                    if v is not None:
                        self.conds[ref].append((toks[m + 1].text, v, t.up, fmt))
                i += 1
                continue
            ref, j = self.ref_at(i)
            if ref is None:
                i = max(j, i + 1)
                continue
            op = toks[j].up if j < n else ""
            nxt = toks[j + 1] if j + 1 < n else None
            if op in ("=", "==", "!=", "<>", ">", "<", ">=", "<=") and nxt is not None:
                if nxt.text == "-" and j + 2 < n and toks[j + 2].kind == "num":
                    self.conds[ref].append((op, -literal(toks[j + 2]), None, None))
                elif literal(nxt) is not None:
                    self.conds[ref].append((op, literal(nxt), None, None))
                elif op in ("=", "==") and nxt.text == "(" and j + 2 < n and toks[j + 2].up == "SELECT":
                    # x = (SELECT MAX(y) ...): y takes x's value
                    m = j + 3
                    while m < n and toks[m].text in ("(",) or (m < n and toks[m].up in ("MAX", "MIN", "DISTINCT")):
                        m += 1
                    r2, _ = self.ref_at(m) if m < n else (None, m)
                    if r2:
                        self.union(ref, r2)
                else:
                    r2, _ = self.ref_at(j + 1)
                    if r2 and op in ("=", "=="):
                        self.union(ref, r2)
                    elif r2 and op in ("!=", "<>"):
                        pass
            elif op == "*" and nxt is not None and nxt.kind == "num" and j + 3 < n and toks[j + 2].text == "=" and toks[j + 3].kind == "num":
                k = literal(nxt)
                v = literal(toks[j + 3])
                if k and v % k == 0:
                    self.conds[ref].append(("=", v // k, None, None))
            elif op == "LIKE" and nxt is not None and nxt.kind == "str":
                self.conds[ref].append(("LIKE", literal(nxt), None, None))
            elif op == "NOT" and nxt is not None and nxt.up in ("LIKE", "IN", "BETWEEN"):
                self.conds[ref].append(("NOT " + nxt.up, None, None, None))
            elif op == "BETWEEN" and j + 3 < n and literal(toks[j + 1]) is not None:
                self.conds[ref].append((">=", literal(toks[j + 1]), None, None))
            elif op == "IN" and nxt is not None and nxt.text == "(" and j + 2 < n:
                if toks[j + 2].up == "SELECT":
                    m = j + 3
                    if m < n and toks[m].up == "DISTINCT":
                        m += 1
                    r2, _ = self.ref_at(m)
                    if r2:
                        self.union(ref, r2)
                elif literal(toks[j + 2]) is not None:
                    self.conds[ref].append(("=", literal(toks[j + 2]), None, None))
            elif op == "IS" and nxt is not None:
                if nxt.up == "NULL":
                    self.conds[ref].append(("IS NULL", None, None, None))
            i = max(j, i + 1)

    def occurrences(self):
        """Every (scope, alias) with its table."""
        for k, s in enumerate(self.scopes):
            for alias, tn in s.aliases.items():
                yield (k, alias), self.tables[tn.lower()]


# ---------------------------------------------------------------- databases


def default(ty, seed):
    if ty == "INTEGER":
        return 1000 + seed
    if ty == "REAL":
        return 1000.5 + seed
    if ty == "DATE":
        return "2001-%02d-%02d" % (1 + seed % 12, 1 + seed % 27)
    if ty == "DATETIME":
        return "2001-%02d-%02d 10:00:00" % (1 + seed % 12, 1 + seed % 27)
    return "v%d" % seed


def satisfy(conds, ty, seed):
    """A value meeting the literal conditions on a column (the first wins
    where they conflict); None for IS NULL."""
    val = default(ty, seed)
    eq = [c for c in conds if c[0] in ("=", "==") and c[2] is None]
    if any(c[0] == "IS NULL" for c in conds):
        return None
    if eq:
        return coerce(eq[0][1], ty)
    for op, v, fn, fmt in conds:
        if fn == "STRFTIME" and isinstance(v, str):
            y = v
            if fmt == "%Y" and re.fullmatch(r"\d{4}", y):
                yy = int(y) + {">": 1, "<": -1}.get(op, 0)
                if op in ("!=", "<>"):
                    yy += 1
                return "%04d-06-15" % yy + (" 10:00:00" if ty == "DATETIME" else "")
            if fmt == "%Y-%m" and re.fullmatch(r"\d{4}-\d{2}", y):
                return y + "-15"
            if fmt in ("%Y-%m-%d",):
                return y
            return val
        if fn == "SUBSTR" and isinstance(v, str):
            return v + ("-06-15" if ty in ("DATE", "DATETIME") and len(v) == 4 else "")
        if fn in ("LOWER", "UPPER", "TRIM") and isinstance(v, str):
            return v
        if fn == "CAST" and isinstance(v, (int, float)):
            return coerce(bump(v, op), ty)
        if fn is not None:
            continue
        if op == "LIKE":
            s = v.replace("%", "", 1) if v.startswith("%") else v
            s = s.replace("%", "").replace("_", "a")
            return s
        if op in (">", "<", ">=", "<=", "!=", "<>"):
            return coerce(bump(v, op), ty)
        if op == "NOT LIKE":
            return "zz%d" % seed
    return val


def bump(v, op):
    if isinstance(v, (int, float)):
        return v + {">": 1, "<": -1, "!=": 1, "<>": 1}.get(op, 0)
    if isinstance(v, str):
        if op in (">", "!=", "<>"):
            return v + "z"
        if op == "<":
            return v[:-1] if v else v
    return v


def coerce(v, ty):
    if ty in ("INTEGER", "REAL") and isinstance(v, str):
        try:
            return int(v)
        except ValueError:
            try:
                return float(v)
            except ValueError:
                return v
    return v


class Database:
    """Rows per table, each a dict of column -> value, in insertion order."""

    def __init__(self, tables):
        self.tables = tables
        self.rows = collections.OrderedDict((t.name, []) for t in tables)
        self.counter = 0

    def copy(self):
        d = Database(self.tables)
        d.rows = collections.OrderedDict((k, [dict(r) for r in v]) for k, v in self.rows.items())
        d.counter = self.counter
        return d

    def fresh(self, ty):
        self.counter += 1
        return default(ty, 500 + self.counter)

    def table(self, name):
        for t in self.tables:
            if t.name == name:
                return t

    def add(self, t, row):
        key = tuple(row[c] for c in t.pk) if t.pk else None
        for r in self.rows[t.name]:
            if key is not None and tuple(r[c] for c in t.pk) == key:
                return r
        self.rows[t.name].append(row)
        return row

    def close_fks(self):
        """Give every foreign key a parent row (fresh values elsewhere)."""
        for _ in range(4):
            changed = False
            for t in self.tables:
                for r in list(self.rows[t.name]):
                    for cc, pt, pc in t.fks:
                        vals = [r[c] for c in cc]
                        if any(v is None for v in vals):
                            continue
                        p = self.table(pt)
                        if any(all(pr[x] == v for x, v in zip(pc, vals)) for pr in self.rows[pt]):
                            continue
                        row = {c: self.fresh(ty) for c, ty in p.cols}
                        for x, v in zip(pc, vals):
                            row[x] = v
                        self.rows[pt].append(row)
                        changed = True
            if not changed:
                return

    def inserts(self, reverse=False):
        out = []
        for t in self.tables:
            rows = self.rows[t.name]
            for r in (reversed(rows) if reverse else rows):
                out.append("INSERT INTO %s VALUES (%s);" % (quote(t.name), ", ".join(sql_value(r[c]) for c, _ in t.cols)))
        return out

    def size(self):
        return sum(len(v) for v in self.rows.values())


def sql_value(v):
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    return "'" + str(v).replace("'", "''") + "'"


def base_database(a, tables):
    """One row per table occurrence meeting the gold's literal and join
    conditions; rows of occurrences joined on their key are one row."""
    db = Database(tables)
    classes = collections.defaultdict(list)
    for occ, t in a.occurrences():
        for c, ty in t.cols:
            ref = (occ[0], occ[1], c)
            classes[a.find(ref)].append(ref)
    values = {}
    seed = 0
    for root, refs in classes.items():
        conds = []
        ty = None
        for r in refs:
            conds += a.conds.get(r, [])
            ty = ty or a.table_of(r).ctype(r[2])
        seed += 1
        values[root] = satisfy(conds, ty, seed)
    rows = []
    for occ, t in a.occurrences():
        row = {c: values[a.find((occ[0], occ[1], c))] for c, _ in t.cols}
        for c in t.pk:
            if row[c] is None:
                row[c] = db.fresh(t.ctype(c))
        rows.append((t, row))
    for t, row in rows:
        db.add(t, row)
    db.close_fks()
    return db


# ---------------------------------------------------------------- running


class Runner:
    """Runs queries on databases of one schema: one in-memory SQLite
    connection holding the tables, each database's rows inserted in a
    transaction that is rolled back afterwards."""

    def __init__(self, tables, schema_sql):
        self.tables = tables
        self.con = sqlite3.connect(":memory:", isolation_level=None)
        self.con.executescript(schema_sql)

    def run_all(self, db, queries, reverse=False):
        """The results of queries on db (None and the error for a query
        that fails)."""
        out = []
        self.con.execute("BEGIN")
        try:
            for s in db.inserts(reverse):
                self.con.execute(s)
            for q in queries:
                try:
                    out.append((self.con.execute(q).fetchall(), None))
                except sqlite3.Error as e:
                    out.append((None, str(e)))
        except sqlite3.Error as e:
            out = [(None, str(e))] * len(queries)
        finally:
            self.con.execute("ROLLBACK")
        return out

    def run(self, db, q, reverse=False):
        return self.run_all(db, [q], reverse)[0]

    def valid(self, db):
        """A database of equiv's model (docs/equiv.md, "What every database
        means"): each value of its column's family, keys unique and not
        NULL, every non-NULL reference matching a row of its table."""
        for t in self.tables:
            rows = db.rows[t.name]
            for r in rows:
                if not all(family_value(r[c], ty) for c, ty in t.cols):
                    return False
            if t.pk:
                keys = [tuple(r[c] for c in t.pk) for r in rows]
                if len(set(keys)) != len(keys) or any(v is None for k in keys for v in k):
                    return False
            for cc, pt, pc in t.fks:
                for r in rows:
                    vals = [r[c] for c in cc]
                    if any(v is None for v in vals):
                        continue
                    if not any(all(pr[x] == v for x, v in zip(pc, vals)) for pr in db.rows[pt]):
                        return False
        return True


DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
DATETIME = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}")


def family_value(v, ty):
    """Whether equiv's search could hold v in a column of type ty
    (internal/equiv/values.go coerce): integers in INTEGER, numbers in
    REAL, valid dates in DATE and DATETIME, anything in TEXT."""
    if v is None or ty == "TEXT":
        return True
    if ty == "INTEGER":
        return isinstance(v, int) and not isinstance(v, bool) and abs(v) < 2 ** 31
    if ty == "REAL":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if not isinstance(v, str):
        return False
    pat = DATE if ty == "DATE" else DATETIME
    if not (pat.fullmatch(v) or ty == "DATETIME" and DATE.fullmatch(v)):
        return False
    y, m, d = int(v[:4]), int(v[5:7]), int(v[8:10])
    return 1 <= m <= 12 and 1 <= d <= [31, 29 if y % 4 == 0 and (y % 100 or y % 400 == 0) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]


def ordered(q):
    depth = 0
    toks = tokens(q)
    for i, t in enumerate(toks):
        if t.text == "(":
            depth += 1
        elif t.text == ")":
            depth -= 1
        elif depth == 0 and t.up == "ORDER" and i + 1 < len(toks) and toks[i + 1].up == "BY":
            return True
    return False


def norm(v):
    if isinstance(v, float) and v == int(v):
        return int(v)
    return v


def differ(r1, r2, keep_order):
    if r1 is None or r2 is None:
        return False
    if r1 and r2 and len(r1[0]) != len(r2[0]):
        return True
    a = [tuple(norm(x) for x in r) for r in r1]
    b = [tuple(norm(x) for x in r) for r in r2]
    if keep_order:
        return a != b
    return collections.Counter(a) != collections.Counter(b)


def separates(run, db, q1, q2):
    if not run.valid(db):
        return False
    keep = ordered(q1) or ordered(q2)
    (a1, e1), (a2, e2) = run.run_all(db, [q1, q2])
    if e1 or e2 or not differ(a1, a2, keep):
        return False
    (b1, _), (b2, _) = run.run_all(db, [q1, q2], True)
    return differ(b1, b2, keep)


# ---------------------------------------------------------------- variants


def sub_once(pattern, repl, s, flags=re.I):
    m = re.search(pattern, s, flags)
    if not m:
        return None
    out = s[:m.start()] + (repl(m) if callable(repl) else m.expand(repl)) + s[m.end():]
    return out if out != s else None


def variants(gold, a):
    """(kind, q1, q2, note) for every rewrite of the gold that applies."""
    out = []
    has_join = re.search(r"\bJOIN\b", gold, re.I) is not None

    def add(kind, q2, q1=None, note=""):
        if q2 and q2 != (q1 or gold):
            out.append((kind, q1 or gold, q2, note))

    # COUNT vs COUNT(DISTINCT) after a join.
    if has_join:
        add("count_distinct_join", sub_once(r"\bCOUNT\(\s*(?!DISTINCT\b)(?!\*)([^()]+)\)", r"COUNT(DISTINCT \1)", gold))
        add("count_distinct_join", sub_once(r"\bCOUNT\(\s*DISTINCT\s+([^()]+)\)", r"COUNT(\1)", gold))
    # COUNT(*) vs COUNT(DISTINCT x) under literal filters.
    nlit = sum(len(v) for v in a.conds.values())
    if nlit >= 2:
        m = re.search(r"\bCOUNT\(\s*(\*|[^()]+)\)", gold, re.I)
        if m and not m.group(1).strip().upper().startswith("DISTINCT"):
            for col in distinct_candidates(a, m.group(1)):
                add("count_star_distinct", gold[:m.start()] + "COUNT(DISTINCT %s)" % col + gold[m.end():])
                break
    # LIMIT n vs none.
    add("limit", sub_once(r"\s+LIMIT\s+\d+(\s*(,|OFFSET)\s*\d+)?\s*$", "", gold))
    # Integer against real division: the CAST dropped, or moved outside.
    m = re.search(r"\bCAST\(\s*", gold, re.I)
    if m:
        inner, end = balanced(gold, m.end() - 1)
        mm = re.fullmatch(r"\s*(.*?)\s+AS\s+(REAL|FLOAT|DOUBLE|NUMERIC|DECIMAL)\s*", inner, re.I | re.S)
        if mm and "/" in gold[end:] + gold[:m.start()]:
            add("int_division", gold[:m.start()] + "(" + mm.group(1) + ")" + gold[end:])
    # Joins on different columns.
    for q2 in other_join_columns(gold, a):
        add("join_column", q2)
        break
    # > against >= on an aggregate.
    add("aggregate_boundary", sub_once(r"(HAVING\s+[^<>=]*?\))\s*(>=|<=|>|<)\s*(\d+)", lambda m: m.group(1) + " " + {">": ">=", ">=": ">", "<": "<=", "<=": "<"}[m.group(2)] + " " + m.group(3), gold))
    add("aggregate_boundary", sub_once(r"(\bT\.num|\bnum)\s*(>=|<=|>|<)\s*(\d+)", lambda m: m.group(1) + " " + {">": ">=", ">=": ">", "<": "<=", "<=": "<"}[m.group(2)] + " " + m.group(3), gold))
    # A value outside every pool: x = N written x * 3 = 3N, against 3N + 3.
    m = re.search(r"((?:\b\w+\.)?`?\w+`?)\s*=\s*(\d{1,6})\b(?!\s*\.)", gold)
    if m and int(m.group(2)) > 1 and is_numeric_ref(a, m.group(1)):
        n = int(m.group(2))
        q1 = gold[:m.start()] + "%s * 3 = %d" % (m.group(1), 3 * n) + gold[m.end():]
        q2 = gold[:m.start()] + "%s * 3 = %d" % (m.group(1), 3 * n + 3) + gold[m.end():]
        add("arith_pool", q2, q1, "q1 is the gold with %s = %d written %s * 3 = %d" % (m.group(1), n, m.group(1), 3 * n))
    # NULL-sensitive: COUNT(x) against COUNT(*), AVG against SUM / COUNT(*), != against IS NOT.
    add("null_count", sub_once(r"\bCOUNT\(\s*(?!DISTINCT\b)(?!\*)(?:\w+\.)?`?\w+`?\s*\)", "COUNT(*)", gold))
    add("null_avg", sub_once(r"\bAVG\(", "1.0 * SUM(", gold) and replace_avg(gold))
    add("null_not_equal", sub_once(r"((?:\b\w+\.)?`?\w+`?)\s*(!=|<>)\s*('(?:[^']|'')*'|\d+)", r"\1 IS NOT \3", gold))
    # CAST and affinity: a text column against a number.
    for q2 in affinity_variants(gold, a):
        add("affinity", q2)
        break
    # Dates as text.
    add("date_text", sub_once(r"STRFTIME\(\s*'%Y'\s*,\s*([^()]+?)\)\s*=\s*'(\d{4})'", r"\1 LIKE '\2%'", gold))
    add("date_text", sub_once(r"((?:\b\w+\.)?`?\w+`?)\s+LIKE\s+'(\d{4})%'", r"STRFTIME('%Y', \1) = '\2'", gold))
    add("date_text", sub_once(r"SUBSTR\(\s*([^(),]+?)\s*,\s*1\s*,\s*4\s*\)\s*=\s*'(\d{4})'", r"STRFTIME('%Y', \1) = '\2'", gold))
    add("date_text", sub_once(r"STRFTIME\(\s*'%Y'\s*,\s*([^()]+?)\)\s*(>=|<=|>|<)\s*'(\d{4})'", r"\1 \2 '\3'", gold))
    # DISTINCT dropped; the order of a LIMIT reversed; an inner join made outer.
    add("distinct", sub_once(r"^\s*SELECT\s+DISTINCT\s+", "SELECT ", gold))
    add("order_direction", sub_once(r"\bORDER\s+BY\s+([^;]*?)\s+(ASC|DESC)(\s+LIMIT\s+\d+\s*)$", lambda m: "ORDER BY %s %s%s" % (m.group(1), "ASC" if m.group(2).upper() == "DESC" else "DESC", m.group(3)), gold))
    add("left_join", sub_once(r"\bINNER\s+JOIN\b", "LEFT JOIN", gold))
    # SUM(IIF(c, 1, 0)) against COUNT(IIF(c, 1, 0)): COUNT counts the zeros.
    add("iif_count", sub_once(r"\bSUM\(\s*(IIF|CASE)\b", lambda m: "COUNT(" + m.group(1), gold))
    # BETWEEN against strict bounds; a GROUP BY on another column.
    add("between_bounds", sub_once(r"((?:\b\w+\.)?`?\w+`?)\s+BETWEEN\s+('(?:[^']|'')*'|-?\d+(?:\.\d+)?)\s+AND\s+('(?:[^']|'')*'|-?\d+(?:\.\d+)?)", r"\1 > \2 AND \1 < \3", gold))
    return out


def balanced(s, i):
    """The text inside the parenthesis at s[i] and the index past it."""
    depth, j = 0, i
    while j < len(s):
        if s[j] == "(":
            depth += 1
        elif s[j] == ")":
            depth -= 1
            if depth == 0:
                return s[i + 1:j], j + 1
        elif s[j] == "'":
            j = s.index("'", j + 1)
        j += 1
    return s[i + 1:], len(s)


def replace_avg(gold):
    m = re.search(r"\bAVG\(", gold, re.I)
    if not m:
        return None
    inner, end = balanced(gold, m.end() - 1)
    if inner.strip().upper().startswith("DISTINCT"):
        return None
    return gold[:m.start()] + "CAST(SUM(%s) AS REAL) / COUNT(*)" % inner + gold[end:]


def distinct_candidates(a, counted):
    """Columns of the counted table to count distinct: its foreign keys
    first, then the columns the gold compares with literals."""
    out = []
    for occ, t in a.occurrences():
        if occ[0] != 0:
            continue
        for cc, _, _ in t.fks:
            out.append("%s.%s" % (occ[1], quote(cc[0])) if len(a.scopes[0].aliases) > 1 or occ[1] != t.name.lower() else quote(cc[0]))
    return [c for c in out if c.lower() not in counted.lower()]


def is_numeric_ref(a, text):
    for tok_i, t in enumerate(a.toks):
        pass
    name = unquote(text.split(".")[-1])
    for occ, t in a.occurrences():
        ty = t.ctype(name)
        if ty in ("INTEGER", "REAL"):
            return True
    return False


def other_join_columns(gold, a):
    for m in re.finditer(r"\bON\s+((\w+)\.(`?\w+`?))\s*=\s*((\w+)\.(`?\w+`?))", gold, re.I):
        for side in (2, 1):
            alias = m.group(3 * side - 1 if side == 1 else 5).lower()
            col = unquote(m.group(3 if side == 1 else 6))
            t = None
            for occ, tt in a.occurrences():
                if occ[1] == alias:
                    t = tt
            if t is None:
                continue
            ty = t.ctype(col)
            for c, cty in t.cols:
                if c.lower() != col.lower() and cty == ty and re.search(r"id$|Id$|ID$|_id|code", c):
                    new = "%s.%s" % (m.group(2 if side == 1 else 5), quote(c))
                    start, end = (m.start(1), m.end(1)) if side == 1 else (m.start(4), m.end(4))
                    yield gold[:start] + new + gold[end:]


def affinity_variants(gold, a):
    for m in re.finditer(r"((?:\b\w+\.)?`?\w+`?)\s*(>=|<=|>|<|=)\s*(\d+(?:\.\d+)?)\b", gold):
        name = unquote(m.group(1).split(".")[-1])
        for occ, t in a.occurrences():
            if t.ctype(name) == "TEXT":
                yield gold[:m.start()] + "CAST(%s AS REAL) %s %s" % (m.group(1), m.group(2), m.group(3)) + gold[m.end():]
                return
    for m in re.finditer(r"CAST\(\s*((?:\b\w+\.)?`?\w+`?)\s+AS\s+(REAL|INTEGER|INT|FLOAT)\s*\)\s*(>=|<=|>|<)\s*(\d+(?:\.\d+)?)", gold, re.I):
        name = unquote(m.group(1).split(".")[-1])
        for occ, t in a.occurrences():
            if t.ctype(name) == "TEXT":
                yield gold[:m.start()] + "%s %s %s" % (m.group(1), m.group(3), m.group(4)) + gold[m.end():]
                return


# ---------------------------------------------------------------- search


def query_values(q, a):
    """Values worth trying in a column the queries read: their literals,
    one either side, as text and as numbers, dates around a year, NULL."""
    vals = []
    for t in tokens(q):
        v = literal(t)
        if v is None:
            continue
        vals.append(v)
        if isinstance(v, (int, float)):
            vals += [v + 1, v - 1, str(v), str(v + 1), str(v * 10), v * 10]
            if v >= 3 and v % 3 == 0:
                vals += [v // 3, v // 3 + 1]
        elif isinstance(v, str):
            m = re.fullmatch(r"(\d{4})(?:%)?", v)
            if m:
                y = m.group(1)
                vals += [y, y + "/06/15", y + "-13-45", y + "-12-31 10:00:00", y + "-06-15", str(int(y) + 1) + "-01-01"]
            if v.endswith("%") or v.startswith("%"):
                vals.append(v.strip("%"))
            vals.append(v + "z")
    vals.append(None)
    seen, out = set(), []
    for v in vals:
        k = (type(v).__name__, v)
        if k not in seen:
            seen.add(k)
            out.append(v)
    return out


def query_columns(a):
    """(table, column) pairs the gold names."""
    cols = set()
    for i in range(len(a.toks)):
        ref, _ = a.ref_at(i)
        if ref:
            cols.add((a.table_of(ref).name, ref[2]))
    return cols


def duplicate(db, t, row):
    new = dict(row)
    for c in t.pk or []:
        new[c] = db.fresh(t.ctype(c))
    return new


def candidates(base, a, q1, q2):
    yield base
    cols = query_columns(a)
    values = query_values(q1 + " " + q2, a)
    counts = sorted({int(t.text) for t in tokens(q1 + " " + q2) if t.kind == "num" and t.text.isdigit() and 1 <= int(t.text) <= 25})
    tables = [t for t in base.tables if base.rows[t.name]]
    # one value changed
    def changed(db):
        for t in tables:
            for ri in range(len(db.rows[t.name])):
                for c, ty in t.cols:
                    if (t.name, c) not in cols or c in (t.pk or []):
                        continue
                    for v in values:
                        if db.rows[t.name][ri][c] == v:
                            continue
                        d = db.copy()
                        d.rows[t.name][ri][c] = v
                        yield d
    # a row duplicated, then one value of the copy changed
    for t in tables:
        d = base.copy()
        d.rows[t.name].append(duplicate(d, t, d.rows[t.name][0]))
        yield d
    for d in changed(base):
        yield d
    for t in tables:
        d0 = base.copy()
        d0.rows[t.name].append(duplicate(d0, t, d0.rows[t.name][0]))
        for c, ty in t.cols:
            if (t.name, c) not in cols or c in (t.pk or []):
                continue
            for v in values:
                d = d0.copy()
                d.rows[t.name][-1][c] = v
                yield d
    # n copies of a row, for a LIMIT n or a count compared with n
    for n in counts:
        for t in tables:
            for k in (n - 1, n, n + 1):
                if k < 1:
                    continue
                d = base.copy()
                for _ in range(k):
                    d.rows[t.name].append(duplicate(d, t, d.rows[t.name][0]))
                yield d
    # two rows duplicated in two tables
    for t1, t2 in itertools.combinations(tables, 2):
        d = base.copy()
        d.rows[t1.name].append(duplicate(d, t1, d.rows[t1.name][0]))
        d.rows[t2.name].append(duplicate(d, t2, d.rows[t2.name][0]))
        yield d


def find_database(run, a, base, q1, q2, budget=900):
    for n, db in enumerate(candidates(base, a, q1, q2)):
        if n >= budget:
            return None
        db.close_fks()
        if separates(run, db, q1, q2):
            return db
    return None


# ---------------------------------------------------------------- main


CLOCK = re.compile(r"(?i)'now'|current_(date|time|timestamp)|\bdate\(\)|\bdatetime\(\)|\bjulianday\(\)")

KIND_CAP = 4  # pairs of one kind per database: the set spreads over kinds and schemas


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--minidev", required=True)
    ap.add_argument("--dst", required=True)
    ap.add_argument("--exclude", default="", help="ids to leave out, comma-separated")
    args = ap.parse_args()
    exclude = set(filter(None, args.exclude.split(",")))
    schemas = load_schemas(os.path.join(args.minidev, "dev_tables.json"))
    golds = json.load(open(os.path.join(args.minidev, "mini_dev_sqlite.json")))
    os.makedirs(os.path.join(args.dst, "schemas"), exist_ok=True)
    ddls = {}
    for db_id in sorted(schemas):
        ddls[db_id] = ddl(schemas[db_id])
        with open(os.path.join(args.dst, "schemas", db_id + ".sql"), "w") as f:
            f.write(ddls[db_id])
    per = collections.Counter()
    pairs, labels = [], []
    for g in golds:
        db_id, gold = g["db_id"], g["SQL"].strip().rstrip(";").strip()
        if CLOCK.search(gold):
            continue  # a gold that reads the clock is no fixed query
        tables = schemas[db_id]
        a = Analysis(gold, tables)
        if not a.ok or not a.scopes:
            continue
        run = Runner(tables, ddls[db_id])
        base = base_database(a, tables)
        for kind, q1, q2, note in variants(gold, a):
            if per[(db_id, kind)] >= KIND_CAP:
                continue
            pid = "bird-%d-%s" % (g["question_id"], kind)
            if pid in exclude or any(p["id"] == pid for p in pairs):
                continue
            if run.run(base, q1)[1] or run.run(base, q2)[1]:
                continue
            db = find_database(run, a, base, q1, q2)
            if db is None:
                continue
            per[(db_id, kind)] += 1
            pnote = "BIRD mini-dev question %d (%s), %s: q1 the gold, q2 a variant" % (g["question_id"], g["difficulty"], kind)
            if note:
                pnote += "; " + note
            pairs.append({"id": pid, "q1": q1, "q2": q2, "schema": ddls[db_id], "note": pnote})
            labels.append({"id": pid, "kind": kind, "db_id": db_id, "question_id": g["question_id"], "database": "\n".join(db.inserts())})
    write_jsonl(os.path.join(args.dst, "pairs.jsonl"), pairs)
    write_jsonl(os.path.join(args.dst, "labels.jsonl"), labels)
    preds = predictions(args.minidev, golds, ddls)
    write_jsonl(os.path.join(args.dst, "predictions.jsonl"), preds)
    by_kind = collections.Counter(l["kind"] for l in labels)
    by_db = collections.Counter(l["db_id"] for l in labels)
    print("kind (a): %d pairs" % len(pairs))
    for k, v in sorted(by_kind.items()):
        print("  %-22s %d" % (k, v))
    for k, v in sorted(by_db.items()):
        print("  %-24s %d" % (k, v))
    print("kind (b): %d pairs" % len(preds))


PREDICTION_FILES = [
    ("gpt-4-turbo-cot", "predict_mini_dev_gpt-4-turbo_cot_SQLite.json"),
    ("llama-3-70b", "predict_mini_dev_meta-llama-3-70b-instruct-2_sqlite.json"),
]
PER_MODEL = 150


def predictions(minidev, golds, ddls):
    """Gold against a model's prediction: every third item of each model's
    file whose prediction is not the gold's text, up to PER_MODEL each."""
    out = []
    for model, name in PREDICTION_FILES:
        raw = json.load(open(os.path.join(minidev, "pred", name)))
        n = 0
        for k in sorted(raw, key=int):
            i = int(k)
            if i % 3 != 0 or n >= PER_MODEL:
                continue
            g = golds[i]
            pred, _, db_id = raw[k].partition("\t----- bird -----\t")
            pred = pred.strip().rstrip(";").strip()
            gold = g["SQL"].strip().rstrip(";").strip()
            if db_id != g["db_id"] or not pred or " ".join(pred.split()) == " ".join(gold.split()) or CLOCK.search(gold):
                continue
            n += 1
            out.append({"id": "pred-%s-%d" % (model, g["question_id"]), "q1": gold, "q2": pred, "schema": ddls[db_id],
                        "note": "BIRD mini-dev question %d (%s): q1 the gold, q2 the prediction of %s (%s)" % (g["question_id"], g["difficulty"], model, name)})
    return out


def write_jsonl(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
