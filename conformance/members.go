package conformance

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/sim"
)

// Member is one member of a member list, normalized: members are named by
// order of creation (m0 is the member the sequence starts with, mk the k-th
// added), never by their IDs, which differ between the sides.
type Member struct {
	// Index is the order of creation.
	Index int
	// Name is the member's name: "self" for m0 (the sides name their
	// member differently), empty for a member that has not started.
	Name string
	// Peer is the peer URL's label: pk for the URL given when adding mk.
	Peer    string
	Learner bool
}

func (m Member) String() string {
	s := fmt.Sprintf("m%d(%s,%s", m.Index, m.Name, m.Peer)
	if m.Learner {
		s += ",learner"
	}
	return s + ")"
}

// unknownID is the ID that stands for member index k when no member k was
// added: an ID that neither side gives (the simulated side numbers its
// members 1, 101, 102, ...; etcd's IDs are hashes).
func unknownID(k int) uint64 { return 0xbad00000 + uint64(k) }

// memberMap tracks one side's members by order of creation.
type memberMap struct {
	ids   []uint64       // index -> ID
	index map[uint64]int // ID -> index
	self  string         // m0's name on this side
}

func newMemberMap(selfID uint64, selfName string) memberMap {
	return memberMap{ids: []uint64{selfID}, index: map[uint64]int{selfID: 0}, self: selfName}
}

func (mm *memberMap) id(k int) uint64 {
	if k >= 0 && k < len(mm.ids) {
		return mm.ids[k]
	}
	return unknownID(k)
}

func (mm *memberMap) added(id uint64) {
	mm.index[id] = len(mm.ids)
	mm.ids = append(mm.ids, id)
}

// member normalizes a member; peer is its peer label.
func (mm *memberMap) member(id uint64, name, peer string, learner bool) Member {
	k, ok := mm.index[id]
	if !ok {
		k = -1
	}
	if name == mm.self && k == 0 {
		name = "self"
	}
	return Member{Index: k, Name: name, Peer: peer, Learner: learner}
}

// sortMembers orders a member list by order of creation (each side sorts
// by ID, and the IDs differ).
func sortMembers(ms []Member) []Member {
	slices.SortStableFunc(ms, func(a, b Member) int { return a.Index - b.Index })
	return ms
}

// --- the simulated side ---

// simMembers is the simulated side's member bookkeeping: the hosts the
// added members would run on (created, never booted: nobody listens) and
// their labels.
type simMembers struct {
	memberMap
	peers map[sim.HostID]string // host -> peer label
	hosts map[int]sim.HostID    // index -> host
}

func (s *simSide) initMembers(self sim.HostID, id uint64, name string) {
	s.mem = &simMembers{memberMap: newMemberMap(id, name), peers: map[sim.HostID]string{self: "p0"}, hosts: map[int]sim.HostID{0: self}}
}

// simMemberID is the ID the simulated side's operator gives member k
// (kubesim's operator chooses IDs; etcd derives them).
func simMemberID(k int) uint64 { return 100 + uint64(k) }

// simMemberTweak, when set (by tests only), alters a member call before the
// simulated side runs it: a broken simulator that the comparison must
// notice.
var simMemberTweak func(*Op)

func (s *simSide) runMember(op Op) (Result, error) {
	if simMemberTweak != nil {
		simMemberTweak(&op)
	}
	var res Result
	done := func(done func()) func(etcd.MemberListResult, error) {
		return func(r etcd.MemberListResult, err error) {
			res = Result{Err: normErr(err)}
			if err == nil {
				res.Rev = r.Revision
				res.Members = s.members(r.Members)
			}
			done()
		}
	}
	mm := s.mem
	var derr error
	switch op.Kind {
	case KMemberList:
		derr = s.call(func(d func()) { s.c.MemberList(done(d)) })
	case KMemberAdd:
		k := len(mm.ids)
		h, ok := mm.hosts[k]
		if !ok {
			host := s.w.MustAddHost(sim.HostSpec{Name: "peer-" + strconv.Itoa(k), Role: "etcd"})
			h = host.ID()
			mm.hosts[k], mm.peers[h] = h, "p"+strconv.Itoa(k)
		}
		id := simMemberID(k)
		// No name: etcd's MemberAddRequest carries only the peer URLs.
		p := etcd.Peer{ID: id, Host: h}
		derr = s.call(func(d func()) {
			inner := done(d)
			s.c.MemberAdd(p, op.Learner, func(r etcd.MemberListResult, err error) {
				if err == nil {
					mm.added(id)
				}
				inner(r, err)
			})
		})
	case KMemberPromote:
		derr = s.call(func(d func()) { s.c.MemberPromote(mm.id(op.Member), done(d)) })
	case KMemberRemove:
		derr = s.call(func(d func()) { s.c.MemberRemove(mm.id(op.Member), done(d)) })
	}
	return res, derr
}

func (s *simSide) members(ms []etcd.Member) []Member {
	out := []Member{}
	for _, m := range ms {
		out = append(out, s.mem.member(m.ID, m.Name, s.mem.peers[m.Host], m.IsLearner))
	}
	return sortMembers(out)
}

// --- the real side ---

// realMembers is the real side's member bookkeeping: the peer URLs given
// to the added members (free loopback ports nobody listens on, as an
// operator adds a member before starting it) and their labels.
type realMembers struct {
	memberMap
	peers map[string]string // peer URL -> label
	urls  map[int]string    // index -> peer URL
}

func (r *realSide) initMembers(ctx context.Context) error {
	resp, err := r.cli.MemberList(ctx)
	if err != nil {
		return err
	}
	if len(resp.Members) != 1 || len(resp.Members[0].PeerURLs) != 1 {
		return fmt.Errorf("the oracle is not a single member: %v", resp.Members)
	}
	m := resp.Members[0]
	r.mem = &realMembers{memberMap: newMemberMap(m.ID, m.Name), peers: map[string]string{m.PeerURLs[0]: "p0"},
		urls: map[int]string{0: m.PeerURLs[0]}}
	return nil
}

func (r *realSide) runMember(ctx context.Context, op Op) (Result, error) {
	mm := r.mem
	var (
		hdr     *pb.ResponseHeader
		members []*pb.Member
		err     error
	)
	switch op.Kind {
	case KMemberList:
		var resp *clientv3.MemberListResponse
		if resp, err = r.cli.MemberList(ctx); err == nil {
			hdr, members = resp.Header, resp.Members
		}
	case KMemberAdd:
		k := len(mm.ids)
		u, ok := mm.urls[k]
		if !ok {
			var pu url.URL
			if pu, err = freeURL(); err != nil {
				return Result{}, err
			}
			u = pu.String()
			mm.urls[k], mm.peers[u] = u, "p"+strconv.Itoa(k)
		}
		var resp *clientv3.MemberAddResponse
		if op.Learner {
			resp, err = r.cli.MemberAddAsLearner(ctx, []string{u})
		} else {
			resp, err = r.cli.MemberAdd(ctx, []string{u})
		}
		if err == nil {
			mm.added(resp.Member.ID)
			hdr, members = resp.Header, resp.Members
		}
	case KMemberPromote:
		var resp *clientv3.MemberPromoteResponse
		if resp, err = r.cli.MemberPromote(ctx, mm.id(op.Member)); err == nil {
			hdr, members = resp.Header, resp.Members
		}
	case KMemberRemove:
		var resp *clientv3.MemberRemoveResponse
		if resp, err = r.cli.MemberRemove(ctx, mm.id(op.Member)); err == nil {
			hdr, members = resp.Header, resp.Members
		}
	}
	if err != nil {
		return Result{Err: normErr(err)}, nil
	}
	out := []Member{}
	for _, m := range members {
		peer := "?"
		if len(m.PeerURLs) == 1 {
			peer = mm.peers[m.PeerURLs[0]]
		}
		out = append(out, mm.member(m.ID, m.Name, peer, m.IsLearner))
	}
	return Result{Rev: r.toSim(hdr.GetRevision()), Members: sortMembers(out)}, nil
}

// isMemberOp reports whether op is a member call.
func isMemberOp(k Kind) bool {
	return k == KMemberList || k == KMemberAdd || k == KMemberPromote || k == KMemberRemove
}

// nextMember draws the next op of a membership sequence: a member call one
// time in four (list, add a learner, promote or remove a member, which may
// be m0, a removed member or one never added), else a key-value op. It adds
// no voter: with nobody listening on its peer URL, a voter costs the
// single-member cluster its quorum (the hand-written sequences do that
// last).
func (g *gen) nextMember(cur, compact int64, created int) Op {
	if g.r.IntN(4) != 0 {
		return g.next(cur, compact)
	}
	switch n := g.r.IntN(10); {
	case n < 3:
		return Op{Kind: KMemberList}
	case n < 6:
		return Op{Kind: KMemberAdd, Learner: true}
	case n < 8:
		return Op{Kind: KMemberPromote, Member: g.r.IntN(created + 1)}
	default:
		return Op{Kind: KMemberRemove, Member: g.r.IntN(created + 1)}
	}
}
