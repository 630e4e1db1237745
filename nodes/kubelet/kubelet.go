package kubelet

import (
	"strconv"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/nodes/internal/supervise"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// Kubelet is the kubelet of one host incarnation: the container runtime
// and the kubelet process running on it. Boot exposes it under ExposeName
// for tests; the process restarts only through a restart-process fault.
type Kubelet struct {
	h   *sim.Host
	inc uint64 // the host incarnation it belongs to
	cfg Config
	rt  *runtime
	// procs runs the kubelet process, one at a time.
	procs supervise.Supervisor[*process]
	// forward is the client of the application requests the node
	// forwards (netstack.go).
	forward *sim.RPC
	// traced is the node's readiness ledger (readyLedger), shared by
	// every incarnation of the host.
	traced readyLedger
}

// Boot returns the Boot of a kubelet host: it builds an empty container
// runtime, starts the kubelet process on it, registers the process's
// restart (the host's HostSpec.Processes must declare Process), installs
// the node's application traffic (AppPort) and exposes the Kubelet under
// ExposeName.
func Boot(cfg Config) func(*sim.Host) {
	traced := readyLedger{}
	return func(h *sim.Host) {
		c := cfg.withDefaults(h)
		k := &Kubelet{h: h, inc: h.Incarnation(), cfg: c, rt: newRuntime(h, c.Node), traced: traced}
		k.startNetstack()
		k.procs.New = func() *process { return newProcess(k) }
		k.procs.Restart()
		h.OnProcessRestart(Process, k.restart)
		h.Expose(ExposeName, k)
	}
}

// Node returns the node's name.
func (k *Kubelet) Node() string { return k.cfg.Node }

// Generation counts the kubelet processes of this host incarnation, from 1.
func (k *Kubelet) Generation() int { return k.procs.Started() }

// restart restarts the kubelet process, not the host (systemctl restart
// kubelet): every piece of kubelet state (informer, timers, probe workers,
// crash-loop back-offs, status manager, API client) is dropped and
// rebuilt; the runtime and its containers survive, and the new process
// adopts them. The kernel calls it for a restart-process fault, only on a
// running host of this incarnation.
func (k *Kubelet) restart() { k.procs.Restart() }

// process is one run of the kubelet process. Every callback it arms checks
// stopped first, so that nothing of a stopped process acts again.
type process struct {
	k      *Kubelet
	h      *sim.Host
	cfg    Config
	rt     *runtime
	client *client.Client
	// hbClient is the client of the node status and the Lease.
	hbClient *client.Client
	pods     *cache.Informer
	// Jitter streams: the lease and node status loops, probe offsets.
	leaseRnd, statusRnd, probeRnd *sim.Stream
	started                       sim.Time
	stopped                       bool
	nodeIP                        string

	tracked    map[model.UID]*podState
	dirty      []model.UID
	dirtySet   map[model.UID]bool
	flushTimer *sim.Timer
	flushArmed bool
	backoff    *crashBackoff

	node  nodeState
	lease leaseState
	// lastRenew is when the node Lease was last renewed (or the process
	// started), for the FailClosed ablation.
	lastRenew sim.Time
}

func newProcess(k *Kubelet) *process {
	p := &process{
		k: k, h: k.h, cfg: k.cfg, rt: k.rt,
		leaseRnd:  k.h.Rand("kubelet/lease-jitter"),
		statusRnd: k.h.Rand("kubelet/node-status-jitter"),
		probeRnd:  k.h.Rand("kubelet/probe-offset"),
		started:   k.h.Now(),
		lastRenew: k.h.Now(),
		nodeIP:    nodeIP(k.h.ID()),
		tracked:   make(map[model.UID]*podState),
		dirtySet:  make(map[model.UID]bool),
		backoff:   newCrashBackoff(k.cfg.BackoffInitial, k.cfg.BackoffMax),
	}
	ccfg := client.Config{Name: k.cfg.Node, User: "system:node:" + k.cfg.Node, Servers: k.cfg.Servers}
	p.client = client.New(k.h, ccfg.ForProcess(k.Generation()))
	// The heartbeat client: node status and Lease updates, with a request
	// timeout of min(nodeStatusUpdateFrequency, nodeLeaseDurationSeconds),
	// as cmd/kubelet/app/server.go (run) builds heartbeatClientConfig;
	// every other client of the kubelet has none.
	hcfg := client.Config{Name: k.cfg.Node + "/heartbeat", User: ccfg.User, Servers: k.cfg.Servers,
		Timeout: min(k.cfg.NodeStatusUpdateFrequency, k.cfg.LeaseDuration)}
	p.hbClient = client.New(k.h, hcfg.ForProcess(k.Generation()))
	return p
}

// nodeIP is the node's InternalIP, derived from its host index.
func nodeIP(id sim.HostID) string {
	n := int(id) + 1
	return "10.0." + strconv.Itoa(n/256%256) + "." + strconv.Itoa(n%256)
}

// Start runs the process: its informer, its registration and its loops.
func (p *process) Start() {
	alloc := p.cfg.Capacity
	p.h.Emit(&spoketrace.NodeAllocatable{Node: p.cfg.Node, CPU: int64(alloc[model.ResourceCPU]),
		Memory: int64(alloc[model.ResourceMemory]), Pods: int64(alloc[model.ResourcePods])})
	p.flushTimer = p.newTimer("kubelet-sync", p.flush)
	p.rt.notify = p.handleRuntimeEvent
	p.pods = cache.NewInformer(p.client, cache.InformerConfig{ReflectorConfig: cache.ReflectorConfig{
		Resource: model.ResourcePodsName,
	}})
	p.pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    p.handlePodAdd,
		UpdateFunc: p.handlePodUpdate,
		DeleteFunc: p.handlePodDelete,
	})
	p.pods.Run()
	p.startNodeRegistration()
	p.startLease()
	p.every(p.cfg.SyncFrequency, "kubelet-resync", p.syncAll)
	p.every(p.cfg.StatusSyncPeriod, "kubelet-status-sync", p.syncStatuses)
	p.every(p.cfg.HousekeepingPeriod, "kubelet-housekeeping", p.housekeep)
}

// Stop ends the process: every callback it armed does nothing.
func (p *process) Stop() {
	p.stopped = true
	p.pods.Stop()
	p.rt.notify = nil
}

// newTimer makes a timer whose callback does nothing once p stopped.
func (p *process) newTimer(name string, fn func()) *sim.Timer {
	return p.h.NewTimer(name, func() {
		if !p.stopped {
			fn()
		}
	})
}

// after runs fn after d unless p stopped.
func (p *process) after(d time.Duration, name string, fn func()) *sim.Timer {
	t := p.newTimer(name, fn)
	t.Reset(d)
	return t
}

// every runs fn every period, from one period after now.
func (p *process) every(period time.Duration, name string, fn func()) {
	var t *sim.Timer
	t = p.newTimer(name, func() {
		fn()
		t.Reset(period)
	})
	t.Reset(period)
}

// jittered is wait.Jitter(d, 0.04), the jitter of the kubelet's node status
// and node lease loops.
func jittered(d time.Duration, rnd *sim.Stream) time.Duration {
	return client.Jitter(d, 0.04, rnd)
}

// handleRuntimeEvent is the PLEG: a container of pod uid changed state.
func (p *process) handleRuntimeEvent(uid model.UID) { p.enqueue(uid) }

// enqueue asks for a sync of pod uid; syncs run in a batch right after the
// current event, once per pod, in the order asked.
func (p *process) enqueue(uid model.UID) {
	if p.stopped {
		return
	}
	if !p.dirtySet[uid] {
		p.dirtySet[uid] = true
		p.dirty = append(p.dirty, uid)
	}
	if !p.flushArmed {
		p.flushArmed = true
		p.flushTimer.Reset(0)
	}
}

func (p *process) flush() {
	batch := p.dirty
	p.dirty = nil
	p.flushArmed = false
	p.admitBatch(batch)
	for _, uid := range batch {
		delete(p.dirtySet, uid)
		p.syncPod(uid)
	}
}

// syncAll is the periodic sync (syncFrequency) of every pod.
func (p *process) syncAll() {
	for _, uid := range sim.SortedKeys(p.tracked) {
		p.enqueue(uid)
	}
}

// housekeep kills the containers of pods the API server no longer has
// (HandlePodCleanups), once the informer has listed.
func (p *process) housekeep() {
	if p.fenced() {
		for _, uid := range sim.SortedKeys(p.rt.sandboxes) {
			p.rt.removeSandbox(uid)
		}
		return
	}
	if !p.pods.HasSynced() {
		return
	}
	for _, uid := range sim.SortedKeys(p.rt.sandboxes) {
		if p.tracked[uid] == nil {
			p.rt.removeSandbox(uid)
		}
	}
}

// fenced reports the FailClosed ablation's state: the node Lease has not
// been renewed for a lease duration, so this kubelet fences itself off.
func (p *process) fenced() bool {
	return p.cfg.Ablations.Has(ablation.FailClosed) && p.h.Now().Sub(p.lastRenew) > p.cfg.LeaseDuration
}
