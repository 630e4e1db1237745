package scenarios

import "time"

// DefaultProfile is the fault profile of etcd-profile and of the default
// sweep: independent crash-restart faults, each member up 75% of the time.
const DefaultProfile = "crash-restart:mttf=60s,mttr=20s"

// WithDefaults returns spec with what it leaves unset filled in, as
// Register, Lookup and PrepareSpec give it: see withDefaults.
func WithDefaults(spec Spec) Spec { return withDefaults([]Spec{spec})[0] }

// withDefaults fills what a scenario leaves unset, by its layer: the
// length and settle window (2 min and 20 s for etcd, APIDuration and
// APISettle above it), the etcd topology (with the KV workload only for
// etcd scenarios), and the member counts and seeds of the catalogue (3, 4
// and 5 over 100 seeds; the full stack, whose runs are longer, 3 and 5
// over 50).
func withDefaults(specs []Spec) []Spec {
	for i := range specs {
		s := &specs[i]
		etcd := s.Layer() == "etcd"
		if s.Duration == 0 {
			s.Duration = pick(etcd, 2*time.Minute, APIDuration)
		}
		if s.Settle == 0 {
			s.Settle = pick(etcd, 20*time.Second, APISettle)
		}
		if s.Topology == nil {
			s.Topology = pick(etcd, DefaultTopology, APIEtcdTopology)
		}
		stack := s.Layer() == "stack"
		if len(s.Members) == 0 {
			s.Members = pick(stack, []int{3, 5}, []int{3, 4, 5})
		}
		if s.Seeds == 0 {
			s.Seeds = pick(stack, 50, 100)
		}
	}
	return specs
}

// pick is cond ? a : b.
func pick[T any](cond bool, a, b T) T {
	if cond {
		return a
	}
	return b
}
