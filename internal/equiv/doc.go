// Package equiv decides whether two SQL queries are equivalent over a
// schema by searching for a counterexample: a small database, satisfying
// every key, UNIQUE, NOT NULL and foreign key of the schema, on which the
// two queries return different results. It answers
//
//   - Inequivalent, with the smallest such database it could find (its SQL,
//     its row count and both results), re-verified on a fresh database built
//     from that SQL alone;
//   - EquivalentBounded, with what was searched (databases, largest table,
//     values, phases) when no database told the queries apart;
//   - Unknown, with the reason, when the pair cannot be searched (DDL that
//     does not parse, a query that fails on every database).
//
// The idea and the benchmark follow VeriEQL (He, Zhao, Wang, Wang, "VeriEQL:
// Bounded Equivalence Verification for Complex SQL Queries with Integrity
// Constraints", OOPSLA 2024), which refutes pairs with counterexamples over
// bounded databases; here the bounded search is a deterministic random
// search instead of an SMT encoding. It is driven by the small-scope
// hypothesis (Jackson, "Software Abstractions": most bugs show on small
// instances), so tables of 0 to 3 rows come first, with empty tables,
// duplicate rows and NULL wherever allowed; by the test-suite machinery of
// Zhong, Yu and Klein ("Semantic Evaluation for Text-to-SQL with Distilled
// Test Suites", EMNLP 2020; package testsuite): values from the queries'
// literals and their neighbours, and databases that tell a query from its
// neighbour queries, which is where two near-equal queries tend to split.
// A database that tells the pair apart is shrunk by delta debugging over
// its rows (Zeller and Hildebrandt, "Simplifying and Isolating
// Failure-Inducing Input", IEEE TSE 2002), then its values are simplified
// to 0, ” or NULL while the difference survives and the constraints hold.
//
// The schema of a pair is a catalog.Database (its DDL parsed, or its
// database read through the engine); the databases are tried in scratch
// databases of a sandbox.Sandbox (packages sandbox/sqlite, postgres,
// mysql, duckdb; sandbox/open picks one from --db).
package equiv
