package model

// ValidateNode checks a node on create: metadata (DNS-1123 subdomain name,
// cluster-scoped so no namespace), taints, and non-negative capacity and
// allocatable.
func ValidateNode(node *Node) ErrorList {
	errs := ValidateObjectMeta(&node.ObjectMeta, false, IsDNS1123Subdomain, "metadata")
	errs = append(errs, ValidateTaints(node.Spec.Taints, "spec.taints")...)
	for _, f := range []struct {
		path string
		list ResourceList
	}{{"status.capacity", node.Status.Capacity}, {"status.allocatable", node.Status.Allocatable}} {
		for _, name := range f.list.Names() {
			if f.list[name] < 0 {
				errs = append(errs, invalid(key(f.path, string(name)), FormatQuantity(name, f.list[name]), "must be greater than or equal to 0"))
			}
		}
	}
	return errs
}

// ValidateTaints checks taints at path, as core validation's
// validateNodeTaints: key required and a qualified name, value a label value,
// effect required and supported, and at most one taint per (key, effect).
func ValidateTaints(taints []Taint, path string) ErrorList {
	var errs ErrorList
	type keyEffect struct {
		key    string
		effect TaintEffect
	}
	seen := map[keyEffect]bool{}
	for i := range taints {
		t := &taints[i]
		p := index(path, i)
		if t.Key == "" {
			errs = append(errs, required(child(p, "key"), ""))
		} else {
			errs = append(errs, validateLabelName(t.Key, child(p, "key"))...)
		}
		for _, msg := range IsValidLabelValue(t.Value) {
			errs = append(errs, invalid(child(p, "value"), t.Value, msg))
		}
		if t.Effect == "" {
			errs = append(errs, required(child(p, "effect"), ""))
		} else {
			errs = append(errs, validateTaintEffect(t.Effect, child(p, "effect"))...)
		}
		k := keyEffect{t.Key, t.Effect}
		if seen[k] {
			e := duplicate(p, t)
			e.Detail = "taints must be unique by key and effect pair"
			errs = append(errs, e)
			continue
		}
		seen[k] = true
	}
	return errs
}
