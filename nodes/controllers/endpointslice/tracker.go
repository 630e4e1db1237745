package endpointslice

import "github.com/kubesim/kubesim/model"

// deletionExpected marks a slice the controller deleted.
const deletionExpected = -1

// tracker is the EndpointSliceTracker (pkg/controller/endpointslice,
// staging/src/k8s.io/endpointslice/endpointslice_tracker.go): the
// generation of each slice as the controller last wrote it, by Service,
// so that a sync does not act on an informer that has not yet seen the
// controller's own writes, and a slice changed or deleted by someone else
// brings its Service back into the queue.
type tracker struct {
	// byService maps a Service's key to its slices' UIDs and the
	// generation expected of each; looked up, never ranged.
	byService map[string]map[model.UID]int64
}

func newTracker() *tracker { return &tracker{byService: map[string]map[model.UID]int64{}} }

// serviceKey is the key of a slice's Service, from its service-name label.
func serviceKey(s *model.EndpointSlice) (string, bool) {
	name, ok := s.Labels[model.LabelServiceName]
	if !ok || name == "" {
		return "", false
	}
	return s.Namespace + "/" + name, true
}

// has reports a slice the tracker knows.
func (t *tracker) has(s *model.EndpointSlice) bool {
	k, ok := serviceKey(s)
	if !ok {
		return false
	}
	_, ok = t.byService[k][s.UID]
	return ok
}

// shouldSync reports a slice event the controller did not cause: a slice
// it does not know, or one of a newer generation than it wrote.
func (t *tracker) shouldSync(s *model.EndpointSlice) bool {
	k, ok := serviceKey(s)
	if !ok {
		return true
	}
	g, ok := t.byService[k][s.UID]
	return !ok || s.Generation > g
}

// staleSlices reports an informer behind the controller's writes: a slice
// it deleted still listed, one listed at an older generation than it
// wrote, or one it wrote missing.
//
// As upstream's StaleSlices, it cannot tell a slice missing from the
// informer from one a user relabelled away from the Service (another
// managed-by or service-name label): such a slice stays tracked under the
// Service, whose every sync then fails as stale, until the Service is
// deleted or the controller restarts with a new tracker. kubesim keeps
// that behaviour (endpointslice-churn therefore relabels no slice).
func (t *tracker) staleSlices(svcKey string, slices []*model.EndpointSlice) bool {
	gens, ok := t.byService[svcKey]
	if !ok {
		return false
	}
	listed := map[model.UID]bool{}
	for _, s := range slices {
		listed[s.UID] = true
		if g, ok := gens[s.UID]; ok && (g == deletionExpected || g > s.Generation) {
			return true
		}
	}
	// determinism: a yes/no answer, whatever the order
	for uid, g := range gens {
		if g != deletionExpected && !listed[uid] {
			return true
		}
	}
	return false
}

// update records a slice the controller wrote, as the API server returned it.
func (t *tracker) update(s *model.EndpointSlice) { t.record(s, s.Generation) }

// expectDeletion records a slice the controller deleted.
func (t *tracker) expectDeletion(s *model.EndpointSlice) { t.record(s, deletionExpected) }

// record sets what the tracker expects of slice s of a Service: the
// generation gen, or deletionExpected.
func (t *tracker) record(s *model.EndpointSlice, gen int64) {
	k, ok := serviceKey(s)
	if !ok {
		return
	}
	if t.byService[k] == nil {
		t.byService[k] = map[model.UID]int64{}
	}
	t.byService[k][s.UID] = gen
}

// handleDeletion forgets a deleted slice and reports whether the
// controller expected its deletion (or never knew it).
func (t *tracker) handleDeletion(s *model.EndpointSlice) bool {
	k, ok := serviceKey(s)
	if !ok {
		return true
	}
	gens := t.byService[k]
	g, ok := gens[s.UID]
	delete(gens, s.UID)
	return !ok || g == deletionExpected
}

// deleteService forgets a Service's slices.
func (t *tracker) deleteService(svcKey string) { delete(t.byService, svcKey) }
