package apiserver

import (
	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/sim"
)

// compactRevKey is the etcd key through which API server replicas agree on
// who compacts, as the real one's.
const compactRevKey = "compact_rev_key"

// compactor compacts etcd's history as kube-apiserver does every
// --etcd-compaction-interval: each interval, a Txn bumps compact_rev_key
// if its version is what this replica last saw (so one replica per interval
// wins), and the winner compacts to the revision recorded one interval
// earlier, so at least one interval of history survives.
type compactor struct {
	s       *Server
	version int64 // compact_rev_key's version last seen ("compactTime")
	rev     int64 // the revision recorded at the last interval
	timer   *sim.Timer
}

// startCompactor arms the compactor, unless compaction is disabled.
func (s *Server) startCompactor() {
	if s.cfg.CompactionInterval < 0 {
		return
	}
	k := &compactor{s: s}
	k.timer = s.h.NewTimer("apiserver-compact", k.tick)
	k.timer.Reset(s.cfg.CompactionInterval)
}

// tick runs one round of the real compact().
func (k *compactor) tick() {
	k.timer.Reset(k.s.cfg.CompactionInterval)
	key := []byte(compactRevKey)
	txn := mvcc.TxnRequest{
		Compares: []mvcc.Compare{{Key: key, Target: mvcc.CompareVersion, Result: mvcc.CompareEqual, Version: k.version}},
		Success:  []mvcc.Op{mvcc.OpPutOf(key, []byte(formatRV(k.rev)), mvcc.PutOptions{})},
		Failure:  []mvcc.Op{mvcc.OpRangeOf(key, nil, mvcc.RangeOptions{})},
	}
	k.s.etcd.Txn(txn, func(r etcd.TxnResult, err error) {
		if err != nil {
			return
		}
		prev := k.rev
		k.rev = r.Revision
		if !r.Succeeded {
			if k.s.cfg.Ablations.Has(ablation.CompactorNoLearn) {
				return
			}
			if kvs := r.FirstRange(); len(kvs) > 0 {
				k.version = kvs[0].Version
			}
			return
		}
		k.version++
		if prev > 0 {
			k.s.etcd.Compact(prev, func(error) {})
		}
	})
}
