// Package fidelity is kubesim's fidelity table: the versions of Kubernetes
// and etcd it models, every modelled default that has a real counterpart
// exposed as a constant or a configuration default, and the known
// divergences from those versions.
//
// Each default pairs the value kubesim's code uses (referenced in Go, so it
// cannot drift) with the real value as a literal and where the real one is
// defined. TestDefaultsMatchReal fails when the two differ, and
// internal/docgen renders the table as docs/fidelity.md.
package fidelity

import (
	"fmt"
	"strconv"
	"time"

	"github.com/kubesim/kubesim/nodes/client"
)

// The versions kubesim models.
const (
	// Kubernetes is the Kubernetes minor version whose control plane the
	// node packages model.
	Kubernetes = "1.34"
	// Etcd is the etcd release the etcd layer models: the one the
	// conformance module (conformance/go.mod) embeds and compares against.
	Etcd = "v3.7.3"
	// Raft is the go.etcd.io/raft release that etcd uses.
	Raft = "v3.7.0"
)

// Entry is one modelled default.
type Entry struct {
	// Layer groups the entry: "etcd", "API server", "client-go", ...
	Layer string
	// Name says what the value is, e.g. "Raft election timeout".
	Name string
	// Value is kubesim's value, read from the code's own constant,
	// variable or default.
	Value any
	// Real is the real value, as Format prints Value.
	Real string
	// Source is where the real value is defined: repository, file, and
	// function or constant.
	Source string
	// Where is kubesim's package and identifier.
	Where string
	// Test names the kubesim test that asserts the value, if one does
	// ("package TestName").
	Test string
}

// Got is Value as Format prints it.
func (e Entry) Got() string { return Format(e.Value) }

// Divergence is a known difference from the pinned versions.
type Divergence struct {
	// Name says what differs.
	Name string
	// Kubesim is what kubesim does, with its values from the code.
	Kubesim string
	// Real is what the pinned versions do.
	Real string
	// Consequence is what a user sees because of it.
	Consequence string
	// Where is kubesim's package and identifiers.
	Where string
}

// Defaults returns every modelled default, layer by layer.
func Defaults() []Entry {
	var all []Entry
	for _, layer := range [][]Entry{etcdDefaults(), apiDefaults(), clientDefaults(), kubeletDefaults(), kubeProxyDefaults(), nodeDefaults(), schedulerDefaults(), workloadDefaults()} {
		all = append(all, layer...)
	}
	return all
}

// Format prints a value of the table: durations in the largest whole unit
// (ms, s or min), numbers in their shortest form, client backoffs as their
// steps, start, factor and jitter.
func Format(v any) string {
	switch x := v.(type) {
	case time.Duration:
		return formatDuration(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	case int, int32, int64, uint64:
		return fmt.Sprint(x)
	case client.Backoff:
		return fmt.Sprintf("%d steps from %s, factor %s, jitter %s", x.Steps, formatDuration(x.Duration), Format(x.Factor), Format(x.Jitter))
	}
	panic(fmt.Sprintf("fidelity: cannot format %T", v))
}

func formatDuration(d time.Duration) string {
	switch {
	case d == 0:
		return "0"
	case d%time.Minute == 0:
		return fmt.Sprintf("%d min", d/time.Minute)
	case d%time.Second == 0:
		return fmt.Sprintf("%d s", d/time.Second)
	case d%time.Millisecond == 0:
		return fmt.Sprintf("%d ms", d/time.Millisecond)
	}
	return d.String()
}

// seconds turns a count of seconds of the API (periodSeconds, ...) into a
// duration.
func seconds[T int32 | int64](s T) time.Duration { return time.Duration(s) * time.Second }
