package apiserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
)

// TestEtcdServersFollowTheManifest: an API server built with etcd-1 alone
// keeps it while running even after the operator wrote --etcd-servers
// etcd-2 (and a host that does not exist) to its host; with etcd-1 down
// its writes fail; once restarted it reads the file, skips the unknown
// host, and serves through etcd-2.
func TestEtcdServersFollowTheManifest(t *testing.T) {
	tw := newWorld(t, 1, 1, func(c *Config) { c.Etcd = c.Etcd[:1] })
	etcd1, etcd2 := tw.members[0].ID(), tw.members[1].ID()
	require.Equal(t, []sim.HostID{etcd1}, tw.server(0).cfg.Etcd, "no file: the built endpoints")
	saved := false
	SetEtcdServers(tw.servers[0], []string{"etcd-2", "etcd-9"}, func() { saved = true })
	tw.run(time.Second)
	require.True(t, saved, "the edit is durable")
	require.Equal(t, []sim.HostID{etcd1}, tw.server(0).cfg.Etcd, "the running process keeps its endpoints")

	tw.w.Inject(sim.Fault{Kind: sim.FaultCrash, Targets: [][]string{{"etcd-1"}}})
	resp := tw.do(0, create(newPod("before")))
	require.False(t, resp.Status.OK(), "etcd-1 is its only endpoint: %+v", resp.Status)

	tw.w.Inject(sim.Fault{Kind: sim.FaultCrash, Targets: [][]string{{"apiserver-1"}}, For: time.Second})
	tw.run(3 * time.Second)
	require.Equal(t, []sim.HostID{etcd2}, tw.server(0).cfg.Etcd, "restarted: the file's endpoints, the unknown host skipped")
	tw.must(0, create(newPod("after")))
}
