package scenarios

import (
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/nodes/kubelet"
)

// spokeCatalogue returns the full-stack scenarios that press on the
// spokes' own mechanisms: probe thresholds, scheduling under pressure and
// overlapping ownership.
func spokeCatalogue() []Spec {
	return []Spec{probeFlaps()}
}

// probeFlaps runs applications whose health endpoints fail now and then:
// the probes' failureThreshold and successThreshold decide what happens.
func probeFlaps() Spec {
	// blinky's liveness fails twice in a row, then passes, over and over:
	// with failureThreshold 3 it is never killed.
	blinky := newReplicaSet("blinky", 2, AppSpec{
		Annotations: annotations(kubelet.AnnotationLivenessPattern, "40s-140s=FFS"),
		Liveness:    &model.Probe{PeriodSeconds: 5, FailureThreshold: 3}})
	// flappy's readiness (2 successes to come back, 2 failures to leave)
	// sees lone failures and successes, and runs of two of each.
	flappy := newReplicaSet("flappy", 2, AppSpec{
		Annotations: annotations(kubelet.AnnotationReadinessPattern, "40s-140s=FSFFSSSF"),
		Liveness:    &model.Probe{},
		Readiness:   &model.Probe{PeriodSeconds: 3, SuccessThreshold: 2, FailureThreshold: 2}})
	// crashy's liveness fails three times in a row for a minute: each run
	// is killed at its third failure, and restarted after CrashLoopBackOff.
	crashy := newReplicaSet("crashy", 2, AppSpec{
		Annotations: annotations(kubelet.AnnotationLivenessPattern, "40s-100s=FFFS"),
		Liveness:    &model.Probe{PeriodSeconds: 5, FailureThreshold: 3}})
	return Spec{Name: "probe-flaps", Description: "three applications whose health endpoints fail now and then from 40 s: blinky's liveness fails twice in a row then passes (failureThreshold 3: never killed), flappy's readiness fails and passes alone and in pairs (successThreshold 2, failureThreshold 2: its pods leave service only after two failures in a row and come back only after two successes), and crashy's liveness fails three times in a row for a minute (each run is killed at its third failure and restarted after CrashLoopBackOff); every probe result is traced and the kubelet's kills and readiness must follow the thresholds exactly",
		Duration: 300 * time.Second, Settle: 150 * time.Second,
		Stack: &StackTopology{Nodes: 3, Script: func(*StackLayer) []apiload.Step {
			return []apiload.Step{createStep(15*time.Second, blinky), createStep(15*time.Second, flappy), createStep(15*time.Second, crashy)}
		}},
	}
}
