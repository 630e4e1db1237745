package kubelet

import (
	"encoding/json"
	"reflect"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// The status manager, as the kubelet's: it keeps each pod's latest status
// (versioned), posts a new version at once, and every StatusSyncPeriod
// posts again what the API server has not acknowledged or no longer shows.
// A post reads the pod afresh (a quorum Get), keeps the conditions the
// kubelet does not own, and writes the status subresource only (never the
// spec), retrying on 409 Conflict. Once a deleted pod's containers all
// stopped, its final status is posted and then the pod is deleted for good
// with grace period 0 and its UID as precondition.

// kubeletOwned are the pod conditions the kubelet sets; others (set by
// controllers) are kept as the API server has them.
func kubeletOwned(t model.PodConditionType) bool {
	switch t {
	case model.PodScheduled, model.PodInitialized, model.ContainersReady, model.PodReady:
		return true
	}
	return false
}

// mergeStatus is desired with the API's conditions that the kubelet does
// not own appended.
func mergeStatus(desired, api *model.PodStatus) model.PodStatus {
	var out model.PodStatus
	desired.DeepCopyInto(&out)
	for _, c := range api.Conditions {
		if !kubeletOwned(c.Type) {
			out.Conditions = append(out.Conditions, c)
		}
	}
	return out
}

// statusEqual compares two statuses by their encoding (so that nil and
// empty slices agree).
func statusEqual(a, b *model.PodStatus) bool {
	if reflect.DeepEqual(a, b) {
		return true // equal values encode equally; the common case, without encoding
	}
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

// inSync reports whether the API's status (as the informer has it) is the
// desired one.
func (ps *podState) inSync() bool {
	merged := mergeStatus(ps.desired, &ps.pod.Status)
	return statusEqual(&merged, &ps.pod.Status)
}

// setPodStatus records st as the pod's status and posts it if it is new.
func (p *process) setPodStatus(ps *podState, st model.PodStatus) {
	if ps.desired == nil || !statusEqual(ps.desired, &st) {
		ps.desired = &st
		ps.version++
		if ps.inSync() && !ps.posting {
			ps.acked = ps.version // the API server already has it
		}
	}
	if ps.acked < ps.version || (ps.finalize && !ps.delete) {
		p.postStatus(ps)
	}
}

// syncStatuses is the status manager's periodic sync.
func (p *process) syncStatuses() {
	for _, uid := range sim.SortedKeys(p.tracked) {
		ps := p.tracked[uid]
		if ps.desired == nil {
			continue
		}
		if ps.acked < ps.version || !ps.inSync() || (ps.finalize && !ps.delete) {
			p.postStatus(ps)
		}
	}
}

// postStatus writes the pod's desired status; one post per pod at a time.
func (p *process) postStatus(ps *podState) {
	if ps.posting {
		ps.repost = true
		return
	}
	ps.posting, ps.repost = true, false
	ns, name, uid := ps.pod.Namespace, ps.pod.Name, ps.uid
	pods := p.client.Pods(ns)
	var posted uint64
	gone := false
	p.client.RetryOnConflict(client.DefaultRetry, func(done func(error)) {
		if p.stopped {
			return
		}
		pods.Get(name, client.GetOptions{}, func(obj model.Object, err error) {
			if p.stopped {
				return
			}
			cur, _ := obj.(*model.Pod)
			switch {
			case client.IsNotFound(err) || (err == nil && (cur == nil || cur.UID != uid)):
				gone = true
				done(nil)
				return
			case err != nil:
				done(err)
				return
			}
			posted = ps.version
			merged := mergeStatus(ps.desired, &cur.Status)
			if statusEqual(&merged, &cur.Status) {
				done(nil)
				return
			}
			cur.Status = merged
			pods.UpdateStatus(cur, func(_ model.Object, err error) {
				if !p.stopped {
					done(err)
				}
			})
		})
	}, func(err error) {
		if p.stopped {
			return
		}
		ps.posting = false
		if err != nil || gone || p.tracked[uid] != ps {
			return // the periodic sync tries again (or the pod is gone)
		}
		ps.acked = max(ps.acked, posted)
		if ps.acked < ps.version || ps.repost {
			p.postStatus(ps)
			return
		}
		if ps.finalize {
			p.deletePod(ps)
		}
	})
}

// deletePod deletes a finalized pod for good: grace period 0, on the
// condition that it is still the same pod (its UID).
func (p *process) deletePod(ps *podState) {
	if ps.deleting || ps.delete {
		return
	}
	ps.deleting = true
	opts := client.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(0)),
		Preconditions: &apiwire.Preconditions{UID: ps.uid}}
	p.client.Pods(ps.pod.Namespace).Delete(ps.pod.Name, opts, func(_ model.Object, err error) {
		if p.stopped {
			return
		}
		ps.deleting = false
		if err == nil || client.IsNotFound(err) || client.IsConflict(err) {
			ps.delete = true // gone, or another pod by now
		}
	})
}
