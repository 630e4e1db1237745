package model

import (
	"fmt"
	"reflect"
)

// ValidatePod checks a pod on create: metadata (DNS-1123 subdomain name,
// namespace required) and spec.
func ValidatePod(pod *Pod) ErrorList {
	errs := ValidateObjectMeta(&pod.ObjectMeta, true, IsDNS1123Subdomain, "metadata")
	return append(errs, ValidatePodSpec(&pod.Spec, "spec")...)
}

// ValidatePodSpec checks a pod spec at path, as core validation's
// ValidatePodSpec restricted to kubesim's fields: containers required, each
// with a unique DNS-1123 label name, an image, valid probes and resources
// and a preStop sleep (if any) within the grace period;
// restartPolicy one of Always, OnFailure, Never; nodeName and schedulerName
// DNS-1123 subdomains when set; terminationGracePeriodSeconds non-negative;
// valid tolerations.
func ValidatePodSpec(spec *PodSpec, path string) ErrorList {
	var errs ErrorList
	errs = append(errs, validateContainers(spec.Containers, child(path, "containers"))...)
	errs = append(errs, validatePreStops(spec, child(path, "containers"))...)
	switch spec.RestartPolicy {
	case RestartPolicyAlways, RestartPolicyOnFailure, RestartPolicyNever:
	case "":
		errs = append(errs, required(child(path, "restartPolicy"), ""))
	default:
		errs = append(errs, notSupported(child(path, "restartPolicy"), string(spec.RestartPolicy),
			RestartPolicyAlways, RestartPolicyOnFailure, RestartPolicyNever))
	}
	if spec.NodeName != "" {
		for _, msg := range IsDNS1123Subdomain(spec.NodeName) {
			errs = append(errs, invalid(child(path, "nodeName"), spec.NodeName, msg))
		}
	}
	if spec.TerminationGracePeriodSeconds != nil {
		errs = append(errs, validateNonnegative(*spec.TerminationGracePeriodSeconds, child(path, "terminationGracePeriodSeconds"))...)
	}
	errs = append(errs, ValidateTolerations(spec.Tolerations, child(path, "tolerations"))...)
	if spec.SchedulerName != "" {
		for _, msg := range IsDNS1123Subdomain(spec.SchedulerName) {
			errs = append(errs, invalid(child(path, "schedulerName"), spec.SchedulerName, msg))
		}
	}
	return errs
}

func validateContainers(containers []Container, path string) ErrorList {
	if len(containers) == 0 {
		return ErrorList{required(path, "")}
	}
	var errs ErrorList
	names := map[string]bool{}
	for i := range containers {
		c := &containers[i]
		p := index(path, i)
		switch {
		case c.Name == "":
			errs = append(errs, required(child(p, "name"), ""))
		case names[c.Name]:
			errs = append(errs, duplicate(child(p, "name"), c.Name))
		default:
			for _, msg := range IsDNS1123Label(c.Name) {
				errs = append(errs, invalid(child(p, "name"), c.Name, msg))
			}
		}
		names[c.Name] = true
		if c.Image == "" {
			errs = append(errs, required(child(p, "image"), ""))
		}
		errs = append(errs, validateProbe(c.LivenessProbe, child(p, "livenessProbe"))...)
		errs = append(errs, validateProbe(c.ReadinessProbe, child(p, "readinessProbe"))...)
		if c.LivenessProbe != nil && c.LivenessProbe.SuccessThreshold != 1 {
			errs = append(errs, invalid(child(p, "livenessProbe", "successThreshold"), c.LivenessProbe.SuccessThreshold, "must be 1"))
		}
		// As validateContainerCommon (pkg/apis/core/validation/validation.go):
		// a startup probe's successThreshold must be 1 too.
		errs = append(errs, validateProbe(c.StartupProbe, child(p, "startupProbe"))...)
		if c.StartupProbe != nil && c.StartupProbe.SuccessThreshold != 1 {
			errs = append(errs, invalid(child(p, "startupProbe", "successThreshold"), c.StartupProbe.SuccessThreshold, "must be 1"))
		}
		errs = append(errs, validateResources(&c.Resources, child(p, "resources"))...)
	}
	return errs
}

// validatePreStops checks each preStop sleep as validateSleepAction
// (pkg/apis/core/validation/validation.go) with zero allowed (KEP-4818):
// non-negative and at most the pod's terminationGracePeriodSeconds.
func validatePreStops(spec *PodSpec, path string) ErrorList {
	grace := Deref(spec.TerminationGracePeriodSeconds, DefaultTerminationGracePeriodSeconds)
	var errs ErrorList
	for i := range spec.Containers {
		c := &spec.Containers[i]
		if c.Lifecycle == nil || c.Lifecycle.PreStop == nil {
			continue
		}
		p := child(index(path, i), "lifecycle", "preStop")
		s, ok := c.PreStopSleep()
		if !ok {
			errs = append(errs, required(p, "must specify a handler type"))
			continue
		}
		if s < 0 || s > grace {
			errs = append(errs, invalid(child(p, "sleep", "seconds"), s,
				fmt.Sprintf("must be non-negative and less than terminationGracePeriodSeconds (%d)", grace)))
		}
	}
	return errs
}

func validateProbe(p *Probe, path string) ErrorList {
	if p == nil {
		return nil
	}
	var errs ErrorList
	errs = append(errs, validateNonnegative(int64(p.InitialDelaySeconds), child(path, "initialDelaySeconds"))...)
	errs = append(errs, validateNonnegative(int64(p.TimeoutSeconds), child(path, "timeoutSeconds"))...)
	errs = append(errs, validateNonnegative(int64(p.PeriodSeconds), child(path, "periodSeconds"))...)
	errs = append(errs, validateNonnegative(int64(p.SuccessThreshold), child(path, "successThreshold"))...)
	errs = append(errs, validateNonnegative(int64(p.FailureThreshold), child(path, "failureThreshold"))...)
	return errs
}

// standardContainerResources are the resources a container may request.
var standardContainerResources = []ResourceName{ResourceCPU, ResourceMemory}

func validateResourceList(l ResourceList, path string) ErrorList {
	var errs ErrorList
	for _, name := range l.Names() {
		p := key(path, string(name))
		ok := false
		for _, s := range standardContainerResources {
			ok = ok || s == name
		}
		if !ok {
			errs = append(errs, invalid(p, string(name), "must be a standard resource for containers"))
			continue
		}
		if l[name] < 0 {
			errs = append(errs, invalid(p, FormatQuantity(name, l[name]), "must be greater than or equal to 0"))
		}
	}
	return errs
}

func validateResources(r *ResourceRequirements, path string) ErrorList {
	errs := validateResourceList(r.Limits, child(path, "limits"))
	errs = append(errs, validateResourceList(r.Requests, child(path, "requests"))...)
	for _, name := range r.Requests.Names() {
		limit, ok := r.Limits[name]
		if ok && r.Requests[name] > limit {
			errs = append(errs, invalid(key(child(path, "requests"), string(name)), FormatQuantity(name, r.Requests[name]),
				fmt.Sprintf("must be less than or equal to %s limit of %s", name, FormatQuantity(name, limit))))
		}
	}
	return errs
}

// ValidateTolerations checks tolerations at path, as core validation's
// ValidateTolerations: a key, if set, is a qualified name; an empty key needs
// operator Exists; Equal needs a valid label value and Exists an empty value;
// tolerationSeconds needs effect NoExecute; effect, if set, is one of the
// three taint effects.
func ValidateTolerations(tolerations []Toleration, path string) ErrorList {
	var errs ErrorList
	for i := range tolerations {
		t := &tolerations[i]
		p := index(path, i)
		if t.Key != "" {
			errs = append(errs, validateLabelName(t.Key, child(p, "key"))...)
		}
		if t.Key == "" && t.Operator != TolerationOpExists {
			errs = append(errs, invalid(child(p, "operator"), string(t.Operator),
				"operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != TaintEffectNoExecute {
			errs = append(errs, invalid(child(p, "effect"), string(t.Effect),
				"effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case TolerationOpEqual, "":
			for _, msg := range IsValidLabelValue(t.Value) {
				errs = append(errs, invalid(child(p, "operator"), t.Value, msg))
			}
		case TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, invalid(child(p, "operator"), t.Value, "value must be empty when `operator` is 'Exists'"))
			}
		default:
			errs = append(errs, notSupported(child(p, "operator"), string(t.Operator), TolerationOpEqual, TolerationOpExists))
		}
		if t.Effect != "" {
			errs = append(errs, validateTaintEffect(t.Effect, child(p, "effect"))...)
		}
	}
	return errs
}

func validateTaintEffect(e TaintEffect, path string) ErrorList {
	switch e {
	case TaintEffectNoSchedule, TaintEffectPreferNoSchedule, TaintEffectNoExecute:
		return nil
	}
	return ErrorList{notSupported(path, string(e), TaintEffectNoSchedule, TaintEffectPreferNoSchedule, TaintEffectNoExecute)}
}

// podSpecUpdateDetail is the Forbidden detail for an illegal pod spec change.
const podSpecUpdateDetail = "pod updates may not change fields other than `spec.containers[*].image` " +
	"(and `spec.nodeName`, which may be set once by binding)"

// validatePodSpecUpdate enforces pod spec immutability: only container images
// may change, and nodeName may go from empty to a node.
func validatePodSpecUpdate(old, new *PodSpec) ErrorList {
	var errs ErrorList
	if old.NodeName != "" && new.NodeName != old.NodeName {
		errs = append(errs, invalid("spec.nodeName", new.NodeName, "field is immutable once set"))
	}
	// Compare new with old's images and nodeName copied in: what remains
	// different is an illegal change.
	cmp := PodSpec{}
	new.DeepCopyInto(&cmp)
	cmp.NodeName = old.NodeName
	if len(cmp.Containers) == len(old.Containers) {
		for i := range cmp.Containers {
			cmp.Containers[i].Image = old.Containers[i].Image
		}
	}
	if !reflect.DeepEqual(&cmp, old) {
		errs = append(errs, forbidden("spec", podSpecUpdateDetail))
	}
	return errs
}
