package cache

import (
	"errors"
	"strings"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// Watch timeouts, as client-go's reflector asks for them: a random
// duration in [MinWatchTimeout, 2*MinWatchTimeout).
const MinWatchTimeout = 5 * time.Minute

// Relist reasons, as traced in apitrace.Relist.
const (
	RelistInitial    = "initial"
	RelistGone       = "gone"        // the watch got 410 Gone
	RelistWatchError = "watch-error" // the watch ended with another error
	RelistListError  = "list-error"  // the previous list failed
	RelistListGone   = "list-gone"   // the previous list got 410: list from etcd
	RelistPoll       = "poll"        // poll mode's periodic list
)

// ReflectorStore is what a reflector writes to: a Store, or an Informer.
type ReflectorStore interface {
	Add(obj model.Object)
	Update(obj model.Object)
	Delete(obj model.Object)
	Replace(items []model.Object, resourceVersion string)
}

// ReflectorConfig configures a Reflector.
type ReflectorConfig struct {
	// Name identifies the reflector (its informer) in the trace.
	Name string
	// Resource, Namespace and LabelSelector say what to list and watch.
	Resource      string
	Namespace     string
	LabelSelector string
	// PageSize, when positive, pages every list (client-go's
	// Reflector.WatchListPageSize). When 0, lists page as client-go's
	// pager does by default, DefaultPageSize items a page, except lists
	// from a resourceVersion other than "" and "0", which ask for no limit
	// so that the watch cache serves them.
	PageSize int64
	// ConsistentInitialList makes the first list a quorum read (RV "")
	// instead of client-go's RV "0".
	ConsistentInitialList bool
	// Ablations are the run's ablation switches; the reflector asks for
	// ablation.NoResume and ablation.RelistRV0 (see the package doc).
	Ablations ablation.Set
	// PollInterval, when positive, puts the reflector in poll mode (the
	// poll-not-watch ablation, see the package doc): it never watches, and
	// lists with resourceVersion "" every PollInterval instead.
	PollInterval time.Duration
}

// Reflector keeps a ReflectorStore in step with one resource by
// list-then-watch. Make it with NewReflector and start it with Run.
type Reflector struct {
	c       *client.Client
	h       *sim.Host
	cfg     ReflectorConfig
	store   ReflectorStore
	backoff *BackoffManager
	rnd     *sim.Stream

	running bool
	gen     uint64 // bumps on every (re)start, so stale callbacks do nothing
	lastRV  string
	rvGone  bool // the last list with lastRV got 410: list with ""
	// paginated: a list at "0" came back in pages, so the server honours
	// limits there (no watch cache): keep paging every list.
	paginated   bool
	listed      bool
	watcher     *client.Watcher
	watchStart  sim.Time
	watchEvents int
	watchTimer  *sim.Timer
	pollTimer   *sim.Timer
	relists     int
}

// NewReflector makes a reflector of cfg.Resource writing to store.
func NewReflector(c *client.Client, cfg ReflectorConfig, store ReflectorStore) *Reflector {
	h := c.Host()
	if cfg.Name == "" {
		cfg.Name = c.Name() + "/" + cfg.Resource
	}
	return &Reflector{
		c: c, h: h, cfg: cfg, store: store,
		rnd:     h.Rand("reflector/" + cfg.Name),
		backoff: NewBackoffManager(BackoffInitial, BackoffMax, BackoffReset, BackoffFactor, BackoffJitter, h.Rand("reflector-backoff/"+cfg.Name)),
	}
}

// Run starts ListAndWatch; it returns at once.
func (r *Reflector) Run() {
	if r.running {
		return
	}
	r.running = true
	r.gen++
	r.list(RelistInitial)
}

// Stop ends the reflector: no more requests or store changes.
func (r *Reflector) Stop() {
	r.running = false
	r.gen++
	r.stopWatch()
	if r.pollTimer != nil {
		r.pollTimer.Stop()
	}
}

// polling reports poll mode.
func (r *Reflector) polling() bool { return r.cfg.PollInterval > 0 }

// LastSyncResourceVersion returns the last resourceVersion seen: of the
// last list, event or bookmark.
func (r *Reflector) LastSyncResourceVersion() string { return r.lastRV }

// Relists returns how many lists succeeded.
func (r *Reflector) Relists() int { return r.relists }

// HasSynced reports whether a first list has been stored.
func (r *Reflector) HasSynced() bool { return r.listed }

// relistResourceVersion is client-go's choice of the list's RV.
func (r *Reflector) relistResourceVersion() string {
	switch {
	case r.polling():
		return "" // every poll is a quorum read
	case r.rvGone:
		return ""
	case r.lastRV == "":
		if r.cfg.ConsistentInitialList {
			return ""
		}
		return "0"
	case r.cfg.Ablations.Has(ablation.RelistRV0):
		return "0"
	}
	return r.lastRV
}

// restart runs a new ListAndWatch after the backoff, as wait.BackoffUntil.
func (r *Reflector) restart(reason string) {
	r.stopWatch()
	r.gen++
	gen := r.gen
	r.h.After(r.backoff.Next(r.h.Now()), "reflector-backoff", func() {
		if r.running && r.gen == gen {
			r.list(reason)
		}
	})
}

// list lists the resource (all pages) and then watches.
func (r *Reflector) list(reason string) {
	gen := r.gen
	rv := r.relistResourceVersion()
	var items []model.Object
	listRV := ""
	var page func(cont string)
	limit := r.pageSize(rv)
	page = func(cont string) {
		opts := client.ListOptions{ResourceVersion: rv, LabelSelector: r.cfg.LabelSelector, Limit: limit, Continue: cont}
		if cont != "" {
			opts.ResourceVersion = "" // a continue token carries its own revision
		}
		r.c.Resource(r.cfg.Resource, r.cfg.Namespace).List(opts, func(l *client.ObjectList, err error) {
			if !r.running || r.gen != gen {
				return
			}
			if err != nil {
				if cont != "" && client.IsGone(err) {
					// client-go's pager (tools/pager/pager.go, list,
					// FullListIfExpired): an expired continuation falls
					// back to one full list at the same resourceVersion.
					limit, items, listRV = 0, nil, ""
					page("")
					return
				}
				if rv != "" && (client.IsGone(err) || isTooLargeResourceVersion(err)) {
					// client-go: retry at once, from etcd.
					r.rvGone = true
					r.list(RelistListGone)
					return
				}
				if r.polling() {
					r.schedulePoll() // try again at the next tick
					return
				}
				r.restart(RelistListError)
				return
			}
			if listRV == "" {
				listRV = l.ResourceVersion
				if rv == "0" && l.Continue != "" {
					r.paginated = true
				}
			}
			items = append(items, l.Items...)
			if l.Continue != "" {
				page(l.Continue)
				return
			}
			r.rvGone = false
			r.relists++
			r.listed = true
			r.lastRV = listRV
			r.h.Emit(&apitrace.Relist{Informer: r.cfg.Name, Resource: r.cfg.Resource, Reason: reason, RV: listRV, Items: len(items)})
			r.store.Replace(items, listRV)
			if r.polling() {
				r.schedulePoll()
				return
			}
			r.watch(r.lastRV)
		})
	}
	page("")
}

// DefaultPageSize is client-go's pager's default page size
// (k8s.io/client-go, tools/pager/pager.go, defaultPageSize).
const DefaultPageSize = 500

// pageSize is the limit of a list from rv, as client-go's reflector sets
// its pager (tools/cache/reflector.go, list): WatchListPageSize when set;
// else the pager's default, unless rv names a revision and no list came
// back paginated, when paging is switched off so that the watch cache can
// serve the list (with a limit it would be an exact read of etcd).
func (r *Reflector) pageSize(rv string) int64 {
	switch {
	case r.cfg.PageSize > 0:
		return r.cfg.PageSize
	case r.paginated:
		return DefaultPageSize
	case rv != "" && rv != "0":
		return 0
	}
	return DefaultPageSize
}

// schedulePoll lists again after PollInterval (poll mode).
func (r *Reflector) schedulePoll() {
	if r.pollTimer != nil {
		r.pollTimer.Stop()
	}
	gen := r.gen
	r.pollTimer = r.h.After(r.cfg.PollInterval, "reflector-poll", func() {
		if r.running && r.gen == gen {
			r.list(RelistPoll)
		}
	})
}

func isTooLargeResourceVersion(err error) bool {
	return client.IsTimeout(err) && strings.Contains(err.Error(), "Too large resource version")
}

// watch opens a watch from rv, with client-go's random timeout.
func (r *Reflector) watch(rv string) {
	r.stopWatch()
	gen := r.gen
	r.watchStart = r.h.Now()
	r.watchEvents = 0
	var w *client.Watcher
	w = r.c.Resource(r.cfg.Resource, r.cfg.Namespace).Watch(
		client.ListOptions{ResourceVersion: rv, LabelSelector: r.cfg.LabelSelector, AllowWatchBookmarks: true},
		func(ev *apiwire.WatchEvent, err error) {
			if !r.running || r.gen != gen || r.watcher != w {
				return
			}
			if err != nil {
				r.watchEnded(err)
				return
			}
			r.handleEvent(ev)
		})
	r.watcher = w
	timeout := MinWatchTimeout + time.Duration(r.rnd.Int64N(int64(MinWatchTimeout)))
	r.watchTimer = r.h.After(timeout, "reflector-watch-timeout", func() {
		if r.running && r.gen == gen && r.watcher == w {
			r.resume() // the server closes the stream: a clean end
		}
	})
}

func (r *Reflector) stopWatch() {
	if r.watcher != nil {
		r.watcher.Stop()
		r.watcher = nil
	}
	if r.watchTimer != nil {
		r.watchTimer.Stop()
		r.watchTimer = nil
	}
}

// resume re-watches after a stream that ended cleanly.
func (r *Reflector) resume() {
	if r.cfg.Ablations.Has(ablation.NoResume) {
		r.watch("") // the ablation: from "now", missing the gap
		return
	}
	r.watch(r.lastRV)
}

// watchEnded decides between resuming, retrying the watch and relisting.
func (r *Reflector) watchEnded(err error) {
	switch {
	case errors.Is(err, client.ErrConnectionLost):
		// The connection failed its HTTP/2 health check under the
		// stream or under the watch request: "http2: client connection
		// lost" (golang.org/x/net/http2, closeForLostPing). It is not
		// EOF, and net.IsProbableEOF does not know it, so client-go's
		// StreamWatcher.receive sends an ERROR event, "unable to decode
		// an event from the watch stream", a 500 from the client's error
		// reporter (k8s.io/apimachinery, pkg/watch/streamwatcher.go), and
		// the reflector's watch ends with "watch ended with error" (an
		// informer's MaxInternalErrorRetryDuration is 0), so ListAndWatch
		// lists again from the last resourceVersion after the backoff
		// (k8s.io/client-go, tools/cache/reflector.go, watch). A watch
		// request that fails so is not retried either (rest.Request's
		// Watch retries only net.IsProbableEOF and timeouts; not
		// isWatchErrorRetriable): ListAndWatch returns it.
		r.restart(RelistWatchError)
	case errors.Is(err, client.ErrWatchBroken), errors.Is(err, client.ErrWatchIdle), errors.Is(err, client.ErrWatchClosed):
		// A lost message, a reset connection ("connection reset by
		// peer", net.IsProbableEOF), or the server ended the response:
		// client-go sees the result channel close.
		if r.watchEvents == 0 && r.h.Now().Sub(r.watchStart) < time.Second {
			r.restart(RelistWatchError) // "very short watch"
			return
		}
		r.resume()
	case client.IsNoAnswer(err), client.IsTooManyRequests(err):
		// client-go: connection refused or 429 - back off, watch again
		// (tools/cache/reflector.go, isWatchErrorRetriable; any other
		// error, a 503 included, ends ListAndWatch: relist).
		r.stopWatch()
		r.gen++
		gen := r.gen
		r.h.After(r.backoff.Next(r.h.Now()), "reflector-backoff", func() {
			if r.running && r.gen == gen {
				r.resume()
			}
		})
	case client.IsGone(err):
		r.restart(RelistGone)
	default:
		r.restart(RelistWatchError)
	}
}

// handleEvent applies one watch event to the store.
func (r *Reflector) handleEvent(ev *apiwire.WatchEvent) {
	r.watchEvents++
	rv := ev.ResourceVersion
	if rv == "" && ev.Object != nil {
		rv = ev.Object.GetObjectMeta().ResourceVersion
	}
	switch ev.Type {
	case apiwire.Added:
		r.store.Add(ev.Object)
	case apiwire.Modified:
		r.store.Update(ev.Object)
	case apiwire.Deleted:
		r.store.Delete(ev.Object)
	case apiwire.Bookmark:
	}
	if rv != "" {
		r.lastRV = rv
	}
}
