package conformance

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"go.etcd.io/etcd/etcdutl/v3/snapshot"
	"go.uber.org/zap"

	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/sim"
)

// restoreToken is the --initial-cluster-token of every restore.
const restoreToken = "kubesim-conformance"

// A KSnapshot's result is the snapshot's status: Rev is its revision and
// Count its number of keys (see the README for what each side counts).

// --- the simulated side ---

// snapshot saves a snapshot through the simulated client (etcdctl
// snapshot save) and reads its status (etcdutl snapshot status).
func (s *simSide) snapshot() (Result, error) {
	var res Result
	derr := s.call(func(done func()) {
		s.c.Snapshot(s.member, func(snap *etcd.Snapshot, err error) {
			res = Result{Err: normErr(err)}
			if err == nil {
				s.snap = snap
				st := etcd.SnapshotStatus(snap)
				res.Rev, res.Count = st.Revision, int64(st.TotalKeys)
			}
			done()
		})
	})
	return res, derr
}

// restore restores the last snapshot into a fresh world (etcdutl
// snapshot restore on the new member's empty disk, then the member
// boots from it), and makes it the side's member.
func (s *simSide) restore(op Op) (Result, error) {
	if s.snap == nil {
		return Result{}, fmt.Errorf("restore without a snapshot")
	}
	snap := s.snap
	const name = "etcd-r"
	var rerr error
	boot := func(h *sim.Host) {
		cfg := etcd.RestoreConfig{Name: name, InitialClusterToken: restoreToken,
			InitialCluster: []etcd.InitialMember{{Name: name, PeerURL: etcd.PeerURL(name), Host: h.ID()}},
			BumpRevision:   op.Bump, MarkCompacted: op.MarkCompacted}
		if _, rerr = etcd.Restore(h, snap, cfg); rerr != nil {
			return
		}
		etcd.Boot(etcd.Config{Name: name})(h)
	}
	// The new world's seed differs from the first one's: a new cluster.
	if err := s.boot(sim.NewWorld(uint64(len(s.prefix))<<32|uint64(op.Bump)), name, boot); err != nil {
		if rerr != nil {
			return Result{Err: rerr.Error()}, nil
		}
		return Result{}, err
	}
	s.snap = snap
	return Result{Rev: s.cur}, nil
}

// --- the real side ---

// snapshot streams a snapshot from the member into a file (as etcdctl
// snapshot save does) and reads its status with etcdutl.
func (r *realSide) snapshot(ctx context.Context) (Result, error) {
	if r.tmp == "" {
		dir, err := os.MkdirTemp("", "kubesim-conformance-snap-")
		if err != nil {
			return Result{}, err
		}
		r.tmp = dir
	}
	rc, err := r.cli.Snapshot(ctx)
	if err != nil {
		return Result{Err: normErr(err)}, nil
	}
	defer rc.Close()
	path := filepath.Join(r.tmp, fmt.Sprintf("snap-%d.db", len(r.restored)))
	f, err := os.Create(path)
	if err != nil {
		return Result{}, err
	}
	if _, err := io.Copy(f, rc); err != nil {
		_ = f.Close()
		return Result{Err: normErr(err)}, nil
	}
	if err := f.Close(); err != nil {
		return Result{}, err
	}
	r.snapPath = path
	st, err := snapshot.NewV3(zap.NewNop()).Status(path)
	if err != nil {
		return Result{}, fmt.Errorf("snapshot status: %w", err)
	}
	// The harness's start key (newRealSide) is one more key outside the
	// sequence's prefix; the simulated side has none.
	return Result{Rev: r.toSim(st.Revision), Count: int64(st.TotalKey) - 1}, nil
}

// restore restores the last snapshot with etcdutl into a new data
// directory, starts a second embedded member on it, and makes that the
// side's member.
func (r *realSide) restore(op Op) (Result, error) {
	if r.snapPath == "" {
		return Result{}, fmt.Errorf("restore without a snapshot")
	}
	curl, err := freeURL()
	if err != nil {
		return Result{}, err
	}
	purl, err := freeURL()
	if err != nil {
		return Result{}, err
	}
	const name = "restored"
	data := filepath.Join(r.tmp, fmt.Sprintf("restored-%d", len(r.restored)))
	err = snapshot.NewV3(zap.NewNop()).Restore(snapshot.RestoreConfig{
		SnapshotPath: r.snapPath, Name: name, OutputDataDir: data,
		PeerURLs: []string{purl.String()}, InitialCluster: name + "=" + purl.String(), InitialClusterToken: restoreToken,
		RevisionBump: uint64(op.Bump), MarkCompacted: op.MarkCompacted,
	})
	if err != nil {
		return Result{Err: err.Error()}, nil
	}
	o := &Oracle{dir: data}
	r.restored = append(r.restored, o)
	if err := o.startMember(name, data, curl, purl); err != nil {
		return Result{}, err
	}
	r.cli = o.cli
	ctx, cancel := context.WithTimeout(context.Background(), realOpTimeout)
	defer cancel()
	if err := r.initMembers(ctx); err != nil {
		return Result{}, err
	}
	rev, err := r.currentRev()
	if err != nil {
		return Result{}, err
	}
	return Result{Rev: r.toSim(rev)}, nil
}

// snapGen is the state of a generated snapshot sequence.
type snapGen struct {
	compact int64 // the compact revision when the snapshot was saved
	bumped  bool  // the restore bumped and marked compacted
	base    int64 // the restored member's first revision
}

// nextSnapshot draws op i of n of a snapshot sequence: key-value ops (no
// watches: a restore replaces the member) up to the middle, a snapshot,
// three more ops that it misses, a restore (plain, or with a bump of up to
// 1000 and --mark-compacted), then reads, writes and compactions on the
// restored member. Reads there aim at the revisions both sides must agree
// on: the restored member's own, the future, and revisions compacted on
// both; not those between the last compaction and the snapshot, which
// etcd serves from the snapshot's history and kubesim does not have; nor,
// after a plain restore, does it compact at the restored revision
// (TestSnapshotHistoryDivergence).
func (g *gen) nextSnapshot(i, n int, cur, compact int64) Op {
	s1 := n / 2
	switch {
	case i < s1 || (i > s1 && i < s1+3):
		for {
			if op := g.next(cur, compact); op.Kind != KWatch {
				return op
			}
		}
	case i == s1:
		g.snap = snapGen{compact: compact}
		return Op{Kind: KSnapshot}
	case i == s1+3:
		if g.r.IntN(2) == 0 {
			return Op{Kind: KRestore}
		}
		g.snap.bumped = true
		return Op{Kind: KRestore, Bump: 1 + g.r.Int64N(1000), MarkCompacted: true}
	}
	if g.snap.base == 0 {
		g.snap.base = cur
	}
	base := g.snap.base
	switch n := g.r.IntN(10); {
	case n < 4:
		k, e := g.span()
		o := Op{Kind: KGet, Key: k, End: e}
		switch g.r.IntN(5) {
		case 0:
			o.Rev = base + g.r.Int64N(cur-base+1)
		case 1:
			o.Rev = cur + 1
		case 2:
			old := g.snap.compact // compacted on both below this
			if g.snap.bumped {
				old = base
			}
			if old > 1 {
				o.Rev = 1 + g.r.Int64N(old-1)
			}
		}
		return o
	case n < 7:
		return g.put(4)
	case n < 8:
		k, e := g.span()
		return Op{Kind: KDelete, Key: k, End: e, PrevKV: g.r.IntN(3) == 0}
	case n < 9:
		t := g.txn(cur, compact, 0)
		latestReads(t)
		return Op{Kind: KTxn, Txn: t}
	default:
		// Above base after a plain restore: kubesim's restored store is
		// compacted at base, etcd's where the snapshot's store was.
		lo := base
		if !g.snap.bumped {
			lo = base + 1
		}
		if cur < lo {
			return g.put(4)
		}
		return Op{Kind: KCompact, Rev: lo + g.r.Int64N(cur-lo+1)}
	}
}

// latestReads makes every read of a txn read the latest revision.
func latestReads(t *Txn) {
	for _, b := range [][]Op{t.Then, t.Else} {
		for i := range b {
			switch b[i].Kind {
			case KGet:
				b[i].Rev = 0
			case KTxn:
				latestReads(b[i].Txn)
			}
		}
	}
}
