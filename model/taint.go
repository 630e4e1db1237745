package model

import "time"

// TaintEffect is what a taint does to pods that do not tolerate it.
type TaintEffect string

// The taint effects.
const (
	// TaintEffectNoSchedule: new pods that do not tolerate the taint are not
	// scheduled onto the node; running pods stay.
	TaintEffectNoSchedule TaintEffect = "NoSchedule"
	// TaintEffectPreferNoSchedule: the scheduler tries to avoid the node.
	TaintEffectPreferNoSchedule TaintEffect = "PreferNoSchedule"
	// TaintEffectNoExecute: running pods that do not tolerate the taint are
	// evicted (after their TolerationSeconds, if they tolerate it for a
	// while), and new ones are not scheduled.
	TaintEffectNoExecute TaintEffect = "NoExecute"
)

// Well-known taint keys, set by the node lifecycle controller and the
// kubelet.
const (
	// TaintNodeNotReady: the node's Ready condition is False.
	TaintNodeNotReady = "node.kubernetes.io/not-ready"
	// TaintNodeUnreachable: the node's Ready condition is Unknown (the node
	// controller stopped hearing from the kubelet).
	TaintNodeUnreachable = "node.kubernetes.io/unreachable"
	// TaintNodeUnschedulable: the node is cordoned (spec.unschedulable).
	TaintNodeUnschedulable = "node.kubernetes.io/unschedulable"
	// TaintNodeMemoryPressure: the node reports memory pressure.
	TaintNodeMemoryPressure = "node.kubernetes.io/memory-pressure"
	// TaintNodeDiskPressure: the node reports disk pressure.
	TaintNodeDiskPressure = "node.kubernetes.io/disk-pressure"
)

// Taint on a node repels pods that do not tolerate it, as corev1.Taint.
type Taint struct {
	// Key is a qualified name, e.g. "node.kubernetes.io/not-ready".
	Key string `json:"key"`
	// Value is optional.
	Value string `json:"value,omitempty"`
	// Effect is NoSchedule, PreferNoSchedule or NoExecute.
	Effect TaintEffect `json:"effect"`
	// TimeAdded is when a NoExecute taint was added.
	TimeAdded *Time `json:"timeAdded,omitempty"`
}

// DeepCopyInto copies t into out, sharing no memory.
func (t *Taint) DeepCopyInto(out *Taint) {
	*out = *t
	out.TimeAdded = clonePtr(t.TimeAdded)
}

// MatchTaint reports whether t and o are the same taint for the API's
// purposes: same key and effect (a node may not have two such).
func (t *Taint) MatchTaint(o *Taint) bool { return t.Key == o.Key && t.Effect == o.Effect }

// String formats t as corev1.Taint.ToString (k8s.io/api core/v1/taint.go):
// "key=value:Effect", "key:Effect" without a value, "key=value:" without
// an effect, and just "key" with neither.
func (t *Taint) String() string {
	switch {
	case t.Effect == "" && t.Value == "":
		return t.Key
	case t.Effect == "":
		return t.Key + "=" + t.Value + ":"
	case t.Value == "":
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}

// TolerationOperator is how a toleration compares values.
type TolerationOperator string

// The toleration operators.
const (
	// TolerationOpEqual tolerates a taint with the same value (the default
	// when Operator is empty).
	TolerationOpEqual TolerationOperator = "Equal"
	// TolerationOpExists tolerates any value; with an empty key, any taint.
	TolerationOpExists TolerationOperator = "Exists"
)

// Toleration lets a pod stay on or be scheduled to a node with a matching
// taint, as corev1.Toleration.
type Toleration struct {
	// Key is the taint key; empty with Exists matches every key.
	Key string `json:"key,omitempty"`
	// Operator is Equal (default) or Exists.
	Operator TolerationOperator `json:"operator,omitempty"`
	// Value must equal the taint's value for Equal.
	Value string `json:"value,omitempty"`
	// Effect to match; empty matches every effect.
	Effect TaintEffect `json:"effect,omitempty"`
	// TolerationSeconds bounds how long a NoExecute taint is tolerated; nil
	// means forever.
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
}

// DeepCopyInto copies t into out, sharing no memory.
func (t *Toleration) DeepCopyInto(out *Toleration) {
	*out = *t
	out.TolerationSeconds = clonePtr(t.TolerationSeconds)
}

// ToleratesTaint reports whether t tolerates taint, as
// corev1.Toleration.ToleratesTaint: the effects match (or t's is empty), the
// keys match (or t's is empty), and the operator holds (Exists: any value;
// Equal or empty: equal values). Any other operator never tolerates, as in
// 1.34: the numeric Gt and Lt operators arrived in 1.35 as alpha, behind
// the TaintTolerationComparisonOperators feature gate (KEP-5471), and 1.34
// validation refuses them (ValidateTolerations).
func (t *Toleration) ToleratesTaint(taint *Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case "", TolerationOpEqual:
		return t.Value == taint.Value
	case TolerationOpExists:
		return true
	}
	return false
}

// TolerationsTolerateTaint reports whether any of tolerations tolerates
// taint.
func TolerationsTolerateTaint(tolerations []Toleration, taint *Taint) bool {
	for i := range tolerations {
		if tolerations[i].ToleratesTaint(taint) {
			return true
		}
	}
	return false
}

// FindMatchingUntoleratedTaint returns the first taint, among those that
// inclusionFilter keeps (nil keeps all), that no toleration tolerates, as the
// scheduler's TaintToleration filter does (with a filter keeping NoSchedule
// and NoExecute taints). ok is false if every kept taint is tolerated.
func FindMatchingUntoleratedTaint(taints []Taint, tolerations []Toleration, inclusionFilter func(*Taint) bool) (taint Taint, ok bool) {
	for i := range taints {
		t := &taints[i]
		if inclusionFilter != nil && !inclusionFilter(t) {
			continue
		}
		if !TolerationsTolerateTaint(tolerations, t) {
			return *t, true
		}
	}
	return Taint{}, false
}

// DoNotScheduleTaintsFilter keeps the taints that forbid scheduling:
// NoSchedule and NoExecute. Pass it to FindMatchingUntoleratedTaint.
func DoNotScheduleTaintsFilter(t *Taint) bool {
	return t.Effect == TaintEffectNoSchedule || t.Effect == TaintEffectNoExecute
}

// GetMatchingTolerations returns, for the taint eviction controller, whether
// every taint is tolerated and, if so, the tolerations used (the first
// matching toleration of each taint, in taint order).
func GetMatchingTolerations(taints []Taint, tolerations []Toleration) (bool, []Toleration) {
	if len(taints) == 0 {
		return true, []Toleration{}
	}
	if len(tolerations) == 0 {
		return false, []Toleration{}
	}
	var out []Toleration
	for i := range taints {
		found := false
		for j := range tolerations {
			if tolerations[j].ToleratesTaint(&taints[i]) {
				var c Toleration
				tolerations[j].DeepCopyInto(&c)
				out = append(out, c)
				found = true
				break
			}
		}
		if !found {
			return false, []Toleration{}
		}
	}
	return true, out
}

// GetMinTolerationTime returns the shortest TolerationSeconds among
// tolerations: how long a pod may stay once NoExecute taints it tolerates
// appear, as the taint eviction controller computes it: 0 (evict now) for an
// empty list or any TolerationSeconds <= 0, and -1 (forever) if none sets
// TolerationSeconds.
func GetMinTolerationTime(tolerations []Toleration) time.Duration {
	if len(tolerations) == 0 {
		return 0
	}
	min := int64(-1)
	for i := range tolerations {
		ts := tolerations[i].TolerationSeconds
		if ts == nil {
			continue
		}
		s := *ts
		if s <= 0 {
			return 0
		}
		if min < 0 || s < min {
			min = s
		}
	}
	if min < 0 {
		return -1
	}
	return time.Duration(min) * time.Second
}
