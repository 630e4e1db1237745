package fakeapi

import (
	"strconv"

	"github.com/kubesim/kubesim/sim"
)

// Cluster is a test world with n fake API server replicas on one Backend.
type Cluster struct {
	World   *sim.World
	Backend *Backend
	Servers []sim.HostID
}

// NewCluster makes a world with seed and n replicas "api-1".."api-n".
func NewCluster(seed uint64, n int) *Cluster {
	c := &Cluster{World: sim.NewWorld(seed), Backend: NewBackend()}
	for i := 1; i <= n; i++ {
		h := c.World.MustAddHost(sim.HostSpec{Name: "api-" + strconv.Itoa(i), Role: "apiserver", Boot: c.Backend.Boot})
		c.Servers = append(c.Servers, h.ID())
	}
	return c
}

// AddHost adds a client host whose Boot is boot.
func (c *Cluster) AddHost(name string, boot func(h *sim.Host)) *sim.Host {
	return c.World.MustAddHost(sim.HostSpec{Name: name, Role: "client", Boot: boot})
}

// Server returns the live replica i (from 0).
func (c *Cluster) Server(i int) *Server { return ServerOf(c.World.Host(c.Servers[i])) }
