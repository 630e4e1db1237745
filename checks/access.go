package checks

import (
	"fmt"
	"strings"

	"github.com/kubesim/kubesim/model/rbac"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
)

// DefaultEtcdClientPort is etcd's client port (etcd.ClientPort, repeated
// here so that checks need not import the etcd member package).
const DefaultEtcdClientPort = "client"

// AccessOptions configure the access check.
type AccessOptions struct {
	// EtcdPort is etcd's client port; "" means DefaultEtcdClientPort.
	EtcdPort string
	// AllowedSenders reports the hosts that may reach etcd's client port:
	// API servers, and any other allowed client role. When nil, deliveries
	// are not judged, only the fabric's refusals.
	AllowedSenders func(hostName string) bool
	// HostName names a host (e.g. (*sim.World).HostName); nil prints ids.
	HostName func(sim.HostID) string
	// Policy is the authorization policy the API servers were given
	// (apiserver.Config.Policy); nil means rbac.Default(), as for them.
	Policy *rbac.Policy
}

// Access checks the two claims on who may touch what:
//
// (a) Only API servers reached etcd. Every message the fabric refused on a
// restricted port (sim.KindRefuse: a role rule was broken) is an offense,
// and so is every message delivered on etcd's client port from a host that
// AllowedSenders rejects.
//
// (b) No unauthorized write was accepted. Every write an API server admitted
// (apitrace.Admit: it passed authorization and admission and went to etcd)
// is judged by the check's own reading of the policy, independent of the
// server's authorizer (policy.go):
//   - a kubelet "system:node:<n>" may not write a pod that is not bound to n
//     (the stored pod's node, and the written one's, is n), whatever else
//     allows it (NodeRestriction);
//   - a kubelet may create, update, update-status and patch its own Node n,
//     update-status and delete pods, and create and update the Lease n in
//     kube-node-lease (the Node authorizer);
//   - anything else only when a rule of AccessOptions.Policy grants it to
//     the user in the object's namespace (rbac.Default: admin everything,
//     the scheduler binding and updating the status of pods and leases in
//     kube-system, the controller manager pods, ReplicaSets, Deployments,
//     Leases and all but create of nodes).
type Access struct {
	opts       AccessOptions
	rec        Recorder
	admits     int
	deliveries int
	byVerb     map[string]int
}

// NewAccess returns the "access" check.
func NewAccess(opts AccessOptions) *Access {
	if opts.EtcdPort == "" {
		opts.EtcdPort = DefaultEtcdClientPort
	}
	if opts.Policy == nil {
		opts.Policy = rbac.Default()
	}
	return &Access{opts: opts, byVerb: map[string]int{}}
}

// Name implements Check.
func (c *Access) Name() string { return "access" }

func (c *Access) hostName(id sim.HostID) string {
	if c.opts.HostName != nil {
		return c.opts.HostName(id)
	}
	return fmt.Sprintf("host#%d", id)
}

// Observe implements Check.
func (c *Access) Observe(e *sim.Event) {
	switch e.Kind {
	case sim.KindRefuse:
		// The sender is Host, the destination Peer.
		c.rec.Add(e, "access: %s sent to %s on restricted port %q and was refused by the fabric",
			c.hostName(e.Host), c.hostName(e.Peer), e.Port)
	case sim.KindDeliver:
		if e.Port != c.opts.EtcdPort || c.opts.AllowedSenders == nil {
			return
		}
		c.deliveries++
		// The receiver is Host, the sender Peer.
		if from := c.hostName(e.Peer); !c.opts.AllowedSenders(from) {
			c.rec.Add(e, "access: %s reached etcd's client port on %s; only API servers may", from, c.hostName(e.Host))
		}
	case sim.KindNode:
		d, ok := e.Data.(*apitrace.Admit)
		if !ok {
			return
		}
		c.admits++
		c.byVerb[d.Verb]++
		if why := c.forbidWrite(d); why != "" {
			c.rec.Add(e, "access: %s admitted %s of %s %q by user %q: %s", d.Server, d.Verb, d.Resource, d.Key, d.User, why)
		}
	}
}

// Finish implements Check.
func (c *Access) Finish() Result {
	var verbs []string
	for _, v := range sim.SortedKeys(c.byVerb) {
		verbs = append(verbs, fmt.Sprintf("%d %s", c.byVerb[v], v))
	}
	detail := fmt.Sprintf("no message refused; %d admitted writes (%s) all authorized by the policy", c.admits, strings.Join(verbs, ", "))
	if c.opts.AllowedSenders != nil {
		detail += fmt.Sprintf("; %d deliveries to etcd's client port, all from API servers", c.deliveries)
	}
	return c.rec.Result(c.Name(), detail)
}

var _ Check = (*Access)(nil)
