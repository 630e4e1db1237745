package kubelet

import (
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// readyLedger is what the node's trace last said of each pod's readiness
// (spoketrace.PodReady), by UID. It belongs to the trace, not to the
// kubelet: it outlives kubelet processes and host incarnations, and no
// simulated behaviour reads it. A process that starts tracking a pod takes
// the API server's readiness as its view, as the prober keeps an adopted
// container's Ready (KEP-4781); when that view is not what the node last
// reported (a process stopped after reporting "not ready", before its
// status reached the API server), the new process reports it, so that a
// reader of the trace sees the view the kubelet acts on.
type readyLedger map[model.UID]bool

// startReadyView sets ps's readiness view to pod's readiness in the API
// server, reporting it when the node's last report differs.
func (p *process) startReadyView(ps *podState, pod *model.Pod) {
	view := model.IsPodReady(pod)
	ps.readyView = view
	if last, ok := p.k.traced[ps.uid]; ok && last != view {
		p.traceReady(ps, pod, view)
	}
}

// traceReady reports ps's readiness as ready, and keeps it as the view.
func (p *process) traceReady(ps *podState, pod *model.Pod, ready bool) {
	ps.readyView = ready
	p.k.traced[ps.uid] = ready
	p.h.Emit(&spoketrace.PodReady{Node: p.cfg.Node, Pod: model.KeyOf(pod).String(), UID: string(ps.uid), Ready: ready})
}
