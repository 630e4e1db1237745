package endpointslice

import (
	"fmt"
	"net/netip"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
)

// labelHeadless marks the slices of a Service without a cluster IP
// (corev1.IsHeadlessService).
const labelHeadless = "service.kubernetes.io/headless"

// plan is what one reconcile of a Service writes, in finalize's order:
// creates, then updates, then deletes. errs are the pods it had to leave
// out (their node is unknown), which fail the sync so that it is retried.
type plan struct {
	create, update, delete []*model.EndpointSlice
	errs                   []error
}

// empty reports a plan with nothing to write.
func (p *plan) empty() bool { return len(p.create)+len(p.update)+len(p.delete) == 0 }

// reconciler computes plans, as the Reconciler of
// staging/src/k8s.io/endpointslice/reconciler.go, for IPv4 Services.
type reconciler struct {
	maxEndpointsPerSlice int
	nodeExists           func(name string) bool
	ablations            ablation.Set
}

// reconcile is Reconciler.Reconcile and reconcileByAddressType: the
// desired endpoints of svc's pods, grouped by their ports, placed in the
// existing slices as reconcileByPortMapping places them, and finalize's
// turn of creates into updates of slices it would delete. existing are
// the controller's slices of svc (by label) that are not being deleted.
//
// Go's map and set iteration orders are random upstream; kubesim goes by
// slice name and pod order (the lister's, by key) wherever upstream
// ranges over a map or pops from a set.
func (r *reconciler) reconcile(svc *model.Service, pods []*model.Pod, existing []*model.EndpointSlice) plan {
	var p plan
	// Reconcile: slices of an address type the Service no longer has
	// (IPv4 only here) are deleted; reconcileByAddressType: so are
	// slices of the type that the Service does not own.
	var ofType []*model.EndpointSlice
	var toDelete []*model.EndpointSlice
	for _, s := range existing {
		if s.AddressType != model.AddressTypeIPv4 {
			toDelete = append(toDelete, s)
			continue
		}
		ofType = append(ofType, s)
	}
	var alienDeletes []*model.EndpointSlice
	existingByPorts := map[string][]*model.EndpointSlice{}
	for _, s := range ofType {
		if ownedBy(s, svc) {
			k := portMapKey(s.Ports)
			existingByPorts[k] = append(existingByPorts[k], s)
		} else {
			alienDeletes = append(alienDeletes, s)
		}
	}

	desired := map[string]*endpointSet{}
	desiredPorts := map[string][]model.EndpointPort{}
	var portKeys []string // in first-seen order
	for _, pod := range pods {
		if !shouldPodBeInEndpoints(pod, !r.ablations.Has(ablation.EndpointSliceDropsTerminating)) {
			continue
		}
		ports := endpointPorts(svc, pod)
		k := portMapKey(ports)
		if _, ok := desired[k]; !ok {
			desired[k] = &endpointSet{}
			desiredPorts[k] = ports
			portKeys = append(portKeys, k)
		}
		if !r.nodeExists(pod.Spec.NodeName) {
			// The Node is not (yet, or any more) in the informer: leave
			// the pod out and retry later.
			p.errs = append(p.errs, fmt.Errorf("skipping Pod %s for Service %s/%s: Node %s Not Found", pod.Name, svc.Namespace, svc.Name, pod.Spec.NodeName))
			continue
		}
		if ep := r.podToEndpoint(pod, svc); len(ep.Addresses) > 0 {
			desired[k].insert(ep)
		}
	}

	var create, update, del []*model.EndpointSlice
	for _, k := range portKeys {
		c, u, d := r.reconcileByPortMapping(svc, existingByPorts[k], desired[k], desiredPorts[k])
		create, update, del = append(create, c...), append(update, u...), append(del, d...)
	}
	// Port mappings no longer desired: their slices go.
	for _, k := range sim.SortedKeys(existingByPorts) {
		if _, ok := desired[k]; !ok {
			del = append(del, existingByPorts[k]...)
		}
	}
	del = append(alienDeletes, del...)
	// A Service always has a slice: when none would remain, a placeholder
	// without endpoints or ports.
	if len(ofType) == len(del) && len(create) == 0 {
		placeholder := newEndpointSlice(svc, nil)
		if len(del) == 1 && samePlaceholder(del[0], placeholder) {
			del = del[:0]
		} else {
			create = append(create, placeholder)
		}
	}
	p.create, p.update, p.delete = finalize(svc, create, update, del)
	p.delete = append(p.delete, toDelete...)
	return p
}

// reconcileByPortMapping is the real one: keep each existing slice's
// endpoints that are still desired (updated where they changed), drop the
// rest (a slice left empty is deleted), fill the slices being updated
// (fullest first), then put what remains in the unchanged slice it fits
// best, or in new slices of at most maxEndpointsPerSlice endpoints.
func (r *reconciler) reconcileByPortMapping(svc *model.Service, existing []*model.EndpointSlice, desired *endpointSet,
	ports []model.EndpointPort) (create, update, del []*model.EndpointSlice) {
	byName := map[string]*model.EndpointSlice{}
	unchanged, toUpdate, toDelete := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, s := range sortedByName(existing) {
		byName[s.Name] = s
		var kept []model.Endpoint
		changed := false
		for i := range s.Endpoints {
			got := desired.get(&s.Endpoints[i])
			if got == nil {
				continue
			}
			kept = append(kept, *got)
			if !endpointsEqualBeyondHash(got, &s.Endpoints[i]) {
				changed = true
			}
			desired.remove(got)
		}
		labels, labelsChanged := sliceLabels(s, svc)
		switch {
		case changed || len(kept) != len(s.Endpoints):
			if len(kept) == 0 {
				toDelete[s.Name] = true
				continue
			}
			cp := s.DeepCopy()
			cp.Endpoints, cp.Labels = kept, labels
			byName[s.Name] = cp
			toUpdate[s.Name] = true
		case labelsChanged:
			cp := s.DeepCopy()
			cp.Labels = labels
			byName[s.Name] = cp
			toUpdate[s.Name] = true
		default:
			unchanged[s.Name] = true
		}
	}
	if desired.len() > 0 && len(toUpdate) > 0 {
		var fill []*model.EndpointSlice
		for _, n := range sim.SortedKeys(toUpdate) {
			fill = append(fill, byName[n])
		}
		// The fullest first (a stable sort: ties by name).
		sort.SliceStable(fill, func(i, j int) bool { return len(fill[i].Endpoints) > len(fill[j].Endpoints) })
		for _, s := range fill {
			for desired.len() > 0 && len(s.Endpoints) < r.maxEndpointsPerSlice {
				s.Endpoints = append(s.Endpoints, desired.pop())
			}
		}
	}
	for desired.len() > 0 {
		var target *model.EndpointSlice
		if desired.len() < r.maxEndpointsPerSlice && len(unchanged) > 0 {
			var cands []*model.EndpointSlice
			for _, n := range sim.SortedKeys(unchanged) {
				cands = append(cands, byName[n])
			}
			target = sliceToFill(cands, desired.len(), r.maxEndpointsPerSlice)
		}
		if target == nil {
			target = newEndpointSlice(svc, ports)
		} else {
			target = target.DeepCopy()
			byName[target.Name] = target
		}
		for desired.len() > 0 && len(target.Endpoints) < r.maxEndpointsPerSlice {
			target.Endpoints = append(target.Endpoints, desired.pop())
		}
		if target.Name != "" {
			toUpdate[target.Name] = true
			delete(unchanged, target.Name)
		} else {
			create = append(create, target)
		}
	}
	for _, n := range sim.SortedKeys(toUpdate) {
		update = append(update, byName[n])
	}
	for _, n := range sim.SortedKeys(toDelete) {
		del = append(del, byName[n])
	}
	return create, update, del
}

// sliceToFill is getSliceToFill: the slice that n more endpoints fill
// closest to max without going over, or nil.
func sliceToFill(cands []*model.EndpointSlice, n, max int) *model.EndpointSlice {
	closest := max
	var best *model.EndpointSlice
	for _, s := range cands {
		if d := max - (n + len(s.Endpoints)); d >= 0 && d < closest {
			closest, best = d, s
			if d == 0 {
				return best
			}
		}
	}
	return best
}

// finalize is the reconciler's: while there are slices to create and to
// delete, a create becomes an update of a slice it would delete that the
// Service owns (the last create takes the first such slice's name).
func finalize(svc *model.Service, create, update, del []*model.EndpointSlice) ([]*model.EndpointSlice, []*model.EndpointSlice, []*model.EndpointSlice) {
	for i := 0; i < len(del) && len(create) > 0; {
		d, s := del[i], create[len(create)-1]
		if d.AddressType == s.AddressType && ownedBy(d, svc) {
			s.Name = d.Name
			create = create[:len(create)-1]
			update = append(update, s)
			del = append(del[:i:i], del[i+1:]...)
			continue
		}
		i++
	}
	// No new slices for a Service being deleted: the garbage collector is
	// removing them.
	if svc.DeletionTimestamp != nil {
		create = nil
	}
	return create, update, del
}

// newEndpointSlice is the reconciler's: an IPv4 slice of svc with ports,
// no endpoints yet, generateName "<svc>-", controlled by svc, labelled
// as setEndpointSliceLabels labels it.
func newEndpointSlice(svc *model.Service, ports []model.EndpointPort) *model.EndpointSlice {
	s := &model.EndpointSlice{
		ObjectMeta: model.ObjectMeta{Namespace: svc.Namespace, GenerateName: slicePrefix(svc.Name),
			OwnerReferences: []model.OwnerReference{*model.NewControllerRef(svc, model.KindService)}},
		AddressType: model.AddressTypeIPv4,
		Endpoints:   []model.Endpoint{},
		Ports:       ports,
	}
	s.Labels, _ = sliceLabels(s, svc)
	return s
}

// slicePrefix is getEndpointSlicePrefix: "<svc>-", or the name itself when
// that is no valid name prefix.
func slicePrefix(name string) string {
	prefix := name + "-"
	if len(model.IsDNS1123Subdomain(prefix[:len(prefix)-1]+"a")) != 0 {
		return name
	}
	return prefix
}

// sliceLabels is setEndpointSliceLabels: the Service's labels but the
// reserved ones, the headless label when it has no cluster IP, and the
// service-name and managed-by labels; changed reports that the slice's
// own non-reserved labels are not the Service's.
func sliceLabels(s *model.EndpointSlice, svc *model.Service) (map[string]string, bool) {
	reserved := func(k string) bool {
		return k == model.LabelServiceName || k == model.LabelManagedBy || k == labelHeadless
	}
	svcLabels := map[string]string{}
	for _, k := range sim.SortedKeys(svc.Labels) {
		if !reserved(k) {
			svcLabels[k] = svc.Labels[k]
		}
	}
	own := map[string]string{}
	for _, k := range sim.SortedKeys(s.Labels) {
		if !reserved(k) {
			own[k] = s.Labels[k]
		}
	}
	changed := !reflect.DeepEqual(own, svcLabels)
	out := svcLabels
	if ip := svc.Spec.ClusterIP; ip == "" || ip == "None" {
		out[labelHeadless] = ""
	}
	out[model.LabelServiceName] = svc.Name
	out[model.LabelManagedBy] = model.ManagedByEndpointSliceController
	return out, changed
}

// samePlaceholder is placeholderSliceCompare's DeepEqual: same namespace,
// labels, owner references, address type, and no endpoints or ports.
func samePlaceholder(a, b *model.EndpointSlice) bool {
	return a.Namespace == b.Namespace && reflect.DeepEqual(nonNil(a.Labels), nonNil(b.Labels)) &&
		reflect.DeepEqual(a.OwnerReferences, b.OwnerReferences) && a.AddressType == b.AddressType &&
		len(a.Endpoints) == 0 && len(b.Endpoints) == 0 && len(a.Ports) == 0 && len(b.Ports) == 0
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// ownedBy reports a slice controlled by svc: an owner reference of kind
// Service, apiVersion v1 and svc's UID.
func ownedBy(s *model.EndpointSlice, svc *model.Service) bool {
	for _, o := range s.OwnerReferences {
		if o.UID == svc.UID && o.Kind == model.KindService && o.APIVersion == "v1" {
			return true
		}
	}
	return false
}

// shouldPodBeInEndpoints is endpointsliceutil.ShouldPodBeInEndpoints: not
// terminal, with an IP, and, unless includeTerminating, not being deleted.
func shouldPodBeInEndpoints(pod *model.Pod, includeTerminating bool) bool {
	if model.IsPodTerminal(pod) || pod.Status.PodIP == "" {
		return false
	}
	return includeTerminating || pod.DeletionTimestamp == nil
}

// podToEndpoint is the real one: the pod's IPv4 address; serving is the
// pod's readiness, terminating its deletion, and ready is serving and not
// terminating; the pod as target and its node.
func (r *reconciler) podToEndpoint(pod *model.Pod, svc *model.Service) model.Endpoint {
	serving := model.IsPodReady(pod)
	terminating := pod.DeletionTimestamp != nil
	ready := serving && !terminating
	if r.ablations.Has(ablation.EndpointSliceServingIsReady) {
		serving = ready
	}
	if r.ablations.Has(ablation.EndpointSliceIgnoresReadiness) {
		ready = true
	}
	ep := model.Endpoint{
		Conditions: model.EndpointConditions{Ready: model.Ptr(ready), Serving: model.Ptr(serving), Terminating: model.Ptr(terminating)},
		TargetRef:  &model.ObjectReference{Kind: model.KindPod, Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		NodeName:   pod.Spec.NodeName,
	}
	if a, err := netip.ParseAddr(pod.Status.PodIP); err == nil && a.Is4() {
		ep.Addresses = []string{pod.Status.PodIP}
	}
	return ep
}

// endpointPorts is getEndpointPorts: each Service port whose target the
// pod has (podutil.FindPort: a number is itself; a name would be looked up
// among the containers' ports, which kubesim's pods do not declare, so a
// named targetPort is never found and that port left out).
func endpointPorts(svc *model.Service, pod *model.Pod) []model.EndpointPort {
	var out []model.EndpointPort
	for _, sp := range svc.Spec.Ports {
		if sp.TargetPort.Type != model.Int {
			continue
		}
		out = append(out, model.EndpointPort{Name: model.Ptr(sp.Name), Protocol: model.Ptr(sp.Protocol), Port: model.Ptr(sp.TargetPort.IntVal)})
	}
	return out
}

// portMapKey identifies a set of ports whatever their order, as
// endpointsliceutil.NewPortMapKey.
func portMapKey(ports []model.EndpointPort) string {
	parts := make([]string, len(ports))
	for i, p := range ports {
		port := ""
		if p.Port != nil {
			port = strconv.Itoa(int(*p.Port))
		}
		parts[i] = model.Deref(p.Name, "") + "/" + model.Deref(p.Protocol, "") + "/" + port
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// endpointsEqualBeyondHash is the real one: two endpoints of the same
// identity (addresses and pod) agree on their node, conditions and target.
func endpointsEqualBeyondHash(a, b *model.Endpoint) bool {
	return a.NodeName == b.NodeName && boolPtrEqual(a.Conditions.Ready, b.Conditions.Ready) &&
		boolPtrEqual(a.Conditions.Serving, b.Conditions.Serving) && boolPtrEqual(a.Conditions.Terminating, b.Conditions.Terminating) &&
		reflect.DeepEqual(a.TargetRef, b.TargetRef)
}

func boolPtrEqual(a, b *bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// endpointSet is endpointsliceutil.EndpointSet: endpoints by their hash
// (sorted addresses and the pod's namespace/name), in insertion order.
type endpointSet struct {
	keys []string
	eps  map[string]model.Endpoint
}

func endpointHash(e *model.Endpoint) string {
	addrs := slices.Clone(e.Addresses)
	slices.Sort(addrs)
	h := strings.Join(addrs, ",")
	if e.TargetRef != nil {
		h += "|" + e.TargetRef.Namespace + "/" + e.TargetRef.Name
	}
	return h
}

func (s *endpointSet) insert(e model.Endpoint) {
	if s.eps == nil {
		s.eps = map[string]model.Endpoint{}
	}
	k := endpointHash(&e)
	if _, ok := s.eps[k]; !ok {
		s.keys = append(s.keys, k)
	}
	s.eps[k] = e
}

func (s *endpointSet) get(e *model.Endpoint) *model.Endpoint {
	got, ok := s.eps[endpointHash(e)]
	if !ok {
		return nil
	}
	return &got
}

func (s *endpointSet) remove(e *model.Endpoint) { delete(s.eps, endpointHash(e)) }

func (s *endpointSet) len() int { return len(s.eps) }

// pop takes the earliest inserted endpoint still in the set (upstream's
// PopAny takes any).
func (s *endpointSet) pop() model.Endpoint {
	for len(s.keys) > 0 {
		k := s.keys[0]
		s.keys = s.keys[1:]
		if e, ok := s.eps[k]; ok {
			delete(s.eps, k)
			return e
		}
	}
	panic("endpointslice: pop from an empty set")
}

func sortedByName(in []*model.EndpointSlice) []*model.EndpointSlice {
	out := slices.Clone(in)
	slices.SortFunc(out, func(a, b *model.EndpointSlice) int { return strings.Compare(a.Name, b.Name) })
	return out
}
