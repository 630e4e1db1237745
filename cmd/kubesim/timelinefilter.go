package main

import (
	"fmt"
	"path"
	"strings"

	"github.com/kubesim/kubesim/sim"
)

// timelineFilterHelp documents the syntax of --timeline-filter.
const timelineFilterHelp = `print only some events in the timeline (repeatable):
KEY=PATTERNS keeps events that match one of the comma-separated PATTERNS, KEY!=PATTERNS drops those that match one;
KEY is kind (raft.state, api.call, informer.*, ... or the kernel's send, deliver, drop, refuse, timer, fault; node
matches every event a process adds) or host (where the event happened); * and ? are wildcards. An event is printed
when it passes every KEY given, e.g. --timeline-filter 'kind=raft.*,fault' --timeline-filter host=etcd-1,
or --timeline-filter kind!=send,deliver,timer to cut the message noise`

// timelineFilter selects the events a timeline prints. For each key, an
// event must match one of the keep patterns (when there are any) and none
// of the drop patterns.
type timelineFilter struct {
	keepKind, dropKind, keepHost, dropHost []string
}

// parseTimelineFilter parses the --timeline-filter flags; none gives a nil
// filter, which keeps everything.
func parseTimelineFilter(specs []string) (*timelineFilter, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	f := &timelineFilter{}
	for _, spec := range specs {
		key, list, ok := strings.Cut(spec, "=")
		drop := strings.HasSuffix(key, "!")
		key = strings.TrimSuffix(key, "!")
		var keep, dropped *[]string
		switch key {
		case "kind":
			keep, dropped = &f.keepKind, &f.dropKind
		case "host":
			keep, dropped = &f.keepHost, &f.dropHost
		}
		if !ok || keep == nil {
			return nil, fmt.Errorf("--timeline-filter %q: want kind=PATTERNS or host=PATTERNS (!= to drop instead of keep), e.g. kind=raft.*,fault", spec)
		}
		for _, p := range strings.Split(list, ",") {
			if _, err := path.Match(p, ""); err != nil || p == "" {
				return nil, fmt.Errorf("--timeline-filter %q: bad pattern %q: want a kind or host name, with * and ? as wildcards", spec, p)
			}
			if drop {
				*dropped = append(*dropped, p)
			} else {
				*keep = append(*keep, p)
			}
		}
	}
	return f, nil
}

// matchAny reports whether one of the patterns matches one of the names.
func matchAny(patterns []string, names ...string) bool {
	for _, p := range patterns {
		for _, n := range names {
			if ok, _ := path.Match(p, n); ok {
				return true
			}
		}
	}
	return false
}

// passes reports whether names pass one key's keep and drop patterns.
func passes(keep, drop []string, names ...string) bool {
	return (len(keep) == 0 || matchAny(keep, names...)) && !matchAny(drop, names...)
}

// keep reports whether the timeline prints e.
func (f *timelineFilter) keep(w *sim.World, e *sim.Event) bool {
	kinds := []string{sim.EventKindName(e)}
	if e.Kind == sim.KindNode {
		kinds = append(kinds, sim.KindNode.String())
	}
	return passes(f.keepKind, f.dropKind, kinds...) && passes(f.keepHost, f.dropHost, w.HostName(e.Host))
}

// checkHosts finds host patterns that match no host of the world: a typo
// would otherwise print an empty timeline.
func (f *timelineFilter) checkHosts(w *sim.World) error {
	var names []string
	for _, h := range w.Hosts() {
		names = append(names, h.Name())
	}
	for _, p := range append(append([]string(nil), f.keepHost...), f.dropHost...) {
		if !matchAny([]string{p}, names...) {
			return fmt.Errorf("--timeline-filter: host pattern %q matches no host of this run (its hosts: %s)", p, strings.Join(names, ", "))
		}
	}
	return nil
}
