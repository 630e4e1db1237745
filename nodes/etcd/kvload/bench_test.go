package kvload

import (
	"fmt"
	"testing"
	"time"

	"github.com/kubesim/kubesim/sim"
)

// BenchmarkWorkload runs one virtual minute of a 3-member cluster with three
// KV clients and a watcher.
func BenchmarkWorkload(b *testing.B) {
	for i := 0; i < b.N; i++ {
		wd := newWorld(uint64(i), func(w *sim.World, eps []sim.HostID) {
			for j := 0; j < 3; j++ {
				w.MustAddHost(sim.HostSpec{Name: fmt.Sprintf("c%d", j), Role: "client", Boot: BootClient(ClientConfig{Endpoints: eps})})
			}
			w.MustAddHost(sim.HostSpec{Name: "watcher", Role: "client", Boot: BootWatcher(WatcherConfig{Endpoints: eps})})
		})
		wd.w.RunFor(time.Minute)
	}
}
