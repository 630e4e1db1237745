package kvload

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// kindOf names the kind of operation a call is (OpKinds).
func kindOf(c *etcdtrace.Call) string {
	switch {
	case c.Kind == etcdtrace.OpGet && c.Rev != 0:
		return "historical"
	case c.Kind == etcdtrace.OpGet && c.End != "":
		return "range"
	case c.Kind == etcdtrace.OpGet:
		return "get"
	case c.Kind == etcdtrace.OpPut:
		return "put"
	case c.Kind == etcdtrace.OpCAS:
		return "cas"
	case c.Kind == etcdtrace.OpDelete:
		return "delete"
	case c.Kind == etcdtrace.OpTxn:
		return "txn"
	}
	return "unknown"
}

// TestOperationSubset: a client given Ops runs only those kinds of
// operation, each as often relative to the others as in the full mix
// (puts 25 to deletes 8 to historical reads 8); with none known it runs
// every kind.
func TestOperationSubset(t *testing.T) {
	require.Equal(t, []string{"get", "range", "historical", "put", "cas", "delete", "txn"}, OpKinds())
	ops := []string{"put", "delete", "historical"}
	byClient := clientRun(t, 5, 10*time.Second, ClientConfig{Think: time.Millisecond, Ops: ops}, ClientConfig{Think: time.Millisecond, Ops: []string{"nope"}})
	count := map[string]int{}
	all := map[string]bool{}
	for _, e := range byClient["c0"] {
		if e.call != nil {
			require.Contains(t, ops, kindOf(e.call), "%+v", e.call)
			count[kindOf(e.call)]++
		}
	}
	for _, e := range byClient["c1"] {
		if e.call != nil {
			all[kindOf(e.call)] = true
		}
	}
	n := count["put"] + count["delete"] + count["historical"]
	require.Greater(t, n, 500)
	for k, pct := range map[string]int{"put": 25, "delete": 8, "historical": 8} {
		p := float64(pct) / 41
		sd := math.Sqrt(float64(n) * p * (1 - p))
		require.InDelta(t, p*float64(n), float64(count[k]), 4*sd, "%s: %d of %d", k, count[k], n)
	}
	require.Len(t, all, len(OpKinds()), "Ops naming no kind runs every kind")
}
