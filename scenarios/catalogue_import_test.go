package scenarios_test

// The engine's tests run catalogue scenarios by name (etcd-chaos,
// api-chaos, ...): package catalogue registers them when it initialises.
import _ "github.com/kubesim/kubesim/catalogue"
