// Package soundness holds the property tests of the equiv prover against
// the search (its tests only; apart from package equiv so that their
// minutes run in a test binary of their own): no pair the prover proves —
// VeriEQL's Calcite pairs, the neighbour queries of Spider dev gold — may
// be refuted by a search ten times the default's size (in CI; at the
// default size elsewhere, to keep go test quick). A failure is a
// soundness bug of the prover, the kernel or the search.
package soundness
