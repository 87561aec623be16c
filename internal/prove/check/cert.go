package check

// Certificate is the proof that two queries return the same result on
// every database satisfying a schema, as the prover writes it and Check
// re-checks it:
//
//   - Q1Steps (Q2Steps) rewrite the first (second) query, step by step,
//     into its normal form: each step names its Rule, where it applied (At,
//     the byte offset in Before of the node it rewrote, and that node's
//     SQL), the SQL before and after, and the schema Facts it relies on;
//   - NormalForms are the final queries (in the kernel's canonical form);
//   - Method is "identical" (the normal forms are the same query: only
//     renaming separates the queries, so the engine runs them alike) or
//     "normal_form" (the forms are compared block by block under the
//     Bijection of table occurrences and the Columns map of output
//     columns, relying on Facts and on the Obligations, each an SMT-LIB 2
//     script whose expected answer is unsat);
//   - Ties (normal_form only) says the claim holds up to ties: the
//     statement's ORDER BY keys do not determine its rows, so the two
//     queries sort the same multiset of rows by the same keys, with the
//     same LIMIT and OFFSET, and allow the same results; which of the
//     rows that tie each returns is the engine's choice (docs/equiv.md,
//     "Order, ties and LIMIT"). Check recomputes it and refuses a
//     certificate that says otherwise. Without it the keys determine the
//     row and the two queries return the same rows on every database.
type Certificate struct {
	Kernel      string       `json:"kernel"`
	Method      string       `json:"method"`
	Q1Steps     []Step       `json:"q1_steps"`
	Q2Steps     []Step       `json:"q2_steps"`
	NormalForms NormalForms  `json:"normal_forms"`
	Bijection   []Match      `json:"bijection"`
	Columns     []int        `json:"columns"`
	Facts       []Fact       `json:"facts,omitempty"`
	Obligations []Obligation `json:"obligations"`
	Ties        bool         `json:"ties,omitempty"`
}

// KernelVersion names the rules and the encoding a certificate follows;
// Check refuses another. Version 2 (issue 37) resolves names as SQLite
// does, models affinities, storage classes and collations, refuses outer
// aggregates and reads dependencies through subqueries: a certificate of
// version 1 may rest on what it got wrong.
const KernelVersion = "sqljudge-prove/2"

// The methods of a certificate.
const (
	MethodIdentical  = "identical"
	MethodNormalForm = "normal_form"
)

// NormalForms are the two final queries.
type NormalForms struct {
	Q1 string `json:"q1"`
	Q2 string `json:"q2"`
}

// Match pairs an occurrence (alias) of the first normal form with one of
// the second, of the same table.
type Match struct {
	Q1    string `json:"q1"`
	Q2    string `json:"q2"`
	Table string `json:"table"`
}

// Step is one rewrite of a query by a rule of the kernel.
type Step struct {
	Rule   string `json:"rule"`
	At     int    `json:"at"`
	Node   string `json:"node,omitempty"`
	Before string `json:"before"`
	After  string `json:"after"`
	Facts  []Fact `json:"facts,omitempty"`
}
