package leaderelection_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client/internal/fakeapi"
	"github.com/kubesim/kubesim/nodes/client/leaderelection"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// TestTracer: a replica's tracer emits the spoketrace events the
// leader-exclusivity check reads: a leadership change once per change,
// each renewal, and every write but those of the election's own Lease (a
// controller's write of another Lease is a leader's write like any).
func TestTracer(t *testing.T) {
	c := fakeapi.NewCluster(1, 1)
	var tr *leaderelection.Tracer
	c.AddHost("op-1", func(h *sim.Host) { tr = leaderelection.NewTracer(h, "my-operator", "op-1", "default/my-operator") })
	var got []string
	c.World.Subscribe(func(e *sim.Event) {
		switch d := e.Data.(type) {
		case *spoketrace.Leading, *spoketrace.LeaderRenewed, *spoketrace.LeaderWrite:
			got = append(got, e.Data.TraceKind()+" "+string(d.AppendText(nil)))
		}
	})
	c.World.At(sim.Time(1), "trace", func() {
		tr.Leading(false) // never led: nothing to trace
		tr.Leading(true)
		tr.Leading(true)
		tr.Renewed()
		tr.Write(&apiwire.Request{Verb: apiwire.VerbUpdate, Resource: model.ResourceLeasesName, Namespace: "default", Name: "my-operator"})
		tr.Write(&apiwire.Request{Verb: apiwire.VerbDelete, Resource: model.ResourceLeasesName, Namespace: "default", Name: "other"})
		tr.Write(&apiwire.Request{Verb: apiwire.VerbCreate, Resource: "widgets", Namespace: "default", Name: "w"})
		tr.Leading(false)
	})
	c.World.RunFor(2)
	require.Equal(t, []string{
		"leader.leading component=my-operator identity=op-1 leading=true",
		"leader.renewed component=my-operator identity=op-1",
		"leader.write component=my-operator identity=op-1 verb=delete resource=leases key=default/other",
		"leader.write component=my-operator identity=op-1 verb=create resource=widgets key=default/w",
		"leader.leading component=my-operator identity=op-1 leading=false",
	}, got)
}
