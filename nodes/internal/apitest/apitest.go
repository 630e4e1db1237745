// Package apitest builds small worlds for the spokes' tests: an etcd
// cluster, API server replicas that alone may reach it, and an admin host
// whose client a test uses to create and inspect objects. Tests then add
// the hosts under test (kubelets, schedulers, controller managers) with
// AddHost and run the world.
package apitest

import (
	"strconv"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiserver"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/sim"
)

// Roles of the hosts a Cluster builds.
const (
	RoleEtcd      = "etcd"
	RoleAPIServer = "apiserver"
	RoleClient    = "api-client"
)

// AdminUser is the identity allowed everything.
const AdminUser = "admin"

// Cluster is a test world with etcd and API servers.
type Cluster struct {
	W *sim.World
	// Servers are the API server replicas, for client.Config.Servers.
	Servers []sim.HostID
	admin   *sim.Host
	// kinds is what the API servers serve (their Config.Resources), for
	// Create to find an object's resource.
	kinds *model.Registry
}

// New builds members etcd members, servers API servers (each with mod
// applied to its config when mod is not nil) and the admin host.
func New(seed uint64, members, servers int, mod func(*apiserver.Config)) *Cluster {
	c := &Cluster{W: sim.NewWorld(seed)}
	var peers []etcd.Peer
	var eps []sim.HostID
	for i := 1; i <= members; i++ {
		peers = append(peers, etcd.Peer{ID: uint64(i), Host: sim.HostID(i - 1), Name: "etcd-" + strconv.Itoa(i)})
		eps = append(eps, sim.HostID(i-1))
	}
	for _, p := range peers {
		c.W.MustAddHost(sim.HostSpec{Name: p.Name, Role: RoleEtcd, Boot: etcd.Boot(etcd.Config{Name: p.Name, ID: p.ID, Peers: peers})})
	}
	for i := 1; i <= servers; i++ {
		cfg := apiserver.Config{Etcd: eps}
		if mod != nil {
			mod(&cfg)
		}
		c.kinds = cfg.Resources
		h := c.W.MustAddHost(sim.HostSpec{Name: "apiserver-" + strconv.Itoa(i), Role: RoleAPIServer, Boot: apiserver.Boot(cfg)})
		c.Servers = append(c.Servers, h.ID())
	}
	c.W.Network().AllowOnly(etcd.ClientPort, RoleAPIServer)
	c.admin = c.W.MustAddHost(sim.HostSpec{Name: "admin", Role: RoleClient, Boot: func(h *sim.Host) {
		h.Expose("client", client.New(h, client.Config{Name: "admin", User: AdminUser, Servers: c.Servers}))
	}})
	return c
}

// AddHost adds a host of role RoleClient with boot.
func (c *Cluster) AddHost(name string, boot func(*sim.Host)) *sim.Host {
	return c.W.MustAddHost(sim.HostSpec{Name: name, Role: RoleClient, Boot: boot})
}

// Host returns the named host; it panics on an unknown name (a test bug).
func (c *Cluster) Host(name string) *sim.Host {
	h, ok := c.W.HostByName(name)
	if !ok {
		panic("apitest: no host " + name)
	}
	return h
}

// Admin returns the admin client of the admin host's current incarnation.
// Call it after the world has booted (after the first Run).
func (c *Cluster) Admin() *client.Client {
	cl, _ := c.admin.Exposed("client").(*client.Client)
	if cl == nil {
		panic("apitest: the admin host has not booted; run the world first")
	}
	return cl
}

// Run advances the world by d.
func (c *Cluster) Run(d time.Duration) { c.W.RunFor(d) }

// Settle runs the world for 5 s, long enough for etcd to elect a leader
// and the API servers' caches to start.
func (c *Cluster) Settle() { c.Run(5 * time.Second) }

// Create creates obj as admin and runs the world until the answer came
// (at most 30 s), returning the stored object or the error. obj's resource
// is its kind's among those the API servers serve (custom kinds included);
// a kind they do not serve is an error.
func (c *Cluster) Create(obj model.Object) (model.Object, error) {
	res, err := c.kinds.ResourceOf(obj)
	if err != nil {
		return nil, err
	}
	return c.call(func(done client.ObjectCallback) {
		c.Admin().Resource(res.Name, obj.GetObjectMeta().Namespace).Create(obj, done)
	})
}

// Get reads an object as admin (a quorum read), running the world until
// the answer came.
func (c *Cluster) Get(resource, namespace, name string) (model.Object, error) {
	return c.call(func(done client.ObjectCallback) {
		c.Admin().Resource(resource, namespace).Get(name, client.GetOptions{}, done)
	})
}

// List lists a resource in all namespaces as admin (a quorum read).
func (c *Cluster) List(resource string) ([]model.Object, error) {
	var out []model.Object
	var err error
	finished := false
	c.Admin().Resource(resource, "").List(client.ListOptions{}, func(l *client.ObjectList, e error) {
		finished, err = true, e
		if l != nil {
			out = l.Items
		}
	})
	c.runUntil(&finished)
	return out, err
}

// call runs fn (which calls done once) as a synchronous step of the test:
// the world runs until done was called, at most 30 virtual seconds.
func (c *Cluster) call(fn func(done client.ObjectCallback)) (model.Object, error) {
	var obj model.Object
	var err error
	finished := false
	fn(func(o model.Object, e error) { obj, err, finished = o, e, true })
	c.runUntil(&finished)
	return obj, err
}

func (c *Cluster) runUntil(finished *bool) {
	for i := 0; i < 300 && !*finished; i++ {
		c.Run(100 * time.Millisecond)
	}
	if !*finished {
		panic("apitest: no answer within 30 s")
	}
}
