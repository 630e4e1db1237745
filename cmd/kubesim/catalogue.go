package main

import (
	"fmt"
	"io"

	// The catalogue's scenarios register themselves when it initialises:
	// every command takes them by name.
	_ "github.com/kubesim/kubesim/catalogue"
	"github.com/kubesim/kubesim/scenarios"
)

// cmdScenarios is `kubesim scenarios`: the catalogue, one per line.
func cmdScenarios(args []string, stdout io.Writer) error {
	if len(args) > 0 {
		return usagef("scenarios: takes no arguments, got %q", args[0])
	}
	width := 0
	for _, s := range scenarios.Catalogue() {
		width = max(width, len(s.Name))
	}
	for _, s := range scenarios.Catalogue() {
		fmt.Fprintf(stdout, "%-*s  %s\n", width, s.Name, s.Description)
	}
	return nil
}

// cmdAblations is `kubesim ablations`: the ablation switches, one per line.
func cmdAblations(args []string, stdout io.Writer) error {
	if len(args) > 0 {
		return usagef("ablations: takes no arguments, got %q", args[0])
	}
	width := 0
	for _, a := range scenarios.Ablations() {
		width = max(width, len(a.Name))
	}
	for _, a := range scenarios.Ablations() {
		judge := "caught by: " + a.Check
		if a.Check == "" {
			judge = "measured by: " + a.Measure
		}
		fmt.Fprintf(stdout, "%-*s  removes: %s; %s (scenario %s)\n", width, a.Name, a.Mechanism, judge, a.Scenario)
	}
	return nil
}
