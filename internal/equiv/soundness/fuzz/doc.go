// Package fuzz is the soundness fuzzer of equiv's prover (issue 37,
// item 7), after SQLancer (Rigger and Su: "Testing Database Engines via
// Pivoted Query Synthesis", OSDI 2020; "Detecting Optimization Bugs in
// Database Engines via Non-Optimizing Reference Engine Construction",
// ESEC/FSE 2020; "Finding Bugs in Database Systems via Query
// Partitioning", OOPSLA 2020), turned on the prover: the engine is the
// oracle, the prover the system under test.
//
// Each pair of a run is drawn from a random stream of its own (seed,
// index):
//
//   - a schema (schema.go): every SQLite affinity (INTEGER, INT, REAL,
//     NUMERIC, DECIMAL(10,2), TEXT, VARCHAR, CHAR, BLOB, none), NOT NULL,
//     PRIMARY KEY (INTEGER PRIMARY KEY, INTEGER PRIMARY KEY DESC, other
//     types, composite), UNIQUE, foreign keys, column COLLATE NOCASE and
//     RTRIM, unique indexes full, partial and over expressions; on
//     PostgreSQL integer, numeric, real, text, varchar and char(n);
//   - a query from a grammar of the kernel's fragment (gen.go), and a
//     second made from a copy of it by one to three rewrites (mutate.go):
//     renamings, the kernel's rules done by hand (the second query is
//     then equivalent under the kernel's model of the engine: where the
//     model is wrong, a proof is wrong), and breaking rewrites;
//   - the prover's answer, as `sqljudge equiv` gets it
//     (equiv.ProveQueries on catalog.ParseDDL's reading of the DDL), its
//     certificate re-checked by check.Check;
//   - for a proved pair, databases (data.go) built from the DDL as written
//     (never sqljudge's rendering of it), rows of every storage class a
//     column takes, boundary values, the values the queries' literals and
//     arithmetic call for, twin rows a collation or an affinity ties, each
//     database also with its rows in reverse order: a database on which
//     the two results differ under the pair's rule is a counterexample
//     (fuzz.go), unless it breaks a fact the proof lists (a column's
//     family); it is shrunk (shrink.go) and printed with the schema, the
//     pair and both results, with a guess at the root cause
//     (cause.go).
//
// The run is bounded by counts (pairs, databases), never by time: the
// same seed gives the same report on any machine. TestFuzzSQLite and
// TestFuzzPostgres are the CI runs; docs/equiv.md ("The soundness
// fuzzer") gives the long run and the benchmark.
package fuzz
