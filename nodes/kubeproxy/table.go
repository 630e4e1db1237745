package kubeproxy

import (
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/proxytrace"
)

// Table is a node's routing table: the rules kube-proxy programmed, which
// the kernel keeps. It outlives the kube-proxy process (a restarted
// process finds its predecessor's rules) and dies with the host. It is
// pure: Apply and Flush return the trace events of what they changed.
type Table struct {
	node   string
	routes map[string]*Route // by Route.Key
	byVIP  map[string]*Route // by Route.VIP
}

// NewTable makes node's empty table.
func NewTable(node string) *Table {
	return &Table{node: node, routes: map[string]*Route{}, byVIP: map[string]*Route{}}
}

// Apply replaces the table's routes with routes (a sync) and returns a
// Rules event for each Service port whose route changed, appeared or went
// away, in key order.
func (t *Table) Apply(routes map[string]*Route) []sim.Data {
	var evs []sim.Data
	for _, key := range sim.SortedKeys(t.routes) {
		if _, ok := routes[key]; !ok {
			ev := t.routes[key].trace(t.node)
			ev.Deleted, ev.Backends = true, nil
			evs = append(evs, ev)
		}
	}
	for _, key := range sim.SortedKeys(routes) {
		if old, ok := t.routes[key]; !ok || !old.equal(routes[key]) {
			evs = append(evs, routes[key].trace(t.node))
		}
	}
	t.routes = routes
	t.byVIP = make(map[string]*Route, len(routes))
	for _, key := range sim.SortedKeys(routes) {
		r := routes[key]
		t.byVIP[r.VIP()] = r
	}
	return evs
}

// Flush empties the table, returning its Flush event (none when it was
// already empty).
func (t *Table) Flush(reason string) []sim.Data {
	if len(t.routes) == 0 {
		return nil
	}
	t.routes, t.byVIP = map[string]*Route{}, map[string]*Route{}
	return []sim.Data{&proxytrace.Flush{Node: t.node, Reason: reason}}
}

// Lookup returns the route of traffic to clusterIP:port over protocol
// ("" means TCP), and false when no rule matches it. Its Backends are the
// table's: never modify them.
func (t *Table) Lookup(clusterIP string, port int32, protocol string) (Route, bool) {
	r, ok := t.byVIP[vip(clusterIP, port, protocolOr(protocol))]
	if !ok {
		return Route{}, false
	}
	return *r, true
}

// Routes returns every route, in key order.
func (t *Table) Routes() []Route {
	out := make([]Route, 0, len(t.routes))
	for _, key := range sim.SortedKeys(t.routes) {
		out = append(out, *t.routes[key])
	}
	return out
}
