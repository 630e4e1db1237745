package catalogue_test

import (
	"fmt"
	"time"

	"github.com/kubesim/kubesim/nodes/kubelet"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sim"
)

// The fault spaces below are those the property tests and the chaos
// generators already hold sound (a failure in them is a bug, not a fault
// no cluster survives): no disk is wiped (a member that loses its disk
// and rejoins under its old identity breaks Raft by design), and every
// fault ends before the settle window.

// etcdRoles are the role names an etcd fault may target.
var etcdRoles = []string{"etcd-leader", "etcd-follower", "etcd-followers", "etcd-minority", "etcd-quorum", "etcd-majority"}

// fuzzEtcd is FuzzEtcd's world: etcd-chaos's cluster and KV workload for
// 60 s, faults in its first 40 s (TestPropertyChaos's fault space plus
// heal and restart), aimed at a leader's election when triggered.
var fuzzEtcd = fuzzLayer{
	scenario: "etcd-chaos", duration: propertyRun, start: 0, end: propertyRun - 20*time.Second, knobs: true,
	kinds: []sim.FaultKind{sim.FaultCrash, sim.FaultTorn, sim.FaultPause, sim.FaultPartition, sim.FaultOneWay,
		sim.FaultIsolate, sim.FaultFlaky, sim.FaultClockDrift, sim.FaultClockJump, sim.FaultSlowDisk,
		sim.FaultHeal, sim.FaultRestart},
	moments: []string{"leader-elected"},
	hosts: func(n int, o scenarios.Options) fuzzHosts {
		all := hostNames(n, o.Clients, o.Compaction > 0)
		return fuzzHosts{members: memberNames(n), all: all, hit: memberNames(n), roles: etcdRoles}
	},
	fault: func(f *sim.Fault, r fuzzRecord, h fuzzHosts) {
		switch f.Kind {
		case sim.FaultOneWay:
			etcdOneWay(f, r, h.all)
		case sim.FaultPartition:
			f.Targets = r.sides(h.all, true)
		case sim.FaultFlaky:
			f.Targets = r.targets(h.all, []string{"*"})
			r.flaky(f, 50)
		case sim.FaultClockDrift, sim.FaultClockJump, sim.FaultSlowDisk:
			f.Targets = r.targets(h.hit, h.roles)
			r.clockOrDisk(f, 50, 200)
		default:
			etcdMachine(f, r, h, 15*time.Second)
		}
	},
}

// etcdOneWay cuts sides of pool, or, when Mode is a multiple of 4, the
// followers off from the leader (as its peers lose their connections to
// it): it still reaches everyone and believes it leads.
func etcdOneWay(f *sim.Fault, r fuzzRecord, pool []string) {
	if r.Mode%4 == 0 {
		f.Targets = [][]string{{"etcd-followers"}, {"etcd-leader"}}
		return
	}
	f.Targets = r.sides(pool, false)
}

// etcdMachine fills in a fault on hosts (crash, torn, pause, isolate,
// restart, heal): a pause of a role (the leader, whoever it is then)
// lasts 1 s to maxPause, far past an election timeout.
func etcdMachine(f *sim.Fault, r fuzzRecord, h fuzzHosts, maxPause time.Duration) {
	switch f.Kind {
	case sim.FaultHeal:
		f.For = 0
		return
	case sim.FaultRestart:
		f.For = 0
	}
	f.Targets = r.targets(h.hit, h.roles)
	if f.Kind == sim.FaultPause && r.Mode%4 == 0 {
		f.For = min(f.For, time.Second+scale(r.P1, 0, maxPause-time.Second).Truncate(time.Second))
	}
}

// fuzzAPI is FuzzAPI's world: api-chaos's cluster and workloads for its
// 230 s, faults in the first 60 s: etcd faults on the members (drifting
// clocks within 20%, as etcd-chaos's), and api-chaos's own: API servers
// crashed, cut off from their clients or from etcd, the informers cut
// off from the API servers, flaky links to the API clients. Pauses last
// up to 5 s, as api-chaos's do.
var fuzzAPI = fuzzLayer{
	scenario: "api-chaos", duration: scenarios.APIDuration, start: 0, end: scenarios.APIDuration - scenarios.APISettle,
	kinds: []sim.FaultKind{sim.FaultCrash, sim.FaultTorn, sim.FaultPause, sim.FaultPartition, sim.FaultOneWay,
		sim.FaultIsolate, sim.FaultFlaky, sim.FaultClockDrift, sim.FaultSlowDisk, sim.FaultHeal, sim.FaultRestart},
	moments: []string{"leader-elected", "watch-cache-reinit"},
	hosts: func(n int, _ scenarios.Options) fuzzHosts {
		return fuzzHosts{members: memberNames(n), all: memberNames(n), hit: memberNames(n), roles: etcdRoles}
	},
	fault: func(f *sim.Fault, r fuzzRecord, h fuzzHosts) {
		servers := apiServerNames()
		server := servers[int(r.P2)%len(servers)]
		switch f.Kind {
		case sim.FaultCrash:
			f.Targets = r.targets(h.hit, h.roles)
			if r.Mode%4 == 1 {
				f.Targets = [][]string{{server}}
			}
		case sim.FaultPartition:
			switch r.Mode % 4 {
			case 0:
				f.Targets = [][]string{{server}, {"api-clients"}}
			case 1:
				f.Targets = [][]string{{server}, {"etcd"}}
			case 2:
				f.Targets = [][]string{{"api-informers"}, {"apiservers"}}
			default:
				f.Targets = r.sides(h.members, true)
			}
		case sim.FaultOneWay:
			etcdOneWay(f, r, h.members)
		case sim.FaultFlaky:
			f.Targets = r.targets(h.members, []string{"api-clients"})
			r.flaky(f, 20)
		case sim.FaultClockDrift, sim.FaultSlowDisk:
			f.Targets = r.targets(h.hit, h.roles)
			r.clockOrDisk(f, 80, 120)
		default:
			etcdMachine(f, r, h, 5*time.Second)
			if f.Kind == sim.FaultPause {
				f.For = min(f.For, 5*time.Second) // as api-chaos's: short
			}
		}
	},
}

// apiServerNames are the API servers of api-chaos.
func apiServerNames() []string {
	out := make([]string, scenarios.DefaultAPIServers)
	for i := range out {
		out[i] = fmt.Sprintf("apiserver-%d", i+1)
	}
	return out
}

// fuzzStack is FuzzStack's world: stack-chaos's cluster, nodes and
// operator for 300 s, faults from 30 s (the workload runs) to 120 s, in
// TestPropertyStackConvergence's fault space plus heal: then its 180 s
// settle window, after which the cluster must have converged.
var fuzzStack = fuzzLayer{
	scenario: "stack-chaos", duration: stackPropertyRun, start: 30 * time.Second, end: 120 * time.Second,
	kinds: []sim.FaultKind{sim.FaultCrash, sim.FaultPause, sim.FaultPartition, sim.FaultOneWay, sim.FaultIsolate,
		sim.FaultFlaky, sim.FaultRestartProcess, sim.FaultClockDrift, sim.FaultClockJump, sim.FaultSlowDisk, sim.FaultHeal},
	moments: []string{"leader-elected", "watch-cache-reinit", "rollout-started", "endpointslice-update"},
	hosts: func(n int, _ scenarios.Options) fuzzHosts {
		hosts, nodes := stackHosts(n)
		return fuzzHosts{members: memberNames(n), all: hosts, hit: hosts, nodes: nodes,
			roles: []string{"etcd-leader", "scheduler-leader", "controller-manager-leader", "etcd-follower"}}
	},
	fault: stackFault,
}

// stackFault fills in a full-stack fault as genStackFault draws one.
func stackFault(f *sim.Fault, r fuzzRecord, h fuzzHosts) {
	switch f.Kind {
	case sim.FaultPartition:
		var notAPI []string
		for _, x := range h.all {
			if !isAPIServer(x) {
				notAPI = append(notAPI, x)
			}
		}
		f.Targets = [][]string{subset(r.Mask, notAPI), {"apiservers"}}
	case sim.FaultOneWay:
		f.Targets = r.sides(h.all, false)
	case sim.FaultRestartProcess:
		f.Targets, f.For, f.Process = [][]string{subset(r.Mask, h.nodes)}, 0, kubelet.Process
	case sim.FaultClockDrift, sim.FaultClockJump, sim.FaultSlowDisk:
		// Rates within client-go's margin (see genStackFault).
		f.Targets = [][]string{subset(r.Mask, h.hit)}
		r.clockOrDisk(f, 90, 110)
	case sim.FaultFlaky:
		f.Targets = [][]string{subset(r.Mask, h.all)}
		r.flaky(f, 30)
	case sim.FaultPause:
		f.Targets = [][]string{subset(r.Mask, h.hit)}
		f.For = min(f.For, 10*time.Second)
		if left := 120*time.Second - f.At; left >= 16*time.Second && r.Mode%4 == 0 {
			// A leader frozen past its lease: a zombie when it resumes.
			f.Targets = [][]string{{[]string{"controller-manager-leader", "scheduler-leader"}[r.Mode/4%2]}}
			f.For = min(left, 16*time.Second+scale(r.P1, 0, 24*time.Second)).Truncate(time.Second)
		}
	case sim.FaultHeal:
		f.For = 0
	default:
		f.Targets = r.targets(h.hit, h.roles)
	}
}

// isAPIServer says whether host is an API server.
func isAPIServer(host string) bool {
	var i int
	_, err := fmt.Sscanf(host, "apiserver-%d", &i)
	return err == nil
}
