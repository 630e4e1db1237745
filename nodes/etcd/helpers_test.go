package etcd

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/nodes/raft"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// cluster is a small world for tests: n members (hosts 0..n-1, IDs 1..n,
// names etcd-1..) and client hosts added with addClient.
type cluster struct {
	t       *testing.T
	w       *sim.World
	peers   []Peer
	members []*sim.Host
	applies []*etcdtrace.Apply
	hashes  []*etcdtrace.KVHash
}

func newCluster(t *testing.T, seed uint64, n int, mod func(*Config), disk sim.DiskSpec) *cluster {
	t.Helper()
	cl := &cluster{t: t, w: sim.NewWorld(seed)}
	for i := 0; i < n; i++ {
		cl.peers = append(cl.peers, Peer{ID: uint64(i + 1), Host: sim.HostID(i), Name: "etcd-" + strconv.Itoa(i+1)})
	}
	for i := 0; i < n; i++ {
		cfg := Config{ID: uint64(i + 1), Peers: cl.peers}
		if mod != nil {
			mod(&cfg)
		}
		h := cl.w.MustAddHost(sim.HostSpec{Name: cl.peers[i].Name, Role: "etcd", Boot: Boot(cfg), Disk: disk})
		cl.members = append(cl.members, h)
	}
	cl.w.Subscribe(func(e *sim.Event) {
		switch d := e.Data.(type) {
		case *etcdtrace.Apply:
			c := *d
			cl.applies = append(cl.applies, &c)
		case *etcdtrace.KVHash:
			c := *d
			cl.hashes = append(cl.hashes, &c)
		}
	})
	return cl
}

// addClient adds a client host talking to the given members (all if none).
func (cl *cluster) addClient(name string, endpoints ...int) **Client {
	var eps []sim.HostID
	for _, i := range endpoints {
		eps = append(eps, cl.members[i].ID())
	}
	if len(eps) == 0 {
		for _, h := range cl.members {
			eps = append(eps, h.ID())
		}
	}
	c := new(*Client)
	cl.w.MustAddHost(sim.HostSpec{Name: name, Role: "client", Boot: func(h *sim.Host) {
		*c = NewClient(h, ClientConfig{Endpoints: eps})
	}})
	return c
}

// soloAndRest adds a client (named solo) of member i alone and one (named
// rest) of the other members, writes k=old through the latter and waits
// until every member applied it.
func (cl *cluster) soloAndRest(i int, solo, rest string) (cSolo, cRest **Client) {
	cl.t.Helper()
	var others []int
	for j := range cl.members {
		if j != i {
			others = append(others, j)
		}
	}
	cSolo, cRest = cl.addClient(solo, i), cl.addClient(rest, others...)
	_, err := cl.put(cRest, "k", "old")
	require.NoError(cl.t, err)
	cl.requireConverged(time.Second)
	return cSolo, cRest
}

// member returns the live member on host i, or nil.
func (cl *cluster) member(i int) *member {
	m, _ := cl.members[i].Exposed(exposeName).(*member)
	return m
}

// leader returns the index of the single member that leads with every live
// member agreeing, or -1.
func (cl *cluster) leader() int {
	lead := -1
	var leadID uint64
	for i := range cl.members {
		m := cl.member(i)
		if m == nil {
			continue
		}
		st := m.node.Status()
		if st.Role == raft.Leader {
			if lead >= 0 {
				return -1
			}
			lead, leadID = i, st.ID
		}
	}
	if lead < 0 {
		return -1
	}
	for i := range cl.members {
		if m := cl.member(i); m != nil && m.node.Lead() != leadID {
			return -1
		}
	}
	return lead
}

// waitLeader runs until one leader is agreed on, within limit.
func (cl *cluster) waitLeader(limit time.Duration) int {
	cl.t.Helper()
	end := cl.w.Now().Add(limit)
	for cl.w.Now() < end {
		cl.w.RunFor(50 * time.Millisecond)
		if l := cl.leader(); l >= 0 {
			return l
		}
	}
	cl.t.Fatalf("no agreed leader within %v", limit)
	return -1
}

// await runs the world until done reports true, within limit.
func (cl *cluster) await(limit time.Duration, done func() bool) {
	cl.t.Helper()
	end := cl.w.Now().Add(limit)
	for !done() {
		require.Less(cl.t, cl.w.Now(), end, "not done within %v", limit)
		cl.w.RunFor(5 * time.Millisecond)
	}
}

// put runs one Put through c and waits for its answer.
func (cl *cluster) put(c **Client, key, value string) (PutResult, error) {
	var res PutResult
	var err error
	done := false
	cl.w.After(0, "test-put", func() {
		(*c).Put(key, value, func(r PutResult, e error) { res, err, done = r, e, true })
	})
	cl.await(30*time.Second, func() bool { return done })
	return res, err
}

// get runs one Get through c and waits for its answer.
func (cl *cluster) get(c **Client, key string, opts GetOptions) (GetResult, error) {
	var res GetResult
	var err error
	done := false
	cl.w.After(0, "test-get", func() {
		(*c).Get(key, opts, func(r GetResult, e error) { res, err, done = r, e, true })
	})
	cl.await(30*time.Second, func() bool { return done })
	return res, err
}

// value returns the value of key in a GetResult, and whether it was there.
func value(r GetResult) (string, bool) {
	if len(r.KVs) == 0 {
		return "", false
	}
	return string(r.KVs[0].Value), true
}

// kvHashes asks every live member for its KVHash and returns them by host.
func (cl *cluster) kvHashes() map[string]etcdtrace.KVHash {
	cl.hashes = nil
	for _, h := range cl.members {
		EmitKVHash(h)
	}
	out := map[string]etcdtrace.KVHash{}
	for _, kh := range cl.hashes {
		out[kh.Member] = *kh
	}
	return out
}

// requireConverged waits until every live member applied the same entries
// and has the same store hash.
func (cl *cluster) requireConverged(limit time.Duration) map[string]etcdtrace.KVHash {
	cl.t.Helper()
	var hs map[string]etcdtrace.KVHash
	end := cl.w.Now().Add(limit)
	for {
		cl.w.RunFor(100 * time.Millisecond)
		hs = cl.kvHashes()
		same := len(hs) > 0
		var first *etcdtrace.KVHash
		for _, name := range sim.SortedKeys(hs) {
			h := hs[name]
			if first == nil {
				first = &h
			} else if h.Hash != first.Hash || h.Applied != first.Applied || h.Rev != first.Rev {
				same = false
			}
		}
		if same {
			return hs
		}
		require.Less(cl.t, cl.w.Now(), end, "members did not converge: %+v", hs)
	}
}

func raftHS(term, vote, commit uint64) raft.HardState {
	return raft.HardState{Term: term, Vote: vote, Commit: commit}
}

func entry(index, term uint64, data string) *raft.Entry {
	return &raft.Entry{Index: index, Term: term, Data: []byte(data)}
}

// host returns the host called name.
func (cl *cluster) host(name string) *sim.Host {
	h, ok := cl.w.HostByName(name)
	require.True(cl.t, ok, "no host %s", name)
	return h
}
