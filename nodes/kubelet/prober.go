package kubelet

import (
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/spoketrace"
	"github.com/kubesim/kubesim/sim"
)

type probeKind uint8

const (
	liveness probeKind = iota
	readiness
)

// String is the kind's name in the trace.
func (k probeKind) String() string {
	if k == liveness {
		return spoketrace.ProbeLiveness
	}
	return spoketrace.ProbeReadiness
}

// containerProbes are the probe workers of one container run.
type containerProbes struct {
	inst                *instance
	liveness, readiness *probeWorker
}

func (cp *containerProbes) stop() {
	if cp.liveness != nil {
		cp.liveness.stop()
	}
	if cp.readiness != nil {
		cp.readiness.stop()
	}
}

// probeWorker probes one container run periodically, as the prober's
// worker: a result is set only after FailureThreshold failures (or
// SuccessThreshold successes) in a row; a liveness failure puts the worker
// on hold (it stops) until the container runs again.
type probeWorker struct {
	p      *process
	ps     *podState
	in     *instance
	kind   probeKind
	spec   model.Probe
	timer  *sim.Timer
	next   func()
	grid   sim.Time // probes start at grid + k*period
	result bool     // liveness: alive; readiness: ready
	// The last raw result and how many times in a row it came.
	last bool
	run  int
	// failures counts every failure since the worker started (only the
	// ProbeCountsTotalFailures ablation reads it).
	failures int
	failed   bool // the failure that kills the container was set
	stopped  bool
}

// defaultedProbe applies the API's probe defaults (period 10 s, timeout
// 1 s, success 1, failure 3) to a copy, in case a pod was stored without.
func defaultedProbe(pr model.Probe) model.Probe {
	if pr.TimeoutSeconds <= 0 {
		pr.TimeoutSeconds = model.DefaultProbeTimeoutSeconds
	}
	if pr.PeriodSeconds <= 0 {
		pr.PeriodSeconds = model.DefaultProbePeriodSeconds
	}
	if pr.SuccessThreshold <= 0 {
		pr.SuccessThreshold = model.DefaultProbeSuccessThreshold
	}
	if pr.FailureThreshold <= 0 {
		pr.FailureThreshold = model.DefaultProbeFailureThreshold
	}
	return pr
}

// ensureProbes gives a running container run its probe workers, once. A
// run started before this kubelet process (adopted after a kubelet restart)
// keeps the readiness the API server has for it (KEP-4781) and is first
// probed after a random part of the period, as the prober staggers its
// workers after a restart.
func (p *process) ensureProbes(ps *podState, in *instance, c *model.Container) {
	cp := ps.probes[c.Name]
	if cp != nil && cp.inst == in {
		return
	}
	if cp != nil {
		cp.stop()
	}
	cp = &containerProbes{inst: in}
	adopted := in.startedAt < p.started
	if c.LivenessProbe != nil {
		cp.liveness = p.newProbeWorker(ps, in, liveness, *c.LivenessProbe, adopted, true)
	}
	if c.ReadinessProbe != nil {
		ready := adopted && apiContainerReady(ps.pod, c.Name, in.startedAt)
		cp.readiness = p.newProbeWorker(ps, in, readiness, *c.ReadinessProbe, adopted, ready)
	}
	ps.probes[c.Name] = cp
}

// apiContainerReady reports whether the API server's status shows the
// container run that started at startedAt as ready.
func apiContainerReady(pod *model.Pod, name string, startedAt sim.Time) bool {
	for i := range pod.Status.ContainerStatuses {
		cs := &pod.Status.ContainerStatuses[i]
		if cs.Name == name && cs.State.Running != nil && cs.State.Running.StartedAt == model.Time(startedAt) {
			return cs.Ready
		}
	}
	return false
}

func (p *process) newProbeWorker(ps *podState, in *instance, kind probeKind, spec model.Probe, adopted, initial bool) *probeWorker {
	w := &probeWorker{p: p, ps: ps, in: in, kind: kind, spec: defaultedProbe(spec), result: initial}
	w.timer = p.newTimer("kubelet-probe", func() {
		if fn := w.next; fn != nil && !w.stopped {
			w.next = nil
			fn()
		}
	})
	now := p.h.Now()
	first := in.startedAt.Add(time.Duration(w.spec.InitialDelaySeconds) * time.Second)
	if adopted {
		offset := now.Add(time.Duration(p.probeRnd.Int64N(int64(w.period()))))
		first = max(first, offset)
	}
	first = max(first, now)
	w.grid = first
	w.arm(first.Sub(now), w.tick)
	p.h.Emit(&spoketrace.ProbeWorker{Node: p.cfg.Node, Pod: model.KeyOf(ps.pod).String(), UID: string(ps.uid),
		Container: in.rec.name, Probe: kind.String(), SuccessThreshold: int(w.spec.SuccessThreshold),
		FailureThreshold: int(w.spec.FailureThreshold), Initial: initial})
	return w
}

func (w *probeWorker) period() time.Duration {
	return time.Duration(w.spec.PeriodSeconds) * time.Second
}

func (w *probeWorker) arm(d time.Duration, fn func()) {
	w.next = fn
	w.timer.Reset(d)
}

func (w *probeWorker) stop() {
	w.stopped = true
	w.next = nil
	w.timer.Stop()
}

// alive reports whether the run can still be probed.
func (w *probeWorker) alive() bool {
	return w.in.state == stateRunning && !w.in.stopping
}

// tick starts a probe: it is answered after the application's answer time,
// or fails at the timeout if the application hangs or is slower.
func (w *probeWorker) tick() {
	if !w.alive() {
		w.stop()
		return
	}
	timeout := time.Duration(w.spec.TimeoutSeconds) * time.Second
	answer, answered, success := w.in.probe(w.kind)
	wait := timeout
	if answered && answer <= timeout {
		wait = answer // the answer, a success or a failure, comes in time
	} else {
		success = false // no answer within the timeout
	}
	w.arm(wait, func() { w.handleResult(success) })
}

// handleResult applies one probe's outcome and schedules the next probe
// at the next tick of the period.
func (w *probeWorker) handleResult(success bool) {
	if !w.alive() {
		w.stop()
		return
	}
	w.p.h.Emit(&spoketrace.ProbeResult{Node: w.p.cfg.Node, Pod: model.KeyOf(w.ps.pod).String(), UID: string(w.ps.uid),
		Container: w.in.rec.name, Probe: w.kind.String(), Success: success})
	if w.run > 0 && w.last == success {
		w.run++
	} else {
		w.last, w.run = success, 1
	}
	threshold, run := w.spec.FailureThreshold, w.run
	if success {
		threshold = w.spec.SuccessThreshold
	} else if w.p.cfg.Ablations.Has(ablation.ProbeCountsTotalFailures) {
		// The ablation: failures are counted since the worker started, as
		// if a success never broke a run of them.
		w.failures++
		run = w.failures
	}
	if run >= int(threshold) {
		w.set(success)
		if w.stopped {
			return
		}
	}
	now := w.p.h.Now()
	period := w.period()
	k := now.Sub(w.grid)/period + 1 // the first tick after now, as a ticker drops missed ticks
	next := w.grid.Add(k * period)
	w.arm(next.Sub(now), w.tick)
}

// set records a result past its threshold.
func (w *probeWorker) set(success bool) {
	changed := w.result != success
	w.result = success
	kills := w.kind == liveness || w.p.cfg.Ablations.Has(ablation.LivenessAsReadiness)
	if !success && kills {
		// The container must be killed: hold until it runs again.
		w.failed = true
		w.run = 0
		w.stop()
		w.p.enqueue(w.ps.uid)
		return
	}
	if changed {
		w.p.enqueue(w.ps.uid)
	}
}

// probeKill returns the reason to kill container name's run in, when one
// of its probes failed for good.
func (ps *podState) probeKill(name string, in *instance) string {
	cp := ps.probes[name]
	if cp == nil || cp.inst != in {
		return ""
	}
	if cp.liveness != nil && cp.liveness.failed {
		return spoketrace.StopLiveness
	}
	if cp.readiness != nil && cp.readiness.failed {
		return spoketrace.StopReadiness
	}
	return ""
}

// containerReady reports the Ready of a container's run: running, not
// being stopped, and its readiness probe (if any) passing.
func (ps *podState) containerReady(c *model.Container, in *instance) bool {
	if in == nil || in.state != stateRunning || in.stopping {
		return false
	}
	if c.ReadinessProbe == nil {
		return true
	}
	cp := ps.probes[c.Name]
	return cp != nil && cp.inst == in && cp.readiness != nil && cp.readiness.result
}
