package etcd

import (
	"cmp"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/nodes/raft"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// Membership errors, with etcd's messages (server/etcdserver/errors and
// api/membership/errors.go).
var (
	// ErrNotEnoughStartedMembers: the change would leave the cluster
	// without a quorum of started members (--strict-reconfig-check).
	ErrNotEnoughStartedMembers = errors.New(etcdtrace.ErrNotEnoughStartedText)
	// ErrUnhealthy: not enough voting members are connected for the change.
	ErrUnhealthy = errors.New(etcdtrace.ErrUnhealthyText)
	// ErrLearnerNotReady: a learner is promoted only once in sync with
	// the leader.
	ErrLearnerNotReady = errors.New(etcdtrace.ErrLearnerNotReadyText)
	// ErrMemberNotLearner: only a learner can be promoted.
	ErrMemberNotLearner = errors.New("etcdserver: can only promote a learner member")
	// ErrTooManyLearners: etcd allows one learner at a time (maxLearners).
	ErrTooManyLearners = errors.New(etcdtrace.ErrTooManyLearnersText)
	// ErrLearnerNotSupported: a learner serves only serializable reads,
	// status and the member list.
	ErrLearnerNotSupported = errors.New("etcdserver: rpc not supported for learner")
	// ErrNotLeader: only the leader can judge a learner's progress.
	ErrNotLeader = errors.New("etcdserver: not leader")
	// ErrIDExists, ErrIDNotFound, ErrIDRemoved: a change refused by
	// membership.ValidateConfigurationChange.
	// A client sees them as etcd's gRPC layer maps them
	// (server/etcdserver/api/v3rpc/util.go, toGRPCErrorMap): an unknown
	// or removed ID as rpctypes.ErrGRPCMemberNotFound, a taken one as
	// ErrGRPCMemberExist.
	ErrIDExists   = errors.New("etcdserver: member ID already exist")
	ErrIDNotFound = errors.New("etcdserver: member not found")
	ErrIDRemoved  = errors.New("etcdserver: member not found")
	// ErrStopped: the member was removed from the cluster and stopped.
	ErrStopped = errors.New("etcdserver: server stopped")
)

const (
	// maxLearners is etcd's limit on learners (membership.maxLearners).
	maxLearners = 1
	// healthInterval is how recently a peer must have been heard from to
	// count as connected (etcdserver HealthInterval).
	healthInterval = 5 * time.Second
	// readyPercentThreshold: a learner is in sync once its match reaches
	// this fraction of the leader's (etcdserver readyPercentThreshold).
	readyPercentThreshold = 0.9
)

// Member is one cluster member, as MemberList reports it.
type Member struct {
	ID        uint64
	Name      string
	Host      sim.HostID
	IsLearner bool
}

// MemberListResult answers the member calls: the members after the change.
type MemberListResult struct {
	Header
	Members []Member
}

// memberOp names a member call.
type memberOp uint8

const (
	memberList memberOp = iota
	memberAdd
	memberRemove
	memberPromote
)

// memberOpNames are the trace's names of the member calls.
var memberOpNames = [...]string{memberList: "list", memberAdd: etcdtrace.MemberAddLearner,
	memberRemove: etcdtrace.MemberRemove, memberPromote: etcdtrace.MemberPromote}

// memberRequest is a member call; ID identifies it as a writeRequest's ID.
type memberRequest struct {
	ID     requestID
	Op     memberOp
	Member Member // memberAdd: the new member; otherwise Member.ID only
}

// ccContext is what a conf change entry carries for the apply layer (etcd
// puts the member's attributes in ConfChange.Context).
type ccContext struct {
	ID      requestID
	Member  Member
	Promote bool
}

func encodeCCContext(c *ccContext) []byte {
	b := appendString(nil, c.ID.Client)
	b = binary.AppendUvarint(b, c.ID.Seq)
	b = binary.AppendUvarint(b, c.Member.ID)
	b = appendString(b, c.Member.Name)
	b = binary.AppendUvarint(b, uint64(c.Member.Host))
	flags := byte(0)
	if c.Member.IsLearner {
		flags |= 1
	}
	if c.Promote {
		flags |= 2
	}
	return append(b, flags)
}

func decodeCCContext(data []byte) (ccContext, error) {
	r := reader{b: data}
	var c ccContext
	c.ID.Client = string(r.bytes())
	c.ID.Seq = r.uvarint()
	c.Member.ID = r.uvarint()
	c.Member.Name = string(r.bytes())
	c.Member.Host = sim.HostID(r.uvarint())
	flags := r.byte()
	c.Member.IsLearner, c.Promote = flags&1 != 0, flags&2 != 0
	return c, r.err
}

// initCluster sets the membership a member boots with: the bootstrap peers
// as voters, unless it joins an existing cluster (it learns the members from
// its snapshot). A snapshot and the conf change entries re-applied after it
// then bring it up to date.
func (m *member) initCluster() {
	m.removedIDs = map[uint64]bool{}
	m.heard = map[uint64]sim.Time{}
	m.cluster = nil
	if m.cfg.Join {
		return
	}
	for _, p := range m.cfg.Peers {
		m.cluster = append(m.cluster, Member{ID: p.ID, Name: p.Name, Host: p.Host})
	}
	slices.SortFunc(m.cluster, func(a, b Member) int { return cmp.Compare(a.ID, b.ID) })
}

// clusterMember returns the member with id, or nil.
func (m *member) clusterMember(id uint64) *Member {
	for i := range m.cluster {
		if m.cluster[i].ID == id {
			return &m.cluster[i]
		}
	}
	return nil
}

// isLearner reports whether this member is a learner.
func (m *member) isLearner() bool {
	me := m.clusterMember(m.cfg.ID)
	return me != nil && me.IsLearner
}

// peerHost returns the host of member id, from the membership, else the
// bootstrap peers, else the remotes.
func (m *member) peerHost(id uint64) (sim.HostID, bool) {
	if p := m.clusterMember(id); p != nil {
		return p.Host, true
	}
	if h, ok := hostOf(m.cfg.Peers, id); ok {
		return h, true
	}
	h, ok := m.remotes[id]
	return h, ok
}

// addRemote remembers the host of a peer that sent a message while
// outside the applied membership and the bootstrap peers: a member that
// lags behind the conf change that added it. etcd's transport does the
// same (server/etcdserver/api/rafthttp/util.go addRemoteFromRequest, called
// by the pipeline and snapshot handlers of http.go, and the stream
// handler's AddRemote for "local etcd falls behind of the cluster, and
// cannot recognize the members that joined after its current progress"),
// so that the lagging member can answer the new member, which may lead by
// now; without it the member never acknowledges the leader's appends and
// never catches up. Remotes live in memory, as etcd's transport's do.
func (m *member) addRemote(id uint64, h sim.HostID) {
	if m.clusterMember(id) != nil {
		return
	}
	if _, ok := hostOf(m.cfg.Peers, id); !ok {
		m.remotes[id] = h
	}
}

// memberHeader is the header of a member call's answer. etcd's cluster
// service fills in the cluster, member and term but no store revision
// (server/etcdserver/api/v3rpc/member.go, ClusterServer.header), so the
// client sees revision 0.
func (m *member) memberHeader() Header {
	h := m.newHeader()
	h.Revision = 0
	return h
}

// handleMember serves the member calls. Changes are checked as etcd's
// strict reconfiguration checks do, then proposed as conf changes; the
// caller is answered once the change is applied here.
func (m *member) handleMember(q *sim.Request, r *memberRequest) {
	if r.Op == memberList {
		q.Reply(&reply{Header: m.memberHeader(), Members: slices.Clone(m.cluster)})
		return
	}
	if m.node.Lead() == raft.None {
		q.Reply(&reply{Header: m.memberHeader(), Err: ErrNoLeader})
		return
	}
	if m.node.Role() != raft.Leader {
		// The checks need every voter's connectivity. An etcd member
		// knows it from rafthttp's streams to all its peers; a kubesim
		// follower hears only from its leader, so only the leader
		// judges (and proposes) a change, and the client moves on to
		// another endpoint (a divergence, docs/fidelity.md).
		q.Reply(&reply{Header: m.memberHeader(), Err: ErrNotLeader})
		return
	}
	cc, err := m.checkMemberChange(r)
	m.traceMemberCheck(r, err)
	if err != nil {
		q.Reply(&reply{Header: m.memberHeader(), Err: err})
		return
	}
	if err := m.node.ProposeConfChange(cc); err != nil {
		q.Reply(&reply{Header: m.memberHeader(), Err: ErrNoLeader})
		m.afterInput()
		return
	}
	m.wait(q, r.ID)
	m.afterInput()
}

// checkMemberChange applies etcd's checks before proposing (server.go
// mayAddMember, mayRemoveMember, mayPromoteMember, isLearnerReady, and
// membership.ValidateConfigurationChange) and builds the conf change.
func (m *member) checkMemberChange(r *memberRequest) (raft.ConfChange, error) {
	ctx := ccContext{ID: r.ID, Member: r.Member}
	cc := raft.ConfChange{NodeID: r.Member.ID}
	switch r.Op {
	case memberAdd:
		if err := m.validateAdd(r.Member); err != nil {
			return cc, err
		}
		if err := m.strict(m.mayAddMember(r.Member.IsLearner)); err != nil {
			return cc, err
		}
		cc.Type = raft.ConfChangeAddNode
		if r.Member.IsLearner {
			cc.Type = raft.ConfChangeAddLearnerNode
		}
	case memberRemove:
		if err := m.validateRemove(r.Member.ID); err != nil {
			return cc, err
		}
		if err := m.strict(m.mayRemoveMember(r.Member.ID)); err != nil {
			return cc, err
		}
		cc.Type = raft.ConfChangeRemoveNode
	case memberPromote:
		if err := m.validatePromote(r.Member.ID); err != nil {
			return cc, err
		}
		if err := m.isLearnerReady(r.Member.ID); err != nil && !m.cfg.Ablations.Has(ablation.PromoteUnreadyLearner) {
			return cc, err
		}
		if err := m.strict(m.mayPromoteMember()); err != nil {
			return cc, err
		}
		p := *m.clusterMember(r.Member.ID)
		p.IsLearner = false
		ctx.Member, ctx.Promote = p, true
		cc.Type = raft.ConfChangeAddNode
	default:
		return cc, ErrUnknownRequest
	}
	cc.Context = encodeCCContext(&ctx)
	return cc, nil
}

// strict returns the error of one of the strict reconfiguration checks,
// or nil when the members run without them (the
// etcd-strict-reconfig-check-off ablation: --strict-reconfig-check=false).
func (m *member) strict(err error) error {
	if m.cfg.Ablations.Has(ablation.StrictReconfigOff) {
		return nil
	}
	return err
}

// traceMemberCheck traces the leader's judgement of a member call
// (etcdtrace.MemberCheck): the call, the membership the checks counted,
// for a promote the learner's match index, and the refusal.
func (m *member) traceMemberCheck(r *memberRequest, err error) {
	ev := &etcdtrace.MemberCheck{Member: m.cfg.Name, Op: memberOpNames[r.Op], NodeID: r.Member.ID}
	if r.Op == memberAdd {
		ev.Node = r.Member.Name
		if !r.Member.IsLearner {
			ev.Op = etcdtrace.MemberAddVoter
		}
	} else if p := m.clusterMember(r.Member.ID); p != nil {
		ev.Node = p.Name
	}
	if r.Op == memberPromote {
		ev.Match, _ = m.node.Match(r.Member.ID)
	}
	ev.Voters, ev.Learners = m.memberNames()
	if err != nil {
		ev.Err = err.Error()
	}
	m.h.Emit(ev)
}

// validateAdd, validateRemove and validatePromote are
// membership.ValidateConfigurationChange: they depend only on the applied
// membership, so that every member decides alike at apply time.
func (m *member) validateAdd(p Member) error {
	switch {
	case p.ID == raft.None:
		return ErrUnknownRequest
	case m.removedIDs[p.ID]:
		return ErrIDRemoved
	case m.clusterMember(p.ID) != nil:
		return ErrIDExists
	}
	if p.IsLearner {
		n := 0
		for _, x := range m.cluster {
			if x.IsLearner {
				n++
			}
		}
		if n+1 > maxLearners && !m.cfg.Ablations.Has(ablation.NoLearnerLimit) {
			return ErrTooManyLearners
		}
	}
	return nil
}

func (m *member) validateRemove(id uint64) error {
	switch {
	case m.removedIDs[id]:
		return ErrIDRemoved
	case m.clusterMember(id) == nil:
		return ErrIDNotFound
	}
	return nil
}

func (m *member) validatePromote(id uint64) error {
	switch p := m.clusterMember(id); {
	case m.removedIDs[id]:
		return ErrIDRemoved
	case p == nil:
		return ErrIDNotFound
	case !p.IsLearner:
		return ErrMemberNotLearner
	}
	return nil
}

// started reports whether voter id counts as started: itself, or a peer
// heard from within healthInterval. etcd counts the members that
// published their attributes (IsStarted) and checks connectivity apart
// (isConnectedFullySince); kubesim judges both by what is connected now,
// so that a change that would lose quorum with the connected members is
// refused with ErrNotEnoughStartedMembers.
func (m *member) started(id uint64) bool { return m.connected(id) }

// connected reports whether peer id was heard from within healthInterval
// (etcd: rafthttp's ActiveSince).
func (m *member) connected(id uint64) bool {
	t, ok := m.heard[id]
	return id == m.cfg.ID || (ok && m.h.Now().Sub(t) <= healthInterval)
}

func (m *member) voters() []Member {
	var out []Member
	for _, p := range m.cluster {
		if !p.IsLearner {
			out = append(out, p)
		}
	}
	return out
}

// mayAddMember is etcd's (server.go, mayAddMember): a voter only if
// membership.IsReadyToAddVotingMember holds (a quorum of the voters, the
// new one counted as not started, is started; one started member may grow
// to two), and then any member, a learner too, only if this member is
// connected to a quorum of the voters with the new member counted as one
// that is down (isConnectedToQuorumAfterAddingNewMemberSince), except on a
// one-voter cluster.
func (m *member) mayAddMember(learner bool) error {
	vs := m.voters()
	if !learner {
		nmembers, nstarted := 1, 0 // the member to add
		for _, p := range vs {
			if m.started(p.ID) {
				nstarted++
			}
			nmembers++
		}
		if !(nstarted == 1 && nmembers == 2) && nstarted < nmembers/2+1 {
			return ErrNotEnoughStartedMembers
		}
	}
	if len(vs) == 1 {
		return nil
	}
	connected := 0
	for _, p := range vs {
		if m.connected(p.ID) {
			connected++
		}
	}
	if connected < (len(vs)+1)/2+1 {
		return ErrUnhealthy
	}
	return nil
}

// mayPromoteMember is etcd's strict check after isLearnerReady
// (server.go, mayPromoteMember; membership.IsReadyToPromoteMember): the
// learner counts as a started voter, and the started voters must then
// make a quorum. etcd checks no connectivity here.
func (m *member) mayPromoteMember() error {
	nmembers, nstarted := 1, 1 // the learner, counted as started
	for _, p := range m.voters() {
		if m.started(p.ID) {
			nstarted++
		}
		nmembers++
	}
	if nstarted < nmembers/2+1 {
		return ErrNotEnoughStartedMembers
	}
	return nil
}

// mayRemoveMember is etcd's: a learner goes freely; a voter only if the
// started voters left keep a quorum, and, unless it is down, the connected
// voters without it too.
func (m *member) mayRemoveMember(id uint64) error {
	if p := m.clusterMember(id); p.IsLearner {
		return nil
	}
	vs := m.voters()
	nmembers, nstarted := 0, 0
	for _, p := range vs {
		if p.ID == id {
			continue
		}
		nmembers++
		if m.started(p.ID) {
			nstarted++
		}
	}
	if nstarted < nmembers/2+1 {
		return ErrNotEnoughStartedMembers
	}
	if id != m.cfg.ID && !m.connected(id) {
		return nil // a downed member is safe to remove
	}
	active := 0
	for _, p := range vs {
		if m.connected(p.ID) {
			active++
		}
	}
	if active-1 < 1+(len(vs)-1)/2 {
		return ErrUnhealthy
	}
	return nil
}

// isLearnerReady: only the leader knows a learner's progress; it must have
// at least readyPercentThreshold of the leader's log (server.go).
func (m *member) isLearnerReady(id uint64) error {
	if m.node.Role() != raft.Leader {
		return ErrNotLeader
	}
	lm, _ := m.node.Match(m.cfg.ID)
	match, ok := m.node.Match(id)
	if !ok || float64(match) < float64(lm)*readyPercentThreshold {
		return ErrLearnerNotReady
	}
	return nil
}

// applyConfChange applies a committed conf change: validated again against
// the applied membership (a refused change reaches Raft with NodeID None,
// as etcd does), applied to Raft, recorded in the membership, traced and
// answered. A member that removed itself stops.
func (m *member) applyConfChange(e *raft.Entry) {
	cc, err := raft.UnmarshalConfChange(e.Data)
	if err != nil {
		panic("etcd: corrupt conf change: " + err.Error())
	}
	ctx, err := decodeCCContext(cc.Context)
	if err != nil {
		panic("etcd: corrupt conf change context: " + err.Error())
	}
	change := etcdtrace.MemberRemove
	switch {
	case ctx.Promote:
		change, err = etcdtrace.MemberPromote, m.validatePromote(cc.NodeID)
	case cc.Type == raft.ConfChangeAddLearnerNode:
		change, err = etcdtrace.MemberAddLearner, m.validateAdd(ctx.Member)
	case cc.Type == raft.ConfChangeAddNode:
		change, err = etcdtrace.MemberAddVoter, m.validateAdd(ctx.Member)
	default:
		err = m.validateRemove(cc.NodeID)
	}
	name := ctx.Member.Name
	if p := m.clusterMember(cc.NodeID); p != nil {
		name = p.Name
	}
	if err != nil {
		change = etcdtrace.MemberRefused
		cc.NodeID = raft.None
	}
	m.node.ApplyConfChange(cc)
	if err == nil {
		m.recordChange(cc, ctx)
	}
	ev := &etcdtrace.Membership{Member: m.cfg.Name, Index: e.Index, Change: change, NodeID: ctx.Member.ID, Node: name}
	ev.Voters, ev.Learners = m.memberNames()
	m.h.Emit(ev)
	rep := &reply{Header: m.memberHeader(), Err: err, Members: slices.Clone(m.cluster)}
	m.answerWaiter(ctx.ID, rep)
}

// recordChange updates the membership after an accepted change.
func (m *member) recordChange(cc raft.ConfChange, ctx ccContext) {
	m.dynamic = true
	switch {
	case ctx.Promote:
		m.clusterMember(cc.NodeID).IsLearner = false
	case cc.Type == raft.ConfChangeRemoveNode:
		m.cluster = slices.DeleteFunc(m.cluster, func(p Member) bool { return p.ID == cc.NodeID })
		m.removedIDs[cc.NodeID] = true
		if cc.NodeID == m.cfg.ID {
			m.stopRemoved()
		}
	default:
		m.cluster = append(m.cluster, ctx.Member)
		slices.SortFunc(m.cluster, func(a, b Member) int { return cmp.Compare(a.ID, b.ID) })
	}
}

// memberNames returns the voters' and learners' names, comma-separated.
func (m *member) memberNames() (voters, learners string) {
	var v, l []string
	for _, p := range m.cluster {
		if p.IsLearner {
			l = append(l, p.Name)
		} else {
			v = append(v, p.Name)
		}
	}
	return strings.Join(v, ","), strings.Join(l, ",")
}

// removedNotice tells a member that it was removed from the cluster: what
// etcd's peers answer its messages with (HTTP 410 Gone).
type removedNotice struct{}

// stopRemoved stops a member that applied its own removal, as etcd stops
// its server (ErrStopped): no more ticks; peers' messages are dropped and
// clients are answered ErrStopped.
func (m *member) stopRemoved() {
	m.stopped = true
	if m.tick != nil {
		m.tick.Stop()
	}
}

// learnerAllowed reports whether a learner serves the client request body
// (etcd's isRPCSupportedForLearner: serializable Range, Status, the member
// list; and the snapshot of Maintenance).
func learnerAllowed(body any) bool {
	switch b := body.(type) {
	case *rangeRequest:
		return b.Serializable
	case *statusRequest, *snapshotRequest:
		return true
	case *memberRequest:
		return b.Op == memberList
	}
	return false
}

// encodeCluster appends the membership (members, removed IDs) to snapshot
// data.
func (m *member) encodeCluster(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(m.cluster)))
	for i := range m.cluster {
		b = append(b, encodeCCContext(&ccContext{Member: m.cluster[i]})...)
	}
	removed := sim.SortedKeys(m.removedIDs)
	b = binary.AppendUvarint(b, uint64(len(removed)))
	for _, id := range removed {
		b = binary.AppendUvarint(b, id)
	}
	return b
}

// decodeCluster reads what encodeCluster wrote and returns the rest.
func (m *member) decodeCluster(r *reader) error {
	n := r.uvarint()
	var cluster []Member
	for i := uint64(0); i < n && r.err == nil; i++ {
		r.bytes()
		r.uvarint()
		var p Member
		p.ID = r.uvarint()
		p.Name = string(r.bytes())
		p.Host = sim.HostID(r.uvarint())
		p.IsLearner = r.byte()&1 != 0
		cluster = append(cluster, p)
	}
	k := r.uvarint()
	removed := map[uint64]bool{}
	for i := uint64(0); i < k && r.err == nil; i++ {
		removed[r.uvarint()] = true
	}
	if r.err != nil {
		return errBadSnapshot
	}
	m.cluster, m.removedIDs, m.dynamic = cluster, removed, true
	return nil
}

// MemberAdd adds a member, a voter or (learner) a learner, on its host.
// kubesim's operator chooses the member's ID (etcd derives it from the peer
// URLs and the time); the new member then boots with Config.Join.
func (c *Client) MemberAdd(p Peer, learner bool, done func(MemberListResult, error)) {
	c.member(&memberRequest{Op: memberAdd, Member: Member{ID: p.ID, Name: p.Name, Host: p.Host, IsLearner: learner}}, done)
}

// MemberRemove removes the member id.
func (c *Client) MemberRemove(id uint64, done func(MemberListResult, error)) {
	c.member(&memberRequest{Op: memberRemove, Member: Member{ID: id}}, done)
}

// MemberPromote promotes the learner id to a voter.
func (c *Client) MemberPromote(id uint64, done func(MemberListResult, error)) {
	c.member(&memberRequest{Op: memberPromote, Member: Member{ID: id}}, done)
}

// MemberList lists the members, as the answering member knows them.
func (c *Client) MemberList(done func(MemberListResult, error)) {
	c.member(&memberRequest{Op: memberList}, done)
}

func (c *Client) member(r *memberRequest, done func(MemberListResult, error)) {
	c.do(r.Op != memberList, r, func(rep *reply, err error) {
		if r.Op != memberList {
			ev := &etcdtrace.MemberCall{Client: c.cfg.Name, Op: memberOpNames[r.Op], NodeID: r.Member.ID}
			if r.Op == memberAdd && !r.Member.IsLearner {
				ev.Op = etcdtrace.MemberAddVoter
			}
			if err != nil {
				ev.Err = err.Error()
			}
			c.h.Emit(ev)
		}
		if err != nil {
			done(MemberListResult{}, err)
			return
		}
		done(MemberListResult{Header: rep.Header, Members: rep.Members}, nil)
	})
}
