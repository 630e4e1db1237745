package etcd

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
)

// TestClientFailsOverFromACrashedMember: as clientv3's balancer, a client
// whose endpoint stops answering moves to the next one: a read is retried
// there and succeeds, and a write whose outcome is unknown fails once (it is
// never retried) and the next write goes to a live member.
func TestClientFailsOverFromACrashedMember(t *testing.T) {
	cl := newCluster(t, 3, 3, nil, sim.DiskSpec{})
	cl.waitLeader(5 * time.Second)
	c := cl.addClient("c")
	_, err := cl.put(c, "k", "v")
	require.NoError(t, err)

	dead := (*c).Endpoint()
	for i, h := range cl.members {
		if h.ID() == dead {
			cl.members[i].Crash()
		}
	}
	g, err := cl.get(c, "k", GetOptions{})
	require.NoError(t, err, "the read is retried on another member")
	v, ok := value(g)
	require.True(t, ok)
	require.Equal(t, "v", v)
	require.NotEqual(t, dead, (*c).Endpoint())

	// The write path: pin the client back to the dead member.
	for (*c).Endpoint() != dead {
		(*c).NextEndpoint()
	}
	_, err = cl.put(c, "k", "w")
	require.ErrorIs(t, err, ErrDeadlineExceeded, "a write to a dead member has an unknown outcome")
	require.NotEqual(t, dead, (*c).Endpoint(), "and the client moved on")
	_, err = cl.put(c, "k", "x")
	require.NoError(t, err)
}
