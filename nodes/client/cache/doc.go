// Package cache is kubesim's tools/cache: a Reflector that keeps a Store in
// step with the API server by list-then-watch, an Informer that calls
// ResourceEventHandlers on every change, and Listers over its store. They
// follow client-go's semantics, as actors on one simulated host: callbacks
// run from delivered messages and fired timers, and nothing blocks.
//
// # The reflector
//
// ListAndWatch as client-go does it:
//   - The first list uses resourceVersion "0" (client-go's default: served
//     from the API server's watch cache, however stale);
//     ReflectorConfig.ConsistentInitialList asks for "" (a quorum read)
//     instead. Later lists use the last resourceVersion the reflector saw
//     ("not older than"), or "" once a list got 410 Gone, exactly like
//     client-go's relistResourceVersion.
//   - The watch starts from the list's resourceVersion, with bookmarks; every
//     event and bookmark advances the last resourceVersion.
//   - A stream that ends without an error event (a lost message, a reset
//     connection, or the watch's own timeout, drawn like client-go's in
//     [5 min, 10 min)) is resumed from the last resourceVersion at once,
//     without a list. A stream that ends within a second with no event, an
//     ERROR event (410 Gone above all; client-go's watch stream turns a
//     connection that failed its HTTP/2 health check into one) or a failed
//     watch request leads to a relist after the backoff (a 503 answer
//     too: client-go's isWatchErrorRetriable accepts only connection
//     refused and 429); a watch request that got no answer (a timeout or
//     a reset: kubesim's connection refused) or a 429 is retried after
//     the backoff without a list.
//   - Backoff is client-go's: an exponential backoff manager starting at
//     800 ms, factor 2, jitter 1.0, capped at 30 s (so waits end in
//     [30 s, 60 s)), reset after 2 min without a backoff. Like
//     wait.BackoffUntil, every restart of ListAndWatch waits for it.
//
// Two ablations remove a mechanism for the checks to catch:
//   - ablation.NoResume (reflector-no-resume): a stream that broke is
//     re-watched from "" ("now", with synthetic ADDED events of the current
//     state) instead of from the last resourceVersion, and no relist
//     happens: deletions in the gap are missed for good.
//   - ablation.RelistRV0 (reflector-relist-rv0): relists after errors use
//     "0", which a lagging replica serves from its stale cache, so the
//     store can go back in time (Kubernetes issue 59848, the reason
//     client-go relists from the last resourceVersion).
//
// Poll mode (ReflectorConfig.PollInterval > 0) is the poll-not-watch
// ablation, the design a watch replaces: the reflector never watches. It
// lists with resourceVersion "" (a quorum read, so never older than the
// last poll) at once and then every PollInterval, and hands each list to
// its store as a Replace; an Informer turns that into adds, updates (every
// object, changed or not, as a relist) and tombstone deletes for its
// handlers. A failed list is tried again at the next tick. Changes thus
// reach the handlers up to PollInterval late, several changes to one
// object between two polls show as one, and an object created and deleted
// between two polls is never seen. Polls after the first are traced with
// reason "poll".
//
// Each list is traced as apitrace.Relist; each change to an informer's
// store as apitrace.InformerEvent.
package cache
