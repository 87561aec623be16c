// Package explain checks the kernel's reading of SQL against SQLite's
// own: a renaming step of a certificate (a query and its canonical text,
// check.Rename) is accepted only when SQLite compiles both texts, on a
// scratch database holding the pair's tables, into the same program
// (EXPLAIN: the same opcodes reading the same cursors, table root pages,
// column indexes and constants into the same registers). The kernel
// resolves names (output aliases, outer columns, double-quoted strings,
// rowid names) by rules of its own; this package trusts none of them.
// On PostgreSQL (pgplan.go) the same step is checked against
// PostgreSQL's plans instead: EXPLAIN (VERBOSE, COSTS OFF, FORMAT JSON)
// of both texts on a scratch holding the pair's tables (a PlanFunc,
// never run), equal once their range table aliases are numbered
// (NormalPlan).
// See docs/equiv.md, "Proofs", and issue 37 (R1-R4).
package explain
