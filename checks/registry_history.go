package checks

import (
	"iter"
	"sort"
	"strconv"
	"strings"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// registryRoot is the etcd prefix of every API object:
// "/registry/<resource>/<namespace>/<name>" or "/registry/<resource>/<name>".
const registryRoot = "/registry/"

// objChange is one committed change of an API object.
type objChange struct {
	rev int64
	del bool
	at  sim.Time
	seq uint64
}

// appliedRevs reads each committed revision once: the first Apply with
// changes at a revision defines it (every member applies the same entries;
// raft-safety checks that), so later Applies at or below the highest
// revision seen are skipped.
type appliedRevs struct{ max int64 }

// fresh reports whether d is the first Apply with changes at a revision
// above the highest seen, and if so makes d's the highest.
func (r *appliedRevs) fresh(d *etcdtrace.Apply) bool {
	if len(d.Changes) == 0 || d.Rev <= r.max {
		return false
	}
	r.max = d.Rev
	return true
}

// of returns e's Apply when it is fresh.
func (r *appliedRevs) of(e *sim.Event) (*etcdtrace.Apply, bool) {
	d, ok := e.Data.(*etcdtrace.Apply)
	return d, ok && r.fresh(d)
}

// registryHistory is the committed history of API objects, from etcd Apply
// events, each revision read once.
type registryHistory struct {
	revs  appliedRevs
	byRes map[string]map[string][]objChange // resource -> API key (ns/name or name) -> ascending changes
}

func newRegistryHistory() registryHistory {
	return registryHistory{byRes: map[string]map[string][]objChange{}}
}

// splitRegistryKey splits an etcd key into resource and API key. A custom
// kind's key has its group first ("/registry/<group>/<plural>/<ns>/<name>",
// the apiextensions API server's prefix); a group has a dot, which no
// built-in resource name has.
func splitRegistryKey(k string) (resource, key string, ok bool) {
	rest, ok := strings.CutPrefix(k, registryRoot)
	if !ok {
		return "", "", false
	}
	resource, key, ok = strings.Cut(rest, "/")
	if ok && strings.Contains(resource, ".") {
		resource, key, ok = strings.Cut(key, "/")
	}
	return resource, key, ok && resource != "" && key != ""
}

// registryChange is a committed change of an API object, with its
// resource and API key.
type registryChange struct {
	*etcdtrace.Change
	res, key string
}

// registryChanges yields d's changes of API objects (see splitRegistryKey),
// in order.
func registryChanges(d *etcdtrace.Apply) iter.Seq[registryChange] {
	return func(yield func(registryChange) bool) {
		for i := range d.Changes {
			ch := &d.Changes[i]
			if res, key, ok := splitRegistryKey(ch.Key); ok && !yield(registryChange{ch, res, key}) {
				return
			}
		}
	}
}

func (h *registryHistory) apply(e *sim.Event, d *etcdtrace.Apply) {
	if !h.revs.fresh(d) {
		return
	}
	for ch := range registryChanges(d) {
		m := h.byRes[ch.res]
		if m == nil {
			m = map[string][]objChange{}
			h.byRes[ch.res] = m
		}
		m[ch.key] = append(m[ch.key], objChange{rev: ch.ModRev, del: ch.Type == "delete", at: e.At, seq: e.Seq})
	}
}

// stateAt returns the API keys of resource present at revision rev in
// namespace scope ns ("" all), with their resourceVersions.
func (h *registryHistory) stateAt(resource, ns string, rev int64) map[string]int64 {
	out := map[string]int64{}
	// determinism: builds a map; callers read it by sorted keys.
	for key, chs := range h.byRes[resource] {
		if !inNamespace(key, ns) {
			continue
		}
		i := sort.Search(len(chs), func(i int) bool { return chs[i].rev > rev }) - 1
		if i >= 0 && !chs[i].del {
			out[key] = chs[i].rev
		}
	}
	return out
}

// inNamespace reports whether API key (ns/name or name) is in scope ns.
func inNamespace(key, ns string) bool {
	if ns == "" {
		return true
	}
	n, _, ok := strings.Cut(key, "/")
	return ok && n == ns
}

// parseRV parses a resourceVersion; ok is false for "" or garbage.
func parseRV(rv string) (int64, bool) {
	n, err := strconv.ParseInt(rv, 10, 64)
	return n, err == nil
}
