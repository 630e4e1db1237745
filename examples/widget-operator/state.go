package widgetoperator

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/sim"
)

// How the auditor retries a list that failed near the end of a run.
const (
	auditAttempts = 5
	auditTimeout  = 300 * time.Millisecond
	auditPause    = 100 * time.Millisecond
)

// Owned is one object of the final state: its name, replica count and
// the UID of its controller ("" if none; a Widget's own UID for a Widget).
type Owned struct {
	Name     string
	Replicas int32
	UID      string
}

// WidgetState is the trace event the auditor emits: every Widget and
// every Deployment of Namespace, read with a quorum list at the end of the
// run. The invariant reads it (a check reads only the trace).
type WidgetState struct {
	Widgets, Deployments []Owned
}

// TraceKind names the event in the trace.
func (*WidgetState) TraceKind() string { return "widgets.state" }

// AppendText prints the event; the trace hash covers this text.
func (s *WidgetState) AppendText(b []byte) []byte {
	f := func(items []Owned) string {
		parts := make([]string, len(items))
		for i, o := range items {
			parts[i] = fmt.Sprintf("%s=%d/%s", o.Name, o.Replicas, o.UID)
		}
		return strings.Join(parts, ",")
	}
	return fmt.Appendf(b, "widgets=[%s] deployments=[%s]", f(s.Widgets), f(s.Deployments))
}

// BootAuditor returns the Boot function of a host that, at at, lists the
// Widgets and Deployments as admin with quorum reads and emits them as one
// WidgetState. A failed list is retried a few times (failing over between
// servers); if it still fails, nothing is emitted and the invariant fails
// for want of a state.
func BootAuditor(servers []sim.HostID, at time.Duration) func(h *sim.Host) {
	return func(h *sim.Host) {
		if h.Now() > sim.Time(at) {
			return
		}
		c := client.New(h, client.Config{User: "admin", Servers: servers, Timeout: auditTimeout})
		h.After(sim.Time(at).Sub(h.Now()), "widgets-audit", func() { audit(h, c, auditAttempts) })
	}
}

func audit(h *sim.Host, c *client.Client, attempts int) {
	retry := func() {
		if attempts > 1 {
			h.After(auditPause, "widgets-audit-retry", func() { audit(h, c, attempts-1) })
		}
	}
	c.CustomResources(Widgets, Namespace).List(client.ListOptions{}, func(ws *client.ObjectList, err error) {
		if err != nil {
			retry()
			return
		}
		c.Deployments(Namespace).List(client.ListOptions{}, func(ds *client.ObjectList, err error) {
			if err != nil {
				retry()
				return
			}
			st := &WidgetState{}
			for _, o := range ws.Items {
				w := o.(*model.CustomObject)
				spec, _ := model.SpecAs[WidgetSpec](w)
				st.Widgets = append(st.Widgets, Owned{Name: w.Name, Replicas: spec.Replicas, UID: string(w.UID)})
			}
			for _, o := range ds.Items {
				d := o.(*model.Deployment)
				own := Owned{Name: d.Name}
				if d.Spec.Replicas != nil {
					own.Replicas = *d.Spec.Replicas
				}
				if ref := model.GetControllerOf(d); ref != nil && ref.Kind == Widgets.Kind {
					own.UID = string(ref.UID)
				}
				st.Deployments = append(st.Deployments, own)
			}
			byName := func(a, b Owned) int { return strings.Compare(a.Name, b.Name) }
			slices.SortFunc(st.Widgets, byName)
			slices.SortFunc(st.Deployments, byName)
			h.Emit(st)
		})
	})
}
