package model

import (
	"fmt"
	"regexp"
)

// ValidateReplicaSet checks a ReplicaSet on create, as apps validation:
// metadata, then spec (replicas and minReadySeconds non-negative, selector
// required, valid and non-empty, template labels matched by the selector,
// template restartPolicy Always, template pod spec valid).
func ValidateReplicaSet(rs *ReplicaSet) ErrorList {
	errs := ValidateObjectMeta(&rs.ObjectMeta, true, IsDNS1123Subdomain, "metadata")
	errs = append(errs, validateReplicas(rs.Spec.Replicas, "spec.replicas")...)
	errs = append(errs, validateNonnegative(int64(rs.Spec.MinReadySeconds), "spec.minReadySeconds")...)
	errs = append(errs, validateSelectorAndTemplate(rs.Spec.Selector, &rs.Spec.Template, "spec")...)
	return errs
}

// ValidateDeployment checks a Deployment on create, as apps validation: as
// for ReplicaSet, plus the strategy (Recreate without rollingUpdate;
// RollingUpdate with maxSurge and maxUnavailable non-negative ints or
// percentages, not both zero, maxUnavailable at most 100%),
// revisionHistoryLimit non-negative, and progressDeadlineSeconds greater
// than minReadySeconds.
func ValidateDeployment(d *Deployment) ErrorList {
	errs := ValidateObjectMeta(&d.ObjectMeta, true, IsDNS1123Subdomain, "metadata")
	spec := &d.Spec
	errs = append(errs, validateReplicas(spec.Replicas, "spec.replicas")...)
	errs = append(errs, validateSelectorAndTemplate(spec.Selector, &spec.Template, "spec")...)
	errs = append(errs, validateDeploymentStrategy(&spec.Strategy, "spec.strategy")...)
	errs = append(errs, validateNonnegative(int64(spec.MinReadySeconds), "spec.minReadySeconds")...)
	if spec.RevisionHistoryLimit != nil {
		errs = append(errs, validateNonnegative(int64(*spec.RevisionHistoryLimit), "spec.revisionHistoryLimit")...)
	}
	if spec.ProgressDeadlineSeconds != nil {
		errs = append(errs, validateNonnegative(int64(*spec.ProgressDeadlineSeconds), "spec.progressDeadlineSeconds")...)
		if *spec.ProgressDeadlineSeconds <= spec.MinReadySeconds {
			errs = append(errs, invalid("spec.progressDeadlineSeconds", spec.ProgressDeadlineSeconds, "must be greater than minReadySeconds"))
		}
	}
	return errs
}

func validateReplicas(r *int32, path string) ErrorList {
	if r == nil {
		return nil
	}
	return validateNonnegative(int64(*r), path)
}

// validateSelectorAndTemplate checks spec.selector and spec.template as
// ValidateReplicaSetSpec and ValidateDeploymentSpec do.
func validateSelectorAndTemplate(sel *LabelSelector, tmpl *PodTemplateSpec, path string) ErrorList {
	var errs ErrorList
	selPath := child(path, "selector")
	if sel == nil {
		errs = append(errs, required(selPath, ""))
	} else {
		errs = append(errs, ValidateLabelSelector(sel, selPath)...)
		if len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 {
			// Kubernetes says "deployment" for ReplicaSets too.
			errs = append(errs, invalid(selPath, sel, "empty selector is invalid for deployment"))
		}
	}
	tPath := child(path, "template")
	selector, err := sel.AsSelector()
	if err != nil {
		errs = append(errs, invalid(selPath, sel, "invalid label selector"))
	} else if !selector.Empty() && !selector.Matches(tmpl.Labels) {
		errs = append(errs, invalid(child(tPath, "metadata", "labels"), tmpl.Labels, "`selector` does not match template `labels`"))
	}
	errs = append(errs, ValidateLabels(tmpl.Labels, child(tPath, "metadata", "labels"))...)
	errs = append(errs, ValidateAnnotations(tmpl.Annotations, child(tPath, "metadata", "annotations"))...)
	errs = append(errs, ValidatePodSpec(&tmpl.Spec, child(tPath, "spec"))...)
	if tmpl.Spec.RestartPolicy != "" && tmpl.Spec.RestartPolicy != RestartPolicyAlways {
		errs = append(errs, notSupported(child(tPath, "spec", "restartPolicy"), string(tmpl.Spec.RestartPolicy), RestartPolicyAlways))
	}
	return errs
}

// ValidateLabelSelector checks a structured selector at path, as
// metav1validation.ValidateLabelSelector: In and NotIn need values, Exists
// and DoesNotExist forbid them, the operator must be known, keys are
// qualified names, values are label values (ValidateLabelSelectorRequirement,
// pkg/apis/meta/v1/validation/validation.go) and matchLabels are valid
// labels.
func ValidateLabelSelector(sel *LabelSelector, path string) ErrorList {
	if sel == nil {
		return nil
	}
	var errs ErrorList
	for i, r := range sel.MatchExpressions {
		p := index(child(path, "matchExpressions"), i)
		switch r.Operator {
		case LabelSelectorOpIn, LabelSelectorOpNotIn:
			if len(r.Values) == 0 {
				errs = append(errs, required(child(p, "values"), "must be specified when `operator` is 'In' or 'NotIn'"))
			}
		case LabelSelectorOpExists, LabelSelectorOpDoesNotExist:
			if len(r.Values) > 0 {
				errs = append(errs, forbidden(child(p, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
			}
		default:
			errs = append(errs, invalid(child(p, "operator"), string(r.Operator), "not a valid selector operator"))
		}
		errs = append(errs, validateLabelName(r.Key, child(p, "key"))...)
		// ValidateLabelSelectorRequirement: each value is a label value
		// (AllowInvalidLabelValueInSelector is false for a new selector).
		for j, v := range r.Values {
			for _, msg := range IsValidLabelValue(v) {
				errs = append(errs, invalid(index(child(p, "values"), j), v, msg))
			}
		}
	}
	errs = append(errs, ValidateLabels(sel.MatchLabels, child(path, "matchLabels"))...)
	return errs
}

func validateDeploymentStrategy(s *DeploymentStrategy, path string) ErrorList {
	switch s.Type {
	case RecreateDeploymentStrategyType:
		if s.RollingUpdate != nil {
			return ErrorList{forbidden(child(path, "rollingUpdate"),
				fmt.Sprintf("may not be specified when strategy `type` is '%s'", RecreateDeploymentStrategyType))}
		}
		return nil
	case RollingUpdateDeploymentStrategyType:
		if s.RollingUpdate == nil {
			return ErrorList{required(child(path, "rollingUpdate"), "this should be defaulted and never be nil")}
		}
		return validateRollingUpdate(s.RollingUpdate, child(path, "rollingUpdate"))
	}
	return ErrorList{notSupported(child(path, "type"), string(s.Type), RecreateDeploymentStrategyType, RollingUpdateDeploymentStrategyType)}
}

func validateRollingUpdate(ru *RollingUpdateDeployment, path string) ErrorList {
	var errs ErrorList
	errs = append(errs, validateIntOrPercent(ru.MaxUnavailable, child(path, "maxUnavailable"))...)
	errs = append(errs, validateIntOrPercent(ru.MaxSurge, child(path, "maxSurge"))...)
	if intOrPercentOrZero(ru.MaxUnavailable) == 0 && intOrPercentOrZero(ru.MaxSurge) == 0 {
		errs = append(errs, invalid(child(path, "maxUnavailable"), ru.MaxUnavailable, "may not be 0 when `maxSurge` is 0"))
	}
	if ru.MaxUnavailable != nil && ru.MaxUnavailable.Type == String {
		if v, pct, err := intOrPercentValue(ru.MaxUnavailable); err == nil && pct && v > 100 {
			errs = append(errs, invalid(child(path, "maxUnavailable"), ru.MaxUnavailable, "must not be greater than 100%"))
		}
	}
	return errs
}

// validateIntOrPercent checks a non-negative int or a percentage string
// ("[0-9]+%"), as ValidatePositiveIntOrPercent.
func validateIntOrPercent(v *IntOrString, path string) ErrorList {
	if v == nil {
		return nil
	}
	switch v.Type {
	case String:
		if !percentRe.MatchString(v.StrVal) {
			return ErrorList{invalid(path, v, regexError("a valid percent string must be a numeric string followed by an ending '%'", percentFmt, "1%", "93%"))}
		}
		return nil
	case Int:
		return validateNonnegative(int64(v.IntVal), path)
	}
	return ErrorList{invalid(path, v, "must be an integer or percentage (e.g '5%')")}
}

const percentFmt = "[0-9]+%"

var percentRe = regexp.MustCompile("^" + percentFmt + "$")

func intOrPercentOrZero(v *IntOrString) int {
	if v == nil {
		return 0
	}
	n, _, err := intOrPercentValue(v)
	if err != nil {
		return -1 // reported elsewhere; not zero
	}
	return n
}
