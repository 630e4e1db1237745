package checks

import (
	"fmt"
	"slices"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// ProbeSemantics checks that a kubelet applies its probes' thresholds as
// the real prober does (k8s.io/kubernetes pkg/kubelet/prober, worker.go
// doProbe): a worker counts the same raw result in a row (resultRun), and
// its result changes only after failureThreshold failures, or
// successThreshold successes, in a row; a liveness failure at the
// threshold puts the worker on hold until the container runs again, and
// the kubelet kills the container. From ProbeWorker (a worker starts
// counting from zero, with its thresholds and initial result),
// ProbeResult (each raw outcome), ContainerStart, ContainerKill,
// ContainerStop and PodReady, it fails when:
//   - a container is killed for liveness (ContainerKill reason Liveness)
//     before its liveness probe failed failureThreshold times in a row;
//   - a container is killed because of readiness;
//   - a liveness worker probes again after failureThreshold failures in a
//     row (it is on hold), or the kubelet does not kill that container in
//     the same instant (a virtual time: the kubelet's pod sync follows the
//     result at once);
//   - a liveness or readiness probe runs before the run's startup probe
//     succeeded, or a startup probe runs again after it succeeded
//     (doProbe: "Disable other probes until container has started",
//     "Stop probing for startup once container has started");
//   - a container is killed for startup (ContainerKill reason Startup)
//     before its startup probe failed failureThreshold times in a row, or
//     a startup worker probes again after that (it is on hold), or the
//     kubelet does not kill that container in the same instant
//     (computePodActions kills on a startup failure as on a liveness one);
//   - at the end of an instant in which anything happened to a pod, the
//     readiness the kubelet reports (PodReady) is not the one its
//     containers' runs give: ready when every run is running (being
//     killed too: the readiness probe keeps running through the preStop
//     hook and SIGTERM until the container exits, doProbe's graceful
//     shutdown stops only liveness and startup probing), started (no
//     startup probe, or it succeeded) and past its readiness threshold;
//     not ready otherwise. So a pod leaves service only after
//     failureThreshold readiness failures in a row (or its container
//     stops), and comes back only after successThreshold successes in a
//     row.
//
// A pod reported not ready is judged only once the check knows all its
// containers (it was reported ready before: every container ran then).
// What a kubelet reports is unknown again after its host crashed or its
// process restarted (the new process starts from the API server's view),
// until it reports the pod again; an instant in which a fault hit the
// node's host is not judged. A restarted process has none of the old
// one's probe workers: a run it gives none (a pod already terminating,
// which the kubelet only stops) is started and, while it runs, ready, as
// the prober's UpdatePodStatus reports a container without workers.
type ProbeSemantics struct {
	names   map[sim.HostID]string // host -> node, learned from the events
	pods    map[string]*probePod  // by probePodKey
	now     sim.Time
	touched map[string]probeTouch // pods to judge at the end of the instant
	held    []probeHeld           // liveness runs that reached the threshold this instant
	faulted map[string]bool       // nodes whose host had a fault this instant
	rec     earliestOffenses

	results, failures, kills, exits int
}

// probePodKey keys a pod on a node.
func probePodKey(node, uid string) string { return node + "|" + uid }

// probeHeld is a liveness or startup run that reached its failure
// threshold, at the event of that result.
type probeHeld struct {
	pod       *probePod
	container string
	kind      int // probeLive or probeStart
	at        probeTouch
}

// probeTouch is the last event that touched a pod in the current instant.
type probeTouch struct {
	at  sim.Time
	seq uint64
}

// The workers of a run, by probe kind.
const (
	probeLive = iota
	probeReady
	probeStart
	probeKinds
)

// probeRun is the current run of one container on one node.
type probeRun struct {
	killed, stopped bool
	workers         [probeKinds]*probeCount // liveness, readiness, startup
}

// started reports whether the run has started: no startup worker, or its
// startup probe succeeded.
func (r *probeRun) started() bool {
	w := r.workers[probeStart]
	return w == nil || w.result
}

// probeCount is one probe worker as the check replays it.
type probeCount struct {
	success, failure int  // thresholds
	result           bool // after thresholds
	last             bool // the last raw outcome
	run              int  // how many times in a row it came
	held             bool // liveness past failureThreshold, startup past either threshold: on hold
}

// probePod is one pod on one node: what its kubelet reported, and the
// current run of each of its containers there.
type probePod struct {
	node     string
	key      string
	runs     map[string]*probeRun // by container
	known    bool                 // reported is known
	reported bool                 // the kubelet's last PodReady
	readySet []string             // its containers when last reported ready
}

// NewProbeSemantics returns the "probe-semantics" check.
func NewProbeSemantics() *ProbeSemantics {
	return &ProbeSemantics{names: map[sim.HostID]string{}, pods: map[string]*probePod{},
		touched: map[string]probeTouch{}, faulted: map[string]bool{}}
}

// Name implements Check.
func (c *ProbeSemantics) Name() string { return "probe-semantics" }

func probeIndex(kind string) int {
	switch kind {
	case spoketrace.ProbeLiveness:
		return probeLive
	case spoketrace.ProbeStartup:
		return probeStart
	}
	return probeReady
}

func (c *ProbeSemantics) pod(node, uid, key string) *probePod {
	k := probePodKey(node, uid)
	p := getOrNew(c.pods, k, func() *probePod { return &probePod{node: node, key: key, runs: map[string]*probeRun{}} })
	if key != "" {
		p.key = key
	}
	return p
}

func (c *ProbeSemantics) touch(e *sim.Event, node, uid string) {
	c.touched[probePodKey(node, uid)] = probeTouch{e.At, e.Seq}
}

func (c *ProbeSemantics) learn(e *sim.Event, node string) {
	if e.Host != sim.NoHost && node != "" {
		c.names[e.Host] = node
	}
}

// Observe implements Check.
func (c *ProbeSemantics) Observe(e *sim.Event) {
	if e.At > c.now {
		c.settle()
		c.now = e.At
	}
	if e.Kind == sim.KindFault {
		c.observeFault(e)
		return
	}
	switch d := e.NodeData().(type) {
	case *spoketrace.ContainerStart:
		c.learn(e, d.Node)
		c.pod(d.Node, d.UID, d.Pod).runs[d.Container] = &probeRun{}
		c.touch(e, d.Node, d.UID)
	case *spoketrace.ProbeWorker:
		c.learn(e, d.Node)
		r := c.pod(d.Node, d.UID, d.Pod).run(d.Container)
		kind := probeIndex(d.Probe)
		// A startup worker that starts out started (an adopted run the API
		// showed started) has nothing left to probe.
		r.workers[kind] = &probeCount{success: d.SuccessThreshold, failure: d.FailureThreshold, result: d.Initial,
			held: kind == probeStart && d.Initial}
		c.touch(e, d.Node, d.UID)
	case *spoketrace.ProbeResult:
		c.learn(e, d.Node)
		c.observeResult(e, d)
	case *spoketrace.ContainerKill:
		c.learn(e, d.Node)
		c.observeKill(e, d)
	case *spoketrace.ContainerStop:
		c.learn(e, d.Node)
		if r := c.pod(d.Node, d.UID, d.Pod).runs[d.Container]; r != nil {
			r.stopped = true
		}
		c.touch(e, d.Node, d.UID)
	case *spoketrace.PodReady:
		c.learn(e, d.Node)
		p := c.pod(d.Node, d.UID, d.Pod)
		p.known, p.reported = true, d.Ready
		if d.Ready {
			p.readySet = sim.SortedKeys(p.runs)
		}
		if !d.Ready {
			c.exits++
		}
		c.touch(e, d.Node, d.UID)
	}
}

// run returns the current run of a container, making one if the check
// missed its start.
func (p *probePod) run(container string) *probeRun {
	return getOrNew(p.runs, container, func() *probeRun { return &probeRun{} })
}

func (c *ProbeSemantics) observeResult(e *sim.Event, d *spoketrace.ProbeResult) {
	c.results++
	if !d.Success {
		c.failures++
	}
	p := c.pod(d.Node, d.UID, d.Pod)
	r := p.runs[d.Container]
	if r == nil {
		return
	}
	kind := probeIndex(d.Probe)
	w := r.workers[kind]
	if w == nil {
		c.rec.add(e.At, e.Seq, "%s probe of container %s of pod %s on %s without a probe worker", d.Probe, d.Container, d.Pod, d.Node)
		return
	}
	if kind != probeStart && !r.started() {
		c.rec.add(e.At, e.Seq, "%s probe of container %s of pod %s on %s ran before its startup probe succeeded (%s): the other probes wait until the container has started",
			d.Probe, d.Container, d.Pod, d.Node, r.workers[probeStart].describe())
		return
	}
	if w.held {
		if kind == probeStart && w.result {
			c.rec.add(e.At, e.Seq, "startup probe of container %s of pod %s on %s ran again after it succeeded: it stops once the container has started",
				d.Container, d.Pod, d.Node)
		} else {
			c.rec.add(e.At, e.Seq, "%s probe of container %s of pod %s on %s ran again after %d failures in a row (failureThreshold): the worker must hold until the container runs again",
				d.Probe, d.Container, d.Pod, d.Node, w.failure)
		}
		return
	}
	if w.run > 0 && w.last == d.Success {
		w.run++
	} else {
		w.last, w.run = d.Success, 1
	}
	threshold := w.failure
	if d.Success {
		threshold = w.success
	}
	if w.run < threshold {
		return
	}
	changed := w.result != d.Success
	w.result = d.Success
	switch {
	case kind == probeStart && d.Success:
		w.held = true // started: the startup probe is done
		changed = true
	case (kind == probeLive || kind == probeStart) && !d.Success:
		w.held, w.run = true, 0
		c.held = append(c.held, probeHeld{p, d.Container, kind, probeTouch{e.At, e.Seq}})
	}
	if changed {
		c.touch(e, d.Node, d.UID)
	}
}

func (c *ProbeSemantics) observeKill(e *sim.Event, d *spoketrace.ContainerKill) {
	c.kills++
	r := c.pod(d.Node, d.UID, d.Pod).run(d.Container)
	r.killed = true
	c.touch(e, d.Node, d.UID)
	switch d.Reason {
	case spoketrace.StopLiveness, spoketrace.StopStartup:
		kind, what := probeLive, "liveness"
		if d.Reason == spoketrace.StopStartup {
			kind, what = probeStart, "startup"
		}
		w := r.workers[kind]
		switch {
		case w == nil:
			c.rec.add(e.At, e.Seq, "container %s of pod %s on %s killed for %s without a %s probe worker", d.Container, d.Pod, d.Node, what, what)
		case !w.held || w.result:
			inRow := 0
			if !w.last {
				inRow = w.run
			}
			c.rec.add(e.At, e.Seq, "container %s of pod %s on %s killed for %s after %d failure(s) in a row (failureThreshold %d)",
				d.Container, d.Pod, d.Node, what, inRow, w.failure)
		}
	case spoketrace.StopReadiness:
		c.rec.add(e.At, e.Seq, "container %s of pod %s on %s killed because its readiness probe failed: readiness never kills", d.Container, d.Pod, d.Node)
	}
}

// observeFault clears what a crash ends and forgets what a kubelet
// reported when its process or host restarts; the instant is not judged
// on that node.
func (c *ProbeSemantics) observeFault(e *sim.Event) {
	node, ok := c.names[e.Host]
	if !ok {
		return
	}
	c.faulted[node] = true
	crash := sim.FaultKind(e.Name).CrashesHost()
	if !crash && e.Name != string(sim.FaultRestartProcess) {
		return
	}
	for _, k := range sim.SortedKeys(c.pods) {
		if p := c.pods[k]; p.node == node {
			p.known = false
			if crash {
				clear(p.runs)
				continue
			}
			// The old process's probe workers went with it: a run the new
			// one gives none (a pod already terminating) has none.
			// determinism: every run is reset alike, whatever the order
			for _, r := range p.runs {
				r.workers = [len(r.workers)]*probeCount{}
			}
		}
	}
}

// ready reports the readiness a run gives, and why not.
func (r *probeRun) ready() (bool, string) {
	switch {
	case r == nil || r.stopped:
		return false, "not running"
	}
	if !r.started() {
		return false, fmt.Sprintf("not started (startup %s)", r.workers[probeStart].describe())
	}
	if w := r.workers[probeReady]; w != nil && !w.result {
		return false, fmt.Sprintf("readiness not passed (%s)", w.describe())
	}
	return true, ""
}

// describe says where a worker's count stands.
func (w *probeCount) describe() string {
	what := "failure"
	if w.last {
		what = "success"
	}
	return fmt.Sprintf("%d %s(es) in a row; successThreshold %d, failureThreshold %d", w.run, what, w.success, w.failure)
}

// settle closes the instant: kills the kubelet owes, and each touched
// pod's reported readiness against its runs.
func (c *ProbeSemantics) settle() {
	for _, h := range c.held {
		r := h.pod.runs[h.container]
		if r == nil || r.killed || r.stopped || c.faulted[h.pod.node] {
			continue
		}
		what := "liveness"
		if h.kind == probeStart {
			what = "startup"
		}
		c.rec.add(h.at.at, h.at.seq, "%s probe of container %s of pod %s on %s failed %d times in a row, but the kubelet did not kill the container",
			what, h.container, h.pod.key, h.pod.node, r.workers[h.kind].failure)
	}
	c.held = c.held[:0]
	for _, k := range sim.SortedKeys(c.touched) {
		if p := c.pods[k]; p != nil && !c.faulted[p.node] {
			c.judgePod(p, c.touched[k])
		}
	}
	clear(c.touched)
	clear(c.faulted)
}

// judgePod compares a pod's reported readiness with its runs'.
func (c *ProbeSemantics) judgePod(p *probePod, at probeTouch) {
	if !p.known {
		return
	}
	containers := sim.SortedKeys(p.runs)
	if !p.reported {
		if p.readySet == nil {
			return // its containers are not all known
		}
		containers = p.readySet
	}
	expected, why := true, ""
	for _, name := range containers {
		if ok, reason := p.runs[name].ready(); !ok {
			expected, why = false, "container "+name+" "+reason
			break
		}
	}
	switch {
	case p.reported && !expected:
		c.rec.add(at.at, at.seq, "kubelet on %s reports pod %s ready, but %s", p.node, p.key, why)
	case !p.reported && expected:
		c.rec.add(at.at, at.seq, "kubelet on %s reports pod %s not ready, but every container runs and passes readiness: %s",
			p.node, p.key, p.describeReadiness(containers))
	}
}

// describeReadiness lists the readiness counts of a pod's containers.
func (p *probePod) describeReadiness(containers []string) string {
	var parts []string
	for _, name := range containers {
		r := p.runs[name]
		if w := r.workers[probeReady]; w != nil {
			parts = append(parts, name+": "+w.describe())
		} else {
			parts = append(parts, name+": no readiness worker")
		}
	}
	slices.Sort(parts)
	return fmt.Sprint(parts)
}

// Finish implements Check.
func (c *ProbeSemantics) Finish() Result {
	c.settle()
	return c.rec.result(c.Name(), fmt.Sprintf("%d probe result(s), %d failure(s); %d kill(s), %d readiness exit(s), each where the thresholds say",
		c.results, c.failures, c.kills, c.exits))
}

var _ Check = (*ProbeSemantics)(nil)
