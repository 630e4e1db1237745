package metrics

import (
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// Control measures the controller manager from the trace, for the
// ablations that cost something without breaking a checked property:
//   - cm_pod_creates: pods the controller manager created (apitrace.Admit),
//     which over-creation under watch lag inflates;
//   - cm_requests_per_s: requests the controller manager's hosts sent to
//     the API servers per virtual second (polling lists instead of
//     watching);
//   - reaction_s: the mean time from an operator's write of a ReplicaSet or
//     Deployment to the controller manager's next pod creation or
//     deletion (-1 when there was none).
type Control struct {
	cm      map[sim.HostID]bool
	servers map[sim.HostID]bool
	creates int
	reqs    int
	pending sim.Time // an operator write not yet reacted to, 0 if none
	react   []float64
	end     sim.Time
}

// NewControl measures the controller managers cms talking to the API
// servers servers of w.
func NewControl(w *sim.World, cms, servers []string) *Control {
	m := &Control{cm: map[sim.HostID]bool{}, servers: map[sim.HostID]bool{}}
	for _, n := range cms {
		h, _ := w.HostByName(n)
		m.cm[h.ID()] = true
	}
	for _, n := range servers {
		h, _ := w.HostByName(n)
		m.servers[h.ID()] = true
	}
	return m
}

// Observe consumes one trace event.
func (m *Control) Observe(e *sim.Event) {
	m.end = e.At
	if e.Kind == sim.KindDeliver {
		if e.Port == apiwire.Port && m.servers[e.Host] && m.cm[e.Peer] {
			m.reqs++
		}
		return
	}
	a, ok := e.Data.(*apitrace.Admit)
	if !ok {
		return
	}
	switch {
	case a.User == apitrace.UserAdmin && (a.Resource == "replicasets" || a.Resource == "deployments") && (a.Verb == "create" || a.Verb == "update"):
		if m.pending == 0 {
			m.pending = e.At
		}
	case a.User == apitrace.UserControllerManager && a.Resource == "pods" && (a.Verb == "create" || a.Verb == "delete"):
		if a.Verb == "create" {
			m.creates++
		}
		if m.pending != 0 {
			m.react = append(m.react, e.At.Sub(m.pending).Seconds())
			m.pending = 0
		}
	}
}

// Values returns the metrics.
func (m *Control) Values() map[string]float64 {
	reaction := -1.0
	if len(m.react) > 0 {
		sum := 0.0
		for _, r := range m.react {
			sum += r
		}
		reaction = sum / float64(len(m.react))
	}
	perSec := 0.0
	if s := m.end.Seconds(); s > 0 {
		perSec = float64(m.reqs) / s
	}
	return map[string]float64{"cm_pod_creates": float64(m.creates), "cm_requests_per_s": perSec, "reaction_s": reaction}
}
