package model

import "time"

// GetPodCondition returns the index and a pointer to the condition of type
// t in status, or -1 and nil.
func GetPodCondition(status *PodStatus, t PodConditionType) (int, *PodCondition) {
	if status == nil {
		return -1, nil
	}
	return FindCondition(status.Conditions, t)
}

// SetPodCondition sets cond in status, as podutil.UpdatePodCondition: a new
// type is appended as given; an existing one takes cond's fields, but keeps
// its LastTransitionTime unless the Status changed. It reports whether
// anything changed.
func SetPodCondition(status *PodStatus, cond PodCondition) bool {
	return UpdateCondition[PodCondition, PodConditionType](&status.Conditions, cond)
}

// IsPodReady reports whether pod's Ready condition is True.
func IsPodReady(pod *Pod) bool {
	_, c := GetPodCondition(&pod.Status, PodReady)
	return c != nil && c.Status == ConditionTrue
}

// IsPodAvailable reports whether pod is Ready and, unless minReadySeconds
// is 0, has been since strictly more than minReadySeconds before now, as
// podutil.IsPodAvailable (which the ReplicaSet and Deployment controllers
// use to count available replicas).
func IsPodAvailable(pod *Pod, minReadySeconds int32, now Time) bool {
	_, c := GetPodCondition(&pod.Status, PodReady)
	if c == nil || c.Status != ConditionTrue {
		return false
	}
	if minReadySeconds == 0 {
		return true
	}
	return c.LastTransitionTime.Add(time.Duration(minReadySeconds) * time.Second).Before(now)
}

// IsPodTerminal reports whether pod's phase is Succeeded or Failed.
func IsPodTerminal(pod *Pod) bool {
	return pod.Status.Phase == PodSucceeded || pod.Status.Phase == PodFailed
}

// IsPodActive reports whether pod counts towards a controller's replicas:
// not terminal and not being deleted, as controller.IsPodActive.
func IsPodActive(pod *Pod) bool {
	return !IsPodTerminal(pod) && pod.DeletionTimestamp == nil
}

// FilterActivePods returns the active pods of pods (IsPodActive), in order.
func FilterActivePods(pods []*Pod) []*Pod {
	var out []*Pod
	for _, p := range pods {
		if IsPodActive(p) {
			out = append(out, p)
		}
	}
	return out
}

// PodRequests returns the sum of pod's container requests: what the
// scheduler reserves on a node for it.
func PodRequests(pod *Pod) ResourceList {
	out := ResourceList{}
	for i := range pod.Spec.Containers {
		out = out.Add(pod.Spec.Containers[i].Resources.Requests)
	}
	return out
}
