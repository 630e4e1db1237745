package kvload

import (
	"time"

	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/nodes/internal/periodic"
	"github.com/kubesim/kubesim/sim"
)

// DefaultCompactionInterval is kube-apiserver's --etcd-compaction-interval.
const DefaultCompactionInterval = 5 * time.Minute

// compactRevKey is the key whose read reports the current revision, as
// kube-apiserver's compactor keeps "compact_rev_key".
const compactRevKey = "compact_rev_key"

// CompactorConfig configures a compactor process.
type CompactorConfig struct {
	// Name is the compactor's client name; empty means the host's name.
	Name string
	// Endpoints are the etcd members' hosts.
	Endpoints []sim.HostID
	// Interval is the time between compactions. Default 5 min.
	Interval time.Duration
	// Until, when set, is the virtual time after which it compacts no more.
	Until time.Duration
}

// BootCompactor returns the Boot function of a compactor host. Like
// kube-apiserver, every Interval it compacts to the revision it observed at
// the previous interval, so that at least one interval of history remains.
func BootCompactor(cfg CompactorConfig) func(h *sim.Host) {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultCompactionInterval
	}
	return func(h *sim.Host) {
		c := etcd.NewClient(h, etcd.ClientConfig{Name: traceName(h, cfg.Name), Endpoints: cfg.Endpoints})
		var prev int64
		periodic.Every(h, "compact", cfg.Interval, cfg.Until, func() {
			c.Get(compactRevKey, etcd.GetOptions{}, func(res etcd.GetResult, err error) {
				if err != nil {
					return
				}
				if prev > 0 {
					c.Compact(prev, func(error) {})
				}
				prev = res.Revision
			})
		})
	}
}
