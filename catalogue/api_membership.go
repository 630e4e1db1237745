package catalogue

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/nodes/apiserver"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// Timings of the etcd migration under the API layer.
const (
	// migrateStart is when the operator starts migrating, once the API
	// layer's workload runs.
	migrateStart = 10 * time.Second
	// migrateWindow is how long the migration may take (the scenario's
	// faults window): about 20 s a member (the learner's catch-up and
	// promotion, three API servers restarted one after the other, the
	// removal), with room to spare for 5 members.
	migrateWindow = 150 * time.Second
	// APIServerPodRestart is how long an API server is down when the
	// kubelet restarts its static pod after its manifest changed: the old
	// container is killed and a new one started.
	APIServerPodRestart = 2 * time.Second
	// apiserverEditSettle is how long the operator waits after saving a
	// manifest before the kubelet restarts the pod (the save's fsync takes
	// milliseconds).
	apiserverEditSettle = time.Second
	// apiserverProbeEvery is how often the operator asks a restarted API
	// server whether it serves (`kubectl get --raw /readyz`, a quorum
	// read through etcd), before rolling the next one.
	apiserverProbeEvery = time.Second
)

// apiMembershipCatalogue returns the API scenarios of etcd's membership
// change.
func apiMembershipCatalogue() []scenarios.Spec {
	base := scenarios.APITopology{Counters: 2, CRUD: 2, Informers: 2, Rogue: true, Think: 200 * time.Millisecond}
	return []scenarios.Spec{
		{Name: "etcd-migrate-under-api",
			Description: "under every API workload, the operator moves each etcd member to a fresh host, one after the other: member add the new one as a learner, member promote it once it caught up, edit every API server's --etcd-servers to the new membership (its static pod manifest: the kubelet restarts it, and the operator waits until it serves before the next), member remove the old one and power its host off for good; " +
				"kube-apiserver never learns etcd's members by itself, so the API servers keep serving only because their flags follow the membership",
			API:         compacting(moreWriters(base, 2, 1, 2), 20*time.Second),
			Duration:    migrateWindow + scenarios.APISettle,
			Members:     []int{3, 5},
			Seeds:       50,
			EtcdClients: []string{OperatorHost},
			Build:       buildMigrateUnderAPI,
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 33, Members: 3, Seed: 1, Reaches: "every member moved to a new host under the API layer: the API servers' --etcd-servers rolled one at a time (this seed catches apiserver-static-etcd-servers)"},
			},
		},
	}
}

// buildMigrateUnderAPI adds a fresh host for every member and the
// operator who moves the members onto them. With the
// apiserver-static-etcd-servers ablation the operator never edits the
// API servers' --etcd-servers.
func buildMigrateUnderAPI(c *scenarios.Cluster, env scenarios.Env) ([]checks.Check, error) {
	old := memberPeers(c)
	n := len(old)
	// The k-th new member's --initial-cluster: the members when it is
	// added (the new ones before it, the old ones from the k-th on).
	var fresh []etcd.Peer
	for k := range n {
		known := append(append([]etcd.Peer(nil), fresh...), old[k:]...)
		p, err := addJoiner(c, env, n+k+1, known)
		if err != nil {
			return nil, err
		}
		fresh = append(fresh, p)
	}
	static := env.Ablations.Has(ablation.APIServerStaticEtcdServers)
	servers := c.API.Servers
	err := addOperator(c, fresh, func(o *operator) []memberStep {
		r := newAPIRoll(o.h, servers)
		var steps []memberStep
		for k := range n {
			at := time.Duration(0)
			if k == 0 {
				at = migrateStart
			}
			steps = append(steps, addLearnerStep(at, fresh[k]), promoteStep(0, fresh[k].ID))
			if !static {
				var members []string
				for _, p := range append(append([]etcd.Peer(nil), fresh[:k+1]...), old[k+1:]...) {
					members = append(members, p.Name)
				}
				steps = append(steps, r.step(members))
			}
			steps = append(steps, removeStep(0, old[k].ID), powerOffStep(c.World, old[k].Name))
		}
		return steps
	})
	return append(membershipCheck(c), checks.NewAPIRecovers(checks.DefaultAPIRecoversBound)), err
}

// powerOffStep powers a removed member's host off for good.
func powerOffStep(w *sim.World, host string) memberStep {
	return memberStep{call: func(_ *etcd.Client, d func(etcd.MemberListResult, error)) {
		w.Inject(sim.Fault{Kind: sim.FaultCrash, Targets: [][]string{{host}}})
		d(etcd.MemberListResult{}, nil)
	}, done: doneUnless()}
}

// apiRoll is the operator's rolling edit of the API servers'
// --etcd-servers: one server after the other, the manifest is edited, the
// kubelet restarts the pod, and the operator waits until the server
// serves again through its new endpoints.
type apiRoll struct {
	h       *sim.Host
	servers []string
	probes  []*client.Client // one per server, reaching it alone
}

func newAPIRoll(h *sim.Host, servers []string) *apiRoll {
	r := &apiRoll{h: h, servers: servers}
	for _, s := range servers {
		srv, _ := h.World().HostByName(s)
		r.probes = append(r.probes, client.New(h, client.Config{Name: h.Name() + "/" + s, User: apiload.DefaultUser,
			Servers: []sim.HostID{srv.ID()}, Timeout: 5 * time.Second}))
	}
	return r
}

// step is the operator step that rolls every API server's --etcd-servers
// to members (each server starting on a different one, as they were
// built).
func (r *apiRoll) step(members []string) memberStep {
	return memberStep{call: func(_ *etcd.Client, d func(etcd.MemberListResult, error)) {
		r.roll(0, members, func() { d(etcd.MemberListResult{}, nil) })
	}, done: doneUnless()}
}

// trace traces one step of the roll.
func (r *apiRoll) trace(step, detail string) {
	r.h.Emit(&etcdtrace.RecoveryStep{Operator: r.h.Name(), Step: step, Detail: detail})
}

// roll edits the i-th server's flags and restarts it, then the next once
// it serves; done when every server is rolled.
func (r *apiRoll) roll(i int, members []string, done func()) {
	if i == len(r.servers) {
		done()
		return
	}
	name := r.servers[i]
	srv, _ := r.h.World().HostByName(name)
	eps := rotated(members, i)
	saved := false
	apiserver.SetEtcdServers(srv, eps, func() { saved = true })
	r.h.After(apiserverEditSettle, "operator-edit-apiserver", func() {
		if !saved {
			// The server's host went down before the edit was durable:
			// edit again.
			r.roll(i, members, done)
			return
		}
		r.trace("set-etcd-servers", name+": "+strings.Join(eps, ","))
		r.h.World().Inject(sim.Fault{Kind: sim.FaultCrash, Targets: [][]string{{name}}, For: APIServerPodRestart})
		r.h.After(APIServerPodRestart, "operator-probe-apiserver", func() { r.probe(i, members, done) })
	})
}

// probe asks the i-th server for a quorum list until it answers, then
// rolls the next.
func (r *apiRoll) probe(i int, members []string, done func()) {
	r.probes[i].Resource(model.ResourceLeasesName, "").List(client.ListOptions{Limit: 1}, func(_ *client.ObjectList, err error) {
		if err != nil {
			r.h.After(apiserverProbeEvery, "operator-probe-apiserver", func() { r.probe(i, members, done) })
			return
		}
		r.trace("apiserver-ready", fmt.Sprintf("%s serves through %s", r.servers[i], strings.Join(members, ",")))
		r.roll(i+1, members, done)
	})
}
