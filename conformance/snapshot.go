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
