package apiserver

import (
	"encoding/json"
	"fmt"
	"net/netip"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// DefaultServiceCIDR is the range Services' cluster IPs come from:
// kube-apiserver's --service-cluster-ip-range as kubeadm sets it
// (networking.serviceSubnet, default 10.96.0.0/12).
var DefaultServiceCIDR = netip.MustParsePrefix("10.96.0.0/12")

// The allocator's bands, as the real one's (k8s.io/kubernetes
// pkg/registry/core/service/ipallocator, calculateRangeOffset): the first
// addresses of the range, min(max(16, size/16), 256) of them, are kept for
// Services that ask for a given IP; a dynamic allocation draws from the
// rest first and falls back to them only when the rest is full.
const (
	staticBandMin  = 16
	staticBandMax  = 256
	staticBandStep = 16
)

// ipAddressPrefix is where an allocated cluster IP is recorded: the
// IPAddress object (networking.k8s.io/v1) the MultiCIDRServiceAllocator
// creates for it, named by the address and pointing at its Service.
const ipAddressPrefix = registryPrefix + "ipaddresses/"

// serviceRange is a Service CIDR's usable addresses: every address but the
// network and broadcast ones, the first of which (the kubernetes Service's)
// is never handed out.
type serviceRange struct {
	cidr        netip.Prefix
	first, last netip.Addr // usable addresses, inclusive
	size        uint64     // usable addresses
	band        uint64     // the static band's size
}

func newServiceRange(cidr netip.Prefix) serviceRange {
	cidr = cidr.Masked()
	host := uint64(1) << (32 - cidr.Bits())
	r := serviceRange{cidr: cidr, first: cidr.Addr().Next()}
	if host < 4 {
		return r // no room beside the network, broadcast and kubernetes addresses
	}
	r.size = host - 2
	r.last = addAddr(r.first, r.size-1)
	switch b := r.size / staticBandStep; {
	case r.size < staticBandMin:
		r.band = 0
	case b < staticBandMin:
		r.band = staticBandMin
	case b > staticBandMax:
		r.band = staticBandMax
	default:
		r.band = b
	}
	return r
}

// addAddr is a + n for an IPv4 address.
func addAddr(a netip.Addr, n uint64) netip.Addr {
	b := a.As4()
	v := uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3])
	v += n
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// reserved reports an address no Service may take: the range's first
// usable one, which the kubernetes Service holds in a real cluster.
func (r serviceRange) reserved(a netip.Addr) bool { return a == r.first }

// ipCandidates iterates a dynamic allocation's addresses, as the real
// allocateNextService: from a random offset of the dynamic band, wrapping
// around it, then from a random offset of the static band, wrapping around
// it. Offsets are drawn once each, from the replica's seeded stream.
type ipCandidates struct {
	r     serviceRange
	band  int    // 0: dynamic, 1: static, 2: exhausted
	start uint64 // offset within the band
	n     uint64 // addresses of the band tried
}

// next returns the next candidate, or false when every address was tried.
func (it *ipCandidates) next(draw func(n uint64) uint64) (netip.Addr, bool) {
	for it.band < 2 {
		base, size := it.r.band, it.r.size-it.r.band
		if it.band == 1 {
			base, size = 0, it.r.band
		}
		if size == 0 || it.n == size {
			it.band++
			it.n = 0
			if it.band == 1 && it.r.band > 0 {
				it.start = draw(it.r.band)
			}
			continue
		}
		if it.n == 0 && it.band == 0 {
			it.start = draw(size)
		}
		a := addAddr(it.r.first, base+(it.start+it.n)%size)
		it.n++
		if !it.r.reserved(a) {
			return a, true
		}
	}
	return netip.Addr{}, false
}

// clusterIPAlloc is a Service create's cluster IP: the one the client
// asked for, or the candidates of a dynamic allocation.
type clusterIPAlloc struct {
	requested bool
	it        *ipCandidates
}

// startClusterIP checks a new Service's requested cluster IP or picks its
// first candidate, setting spec.clusterIP; a non-nil status refuses the
// create (an IP outside the range, or the range full). A headless
// Service's "None" allocates nothing.
func (op *createOp) startClusterIP(svc *model.Service) *apiwire.Status {
	s := op.c.s
	r := newServiceRange(s.cfg.ServiceCIDR)
	if svc.Spec.ClusterIP == model.ClusterIPNone {
		op.ip = &clusterIPAlloc{requested: true}
		return nil // headless: nothing to allocate
	}
	if ip := svc.Spec.ClusterIP; ip != "" {
		op.ip = &clusterIPAlloc{requested: true}
		a, _ := netip.ParseAddr(ip) // validated
		if !r.cidr.Contains(a) || a.Compare(r.first) < 0 || r.last.Compare(a) < 0 {
			return clusterIPInvalid(op.c.res, svc, fmt.Sprintf("the provided IP (%s) is not in the valid range. The range of valid IPs is %s", ip, r.cidr))
		}
		if r.reserved(a) {
			return clusterIPInvalid(op.c.res, svc, "provided IP is already allocated")
		}
		return nil
	}
	op.ip = &clusterIPAlloc{it: &ipCandidates{r: r}}
	return op.nextClusterIP(svc)
}

// nextClusterIP sets the Service's next candidate address, or refuses the
// create when none is left.
func (op *createOp) nextClusterIP(svc *model.Service) *apiwire.Status {
	rnd := op.c.s.h.Rand("apiserver/clusterip")
	a, ok := op.ip.it.next(func(n uint64) uint64 { return rnd.Uint64N(n) })
	if !ok {
		return clusterIPInvalid(op.c.res, svc, "range is full")
	}
	svc.Spec.ClusterIP = a.String()
	return nil
}

// clusterIPInvalid is the 422 of a failed allocation, as the Service
// REST's allocator reports it on spec.clusterIPs.
func clusterIPInvalid(res resourceInfo, svc *model.Service, why string) *apiwire.Status {
	ip := svc.Spec.ClusterIP
	return invalid(res, svc.Name, model.ErrorList{{Type: model.ErrorTypeInvalid, Field: "spec.clusterIPs",
		BadValue: []string{ip}, Detail: fmt.Sprintf("failed to allocate IP %s: %s", ip, why)}})
}

// ipAddressKey is the storage key of an allocated address.
func ipAddressKey(ip string) string { return ipAddressPrefix + ip }

// ipAddressValue is the stored IPAddress of a Service's cluster IP: its
// parentRef names the Service.
func ipAddressValue(svc *model.Service) ([]byte, error) {
	o := &model.CustomObject{TypeMeta: model.TypeMeta{Kind: "IPAddress", APIVersion: "networking.k8s.io/v1"},
		ObjectMeta: model.ObjectMeta{Name: svc.Spec.ClusterIP, CreationTimestamp: svc.CreationTimestamp,
			Labels: map[string]string{"ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io"}}}
	// encoding/json sorts the keys: the form is canonical.
	spec, err := json.Marshal(map[string]any{"parentRef": map[string]any{
		"group": "", "resource": model.ResourceServicesName, "namespace": svc.Namespace, "name": svc.Name}})
	if err != nil {
		return nil, err
	}
	o.Spec = spec
	return model.Encode(o)
}

// serviceCreateTxn is a Service's create: it stores the Service and its
// IPAddress together, only if neither key exists, and reads both when it
// fails. The real API server creates the IPAddress first and the Service
// after, releasing the address if the Service's write fails and repairing
// leaks in a background loop; one Txn leaves nothing to repair.
func serviceCreateTxn(key string, data []byte, svc *model.Service) (mvcc.TxnRequest, error) {
	if svc.Spec.ClusterIP == model.ClusterIPNone {
		return txnPutIfMod(key, 0, data), nil // headless: no address to record
	}
	ipData, err := ipAddressValue(svc)
	if err != nil {
		return mvcc.TxnRequest{}, err
	}
	ipKey := []byte(ipAddressKey(svc.Spec.ClusterIP))
	txn := txnPutIfMod(key, 0, data)
	txn.Compares = append(txn.Compares, mvcc.Compare{Key: ipKey, Target: mvcc.CompareCreate, Result: mvcc.CompareEqual, CreateRevision: 0})
	txn.Success = append(txn.Success, mvcc.OpPutOf(ipKey, ipData, mvcc.PutOptions{}))
	txn.Failure = append(txn.Failure, mvcc.OpRangeOf(ipKey, nil, mvcc.RangeOptions{}))
	return txn, nil
}

// nameTaken reports whether a failed create's Txn found the object's key.
func nameTaken(r etcd.TxnResult) bool {
	return len(r.FirstRange()) > 0
}

// deleteTxn deletes key at mod_revision rev; a Service's delete releases
// its cluster IP in the same Txn (the real registry releases it after the
// Service's delete).
func deleteTxn(key string, rev int64, obj model.Object) mvcc.TxnRequest {
	txn := txnDeleteIfMod(key, rev)
	if svc, ok := obj.(*model.Service); ok && svc.Spec.ClusterIP != "" && svc.Spec.ClusterIP != model.ClusterIPNone {
		txn.Success = append(txn.Success, mvcc.OpDeleteOf([]byte(ipAddressKey(svc.Spec.ClusterIP)), nil, false))
	}
	return txn
}

// keepClusterIP is the Service strategy's patchAllocatedValues: an update
// that leaves spec.clusterIP empty keeps the allocated one.
func keepClusterIP(obj, old model.Object) {
	svc, ok := obj.(*model.Service)
	if !ok {
		return
	}
	if o := old.(*model.Service); svc.Spec.ClusterIP == "" {
		svc.Spec.ClusterIP = o.Spec.ClusterIP
	}
}
