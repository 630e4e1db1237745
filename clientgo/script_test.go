package clientgo

import "time"

// failure is how the scripted API server answers a request or ends a
// watch stream.
type failure int

const (
	none        failure = iota
	gone                // 410 Expired: "too old resource version"
	tooLarge            // 504 Timeout with cause ResourceVersionTooLarge (apiserver pkg/storage/errors.go NewTooLargeResourceVersionError)
	internal            // 500 InternalError
	tooMany             // 429 TooManyRequests
	unavailable         // 503 ServiceUnavailable
	refused             // client-go: connection refused; kubesim: no answer (the client's request timeout)
)

// event is one watch event the server sends: its type and resourceVersion.
type event struct {
	typ string // ADDED, MODIFIED, DELETED, BOOKMARK
	rv  string
}

// step answers one request of the reflector, which must be of verb.
type step struct {
	verb string // "list" or "watch"
	// fail refuses the request.
	fail failure
	// listRV is a successful list's resourceVersion.
	listRV string
	// events are sent on a successful watch, at once.
	events []event
	// after is how long after the watch began its stream ends: 0 at once
	// (a "very short watch" if no event came), else the clocks advance by
	// after first.
	after time.Duration
	// end is how the stream ends: none closes it cleanly, anything else
	// sends an ERROR event with that status.
	end failure
}

// scenario is a script for the reflector: after its steps, the next
// request the reflector makes is recorded and the run ends.
type scenario struct {
	name  string
	steps []step
	// want is the expected record: "list RV" and "watch RV" for each
	// request, "backoff" for each wait of the reflector's backoff manager.
	want []string
	// bases, when set, are the expected jitter-free backoff waits.
	bases []time.Duration
	// skip, when set, names an undocumented divergence this case shows.
	skip string
}

func list(rv string) step       { return step{verb: "list", listRV: rv} }
func listFails(f failure) step  { return step{verb: "list", fail: f} }
func watchFails(f failure) step { return step{verb: "watch", fail: f} }
func ev(typ, rv string) event   { return event{typ, rv} }
func watchEnds(after time.Duration, end failure, evs ...event) step {
	return step{verb: "watch", events: evs, after: after, end: end}
}

const ms = time.Millisecond

// long is a stream age past client-go's "very short watch" second.
const long = 2 * time.Second

// scenarios are the reflector cases, each citing the client-go v0.34
// tools/cache/reflector.go code that decides it.
var scenarios = []scenario{
	{
		// handleAnyWatch sets the last RV from every event, bookmarks
		// included; a stream that closes cleanly makes watch() loop and
		// watch again from LastSyncResourceVersion, without a list.
		name:  "events-and-bookmark-then-clean-close-resumes",
		steps: []step{list("10"), watchEnds(long, none, ev("ADDED", "11"), ev("MODIFIED", "12"), ev("BOOKMARK", "15"))},
		want:  []string{"list 0", "watch 10", "watch 15"},
	},
	{
		// A delete advances the RV like any event.
		name:  "delete-advances-the-rv",
		steps: []step{list("10"), watchEnds(long, none, ev("ADDED", "11"), ev("DELETED", "12"))},
		want:  []string{"list 0", "watch 10", "watch 12"},
	},
	{
		// A stream younger than a second is "very short" only if it
		// carried no event; a bookmark counts as one.
		name:  "close-within-a-second-after-a-bookmark-resumes",
		steps: []step{list("10"), watchEnds(0, none, ev("BOOKMARK", "13"))},
		want:  []string{"list 0", "watch 10", "watch 13"},
	},
	{
		// VeryShortWatchError: ListAndWatch returns, and BackoffUntil
		// waits the backoff before the next list, from the last RV
		// (relistResourceVersion).
		name:  "very-short-watch-relists-after-backoff",
		steps: []step{list("10"), watchEnds(0, none)},
		want:  []string{"list 0", "watch 10", "backoff", "list 10"},
	},
	{
		// An ERROR 410 in the stream: isExpiredError in watch() returns
		// without marking the RV unavailable, so the relist is "not
		// older than" the last RV seen.
		name:  "watch-410-relists-from-last-rv",
		steps: []step{list("10"), watchEnds(long, gone, ev("ADDED", "11")), list("30")},
		want:  []string{"list 0", "watch 10", "backoff", "list 11", "watch 30"},
	},
	{
		// list(): a 410 on the relist marks the RV unavailable and lists
		// again at once with "" (a quorum read); a successful list clears
		// the mark, so the next relist uses the last RV again.
		name: "relist-410-lists-from-etcd-at-once",
		steps: []step{list("10"), watchEnds(long, gone, ev("ADDED", "11")), listFails(gone), list("40"),
			watchEnds(long, gone, ev("MODIFIED", "41"))},
		want: []string{"list 0", "watch 10", "backoff", "list 11", "list ", "watch 40", "backoff", "list 41"},
	},
	{
		// list(): "too large resource version" is handled as 410.
		name:  "relist-too-large-rv-lists-from-etcd-at-once",
		steps: []step{list("10"), watchEnds(long, internal), listFails(tooLarge), list("12")},
		want:  []string{"list 0", "watch 10", "backoff", "list 10", "list ", "watch 12"},
	},
	{
		// Any other list error: ListAndWatch returns it and the next
		// list, after the backoff, asks for the same RV.
		name:  "list-error-retries-same-rv-after-backoff",
		steps: []step{listFails(internal), listFails(unavailable), list("5")},
		want:  []string{"list 0", "backoff", "list 0", "backoff", "list 0", "watch 5"},
	},
	{
		// An ERROR 500 in the stream: the default branch of watch()'s
		// switch; with MaxInternalErrorRetryDuration 0, no retry: relist.
		name:  "watch-500-relists-from-last-rv",
		steps: []step{list("10"), watchEnds(long, internal, ev("ADDED", "11"), ev("BOOKMARK", "14"))},
		want:  []string{"list 0", "watch 10", "backoff", "list 14"},
	},
	{
		// An ERROR 429 in the stream: back off, then watch again from the
		// last RV, without a list.
		name:  "watch-429-event-rewatches-after-backoff",
		steps: []step{list("10"), watchEnds(long, tooMany, ev("ADDED", "11"))},
		want:  []string{"list 0", "watch 10", "backoff", "watch 11"},
	},
	{
		// isWatchErrorRetriable: a 429 answer to the watch request.
		name:  "watch-request-429-rewatches-after-backoff",
		steps: []step{list("10"), watchFails(tooMany)},
		want:  []string{"list 0", "watch 10", "backoff", "watch 10"},
	},
	{
		// isWatchErrorRetriable: connection refused (kubesim has no
		// connections: its stand-in is a request that got no answer).
		name:  "watch-request-refused-rewatches-after-backoff",
		steps: []step{list("10"), watchFails(refused)},
		want:  []string{"list 0", "watch 10", "backoff", "watch 10"},
	},
	{
		// A 503 answer to the watch request is not retriable in client-go:
		// watch() returns the error, and the reflector relists after the
		// backoff.
		name:  "watch-request-503-relists-after-backoff",
		steps: []step{list("10"), watchFails(unavailable)},
		want:  []string{"list 0", "watch 10", "backoff", "list 10"},
	},
	{
		// The backoff doubles from 800 ms to the 30 s cap while failures
		// come less than 2 min apart.
		name: "backoff-grows-to-the-cap",
		steps: []step{listFails(internal), listFails(internal), listFails(internal), listFails(internal),
			listFails(internal), listFails(internal), listFails(internal), listFails(internal), list("7")},
		want: []string{"list 0", "backoff", "list 0", "backoff", "list 0", "backoff", "list 0", "backoff",
			"list 0", "backoff", "list 0", "backoff", "list 0", "backoff", "list 0", "backoff", "list 0", "watch 7"},
		bases: []time.Duration{800 * ms, 1600 * ms, 3200 * ms, 6400 * ms, 12800 * ms, 25600 * ms, 30 * time.Second, 30 * time.Second},
	},
	{
		// More than 2 min after the last backoff began, the next starts
		// at 800 ms again (the base sequence shows it: 0.8 s, 0.8 s).
		name:  "backoff-resets-after-two-quiet-minutes",
		steps: []step{listFails(internal), list("10"), watchEnds(3*time.Minute, internal, ev("ADDED", "11"))},
		want:  []string{"list 0", "backoff", "list 0", "watch 10", "backoff", "list 11"},
		bases: []time.Duration{800 * ms, 800 * ms},
	},
	{
		// Less than 2 min: it keeps growing (0.8 s, then 1.6 s).
		name:  "backoff-keeps-growing-within-two-minutes",
		steps: []step{listFails(internal), list("10"), watchEnds(30*time.Second, internal, ev("ADDED", "11"))},
		want:  []string{"list 0", "backoff", "list 0", "watch 10", "backoff", "list 11"},
		bases: []time.Duration{800 * ms, 1600 * ms},
	},
}
