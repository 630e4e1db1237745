package model

// DefaultNotReadyTolerationSeconds and DefaultUnreachableTolerationSeconds
// are the DefaultTolerationSeconds admission plugin's defaults
// (--default-not-ready-toleration-seconds and
// --default-unreachable-toleration-seconds): with the node monitor grace
// period of 50 s, a pod is evicted about 350 s after its node's heartbeats
// stop.
const (
	DefaultNotReadyTolerationSeconds    int64 = 300
	DefaultUnreachableTolerationSeconds int64 = 300
)

// AddDefaultTolerations does what Kubernetes' DefaultTolerationSeconds
// admission plugin does to a pod with its default flags:
// AddDefaultTolerationsOf with 300 and 300.
func AddDefaultTolerations(pod *Pod) bool {
	return AddDefaultTolerationsOf(pod, DefaultNotReadyTolerationSeconds, DefaultUnreachableTolerationSeconds)
}

// AddDefaultTolerationsOf does what Kubernetes' DefaultTolerationSeconds
// admission plugin does to a pod
// (plugin/pkg/admission/defaulttolerationseconds, Admit), given its flags
// --default-not-ready-toleration-seconds (notReadySeconds) and
// --default-unreachable-toleration-seconds (unreachableSeconds): unless
// the pod already tolerates them (a toleration with that key or an empty
// key, and effect NoExecute or empty), it appends
//
//	{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: notReadySeconds}
//	{key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: unreachableSeconds}
//
// in that order. It is separate from SetDefaults because in Kubernetes it
// is an admission plugin, not defaulting: the API server runs it on pod
// create, after defaulting and before validation. It reports whether it
// changed the pod.
func AddDefaultTolerationsOf(pod *Pod, notReadySeconds, unreachableSeconds int64) bool {
	notReady, unreachable := false, false
	for _, t := range pod.Spec.Tolerations {
		if (t.Key == TaintNodeNotReady || t.Key == "") && (t.Effect == TaintEffectNoExecute || t.Effect == "") {
			notReady = true
		}
		if (t.Key == TaintNodeUnreachable || t.Key == "") && (t.Effect == TaintEffectNoExecute || t.Effect == "") {
			unreachable = true
		}
	}
	if !notReady {
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, Toleration{Key: TaintNodeNotReady, Operator: TolerationOpExists,
			Effect: TaintEffectNoExecute, TolerationSeconds: Ptr(notReadySeconds)})
	}
	if !unreachable {
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, Toleration{Key: TaintNodeUnreachable, Operator: TolerationOpExists,
			Effect: TaintEffectNoExecute, TolerationSeconds: Ptr(unreachableSeconds)})
	}
	return !notReady || !unreachable
}
