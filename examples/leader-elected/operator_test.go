package leaderelected

import (
	"flag"
	"testing"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/simtest"
)

// broken runs TestTenantController with the broken replicas, to replay a
// world in which they are caught.
var broken = flag.Bool("broken", false, "run the replicas with their bug (Config.Broken)")

// The example's scenarios, registered so that kubesim's library calls
// (scenarios.Run, sweeps, WriteArtifacts) take them by name.
var (
	controllerSpec = scenarios.MustRegister(Spec("tenant-controller", false))
	brokenSpec     = scenarios.MustRegister(Spec("tenant-controller-broken", true))
)

// TestTenantController runs the replicas under API chaos and faults on
// their leader over a few seeds (and the first seed twice: same seed,
// same trace).
func TestTenantController(t *testing.T) {
	if *broken {
		simtest.Run(t, brokenSpec, simtest.Seeds(3), simtest.ReplayFlags("-broken"))
		return
	}
	simtest.Run(t, controllerSpec, simtest.Seeds(3))
}

// TestDeterminism reads the controller's own code (this package, test
// files aside) for what would make a world depend on more than its seed.
func TestDeterminism(t *testing.T) {
	simtest.CheckDeterminism(t, ".")
}
