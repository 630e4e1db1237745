package catalogue

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/nodes/apiserver"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/nodes/etcd/backup"
	"github.com/kubesim/kubesim/nodes/kubelet"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// RecoveryOperatorHost is the host of the operator who carries out the
// disaster-recovery procedure.
const RecoveryOperatorHost = "dr-operator"

// Timings of the recovery procedure.
const (
	// recoveryPoll is how often the operator retries a step that failed
	// (a backup store that does not answer) and looks again whether the
	// cluster converged.
	recoveryPoll = 2 * time.Second
	// recoveryEtcdWarmup is how long the operator waits after starting
	// the restored members before starting the API servers: the members
	// elect a leader within their election timeout (1 to 2 s), which the
	// operator sees with `etcdctl endpoint health` on the members' hosts.
	recoveryEtcdWarmup = 5 * time.Second
	// RecoveryBumpRevision is the --bump-revision the operator passes:
	// more revisions than the lost cluster can have committed between
	// the newest backup and its loss in any catalogue run (a few thousand
	// at most), as etcd's documentation asks of the bump, so that every
	// revision the restored cluster hands out is above every revision a
	// client saw. Kubernetes' own guidance takes a much larger margin
	// (1e9); kubesim's checks index revisions, so it stays small.
	RecoveryBumpRevision = 100_000
)

// RecoveryConfig configures the operator's disaster recovery.
type RecoveryConfig struct {
	// Start is when the operator starts the procedure (after noticing
	// the loss).
	Start time.Duration
	// NoBump restores without --bump-revision and --mark-compacted (the
	// restore-without-bump ablation): the restored cluster hands out
	// again the revisions the lost one used after the snapshot.
	NoBump bool
	// LastByName picks the backup whose name sorts last instead of the
	// newest (the restore-last-by-name ablation).
	LastByName bool
	// Token is the new cluster's --initial-cluster-token.
	Token string
	// NoBackup is the amnesia case: there is no backup to fetch, so the
	// operator starts etcd as a new, empty cluster (etcd.Bootstrap),
	// restarts every kubelet (a kubelet registers its Node only when it
	// starts, and the Nodes are gone) and re-applies Manifests, the
	// workload's source of truth.
	NoBackup  bool
	Manifests []model.Object
	// Hosts, when set, are fresh machines to restore the new cluster on
	// (addSpareMembers): the lost members stay down for good, and the
	// operator points the API servers' --etcd-servers at the new hosts
	// before stopping them. Empty restores onto the members' own hosts.
	Hosts []string
	// StaticEtcdServers leaves the API servers' --etcd-servers as they
	// were (the apiserver-static-etcd-servers ablation): with fresh hosts
	// they name only the lost members.
	StaticEtcdServers bool
	// Ablations are the run's switches, which etcdutl snapshot restore
	// is given (restore-drops-keys-range).
	Ablations ablation.Set
}

// backupRevision reads the revision from a backup's object name
// ("<member>-rev<revision>.db", as backup.BootJob names them).
var backupRevision = regexp.MustCompile(`-rev([0-9]+)\.db$`)

// recovery is the operator's procedure in progress.
type recovery struct {
	h       *sim.Host
	cfg     RecoveryConfig
	members []string
	servers []sim.HostID
	// flagsSet says the API servers' --etcd-servers name cfg.Hosts.
	flagsSet bool
	store    *backup.StoreClient
	api      *client.Client
	snap     *etcd.Snapshot
	done     bool
}

// bootRecovery returns the Boot function of the recovery operator's host:
// from cfg.Start it runs the documented procedure for restoring etcd from
// a backup (kubernetes.io, "Operating etcd clusters for Kubernetes",
// restoring an etcd cluster; etcd's disaster recovery guide), each step
// traced as an etcdtrace.RecoveryStep:
//  0. with fresh hosts (cfg.Hosts), set-etcd-servers: edit every
//     kube-apiserver's --etcd-servers to name the new hosts
//     (apiserver.SetEtcdServers, its static pod manifest), so that they
//     reach the new cluster when they start again;
//  1. stop-apiservers: stop every kube-apiserver (they would otherwise
//     keep serving and caching the lost cluster's state);
//  2. stop-etcd: stop the surviving members (powering on first a machine
//     that is off with its disk intact) and move their data directories
//     aside (a restore needs empty ones), as a wipe; with fresh hosts the
//     lost members are left powered off for good instead;
//  3. fetch-backup: list the backup store and download the newest
//     snapshot (the highest revision), retrying while the store does not
//     answer;
//  4. restore: `etcdutl snapshot restore` on every member's host (the
//     fresh ones with cfg.Hosts, else the same hosts and peer URLs), with
//     a new --initial-cluster-token, so new member IDs and a new cluster
//     ID, with --bump-revision and --mark-compacted (unless cfg.NoBump);
//  5. start-etcd, then, once the members have a leader, start-apiservers:
//     on the same hosts kube-apiserver's --etcd-servers need no change,
//     only the restart; on fresh ones they name them since step 0;
//  6. converged: list nodes, ReplicaSets and pods until every node is
//     Ready and every ReplicaSet has exactly its replicas, all Running
//     and Ready; the operator's view of the end of the outage (rto_s).
func bootRecovery(cfg RecoveryConfig, members []string, store sim.HostID, servers []sim.HostID) func(*sim.Host) {
	return func(h *sim.Host) {
		r := &recovery{h: h, cfg: cfg, members: members, servers: servers,
			store: backup.NewStoreClient(h, store, "objstore-reply", backup.DefaultJobTimeout),
			api:   client.New(h, client.Config{Name: h.Name(), User: apiload.DefaultUser, Servers: servers, Timeout: 5 * time.Second})}
		if now := h.Now(); now < sim.Time(cfg.Start) {
			h.After(sim.Time(cfg.Start).Sub(now), "dr-start", r.stop)
		}
	}
}

// step traces one step.
func (r *recovery) step(name, detail string, err error) {
	s := &etcdtrace.RecoveryStep{Operator: r.h.Name(), Step: name, Detail: detail}
	if err != nil {
		s.Err = err.Error()
	}
	r.h.Emit(s)
}

// inject performs a fault as the operator's action on machines.
func (r *recovery) inject(kind sim.FaultKind, targets ...string) {
	r.h.World().Inject(sim.Fault{Kind: kind, Targets: [][]string{targets}})
}

// stop stops the API servers and the surviving members, then fetches.
// With fresh hosts it first points the API servers at them.
func (r *recovery) stop() {
	if len(r.cfg.Hosts) > 0 && !r.flagsSet && !r.cfg.StaticEtcdServers {
		r.flagsSet = true
		r.setEtcdServers(r.stop)
		return
	}
	r.inject(sim.FaultCrash, "apiservers")
	r.step("stop-apiservers", "", nil)
	// A member whose machine is off but whose disk survived is powered
	// on first, so that its data directory can be moved aside too.
	if len(r.cfg.Hosts) > 0 {
		r.step("stop-etcd", "the lost members stay powered off", nil)
	} else {
		for _, m := range r.members {
			if h, _ := r.h.World().HostByName(m); !h.Up() && len(h.Disk().Files()) > 0 {
				r.inject(sim.FaultRestart, m)
			}
		}
		r.inject(sim.FaultWipe, "etcd")
		r.step("stop-etcd", "surviving members stopped, data directories moved aside", nil)
	}
	if r.cfg.NoBackup {
		r.restore()
		return
	}
	r.fetch()
}

// setEtcdServers edits every API server's --etcd-servers to name the
// fresh hosts (each server starting on a different one), then calls next
// once the edits of the running ones are durable.
func (r *recovery) setEtcdServers(next func()) {
	pending := 0
	for i, id := range r.servers {
		srv := r.h.World().Host(id)
		eps := rotated(r.cfg.Hosts, i)
		if !srv.Up() {
			// A stopped server's manifest is edited all the same; it
			// reads it when it starts.
			apiserver.SetEtcdServers(srv, eps, nil)
			r.step("set-etcd-servers", srv.Name()+": "+strings.Join(eps, ","), nil)
			continue
		}
		pending++
		apiserver.SetEtcdServers(srv, eps, func() {
			r.step("set-etcd-servers", srv.Name()+": "+strings.Join(eps, ","), nil)
			if pending--; pending == 0 {
				next()
			}
		})
	}
	if pending == 0 {
		next()
	}
}

// fetch downloads the newest backup.
func (r *recovery) fetch() {
	retry := func(err error) {
		r.step("fetch-backup", "", err)
		r.h.After(recoveryPoll, "dr-fetch-retry", r.fetch)
	}
	r.store.List(func(names []string, err error) {
		if err != nil {
			retry(err)
			return
		}
		best, bestRev := "", int64(-1)
		for _, n := range names {
			m := backupRevision.FindStringSubmatch(n)
			if m == nil {
				continue
			}
			rev, _ := strconv.ParseInt(m[1], 10, 64)
			if r.cfg.LastByName && n > best || !r.cfg.LastByName && rev > bestRev {
				best, bestRev = n, rev
			}
		}
		if best == "" {
			retry(errors.New("no backup"))
			return
		}
		r.store.Get(best, func(s *etcd.Snapshot, err error) {
			if err != nil {
				retry(err)
				return
			}
			r.snap = s
			r.step("fetch-backup", fmt.Sprintf("%s: rev %d, %d keys", best, s.Revision, len(s.KVs)), nil)
			r.restore()
		})
	})
}

// restore runs etcdutl snapshot restore on every member's host and starts
// the members.
func (r *recovery) restore() {
	w := r.h.World()
	var initial []etcd.InitialMember
	var hosts []*sim.Host
	names := r.members
	if len(r.cfg.Hosts) > 0 {
		names = r.cfg.Hosts
	}
	for _, m := range names {
		h, _ := w.HostByName(m)
		hosts = append(hosts, h)
		initial = append(initial, etcd.InitialMember{Name: m, PeerURL: etcd.PeerURL(m), Host: h.ID()})
	}
	bump := int64(RecoveryBumpRevision)
	if r.cfg.NoBump {
		bump = 0
	}
	for _, h := range hosts {
		rc := etcd.RestoreConfig{Name: h.Name(), InitialCluster: initial, InitialClusterToken: r.cfg.Token,
			BumpRevision: bump, MarkCompacted: bump > 0, Ablations: r.cfg.Ablations}
		step, restore := "restore", func() (etcd.RestoreResult, error) { return etcd.Restore(h, r.snap, rc) }
		if r.cfg.NoBackup {
			step, restore = "bootstrap-empty", func() (etcd.RestoreResult, error) { return etcd.Bootstrap(h, rc) }
		}
		res, err := restore()
		r.step(step, fmt.Sprintf("%s: member %x of cluster %x at rev %d", h.Name(), res.MemberID, res.ClusterID, res.Revision), err)
		if err != nil {
			return
		}
	}
	if len(r.cfg.Hosts) > 0 {
		w.Inject(sim.Fault{Kind: sim.FaultRestartProcess, Targets: [][]string{r.cfg.Hosts}, Process: EtcdProcess})
		r.step("start-etcd", strings.Join(r.cfg.Hosts, ","), nil)
	} else {
		r.inject(sim.FaultRestart, "etcd")
		r.step("start-etcd", "", nil)
	}
	r.h.After(recoveryEtcdWarmup, "dr-start-apiservers", func() {
		r.inject(sim.FaultRestart, "apiservers")
		r.step("start-apiservers", "", nil)
		if r.cfg.NoBackup {
			r.h.World().Inject(sim.Fault{Kind: sim.FaultRestartProcess, Targets: [][]string{{"nodes"}}, Process: kubelet.Process})
			r.step("restart-kubelets", "", nil)
			r.h.After(recoveryPoll, "dr-reapply", func() { r.reapply(0) })
			return
		}
		r.h.After(recoveryPoll, "dr-verify", r.verify)
	})
}

// reapply creates the manifests from the i-th on, retrying each until it
// lands, then verifies.
func (r *recovery) reapply(i int) {
	if i == len(r.cfg.Manifests) {
		r.step("reapply-manifests", fmt.Sprintf("%d objects", i), nil)
		r.h.After(recoveryPoll, "dr-verify", r.verify)
		return
	}
	scenarios.CreateStep(0, r.cfg.Manifests[i]).Do(r.api, func(err error) {
		if err != nil {
			r.h.After(recoveryPoll, "dr-reapply", func() { r.reapply(i) })
			return
		}
		r.reapply(i + 1)
	})
}

// verify lists the cluster until it converged.
func (r *recovery) verify() {
	var lists [][]model.Object
	resources := []string{model.ResourcePodsName, model.ResourceNodesName, model.ResourceReplicaSetsName}
	var next func()
	next = func() {
		if len(lists) == len(resources) {
			cs := apiload.NewClusterState("", lists[0], lists[1], lists[2], nil)
			if why := notConverged(cs); why != "" {
				r.h.After(recoveryPoll, "dr-verify", r.verify)
				return
			}
			r.done = true
			r.step("converged", fmt.Sprintf("%d nodes Ready, %d ReplicaSets with their replicas Running and Ready", len(cs.Nodes), len(cs.ReplicaSets)), nil)
			return
		}
		r.api.Resource(resources[len(lists)], "").List(client.ListOptions{}, func(l *client.ObjectList, err error) {
			if err != nil {
				r.h.After(recoveryPoll, "dr-verify", r.verify)
				return
			}
			lists = append(lists, l.Items)
			next()
		})
	}
	next()
}

// notConverged says why the API's view of the cluster is not converged
// yet ("" when it is): a node not Ready, or a ReplicaSet whose active pods
// are not exactly its replicas, all Running and Ready on Ready nodes.
func notConverged(cs *spoketrace.ClusterState) string {
	ready := map[string]bool{}
	for _, n := range cs.Nodes {
		if n.Ready != string(model.ConditionTrue) {
			return "node " + n.Name + " not Ready"
		}
		ready[n.Name] = true
	}
	active, serving := map[string]int{}, map[string]int{}
	for _, p := range cs.Pods {
		if p.Deleting || p.Phase == string(model.PodSucceeded) || p.Phase == string(model.PodFailed) {
			continue
		}
		active[p.Owner]++
		if p.Phase == string(model.PodRunning) && p.Ready && ready[p.Node] {
			serving[p.Owner]++
		}
	}
	for _, rs := range cs.ReplicaSets {
		if rs.Deleting {
			continue
		}
		if active[rs.UID] != rs.Replicas || serving[rs.UID] != rs.Replicas {
			return fmt.Sprintf("replicaset %s: %d active, %d serving, wants %d", rs.Key, active[rs.UID], serving[rs.UID], rs.Replicas)
		}
	}
	return ""
}

// EtcdProcess is the etcd process of a spare member's host
// (addSpareMembers), which a restart-process fault starts once a data
// directory was restored on the host's disk.
const EtcdProcess = "etcd"

// addSpareMembers adds a fresh machine for each member (etcd-N+1 to
// etcd-2N, in c.Joined), with etcd installed but not started: its process
// starts only from a restored data directory, when a restart-process
// fault names EtcdProcess (`systemctl start etcd`).
func addSpareMembers(c *scenarios.Cluster, abl ablation.Set) ([]string, error) {
	n := len(c.Members)
	var names []string
	for k := 1; k <= n; k++ {
		name := fmt.Sprintf("etcd-%d", n+k)
		cfg := etcd.Config{Name: name, SnapshotCount: c.SnapshotCount(), TraceServed: true, Ablations: abl}
		if _, err := c.World.AddHost(sim.HostSpec{Name: name, Role: scenarios.RoleEtcd, Processes: []string{EtcdProcess}, Boot: bootSpare(cfg)}); err != nil {
			return nil, err
		}
		names = append(names, name)
		c.Joined = append(c.Joined, name)
	}
	return names, nil
}

// bootSpare boots a spare member's host: etcd runs once its disk holds a
// data directory, from boot or from the restart-process fault that starts
// it.
func bootSpare(cfg etcd.Config) func(*sim.Host) {
	return func(h *sim.Host) {
		started := false
		start := func() {
			if started || len(h.Disk().Files()) == 0 {
				return
			}
			started = true
			etcd.Boot(cfg)(h)
		}
		start()
		h.OnProcessRestart(EtcdProcess, start)
	}
}
