package kubelet

import (
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/internal/defaults"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

type probeKind uint8

const (
	liveness probeKind = iota
	readiness
	startup
	numProbeKinds
)

// String is the kind's name in the trace.
func (k probeKind) String() string {
	switch k {
	case liveness:
		return spoketrace.ProbeLiveness
	case startup:
		return spoketrace.ProbeStartup
	}
	return spoketrace.ProbeReadiness
}

// containerProbes are the probe workers of one container run.
type containerProbes struct {
	inst                         *instance
	liveness, readiness, startup *probeWorker
}

func (cp *containerProbes) stop() {
	for _, w := range []*probeWorker{cp.startup, cp.liveness, cp.readiness} {
		if w != nil {
			w.stop()
		}
	}
}

// started reports whether the run counts as started: it has no startup
// probe, or its startup probe succeeded (prober_manager.go
// isContainerStarted; the API's containerStatuses[].started).
func (cp *containerProbes) started() bool {
	return cp.startup == nil || cp.startup.result
}

// probeWorker probes one container run periodically, as the prober's
// worker: a result is set only after FailureThreshold failures (or
// SuccessThreshold successes) in a row; a liveness failure puts the worker
// on hold (it stops) until the container runs again.
type probeWorker struct {
	p      *process
	ps     *podState
	cp     *containerProbes
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
	inFlight bool // a probe was started and its result is not in yet
}

// defaultedProbe applies the API's probe defaults (period 10 s, timeout
// 1 s, success 1, failure 3) to a copy, in case a pod was stored without.
func defaultedProbe(pr model.Probe) model.Probe {
	defaults.Positive(&pr.TimeoutSeconds, model.DefaultProbeTimeoutSeconds)
	defaults.Positive(&pr.PeriodSeconds, model.DefaultProbePeriodSeconds)
	defaults.Positive(&pr.SuccessThreshold, model.DefaultProbeSuccessThreshold)
	defaults.Positive(&pr.FailureThreshold, model.DefaultProbeFailureThreshold)
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
	if c.StartupProbe != nil {
		// A run a restarted kubelet adopts keeps the started the API
		// server shows for it, as isContainerStarted does while the
		// ChangeContainerStatusOnKubeletRestart gate is off (its default).
		started := adopted && apiContainerStatus(ps.pod, c.Name, in.startedAt, func(cs *model.ContainerStatus) bool {
			return model.Deref(cs.Started, false)
		})
		cp.startup = p.newProbeWorker(ps, cp, in, startup, *c.StartupProbe, adopted, started)
	}
	if c.LivenessProbe != nil {
		cp.liveness = p.newProbeWorker(ps, cp, in, liveness, *c.LivenessProbe, adopted, true)
	}
	if c.ReadinessProbe != nil {
		ready := adopted && apiContainerStatus(ps.pod, c.Name, in.startedAt, func(cs *model.ContainerStatus) bool { return cs.Ready })
		cp.readiness = p.newProbeWorker(ps, cp, in, readiness, *c.ReadinessProbe, adopted, ready)
	}
	ps.probes[c.Name] = cp
}

// apiContainerStatus reads field of the API server's status of the
// container run that started at startedAt; false when it shows none.
func apiContainerStatus(pod *model.Pod, name string, startedAt sim.Time, field func(*model.ContainerStatus) bool) bool {
	for i := range pod.Status.ContainerStatuses {
		cs := &pod.Status.ContainerStatuses[i]
		if cs.Name == name && cs.State.Running != nil && cs.State.Running.StartedAt == model.Time(startedAt) {
			return field(cs)
		}
	}
	return false
}

func (p *process) newProbeWorker(ps *podState, cp *containerProbes, in *instance, kind probeKind, spec model.Probe, adopted, initial bool) *probeWorker {
	w := &probeWorker{p: p, ps: ps, cp: cp, in: in, kind: kind, spec: defaultedProbe(spec), result: initial}
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

// alive reports whether the run can still be probed: a readiness worker
// probes while the container runs, through its preStop hook and after
// SIGTERM until it exits; the liveness and startup workers stop once the
// kubelet stops the container (doProbe, pkg/kubelet/prober/worker.go:
// "Graceful shutdown of the pod" stops only liveness and startup probing
// when the pod is being deleted, and a liveness or startup failure puts
// its worker on hold).
func (w *probeWorker) alive() bool {
	return w.in.state == stateRunning && (w.kind == readiness || !w.in.stopping)
}

// tick starts a probe: it is answered after the application's answer time,
// or fails at the timeout if the application hangs or is slower. As
// doProbe (pkg/kubelet/prober/worker.go), a startup worker probes only
// until the run has started, and the liveness and readiness workers only
// once it has: until then their ticks pass without a probe.
func (w *probeWorker) tick() {
	if !w.alive() {
		w.stop()
		return
	}
	if w.kind == startup && w.result {
		w.stop() // started: the startup probe has done its work
		return
	}
	if w.kind != startup && !w.cp.started() && !(w.kind == liveness && w.p.cfg.Ablations.Has(ablation.LivenessBeforeStartup)) {
		w.armNextTick()
		return
	}
	w.inFlight = true
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
	w.inFlight = false
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
	w.armNextTick()
}

// armNextTick schedules the next probe at the next tick of the period.
func (w *probeWorker) armNextTick() {
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
	if w.kind == startup && success {
		// Started: the startup worker holds (doProbe's onHold), the pod is
		// synced (the startup result's update), and the status update's
		// UpdatePodStatus triggers the readiness worker at once
		// (prober_manager.go, "Trigger an immediate run of the
		// readinessProbe"); liveness waits for its next tick.
		w.stop()
		if r := w.cp.readiness; r != nil && !r.stopped && !r.inFlight {
			r.arm(0, r.tick)
		}
		w.p.enqueue(w.ps.uid)
		return
	}
	// A liveness or startup failure at the threshold kills the container
	// (kuberuntime_manager.go computePodActions: "failed liveness probe",
	// "failed startup probe").
	kills := w.kind == liveness || w.kind == startup || w.p.cfg.Ablations.Has(ablation.LivenessAsReadiness)
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
	if cp.startup != nil && cp.startup.failed {
		return spoketrace.StopStartup
	}
	if cp.readiness != nil && cp.readiness.failed {
		return spoketrace.StopReadiness
	}
	return ""
}

// containerStarted reports the Started of a running container's run: it
// has no startup probe, or that probe succeeded (isContainerStarted).
func (ps *podState) containerStarted(c *model.Container, in *instance) bool {
	if c.StartupProbe == nil || ps.unprobed(c, in) {
		return true
	}
	cp := ps.probes[c.Name]
	return cp != nil && cp.inst == in && cp.started()
}

// unprobed reports a run of a pod being deleted that this process never
// gave probe workers: a kubelet that starts (or restarts) while the pod is
// already terminating syncs it only through SyncTerminatingPod, which
// stops liveness and startup probing and never calls the prober's AddPod.
// With no worker, the prober's UpdatePodStatus (pkg/kubelet/prober/
// prober_manager.go) reports the container started ("no startup probe")
// and, while it runs, ready ("no readinessProbe -> always ready").
func (ps *podState) unprobed(c *model.Container, in *instance) bool {
	if ps.pod == nil || ps.pod.DeletionTimestamp == nil {
		return false
	}
	cp := ps.probes[c.Name]
	return cp == nil || cp.inst != in
}

// containerReady reports the Ready of a container's run: running (being
// stopped too: its preStop hook and the time after SIGTERM until it exits),
// started, and its readiness probe (if any) passing (prober_manager.go
// UpdatePodStatus: Ready needs State.Running and a readiness success, and
// stays false until the container started), or no readiness worker at
// all for a run of a terminating pod (unprobed).
func (ps *podState) containerReady(c *model.Container, in *instance) bool {
	if in == nil || in.state != stateRunning || !ps.containerStarted(c, in) {
		return false
	}
	if c.ReadinessProbe == nil || ps.unprobed(c, in) {
		return true
	}
	cp := ps.probes[c.Name]
	return cp != nil && cp.inst == in && cp.readiness != nil && cp.readiness.result
}
