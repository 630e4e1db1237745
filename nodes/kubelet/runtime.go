package kubelet

import (
	"strconv"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// instState is where one container run is in its life.
type instState uint8

const (
	stateCreating instState = iota // Waiting/ContainerCreating
	stateRunning
	stateExited
)

// runtime is the simulated container runtime of one host incarnation: the
// ground truth of which containers run. It outlives kubelet process
// restarts (the new kubelet adopts its containers) and dies with the host.
// It tells the current kubelet of every container state change through
// notify, as the PLEG would.
type runtime struct {
	h         *sim.Host
	node      string
	rnd       *sim.Stream // default start latencies
	sandboxes map[model.UID]*sandbox
	byIP      map[string]*sandbox // the sandboxes by pod IP
	ipNext    int
	notify    func(uid model.UID)
}

// sandbox is one pod's sandbox: its identity, IP and containers.
type sandbox struct {
	uid   model.UID
	key   string // namespace/name
	owner string // controller owner's UID
	ip    string
	// requests are the pod's, for the admission of other pods.
	requests model.ResourceList
	records  []*record // in creation order
}

// record is one container of a sandbox across its runs.
type record struct {
	name string
	cur  *instance // the current run; nil before the first or after a cancelled start
	last *instance // the previous run, terminated
	// seedLast is the last termination the API server knew of, for a
	// container this runtime has not run before (after a host crash).
	seedLast *model.ContainerStateTerminated
	// base is the restart count of the first start in this runtime.
	base int
}

// instance is one run of a container.
type instance struct {
	rt       *runtime
	sb       *sandbox
	rec      *record
	restarts int
	app      appSpec
	state    instState

	startedAt, finishedAt sim.Time
	exitCode              int

	stopping   bool // the kubelet asked it to stop
	stopReason string
	byProbe    bool // stopped after a probe failure
	hungAtStop bool // hung when SIGTERM came
	// preStopUntil is when the preStop sleep ends (0: none ran);
	// sigtermAt when SIGTERM came (0: not yet).
	preStopUntil, sigtermAt sim.Time
	// unhealthyAtStop: not healthy when the kubelet asked it to stop.
	unhealthyAtStop bool
	killAt          sim.Time // SIGKILL deadline while stopping
	// askedKill is the earliest end of a grace period the kubelet asked
	// for: killAt, unless a preStop hook pushed that further.
	askedKill sim.Time

	timer  *sim.Timer // the next transition: started, exited, killed
	next   func()
	nextAt sim.Time

	// patternNext counts, per probe kind and pattern window, the probes
	// answered from the window so far.
	patternNext [numProbeKinds][]int
	// failingLiveness: the liveness endpoint's last answer was a
	// failure (a pattern's F): the application says it is unhealthy.
	failingLiveness bool
}

func newRuntime(h *sim.Host, node string) *runtime {
	return &runtime{h: h, node: node, rnd: h.Rand("runtime/start-latency"), sandboxes: make(map[model.UID]*sandbox),
		byIP: make(map[string]*sandbox)}
}

func (rt *runtime) changed(uid model.UID) {
	if rt.notify != nil {
		rt.notify(uid)
	}
}

// sandbox returns the pod's sandbox, or nil.
func (rt *runtime) sandbox(uid model.UID) *sandbox { return rt.sandboxes[uid] }

// ensureSandbox returns the pod's sandbox, creating it (with a fresh IP).
func (rt *runtime) ensureSandbox(pod *model.Pod) *sandbox {
	if sb := rt.sandboxes[pod.UID]; sb != nil {
		return sb
	}
	sb := &sandbox{uid: pod.UID, key: model.KeyOf(pod).String(), ip: rt.allocateIP(), requests: model.PodRequests(pod)}
	if ref := model.GetControllerOf(pod); ref != nil {
		sb.owner = string(ref.UID)
	}
	rt.sandboxes[pod.UID] = sb
	rt.byIP[sb.ip] = sb
	return sb
}

// allocateIP hands out 10.244.<host>.<n>, n cycling in [2, 254] and
// skipping addresses in use: deterministic, and unique on the node.
func (rt *runtime) allocateIP() string {
	used := make(map[string]bool, len(rt.sandboxes))
	// determinism: collecting a set; the order cannot show.
	for _, sb := range rt.sandboxes {
		used[sb.ip] = true
	}
	prefix := "10.244." + strconv.Itoa(int(rt.h.ID())%256) + "."
	for i := 0; i < 253; i++ {
		n := 2 + (rt.ipNext+i)%253
		ip := prefix + strconv.Itoa(n)
		if !used[ip] {
			rt.ipNext = n - 1
			return ip
		}
	}
	return prefix + "255" // more than 253 pods on one node: not reached (max pods 110)
}

// removeSandbox SIGKILLs what still runs in the pod (StopDeleted) and
// forgets it.
func (rt *runtime) removeSandbox(uid model.UID) {
	sb := rt.sandboxes[uid]
	if sb == nil {
		return
	}
	for _, rec := range sb.records {
		if rec.cur != nil && rec.cur.state != stateExited {
			rt.stop(rec.cur, 0, -1, spoketrace.StopDeleted, false)
		}
	}
	delete(rt.sandboxes, uid)
	delete(rt.byIP, sb.ip)
}

// record returns the sandbox's container called name, or nil.
func (sb *sandbox) record(name string) *record {
	for _, r := range sb.records {
		if r.name == name {
			return r
		}
	}
	return nil
}

// addRecord adds container name, whose first start here counts base
// restarts and whose last termination before that was seedLast.
func (sb *sandbox) addRecord(name string, base int, seedLast *model.ContainerStateTerminated) *record {
	r := &record{name: name, base: base, seedLast: seedLast}
	sb.records = append(sb.records, r)
	return r
}

// nextRestarts is the restart count of the record's next start.
func (r *record) nextRestarts() int {
	switch {
	case r.cur != nil:
		return r.cur.restarts + 1
	case r.last != nil:
		return r.last.restarts + 1
	}
	return r.base
}

// start creates a new run of rec; it starts running after its start
// latency.
func (rt *runtime) start(sb *sandbox, rec *record, app appSpec) *instance {
	in := &instance{rt: rt, sb: sb, rec: rec, restarts: rec.nextRestarts(), app: app,
		state: stateCreating}
	if rec.cur != nil && rec.cur.state == stateExited {
		rec.last = rec.cur
	}
	rec.cur = in
	in.timer = rt.h.NewTimer("runtime-container", func() {
		if fn := in.next; fn != nil {
			in.next = nil
			fn()
		}
	})
	in.arm(app.startLatency, in.run)
	return in
}

// arm schedules fn as the instance's next transition, replacing any other.
func (in *instance) arm(d time.Duration, fn func()) {
	in.next = fn
	in.nextAt = in.rt.h.Now().Add(d)
	in.timer.Reset(d)
}

// armFirst arms fn unless the transition already armed (the application
// exiting by itself) comes no later.
func (in *instance) armFirst(d time.Duration, fn func()) {
	if in.next != nil && in.nextAt <= in.rt.h.Now().Add(d) {
		return
	}
	in.arm(d, fn)
}

func (in *instance) disarm() {
	in.next = nil
	in.timer.Stop()
}

// run: the container is running.
func (in *instance) run() {
	rt := in.rt
	in.state = stateRunning
	in.startedAt = rt.h.Now()
	rt.h.Emit(&spoketrace.ContainerStart{Node: rt.node, Pod: in.sb.key, UID: string(in.sb.uid),
		Owner: in.sb.owner, Container: in.rec.name, Restarts: in.restarts})
	if in.app.exits {
		in.arm(in.app.exitAfter, func() { in.finish(in.app.exitCode, spoketrace.StopExited) })
	}
	rt.changed(in.sb.uid)
}

// hung reports whether the application hangs at t.
func (in *instance) hung(t sim.Time) bool {
	return in.state == stateRunning && in.app.hangs && t >= in.startedAt.Add(in.app.hangAfter)
}

// probe answers a probe of kind started now: how long the answer takes
// and whether it is a success; answered is false when no answer will ever
// come (the application hangs).
func (in *instance) probe(kind probeKind) (answer time.Duration, answered, success bool) {
	now := in.rt.h.Now()
	if in.state != stateRunning || in.hung(now) || in.shutDown(now) {
		return 0, false, false
	}
	success = true
	if now < in.startedAt.Add(in.app.warmup) {
		// Still warming up: every endpoint answers with a failure.
		success = false
	} else if w := in.app.patternWindowAt(kind, now); w >= 0 {
		if in.patternNext[kind] == nil {
			in.patternNext[kind] = make([]int, len(in.app.patterns[kind]))
		}
		results := in.app.patterns[kind][w].value
		success = results[in.patternNext[kind][w]%len(results)]
		in.patternNext[kind][w]++
	}
	if kind == liveness {
		in.failingLiveness = !success
	}
	return in.app.answerTime(now), true, success
}

// shutDown reports whether the application stopped accepting connections
// after SIGTERM (once its serve-after-SIGTERM time is over): its probes
// are refused, as its users' requests are.
func (in *instance) shutDown(t sim.Time) bool {
	return in.sigtermAt != 0 && t >= in.sigtermAt.Add(in.app.serveAfterSigterm)
}

// healthy is the ground truth ContainerStop reports: the application
// neither hangs nor says, through its liveness endpoint, that it is
// unhealthy.
func (in *instance) healthy(t sim.Time) bool {
	return !in.hung(t) && !in.failingLiveness
}

// stop asks the runtime to stop a container, as the kubelet's
// killContainer (pkg/kubelet/kuberuntime/kuberuntime_container.go) and CRI
// StopContainer: a creating one is abandoned (it never ran, so nothing is
// traced); a running one first gets its preStop sleep (preStop >= 0; -1:
// none), if grace leaves time for it, then SIGTERM, and is SIGKILLed at the
// end of the grace period (at once with grace 0). The grace period counts
// from the stop, preStop included; as killContainer does, SIGTERM always
// leaves the application at least MinGraceAfterPreStop before SIGKILL. A
// second stop can only bring the SIGKILL deadline closer.
func (rt *runtime) stop(in *instance, grace, preStop time.Duration, reason string, byProbe bool) {
	now := rt.h.Now()
	if grace < 0 {
		grace = 0
	}
	switch in.state {
	case stateExited:
		return
	case stateCreating:
		in.disarm()
		in.state = stateExited
		in.rec.cur = nil
		rt.changed(in.sb.uid)
		return
	}
	if in.stopping {
		deadline := now.Add(grace)
		if deadline >= in.askedKill {
			return // every sync of a terminating pod asks again
		}
		in.askedKill, in.killAt = deadline, min(in.killAt, deadline)
		if grace == 0 {
			in.finish(exitSIGKILL, in.stopReason)
			return
		}
		if in.next == nil || in.nextAt > deadline {
			in.arm(grace, func() { in.finish(exitSIGKILL, in.stopReason) })
		}
		return
	}
	in.stopping, in.stopReason, in.byProbe = true, reason, byProbe
	in.unhealthyAtStop = !in.healthy(now)
	kill := &spoketrace.ContainerKill{Node: rt.node, Pod: in.sb.key, UID: string(in.sb.uid),
		Container: in.rec.name, Reason: reason, Grace: int64(grace / time.Second)}
	in.killAt = now.Add(grace)
	in.askedKill = in.killAt
	if preStop >= 0 && grace > 0 {
		// The hook runs within the grace period (executePreStopHook waits
		// at most gracePeriod); what it leaves, at least the minimum, is
		// SIGTERM's.
		d := min(preStop, grace)
		in.killAt = now.Add(d + max(grace-d, MinGraceAfterPreStop))
		kill.PreStop = int64(preStop / time.Second)
		rt.h.Emit(kill)
		if d > 0 {
			in.preStopUntil = now.Add(d)
			in.armFirst(d, in.sigterm)
			rt.changed(in.sb.uid) // the kubelet sees it terminating
			return
		}
	} else {
		rt.h.Emit(kill)
	}
	in.sigterm()
	if in.state != stateExited {
		rt.changed(in.sb.uid) // the kubelet sees it terminating
	}
}

// MinGraceAfterPreStop is the least time SIGTERM leaves before SIGKILL
// after a preStop hook: killContainer's floor, minimumGracePeriodInSeconds
// (2 s), a minimal shutdown window against needless SIGKILLs.
const MinGraceAfterPreStop = 2 * time.Second

// sigterm delivers SIGTERM to a stopping container: an application that
// does not handle it dies of it; one that hangs ignores it until SIGKILL;
// any other keeps serving for its serve-after-sigterm time, then takes its
// shutdown time to exit, unless SIGKILL comes first.
func (in *instance) sigterm() {
	now := in.rt.h.Now()
	in.sigtermAt = now
	in.hungAtStop = in.hung(now)
	left := in.killAt.Sub(now)
	exit := in.app.serveAfterSigterm + in.app.shutdown
	switch {
	case left <= 0:
		in.finish(exitSIGKILL, in.stopReason)
	case in.app.shutdown == 0 && !in.hungAtStop:
		in.finish(exitSIGTERM, in.stopReason)
	case exit <= left && !in.hungAtStop:
		in.armFirst(exit, func() { in.finish(exitGraceful, in.stopReason) })
	default: // a hung application ignores SIGTERM too
		in.armFirst(left, func() { in.finish(exitSIGKILL, in.stopReason) })
	}
}

// finish: the container exited with code; reason is the trace's.
func (in *instance) finish(code int, reason string) {
	if in.state == stateExited {
		return
	}
	rt := in.rt
	now := rt.h.Now()
	healthy := in.healthy(now)
	if in.stopping {
		healthy = !in.unhealthyAtStop
	}
	in.disarm()
	in.state = stateExited
	in.finishedAt = now
	in.exitCode = code
	rt.h.Emit(&spoketrace.ContainerStop{Node: rt.node, Pod: in.sb.key, UID: string(in.sb.uid),
		Container: in.rec.name, Reason: reason, ExitCode: code, Healthy: healthy})
	rt.changed(in.sb.uid)
}
