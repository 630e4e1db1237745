package widgetoperator

import (
	"flag"
	"testing"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/simtest"
)

// broken runs TestWidgetOperator with the broken controller, to replay a
// world in which it is caught: go test . -run TestWidgetOperator -broken -seed N
var broken = flag.Bool("broken", false, "run the controller with its bug (Config.Broken)")

// The example's scenarios, registered so that kubesim's library calls
// (scenarios.Run, sweeps, WriteArtifacts) take them by name.
var (
	operatorSpec = scenarios.MustRegister(Spec("widget-operator", false))
	brokenSpec   = scenarios.MustRegister(Spec("widget-operator-broken", true))
)

// TestWidgetOperator runs the controller under API chaos over a few seeds
// (and the first seed twice: same seed, same trace).
func TestWidgetOperator(t *testing.T) {
	if *broken {
		simtest.Run(t, brokenSpec, simtest.Seeds(3), simtest.ReplayFlags("-broken"))
		return
	}
	simtest.Run(t, operatorSpec, simtest.Seeds(3))
}

// TestDeterminism reads the operator's own code (this package, test files
// aside) for what would make a world depend on more than its seed.
func TestDeterminism(t *testing.T) {
	simtest.CheckDeterminism(t, ".")
}
