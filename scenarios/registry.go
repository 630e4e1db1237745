package scenarios

import (
	"fmt"
	"slices"
)

// registered holds the specs that packages outside the catalogue added
// with Register, in the order they were added. It is written only while
// packages initialise (Register is for init functions, package variables
// and TestMain), before any world runs, and only read afterwards: sweeps
// read it from many goroutines, so a Register after runs have begun is a
// data race.
var registered []Spec

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
func Register(spec Spec) error {
	if err := validName(spec.Name); err != nil {
		return fmt.Errorf("register scenario: %w", err)
	}
	if slices.ContainsFunc(Catalogue(), func(s Spec) bool { return s.Name == spec.Name }) {
		return fmt.Errorf("register scenario %q: the catalogue already has a scenario of that name: choose another", spec.Name)
	}
	if slices.ContainsFunc(registered, func(s Spec) bool { return s.Name == spec.Name }) {
		return fmt.Errorf("register scenario %q: already registered: each name is registered once", spec.Name)
	}
	registered = append(registered, withDefaults([]Spec{spec})[0])
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
	return registered[len(registered)-1]
}

// Registered returns the specs added with Register, in the order they were
// added (a copy: changing it changes no registration).
func Registered() []Spec { return slices.Clone(registered) }

// InCatalogue reports whether name is a catalogue scenario's: one that
// kubesim's own binary and test packages can replay (a registered spec is
// replayed by the test binary that registers it).
func InCatalogue(name string) bool {
	return slices.ContainsFunc(Catalogue(), func(s Spec) bool { return s.Name == name })
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
