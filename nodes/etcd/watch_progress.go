package etcd

import (
	"time"

	"github.com/kubesim/kubesim/sim"
)

// startProgressTicker starts the periodic progress notifications of a
// watch created with progress_notify, as etcd's serverWatchStream
// (server/etcdserver/api/v3rpc/watch.go): sendLoop ticks every
// GetProgressReportInterval (the interval plus a jitter drawn once, uniform
// in [0, interval/10), so that streams opened together do not notify
// together); recvLoop marks a progress_notify watch as owed a notification
// when it is created. kubesim runs one watch per stream, so the stream's
// ticker is the watch's.
func (m *member) startProgressTicker(ws *watchStream) {
	if m.progressRand == nil {
		m.progressRand = m.h.Rand("etcd/watch-progress")
	}
	interval := m.cfg.WatchProgressNotifyInterval
	period := time.Duration(sim.Jitter(m.progressRand, int64(interval), int64(interval)/10))
	ws.progressNotify, ws.progress = true, true
	var tick func()
	tick = func() {
		m.progressTick(ws)
		ws.ticker = m.h.After(period, "etcd-watch-progress", tick)
	}
	ws.ticker = m.h.After(period, "etcd-watch-progress", tick)
}

// progressTick is one tick of sendLoop's progressTicker for ws: a watch
// that was sent no events since the last tick gets a progress notification
// if the store can give one (synced, and at or past its start revision:
// mvcc's watchableStore.progressIfSync), and every progress_notify watch is
// marked owed one again ("sws.progress[id] = true").
func (m *member) progressTick(ws *watchStream) {
	if ws.progress && m.store.RequestProgress(ws.id) {
		m.flushWatches(false)
	}
	ws.progress = true
}
