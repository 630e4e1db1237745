package backup

import (
	"fmt"
	"time"

	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/nodes/internal/periodic"
	"github.com/kubesim/kubesim/sim"
)

// DefaultJobTimeout bounds each snapshot save and each upload.
const DefaultJobTimeout = 10 * time.Second

// JobConfig configures the periodic backup job.
type JobConfig struct {
	// Members are the etcd members' hosts; each run saves from one of
	// them, drawn at random.
	Members []sim.HostID
	// Store is the backup store's host.
	Store sim.HostID
	// Interval is the time between two runs (a CronJob's schedule).
	Interval time.Duration
	// Until, when set, is the virtual time after which it runs no more.
	Until time.Duration
	// Timeout bounds each save and each upload; default DefaultJobTimeout.
	Timeout time.Duration
}

// BootJob returns the Boot function of the operator's backup job host:
// every Interval it runs `etcdctl snapshot save` against a member drawn
// at random and uploads the snapshot to the store as
// "<member>-rev<revision>.db". A failed save or upload is given up until
// the next run, as a CronJob's failed run is.
func BootJob(cfg JobConfig) func(h *sim.Host) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultJobTimeout
	}
	return func(h *sim.Host) {
		rng := h.Rand("backup-job")
		store := NewStoreClient(h, cfg.Store, "objstore-reply", cfg.Timeout)
		c := etcd.NewClient(h, etcd.ClientConfig{Endpoints: cfg.Members, RequestTimeout: cfg.Timeout})
		periodic.Every(h, "backup", cfg.Interval, cfg.Until, func() {
			if len(cfg.Members) == 0 {
				return
			}
			c.Snapshot(cfg.Members[rng.IntN(len(cfg.Members))], func(s *etcd.Snapshot, err error) {
				if err != nil {
					return
				}
				store.Put(fmt.Sprintf("%s-rev%d.db", s.Member, s.Revision), s, func(error) {})
			})
		})
	}
}
