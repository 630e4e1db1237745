// Package clientgo holds a differential test of kubesim's client machinery
// against the real client-go v0.34 (Kubernetes 1.34): the workqueue's
// default controller rate limiter, wait.Backoff and the reflector's
// exponential backoff manager, and the reflector's choice of
// resourceVersion for every list and watch after each kind of event. The
// real code runs in the test process on a fake clock; kubesim's runs in a
// small simulated world. It is a nested module so that the main module
// never depends on client-go. docs/differential.md describes it.
package clientgo
