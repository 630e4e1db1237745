package kubelet

import (
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// readyLedger is what the node's trace last said of each pod's readiness
// (spoketrace.PodReady), by UID. It belongs to the trace, not to the
// kubelet: it outlives kubelet processes and host incarnations, and no
// decision of the kubelet reads it. It keeps the trace's word and the
// kubelet's view one: a process that starts tracking a pod starts from
// the node's last report, so that its first sync reports any difference.
// Starting from the API server's Ready instead, a process that follows
// one stopped after reporting "not ready" but before its status reached
// the API server would find the stale Ready there, compute Ready, see no
// change and say nothing, and the trace would keep "not ready" for good.
type readyLedger map[model.UID]bool

// startReadyView sets ps's reported readiness when the process starts
// tracking pod: the node's last report of it, or, for a pod this node
// never reported, the API server's Ready.
func (p *process) startReadyView(ps *podState, pod *model.Pod) {
	if last, ok := p.k.traced[ps.uid]; ok {
		ps.readyView = last
		return
	}
	ps.readyView = model.IsPodReady(pod)
}

// traceReady reports ps's readiness as ready, and keeps it as the view.
func (p *process) traceReady(ps *podState, pod *model.Pod, ready bool) {
	ps.readyView = ready
	p.k.traced[ps.uid] = ready
	p.h.Emit(&spoketrace.PodReady{Node: p.cfg.Node, Pod: model.KeyOf(pod).String(), UID: string(ps.uid), Ready: ready})
}
