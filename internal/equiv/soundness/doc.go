// Package soundness holds the helpers of the property tests of the equiv
// prover against the search, which live in its subpackages calcite and
// spider (apart from package equiv, and from each other, so that their
// minutes run in test binaries of their own): no pair the prover proves —
// VeriEQL's Calcite pairs, the neighbour queries of Spider dev gold — may
// be refuted by a search ten times the default's size (in CI; at the
// default size elsewhere, to keep go test quick). A failure is a
// soundness bug of the prover, the kernel or the search.
package soundness
