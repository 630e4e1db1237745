package checks

import (
	"fmt"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// MinGraceAfterPreStop is the least time the kubelet leaves SIGTERM
// before SIGKILL after a preStop hook (k8s.io/kubernetes pkg/kubelet/
// kuberuntime/kuberuntime_container.go killContainer,
// minimumGracePeriodInSeconds = 2).
const MinGraceAfterPreStop = 2 * time.Second

// TerminationTiming checks that a kubelet stops the containers of a
// deleted pod as the real kubelet's killContainer does, from each
// ContainerKill of reason Deleted to the ContainerStop of that run with
// the same reason, against the grace period the API server committed
// (deletionGracePeriodSeconds, else terminationGracePeriodSeconds):
//   - not before the preStop sleep the pod's committed spec gives the
//     container has run, up to the grace period (executePreStopHook waits
//     at most the grace period): SIGTERM comes only after the hook, so a
//     pod draining in its preStop sleep keeps serving;
//   - not after the SIGKILL deadline: the hook's time d = min(preStop,
//     grace), then what the grace period leaves, at least
//     MinGraceAfterPreStop (killContainer's floor), or the grace period
//     alone without a hook.
//
// The pod's spec and grace period are read from etcd's commits, not from
// the ContainerKill, which carries the kubelet's own word for them. A stop of a pod whose deletion was shortened since
// the kill (a force delete: deletionGracePeriodSeconds 0) is not judged
// against the hook, nor one on a node whose host had any fault (a crash,
// pause, clock fault, or a kubelet restart) between the kill and the
// stop: those move the kubelet's timers.
type TerminationTiming struct {
	revs    appliedRevs
	names   map[sim.HostID]string
	specs   map[string]*model.Pod              // by UID: the latest committed pod
	kills   map[string]map[string]*pendingKill // by pod UID, then container
	faulted map[string]sim.Time                // node -> its host's last fault
	rec     Recorder
	judged  int
	hooks   int
}

// pendingKill is a ContainerKill waiting for its ContainerStop.
type pendingKill struct {
	at              sim.Time
	reason          string
	grace, preStop  time.Duration
	node            string
	shortenedBefore bool // a later commit shortened the deletion
}

// NewTerminationTiming returns the "termination-timing" check.
func NewTerminationTiming() *TerminationTiming {
	return &TerminationTiming{names: map[sim.HostID]string{}, specs: map[string]*model.Pod{},
		kills: map[string]map[string]*pendingKill{}, faulted: map[string]sim.Time{}}
}

// Name implements Check.
func (c *TerminationTiming) Name() string { return "termination-timing" }

// Observe implements Check.
func (c *TerminationTiming) Observe(e *sim.Event) {
	if e.Kind == sim.KindFault {
		if node, ok := c.names[e.Host]; ok {
			c.faulted[node] = e.At
		}
		return
	}
	if d, ok := c.revs.of(e); ok {
		c.commit(d)
		return
	}
	switch d := e.Data.(type) {
	case *spoketrace.ContainerStart:
		c.names[e.Host] = d.Node
	case *spoketrace.ContainerKill:
		c.names[e.Host] = d.Node
		c.kill(e, d)
	case *spoketrace.ContainerStop:
		c.names[e.Host] = d.Node
		c.stop(e, d)
	}
}

func (c *TerminationTiming) commit(d *etcdtrace.Apply) {
	for ch := range registryChanges(d) {
		if ch.res != model.ResourcePodsName || ch.Type != etcdtrace.ChangePut {
			continue
		}
		o, err := model.Decode([]byte(ch.Value))
		if err != nil {
			continue // the API checks judge what does not decode
		}
		pod := o.(*model.Pod)
		uid := string(pod.UID)
		if g := pod.DeletionGracePeriodSeconds; g != nil {
			// determinism: each pending kill of the pod gets the same flag
			for _, pk := range c.kills[uid] {
				if time.Duration(*g)*time.Second < pk.grace {
					pk.shortenedBefore = true
				}
			}
		}
		c.specs[uid] = pod
	}
}

func (c *TerminationTiming) kill(e *sim.Event, d *spoketrace.ContainerKill) {
	pod := c.specs[d.UID]
	if d.Reason != spoketrace.StopDeleted || pod == nil {
		return
	}
	if c.kills[d.UID] == nil {
		c.kills[d.UID] = map[string]*pendingKill{}
	}
	if _, ok := c.kills[d.UID][d.Container]; ok {
		return // a kill of a run already being killed
	}
	// The grace period is the API's, not the kubelet's word for it: the
	// deletion's, or the pod's terminationGracePeriodSeconds.
	grace := model.Deref(pod.Spec.TerminationGracePeriodSeconds, model.DefaultTerminationGracePeriodSeconds)
	if pod.DeletionGracePeriodSeconds != nil {
		grace = *pod.DeletionGracePeriodSeconds
	}
	pk := &pendingKill{at: e.At, reason: d.Reason, grace: time.Duration(max(grace, 0)) * time.Second, node: d.Node}
	if ct := containerSpec(pod, d.Container); ct != nil {
		if s, ok := ct.PreStopSleep(); ok && s > 0 {
			pk.preStop = time.Duration(s) * time.Second
		}
	}
	c.kills[d.UID][d.Container] = pk
}

func (c *TerminationTiming) stop(e *sim.Event, d *spoketrace.ContainerStop) {
	pk, ok := c.kills[d.UID][d.Container]
	if !ok {
		return
	}
	delete(c.kills[d.UID], d.Container)
	if len(c.kills[d.UID]) == 0 {
		delete(c.kills, d.UID)
	}
	if d.Reason != pk.reason {
		return // it exited (or was stopped) for another reason first
	}
	if last, ok := c.faulted[pk.node]; ok && last >= pk.at {
		return
	}
	c.judged++
	took := e.At.Sub(pk.at)
	hook := min(pk.preStop, pk.grace)
	if hook > 0 && !pk.shortenedBefore {
		c.hooks++
		if took < hook {
			c.rec.Add(e, "container %s of pod %s on %s stopped %v after its kill (%s, grace %v), before its preStop sleep of %v ran out: SIGTERM comes only after the hook",
				d.Container, d.Pod, d.Node, took, pk.reason, pk.grace, pk.preStop)
		}
	}
	deadline := pk.grace
	if hook > 0 {
		deadline = hook + max(pk.grace-hook, MinGraceAfterPreStop)
	}
	if took > deadline {
		c.rec.Add(e, "container %s of pod %s on %s stopped %v after its kill (%s, grace %v, preStop %v), past its SIGKILL deadline of %v",
			d.Container, d.Pod, d.Node, took, pk.reason, pk.grace, pk.preStop, deadline)
	}
}

// containerSpec returns pod's container called name, or nil.
func containerSpec(pod *model.Pod, name string) *model.Container {
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == name {
			return &pod.Spec.Containers[i]
		}
	}
	return nil
}

// Finish implements Check.
func (c *TerminationTiming) Finish() Result {
	return c.rec.Result(c.Name(), fmt.Sprintf("%d container stop(s) after a kill judged, %d of them after a preStop hook: none before the hook ran out, none past the SIGKILL deadline", c.judged, c.hooks))
}
