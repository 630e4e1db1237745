// Package layers holds the import rules of docs/design.md as a test: every
// package of the module sits in one layer, and imports point downward only.
// TestLayering reads the non-test imports of every package with go/build
// and fails on the first import that breaks a rule.
package layers
