package checks

import (
	"fmt"
	"strings"

	"github.com/kubesim/kubesim/nodes/apiserver/apitrace"
	"github.com/kubesim/kubesim/sim"
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
// is judged by the check's own copy of the documented policy, independent
// of the server's authorizer:
//   - "admin": everything;
//   - "system:kube-scheduler": bind and update-status of pods; create and
//     update of leases in kube-system;
//   - "system:kube-controller-manager": every write of pods, replicasets,
//     deployments and leases; update, update-status, patch and delete of
//     nodes;
//   - "system:node:<n>" (the node restriction): create, update,
//     update-status and patch of its own Node n; update-status and delete of
//     pods bound to n (the stored pod's node, and the written one's, is n);
//     create and update of the Lease n in kube-node-lease;
//   - anyone else: no write.
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
		if why := forbidWrite(d); why != "" {
			c.rec.Add(e, "access: %s admitted %s of %s %q by user %q: %s", d.Server, d.Verb, d.Resource, d.Key, d.User, why)
		}
	}
}

// The policy's identities and namespaces.
const (
	policyAdmin             = "admin"
	policyScheduler         = "system:kube-scheduler"
	policyControllerManager = "system:kube-controller-manager"
	policyNodePrefix        = "system:node:"
	policySystemNamespace   = "kube-system"
	policyNodeLeaseNS       = "kube-node-lease"
)

// forbidWrite applies the policy to an admitted write: "" when allowed,
// otherwise why not.
func forbidWrite(d *apitrace.Admit) string {
	ns, name := d.Namespace, d.Key
	if n, rest, ok := strings.Cut(d.Key, "/"); ok {
		ns, name = n, rest
	}
	verb := d.Verb
	in := func(vs ...string) bool {
		for _, v := range vs {
			if v == verb {
				return true
			}
		}
		return false
	}
	switch {
	case d.User == policyAdmin:
		return ""
	case d.User == policyScheduler:
		switch d.Resource {
		case "pods":
			if in("bind", "update-status") {
				return ""
			}
			return "the scheduler may only bind pods and update their status"
		case "leases":
			if ns == policySystemNamespace && in("create", "update") {
				return ""
			}
			return "the scheduler may only create and update leases in kube-system"
		}
		return "the scheduler may not write " + d.Resource
	case d.User == policyControllerManager:
		switch d.Resource {
		case "pods", "replicasets", "deployments", "leases":
			return ""
		case "nodes":
			if in("update", "update-status", "patch", "delete") {
				return ""
			}
			return "the controller manager may not " + verb + " nodes"
		}
		return "the controller manager may not write " + d.Resource
	case strings.HasPrefix(d.User, policyNodePrefix):
		node := strings.TrimPrefix(d.User, policyNodePrefix)
		switch d.Resource {
		case "nodes":
			if name != node {
				return fmt.Sprintf("node %q may write only its own Node, not %q", node, name)
			}
			if in("create", "update", "update-status", "patch") {
				return ""
			}
			return fmt.Sprintf("node %q may not %s its Node", node, verb)
		case "pods":
			if !in("update-status", "delete") {
				return fmt.Sprintf("node %q may only update the status of or delete pods", node)
			}
			bound := d.NodeName == node
			if verb == "update-status" {
				bound = bound && d.OldNode == node
			} else {
				bound = bound && (d.OldNode == "" || d.OldNode == node)
			}
			if !bound {
				return fmt.Sprintf("node restriction: node %q may only write pods bound to it (pod's node %q, stored %q)", node, d.NodeName, d.OldNode)
			}
			return ""
		case "leases":
			if ns == policyNodeLeaseNS && name == node && in("create", "update") {
				return ""
			}
			return fmt.Sprintf("node %q may only create and update its own Lease in kube-node-lease", node)
		}
		return fmt.Sprintf("node %q may not write %s", node, d.Resource)
	}
	return "user has no role"
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
