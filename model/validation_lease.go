package model

// ValidateLease checks a Lease on create, as coordination validation:
// metadata (DNS-1123 subdomain name, namespace required),
// leaseDurationSeconds positive and leaseTransitions non-negative when set.
func ValidateLease(l *Lease) ErrorList {
	errs := ValidateObjectMeta(&l.ObjectMeta, true, IsDNS1123Subdomain, "metadata")
	if d := l.Spec.LeaseDurationSeconds; d != nil && *d <= 0 {
		errs = append(errs, invalid("spec.leaseDurationSeconds", d, "must be greater than 0"))
	}
	if t := l.Spec.LeaseTransitions; t != nil && *t < 0 {
		errs = append(errs, invalid("spec.leaseTransitions", t, "must be greater than or equal to 0"))
	}
	return errs
}
