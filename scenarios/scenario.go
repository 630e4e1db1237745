// Package scenarios turns kubesim's parts into runnable worlds: a scenario
// is data (topology, member count, workload, fault schedule, duration, checks
// and ablations), and Run builds the world from one seed, runs it and judges
// it. Package catalogue registers the named scenarios (Register); a user
// can register their own.
// Package nemesis draws and drives their faults, package metrics measures
// their runs, and package checks judges them.
package scenarios

import (
	"fmt"
	"io"
	"maps"
	"strings"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/metrics"
	"github.com/kubesim/kubesim/nodes/apiserver"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// Spec is a named scenario: data that says what world to build, what
// faults to inject and what to judge. Every scenario, of every layer, is a
// Spec literal: an etcd scenario sets neither API nor Stack, an API
// scenario sets API, a full-stack one Stack. The layers' checks come with
// the layers; Build adds what is the scenario's own.
type Spec struct {
	Name        string
	Description string
	// Duration is the default virtual run length, settle window included
	// (default: 2 min for etcd scenarios, APIDuration for API ones).
	Duration time.Duration
	// Settle is the fault-free window at the end, before the final checks
	// (default: 20 s for etcd scenarios, APISettle for API ones).
	Settle time.Duration
	// Topology sizes the etcd cluster for a member count (default:
	// DefaultTopology, with the KV workload, for etcd scenarios;
	// APIEtcdTopology, without it, under the API layer and the stack).
	Topology func(members int) Topology
	// API, when set, builds the API layer on etcd (BuildAPI); its checks
	// are checks.ForLayer("api").
	API *APITopology
	// Stack, when set, builds the whole control plane on etcd (BuildStack);
	// its checks are checks.ForLayer("stack").
	Stack *StackTopology
	// Faults draws the fault schedule from the scenario's random stream,
	// given what a nemesis sees of the built world (package nemesis holds
	// the generators). Faults end before Duration-Settle.
	Faults func(c *nemesis.Cluster, rng *sim.Stream, faultEnd time.Duration) sim.Schedule
	// Driver, when set, installs a reactive nemesis once the world is
	// built: it may schedule callbacks (c.World.At, After), read what the
	// trace told c.Leader, subscribe to the trace, and inject faults with
	// c.World.Inject, so that every fault it makes is a trace event. It must
	// leave the network healed and every member restarted by faultEnd. An
	// explicit Schedule or a Profile replaces it, as it replaces Faults.
	Driver func(c *nemesis.Cluster, rng *sim.Stream, faultEnd time.Duration)
	// Build, when set, runs once the layers are built and before the
	// faults are drawn: it may build more of the world, and returns the
	// scenario's own checks, which run beside its layers' checks.
	Build func(c *Cluster, env Env) ([]checks.Check, error)
	// Members are the etcd member counts TestCatalogue runs the scenario
	// with (default 3, 4 and 5; 3 and 5 for the full stack), and Seeds how
	// many seeds the deep catalogue runs (default 100; 50 for the full
	// stack). Any member count can still be asked for.
	Members []int
	Seeds   int
	// MinMembers is the fewest etcd members the scenario supports
	// (default 1; at most MaxMembers are ever supported), with Why saying
	// what needs them: Prepare refuses fewer, naming the range, rather
	// than report a run that cannot do what the scenario says as a failed
	// check.
	MinMembers    int
	MinMembersWhy string
	// EtcdClients names the hosts besides the API servers that may reach
	// etcd's client port (with role RoleEtcdOperator): an operator's
	// backup job on the stack, which runs etcdctl with etcd's client
	// certificates. The access check allows them.
	EtcdClients []string
	// BugHunt are the scenario's runs in the bug-hunt set
	// (internal/bughunt.Matrix): every ablation the scenario proves (a
	// switch's Scenario in package ablation) needs a run here that catches
	// it, or TestBugHuntCatchesAblations fails.
	BugHunt []BugHuntRun
}

// Env is what Spec.Build knows of the run.
type Env struct {
	// Ablations are the run's switches, for anything Build boots.
	Ablations ablation.Set
	// FaultEnd is when the faults end; End is the run's length.
	FaultEnd, End time.Duration
}

// SupportsMembers says whether the scenario runs with n etcd members, and
// if not, which counts it supports and why.
func (s Spec) SupportsMembers(n int) error {
	lo := max(s.MinMembers, 1)
	if n < 1 || n > MaxMembers {
		return fmt.Errorf("--members must be between %d and %d, got %d", lo, MaxMembers, n)
	}
	if n < lo {
		return fmt.Errorf("%s supports %d to %d etcd members, not %d: %s", s.Name, lo, MaxMembers, n, s.MinMembersWhy)
	}
	return nil
}

// Layer names the highest layer a scenario builds: "etcd", "api" or
// "stack".
func (s Spec) Layer() string {
	switch {
	case s.Stack != nil:
		return "stack"
	case s.API != nil:
		return "api"
	}
	return "etcd"
}

// Options selects one run of a scenario.
type Options struct {
	Scenario string
	Members  int
	Seed     uint64
	Duration time.Duration // 0: the scenario's default
	// Schedule, when non-nil, replaces the scenario's generated faults.
	Schedule sim.Schedule
	// Profile, when set, draws the faults instead (sweeps use it).
	Profile *nemesis.Profile
	// Ablations names switches from the ablation registry to turn on.
	Ablations []string
	// Clients and Think, when set, override the workload's number of KV
	// clients and their mean pause between operations.
	Clients int
	Think   time.Duration
	// Compaction, when set, overrides the interval of the etcd scenarios'
	// compactor (kube-apiserver's --etcd-compaction-interval, which an
	// operator sets); negative turns compaction off.
	Compaction time.Duration
	// PinClients, when set, gives each KV client one member only
	// (Topology.PinClients).
	PinClients bool
	// Buggify switches BUGGIFY on: the node packages' points
	// (sim.BuggifyPoints), each active or not as the seed draws, take
	// their rare but legal paths now and then. Off, a run is what it
	// always was.
	Buggify bool
	// Trace and Timeline, when set, receive the trace as JSONL and as text.
	Trace, Timeline io.Writer
}

// Result is the outcome of one run: what `kubesim run --json` prints.
type Result struct {
	Scenario       string             `json:"scenario"`
	Members        int                `json:"members"`
	Seed           uint64             `json:"seed"`
	Ablations      []string           `json:"ablations,omitempty"`
	VirtualSeconds float64            `json:"virtual_seconds"`
	WallSeconds    float64            `json:"wall_seconds"`
	Events         uint64             `json:"events"`
	TraceHash      string             `json:"trace_hash"`
	OK             bool               `json:"ok"`
	Checks         []checks.Result    `json:"checks"`
	Metrics        map[string]float64 `json:"metrics"`
	// WriteLatencyHist counts successful writes per
	// metrics.LatencyBucketsMs bucket.
	WriteLatencyHist []int            `json:"write_latency_hist"`
	Profile          *nemesis.Profile `json:"profile,omitempty"`
	Schedule         string           `json:"schedule,omitempty"`
	// Duration is the run's virtual length as asked (Options.RunDuration),
	// in nanoseconds in JSON.
	Duration time.Duration `json:"duration_ns,omitempty"`
	// ScheduleHash is ScheduleHash of the explicit schedule the run had
	// (Options.Schedule), or "" when its faults were the scenario's or a
	// profile's.
	ScheduleHash string `json:"schedule_hash,omitempty"`
	// Build names the kubesim build that ran it (Build).
	Build string `json:"build,omitempty"`
	// Swarm is what a swarm run switched on, nil for any other run.
	Swarm *Swarm `json:"swarm,omitempty"`
	// Buggify is what BUGGIFY switched on, nil unless the run had it
	// (Options.Buggify).
	Buggify *Buggify `json:"buggify,omitempty"`
}

// Failed returns the results of the checks that failed.
func (r *Result) Failed() []checks.Result {
	var out []checks.Result
	for _, c := range r.Checks {
		if !c.OK {
			out = append(out, c)
		}
	}
	return out
}

// Lookup finds a named scenario: a catalogue scenario, or a spec a package
// added with Register.
func Lookup(name string) (Spec, error) {
	var names []string
	for _, r := range registry {
		if r.spec.Name == name {
			return r.spec, nil
		}
		names = append(names, r.spec.Name)
	}
	hint := ""
	if len(Catalogue()) == 0 {
		hint = "; no catalogue scenario is registered: this binary does not import github.com/kubesim/kubesim/catalogue"
	}
	return Spec{}, fmt.Errorf("unknown scenario %q: run `kubesim scenarios` to list them (%s)%s", name, strings.Join(names, ", "), hint)
}

// GCPercent is the GOGC kubesim runs worlds with (kubesim run and sweep
// set it; the benchmarks measure with it and with Go's default): worlds
// allocate fast and keep little alive, so a lazier collector buys speed
// for little memory (the full-stack benchmark: 1.2x faster, 120 MB of heap
// instead of 56).
const GCPercent = 400

// QuietWindow is how long before the end the workload stops starting
// operations, so that every member has applied the same log when the
// kv-agreement check compares them. It lies inside the settle window.
const QuietWindow = 5 * time.Second

// Prepared is a built but not yet run world, for callers that want to step
// it themselves.
type Prepared struct {
	Spec     Spec
	Options  Options
	World    *sim.World
	Cluster  *Cluster
	Schedule sim.Schedule
	Checks   []checks.Check
	Metrics  *metrics.Workload
	Quorum   *metrics.QuorumTracker
	// Swarm is what the run switched on if it is a swarm run.
	Swarm    *Swarm
	duration time.Duration
	flush    []func() error
}

// Prepare validates opts and builds the world, its checks and its schedule.
func Prepare(opts Options) (*Prepared, error) {
	spec, err := Lookup(opts.Scenario)
	if err != nil {
		return nil, err
	}
	return PrepareSpec(spec, opts)
}

// PrepareSpec is Prepare for a scenario that need not be in the catalogue
// (a user's own, or a benchmark's); opts.Scenario is ignored.
func PrepareSpec(spec Spec, opts Options) (*Prepared, error) {
	opts.Scenario = spec.Name
	if spec.Topology == nil || spec.Settle == 0 || spec.Duration == 0 {
		spec = WithDefaults(spec)
	}
	if err := spec.SupportsMembers(opts.Members); err != nil {
		return nil, err
	}
	abl, err := ResolveAblations(opts.Ablations)
	if err != nil {
		return nil, err
	}
	if err := checkReach(spec, opts.Ablations); err != nil {
		return nil, err
	}
	d := opts.Duration
	if d == 0 {
		d = spec.Duration
	}
	if d <= spec.Settle {
		return nil, fmt.Errorf("--duration must be longer than the %v settle window of %s, got %v", spec.Settle, spec.Name, d)
	}
	w := sim.NewWorld(opts.Seed)
	if opts.Buggify {
		if err := w.EnableBuggify(); err != nil {
			return nil, err
		}
	}
	top := spec.Topology(opts.Members)
	if spec.Layer() != "etcd" && (opts.Clients != 0 || opts.Think != 0 || opts.Compaction != 0 || opts.PinClients) {
		return nil, fmt.Errorf("clients, think and the compaction interval shape the KV workload of etcd scenarios; %s has none", spec.Name)
	}
	if opts.Clients > 0 {
		top.Clients = opts.Clients
	}
	if opts.Think > 0 {
		top.Think = opts.Think
	}
	if opts.Compaction != 0 {
		top.Compaction = max(opts.Compaction, 0)
	}
	top.PinClients = top.PinClients || opts.PinClients
	if top.QuietAt == 0 {
		top.QuietAt = d - QuietWindow
	}
	c, err := BuildCluster(w, top, abl)
	if err != nil {
		return nil, err
	}
	p := &Prepared{Spec: spec, Options: opts, World: w, Cluster: c, duration: d}
	faultEnd := d - spec.Settle
	layerChecks, err := buildLayers(spec, c, Env{Ablations: abl, FaultEnd: faultEnd, End: d})
	if err != nil {
		return nil, err
	}
	view := c.View()
	p.Schedule = opts.Schedule
	switch {
	case p.Schedule != nil:
	case opts.Profile != nil:
		p.Schedule = opts.Profile.Schedule(view, w.Rand("scenario/faults"), faultEnd)
	case spec.Faults != nil:
		p.Schedule = spec.Faults(view, w.Rand("scenario/faults"), faultEnd)
	}
	if err := checkWithinRun(p.Schedule, d); err != nil {
		return nil, err
	}
	if err := w.CheckTargets(p.Schedule); err != nil {
		return nil, err
	}
	if opts.Trace != nil {
		j := sim.NewJSONLWriter(w, opts.Trace)
		p.flush = append(p.flush, j.Flush)
	}
	if opts.Timeline != nil {
		t := sim.NewTimelineWriter(w, opts.Timeline)
		p.flush = append(p.flush, t.Flush)
	}
	p.Checks = layerChecks
	checks.Attach(w, p.Checks...)
	p.Metrics = metrics.NewWorkload()
	w.Subscribe(p.Metrics.Observe)
	p.Quorum = metrics.NewQuorumTracker(w, c.MemberIDs(), sim.Time(faultEnd))
	w.Subscribe(p.Quorum.Observe)
	w.Apply(p.Schedule)
	if spec.Driver != nil && opts.Schedule == nil && opts.Profile == nil {
		spec.Driver(view, w.Rand("scenario/driver"), faultEnd)
	}
	if opts.Schedule == nil && opts.Profile == nil {
		driveStackOps(c, view, faultEnd)
	}
	p.Swarm = swarmOf(view, c)
	return p, nil
}

// checkWithinRun refuses a fault at or after the end of a run of length d:
// it would never happen.
func checkWithinRun(s sim.Schedule, d time.Duration) error {
	for i, f := range s {
		if f.At >= d {
			return fmt.Errorf("%s: the run ends at %v, so this fault would never happen: schedule it earlier, or run longer (--duration more than %v)", s.Where(i), d, f.At)
		}
	}
	return nil
}

// buildLayers builds the API layer or the stack a scenario asks for, then
// runs its Build hook, and returns the checks of its layer
// (checks.ForLayer) and its own.
func buildLayers(spec Spec, c *Cluster, env Env) ([]checks.Check, error) {
	cenv := checks.Env{Members: c.MemberIDs(), HostName: c.World.HostName, HostID: c.hostID, FaultEnd: sim.Time(env.FaultEnd)}
	switch {
	case spec.Stack != nil:
		top := *spec.Stack
		top.FaultEnd = env.FaultEnd
		prepareStackOps(c, &top)
		if _, err := BuildStack(c, top, env.Ablations, env.End); err != nil {
			return nil, err
		}
		cenv.ReplicaSetInformer, cenv.ProbeExempt, cenv.Policy = rsObserver, top.ProbeExempt, top.Policy
		cenv.MaxEndpointsPerSlice = top.MaxEndpointsPerSlice
	case spec.API != nil:
		top := *spec.API
		drawAPIKnobs(c, &top)
		if _, err := BuildAPI(c, top, env.Ablations, env.FaultEnd, env.End); err != nil {
			return nil, err
		}
		cenv.CompactionInterval = apiserver.Config{CompactionInterval: top.CompactionInterval}.CompactionEvery()
		cenv.Policy = top.Policy
	}
	if c.API != nil {
		cenv.APIServers = c.API.Servers
		cenv.EtcdClients = spec.EtcdClients
	}
	cs := checks.ForLayer(spec.Layer(), cenv)
	if spec.Build != nil {
		own, err := spec.Build(c, env)
		if err != nil {
			return nil, err
		}
		cs = append(cs, own...)
	}
	return cs, nil
}

// Run runs the prepared world to its end, asks members for their hashes,
// and judges it.
func (p *Prepared) Run() (Result, error) {
	w := p.World
	w.Run(sim.Time(p.duration))
	p.Cluster.EmitKVHashes()
	res := Result{
		Scenario:         p.Spec.Name,
		Members:          p.Options.Members,
		Seed:             p.Options.Seed,
		Ablations:        p.Options.Ablations,
		VirtualSeconds:   w.Now().Seconds(),
		Events:           w.Events(),
		TraceHash:        fmt.Sprintf("%016x", w.Trace().Hash()),
		Checks:           checks.FinishAll(p.Checks...),
		Metrics:          p.Metrics.Values(),
		WriteLatencyHist: p.Metrics.LatencyHistogram(),
		Profile:          p.Options.Profile,
		Schedule:         p.Schedule.String(),
		Duration:         p.duration,
		ScheduleHash:     ScheduleHash(p.Options.Schedule),
		Build:            Build(),
		Swarm:            p.Swarm,
		Buggify:          buggifyOf(w),
	}
	res.Metrics["quorum_up_fraction"] = p.Quorum.Fraction()
	more := checks.MeasuresOf(p.Checks...)
	if p.Cluster.Stack != nil {
		maps.Copy(more, p.Cluster.Stack.Control.Values())
		if t := p.Cluster.Stack.Traffic; t != nil {
			maps.Copy(more, t.Values())
		}
	}
	maps.Copy(res.Metrics, more)
	res.OK = checks.AllOK(res.Checks)
	for _, f := range p.flush {
		if err := f(); err != nil {
			return res, err
		}
	}
	return res, nil
}

// Run prepares and runs one world.
func Run(opts Options) (Result, error) {
	p, err := Prepare(opts)
	if err != nil {
		return Result{}, err
	}
	return p.Run()
}

// ReplayCommand returns the `kubesim run` command line that replays r. A
// registered spec (Register) is known only to binaries that register it,
// so for one the command works in a binary of the user's own that runs the
// same flags, not in kubesim's. (An explicit schedule is not part of a Result: a caller that ran one adds
// its --schedule FILE.)
func ReplayCommand(r Result) string {
	return "kubesim run" + replayFlags(r, "--")
}

// replayFlags renders the flags that pin a run, with the given flag prefix
// ("--" for kubesim, "-" for go test).
func replayFlags(r Result, dash string) string {
	cmd := fmt.Sprintf(" %sscenario %s %smembers %d %sseed %d", dash, ShellQuote(r.Scenario), dash, r.Members, dash, r.Seed)
	for _, a := range r.Ablations {
		cmd += " " + dash + "ablate " + ShellQuote(a)
	}
	d := r.RunDuration()
	if spec, err := Lookup(r.Scenario); err == nil && d > 0 && d != spec.Duration {
		cmd += " " + dash + "duration " + d.String()
	}
	if r.Profile != nil {
		cmd += " " + dash + "faults " + ShellQuote(r.Profile.String())
	}
	if r.Buggify != nil {
		cmd += " " + dash + "buggify"
	}
	return cmd
}

// ShellQuote returns s as one word of a POSIX shell command: unchanged when
// it holds only characters no shell treats specially, otherwise in single
// quotes (a quote inside written '\”), so that a printed replay command
// pastes back as the same arguments, whatever a name or path holds.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
