package deployment

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
)

// The annotations the controller keeps on ReplicaSets, as
// deploymentutil's.
const (
	// RevisionAnnotation is a ReplicaSet's revision in its Deployment's
	// history.
	RevisionAnnotation = "deployment.kubernetes.io/revision"
	// RevisionHistoryAnnotation lists the older revisions a ReplicaSet had
	// before a rollback made it the newest again.
	RevisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	// DesiredReplicasAnnotation is the Deployment's replicas when the
	// ReplicaSet was last scaled.
	DesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	// MaxReplicasAnnotation is replicas+maxSurge when the ReplicaSet was
	// last scaled; proportional scaling reads it.
	MaxReplicasAnnotation = "deployment.kubernetes.io/max-replicas"
)

// maxRevHistoryLengthInChars bounds the revision-history annotation, as
// the controller's constant of the same name.
const maxRevHistoryLengthInChars = 2000

// annotationsToSkip are the Deployment annotations not copied to its
// ReplicaSets.
var annotationsToSkip = map[string]bool{
	"kubectl.kubernetes.io/last-applied-configuration": true,
	RevisionAnnotation:                  true,
	RevisionHistoryAnnotation:           true,
	DesiredReplicasAnnotation:           true,
	MaxReplicasAnnotation:               true,
	"deprecated.deployment.rollback.to": true,
}

// replicasOf returns a ReplicaSet's spec.replicas (defaulted to 1, as the
// API server does).
func replicasOf(rs *model.ReplicaSet) int32 {
	return model.Deref(rs.Spec.Replicas, model.DefaultReplicas)
}

// desiredOf returns a Deployment's spec.replicas (defaulted to 1).
func desiredOf(d *model.Deployment) int32 { return model.Deref(d.Spec.Replicas, model.DefaultReplicas) }

// revisionOf returns a ReplicaSet's revision, or an error if it has a
// malformed one; none is revision 0.
func revisionOf(rs *model.ReplicaSet) (int64, error) {
	v, ok := rs.Annotations[RevisionAnnotation]
	if !ok {
		return 0, nil
	}
	return strconv.ParseInt(v, 10, 64)
}

// maxRevision is the highest revision among rss, as MaxRevision.
func maxRevision(rss []*model.ReplicaSet) int64 {
	var out int64
	for _, rs := range rss {
		if v, err := revisionOf(rs); err == nil && v > out {
			out = v
		}
	}
	return out
}

// lessByCreation orders ReplicaSets oldest first, ties by name, as
// controller.ReplicaSetsByCreationTimestamp.
func lessByCreation(a, b *model.ReplicaSet) int {
	if a.CreationTimestamp == b.CreationTimestamp {
		return strings.Compare(a.Name, b.Name)
	}
	return cmp.Compare(a.CreationTimestamp, b.CreationTimestamp)
}

// sortedByCreation returns a copy of rss sorted oldest first.
func sortedByCreation(rss []*model.ReplicaSet) []*model.ReplicaSet {
	out := slices.Clone(rss)
	slices.SortStableFunc(out, lessByCreation)
	return out
}

// lessByRevision orders ReplicaSets by revision, falling back to creation,
// as deploymentutil.ReplicaSetsByRevision.
func lessByRevision(a, b *model.ReplicaSet) int {
	ra, errA := revisionOf(a)
	rb, errB := revisionOf(b)
	if errA != nil || errB != nil || ra == rb {
		return lessByCreation(a, b)
	}
	return cmp.Compare(ra, rb)
}

// findNewReplicaSet returns the oldest ReplicaSet whose template equals
// d's (ignoring the hash label), as FindNewReplicaSet, or nil.
func findNewReplicaSet(d *model.Deployment, rsList []*model.ReplicaSet) *model.ReplicaSet {
	for _, rs := range sortedByCreation(rsList) {
		if equalIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			return rs
		}
	}
	return nil
}

// oldReplicaSets returns every ReplicaSet but newRS, in rsList's order.
func oldReplicaSets(rsList []*model.ReplicaSet, newRS *model.ReplicaSet) []*model.ReplicaSet {
	var out []*model.ReplicaSet
	for _, rs := range rsList {
		if newRS != nil && rs.UID == newRS.UID {
			continue
		}
		out = append(out, rs)
	}
	return out
}

// filterActive keeps the ReplicaSets with replicas > 0, as
// controller.FilterActiveReplicaSets; nil entries are dropped.
func filterActive(rss []*model.ReplicaSet) []*model.ReplicaSet {
	var out []*model.ReplicaSet
	for _, rs := range rss {
		if rs != nil && replicasOf(rs) > 0 {
			out = append(out, rs)
		}
	}
	return out
}

// sumSpec adds up spec.replicas (GetReplicaCountForReplicaSets).
func sumSpec(rss []*model.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += replicasOf(rs)
		}
	}
	return n
}

// sumStatus adds up one status field over rss (nil entries count 0).
func sumStatus(rss []*model.ReplicaSet, field func(*model.ReplicaSetStatus) int32) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += field(&rs.Status)
		}
	}
	return n
}

func statusReplicas(s *model.ReplicaSetStatus) int32  { return s.Replicas }
func statusReady(s *model.ReplicaSetStatus) int32     { return s.ReadyReplicas }
func statusAvailable(s *model.ReplicaSetStatus) int32 { return s.AvailableReplicas }

// isRollingUpdate reports whether d uses the RollingUpdate strategy.
func isRollingUpdate(d *model.Deployment) bool {
	return d.Spec.Strategy.Type == model.RollingUpdateDeploymentStrategyType
}

// fenceposts resolves d's maxSurge and maxUnavailable for its replicas.
func fenceposts(d *model.Deployment) (surge, unavailable int32) {
	ru := d.Spec.Strategy.RollingUpdate
	if ru == nil {
		ru = &model.RollingUpdateDeployment{}
	}
	// Validation rejects malformed values; a failure resolves to 0/0 -> 0/1.
	surge, unavailable, _ = model.ResolveFenceposts(ru.MaxSurge, ru.MaxUnavailable, desiredOf(d))
	return surge, unavailable
}

// maxSurge is MaxSurge: 0 unless RollingUpdate.
func maxSurge(d *model.Deployment) int32 {
	if !isRollingUpdate(d) {
		return 0
	}
	s, _ := fenceposts(d)
	return s
}

// maxUnavailable is MaxUnavailable: 0 unless RollingUpdate with replicas,
// and never more than replicas.
func maxUnavailable(d *model.Deployment) int32 {
	if !isRollingUpdate(d) || desiredOf(d) == 0 {
		return 0
	}
	_, u := fenceposts(d)
	return min(u, desiredOf(d))
}

// newRSNewReplicas is the size the new ReplicaSet may have now, as
// NewRSNewReplicas: for RollingUpdate, grow it towards replicas without the
// total exceeding replicas+maxSurge (maxSurge rounded up); for Recreate,
// replicas.
func newRSNewReplicas(d *model.Deployment, allRSs []*model.ReplicaSet, newRS *model.ReplicaSet) int32 {
	desired := desiredOf(d)
	if !isRollingUpdate(d) {
		return desired
	}
	cur := replicasOf(newRS)
	if cur == desired {
		return cur
	}
	surge := int32(0)
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil && ru.MaxSurge != nil {
		v, err := model.GetScaledValueFromIntOrPercent(ru.MaxSurge, int(desired), true)
		if err == nil {
			surge = int32(v)
		}
	}
	total := sumSpec(allRSs)
	maxTotal := desired + surge
	if total >= maxTotal {
		return cur
	}
	return cur + min(maxTotal-total, desired-cur)
}

// setReplicasAnnotations sets the desired- and max-replicas annotations,
// reporting whether they changed.
func setReplicasAnnotations(rs *model.ReplicaSet, desired, maxReplicas int32) bool {
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	d, m := strconv.Itoa(int(desired)), strconv.Itoa(int(maxReplicas))
	changed := rs.Annotations[DesiredReplicasAnnotation] != d || rs.Annotations[MaxReplicasAnnotation] != m
	rs.Annotations[DesiredReplicasAnnotation] = d
	rs.Annotations[MaxReplicasAnnotation] = m
	return changed
}

// replicasAnnotationsNeedUpdate reports whether setReplicasAnnotations
// would change rs.
func replicasAnnotationsNeedUpdate(rs *model.ReplicaSet, desired, maxReplicas int32) bool {
	return rs.Annotations[DesiredReplicasAnnotation] != strconv.Itoa(int(desired)) ||
		rs.Annotations[MaxReplicasAnnotation] != strconv.Itoa(int(maxReplicas))
}

// intAnnotation reads an int32 annotation of rs.
func intAnnotation(rs *model.ReplicaSet, key string) (int32, bool) {
	v, ok := rs.Annotations[key]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, false
	}
	return int32(n), true
}

// setNewReplicaSetAnnotations brings newRS's annotations up to date, as
// SetNewReplicaSetAnnotations: the Deployment's annotations (but the
// controller's own), the revision (raised to newRevision, keeping the
// former one in the revision history), and for a ReplicaSet about to be
// created the replicas annotations. It reports whether anything changed.
func setNewReplicaSetAnnotations(d *model.Deployment, newRS *model.ReplicaSet, newRevision int64, exists bool) bool {
	if newRS.Annotations == nil {
		newRS.Annotations = map[string]string{}
	}
	changed := false
	for _, k := range sim.SortedKeys(d.Annotations) {
		v := d.Annotations[k]
		if cur, ok := newRS.Annotations[k]; annotationsToSkip[k] || (ok && cur == v) {
			continue
		}
		newRS.Annotations[k] = v
		changed = true
	}
	oldRevision, had := newRS.Annotations[RevisionAnnotation]
	oldRev, err := strconv.ParseInt(oldRevision, 10, 64)
	if err != nil {
		if oldRevision != "" {
			return changed // a malformed revision is left alone
		}
		oldRev = 0
	}
	if oldRev < newRevision {
		newRS.Annotations[RevisionAnnotation] = strconv.FormatInt(newRevision, 10)
		changed = true
		if had {
			appendRevisionHistory(newRS, oldRevision)
		}
	}
	if !exists && setReplicasAnnotations(newRS, desiredOf(d), desiredOf(d)+maxSurge(d)) {
		changed = true
	}
	return changed
}

// appendRevisionHistory records a former revision of a ReplicaSet that a
// rollback made the newest again, dropping the oldest entries to stay
// within maxRevHistoryLengthInChars.
func appendRevisionHistory(rs *model.ReplicaSet, oldRevision string) {
	history := rs.Annotations[RevisionHistoryAnnotation]
	if history == "" {
		rs.Annotations[RevisionHistoryAnnotation] = oldRevision
		return
	}
	old := strings.Split(history, ",")
	total := len(history) + len(oldRevision) + 1
	start := 0
	for total > maxRevHistoryLengthInChars && start < len(old) {
		total -= len(old[start]) + 1
		start++
	}
	if total <= maxRevHistoryLengthInChars {
		rs.Annotations[RevisionHistoryAnnotation] = strings.Join(append(old[start:], oldRevision), ",")
	}
}

// roundToInt32 rounds half away from zero, as integer.RoundToInt32.
func roundToInt32(x float64) int32 { return int32(math.Round(x)) }
