package reports

// These tests run catalogue scenarios by name: package catalogue registers
// them when it initialises.
import _ "github.com/kubesim/kubesim/catalogue"
