package scenarios

import (
	"fmt"
	"slices"
)

// registration is one spec in the registry, with where it came from.
type registration struct {
	spec Spec
	// catalogue marks a spec of package catalogue (RegisterCatalogue).
	catalogue bool
}

// registry holds every named spec, the catalogue's and the users', in the
// order they were registered. It is written only while packages
// initialise (Register is for init functions, package variables and
// TestMain), before any world runs, and only read afterwards: sweeps read
// it from many goroutines, so a Register after runs have begun is a data
// race.
var registry []registration

// Register adds a named spec of the caller's own (an operator's scenario,
// say) beside the catalogue, so that everything that takes a scenario by
// name (Lookup, Prepare, Run, WriteArtifacts, sweep.Config, corpus
// entries, the reports) accepts it, and a failing run of it can be
// replayed by name. The spec gets the defaults of its layer, as the
// catalogue's do (Duration, Settle, Topology, Members, Seeds).
//
// The name must be new, neither a catalogue scenario's nor an earlier
// registration's, and must be usable on a command line and in a file name
// (letters, digits, '-', '_' and '.'): Register returns an error naming the
// problem otherwise. Call it from an init function or TestMain, before any
// world runs; MustRegister suits a package-level variable.
func Register(spec Spec) error { return register(spec, false) }

// RegisterCatalogue is Register for package catalogue, and for it only:
// the same door, with the mark that makes the spec one of kubesim's own
// catalogue (Catalogue, InCatalogue). Package catalogue registers its
// scenarios with it when it initialises, in catalogue order; a binary
// sees the catalogue only if it imports that package (kubesim's binary and
// tools do, most with a blank import).
func RegisterCatalogue(spec Spec) error { return register(spec, true) }

// register adds spec to the registry, with the catalogue's mark or not.
func register(spec Spec, catalogue bool) error {
	if err := validName(spec.Name); err != nil {
		return fmt.Errorf("register scenario: %w", err)
	}
	if i := slices.IndexFunc(registry, func(r registration) bool { return r.spec.Name == spec.Name }); i >= 0 {
		if registry[i].catalogue {
			return fmt.Errorf("register scenario %q: the catalogue already has a scenario of that name: choose another", spec.Name)
		}
		return fmt.Errorf("register scenario %q: already registered: each name is registered once", spec.Name)
	}
	registry = append(registry, registration{spec: WithDefaults(spec), catalogue: catalogue})
	return nil
}

// MustRegister is Register for a package-level variable or an init
// function: it panics with Register's error, so that a clash is found when
// the test binary starts, and returns the spec as registered (with its
// defaults).
//
//	var mySpec = scenarios.MustRegister(scenarios.Spec{Name: "my-operator-chaos", ...})
func MustRegister(spec Spec) Spec {
	if err := Register(spec); err != nil {
		panic(err)
	}
	return registry[len(registry)-1].spec
}

// Registered returns the specs added with Register (not the catalogue's),
// in the order they were added (a copy: changing it changes no
// registration).
func Registered() []Spec { return registeredSpecs(false) }

// Catalogue returns the catalogue's scenarios (those package catalogue
// registered), in the order `kubesim scenarios` lists them. It is empty in
// a binary that does not import package catalogue.
func Catalogue() []Spec { return registeredSpecs(true) }

// registeredSpecs returns the specs registered with the catalogue's mark
// or without it, in registration order.
func registeredSpecs(catalogue bool) []Spec {
	var out []Spec
	for _, r := range registry {
		if r.catalogue == catalogue {
			out = append(out, r.spec)
		}
	}
	return out
}

// InCatalogue reports whether name is a catalogue scenario's: one that
// package catalogue registered, which kubesim's own binary and test
// packages import and so can replay (a spec added with Register is
// replayed by the test binary that registers it).
func InCatalogue(name string) bool {
	return slices.ContainsFunc(registry, func(r registration) bool { return r.catalogue && r.spec.Name == name })
}

// validName refuses a name that is empty or would not survive a command
// line or a file name unquoted.
func validName(name string) error {
	if name == "" {
		return fmt.Errorf("a spec needs a Name: it names the scenario in replay commands, artifact files and reports")
	}
	if name[0] == '-' || name[0] == '.' {
		return fmt.Errorf("invalid name %q: it must not start with '-' or '.' (a command line would read it as a flag, a directory listing hide it)", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return fmt.Errorf("invalid name %q: use letters, digits, '-', '_' and '.' only (it is used on command lines and in file names)", name)
		}
	}
	return nil
}
