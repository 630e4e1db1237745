package raft

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConfigDefaults: zero numeric fields take the documented defaults (an
// election timeout of 10 ticks and a heartbeat of 1: etcd's
// --election-timeout 1000 ms and --heartbeat-interval 100 ms, with the tick
// at the heartbeat interval; 256 MsgApps in flight and 64 entries per
// MsgApp), set fields are kept, and a Config that cannot work is refused
// with an error that names the field.
func TestConfigDefaults(t *testing.T) {
	valid := func() Config { return Config{ID: 1, Peers: []uint64{3, 1, 2}, Rand: fixedRand(0)} }
	got, err := valid().withDefaults()
	require.NoError(t, err)
	require.Equal(t, 10, got.ElectionTick)
	require.Equal(t, 1, got.HeartbeatTick)
	require.Equal(t, 256, got.MaxInflightMsgs)
	require.Equal(t, 64, got.MaxEntriesPerMsg)
	require.Equal(t, []uint64{1, 2, 3}, got.Peers, "sorted")

	set := valid()
	set.ElectionTick, set.HeartbeatTick, set.MaxInflightMsgs, set.MaxEntriesPerMsg = 20, 3, 8, 4
	got, err = set.withDefaults()
	require.NoError(t, err)
	require.Equal(t, []int{20, 3, 8, 4}, []int{got.ElectionTick, got.HeartbeatTick, got.MaxInflightMsgs, got.MaxEntriesPerMsg})

	manyPeers := make([]uint64, maxPeers+1)
	for i := range manyPeers {
		manyPeers[i] = uint64(i + 1)
	}
	bad := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"no ID", func(c *Config) { c.ID = None }, "ID must be non-zero"},
		{"no Rand", func(c *Config) { c.Rand = nil }, "Rand is required"},
		{"negative heartbeat", func(c *Config) { c.HeartbeatTick = -1 }, "ElectionTick (10) must exceed HeartbeatTick (-1)"},
		{"election equal to heartbeat", func(c *Config) { c.ElectionTick, c.HeartbeatTick = 2, 2 }, "ElectionTick (2) must exceed HeartbeatTick (2)"},
		{"election one above heartbeat is fine", func(c *Config) { c.ElectionTick, c.HeartbeatTick = 3, 2 }, ""},
		{"negative inflight", func(c *Config) { c.MaxInflightMsgs = -1 }, "must be positive"},
		{"negative entries", func(c *Config) { c.MaxEntriesPerMsg = -1 }, "must be positive"},
		{"no peers: a node joining an existing cluster", func(c *Config) { c.Peers = nil }, ""},
		{"too many peers", func(c *Config) { c.Peers = manyPeers }, "need 0..64 peers, got 65"},
		{"as many peers as fit", func(c *Config) { c.Peers = manyPeers[:maxPeers] }, ""},
		{"zero peer", func(c *Config) { c.Peers = []uint64{0, 1, 2} }, "peer IDs must be non-zero"},
		{"duplicate peer", func(c *Config) { c.Peers = []uint64{1, 2, 2} }, "duplicate peer 2"},
		{"ID not a peer", func(c *Config) { c.Peers = []uint64{2, 3} }, "Peers must include ID 1"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			c := valid()
			tc.edit(&c)
			_, err := c.withDefaults()
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
}
