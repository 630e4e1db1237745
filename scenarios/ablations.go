package scenarios

import (
	"fmt"
	"slices"

	"github.com/kubesim/kubesim/ablation"
)

// Ablations lists the ablation switches a name turns on, in documentation
// order: the registry of package ablation, where each is declared.
func Ablations() []ablation.Ablation { return ablation.All() }

// ResolveAblations turns names into the run's switches; an unknown name is
// an error that lists the known ones.
func ResolveAblations(names []string) (ablation.Set, error) { return ablation.Parse(names) }

// layerRank orders the layers: a world of one layer builds those below it.
func layerRank(layer string) int {
	switch layer {
	case "api":
		return 1
	case "stack":
		return 2
	}
	return 0
}

// checkReach refuses an ablation whose mechanism lives in a layer the
// scenario does not build (ablation.Ablation.Layer): the run would test
// nothing and pass.
func checkReach(spec Spec, names []string) error {
	for _, a := range ablation.All() {
		if !slices.Contains(names, a.Name) || layerRank(a.Layer) <= layerRank(spec.Layer()) {
			continue
		}
		return fmt.Errorf("--ablate %s removes a mechanism of the %s layer, which %s (a scenario of the %s layer) does not build, so the run would test nothing: ablate it on a scenario of the %s layer, such as %s", a.Name, a.Layer, spec.Name, spec.Layer(), a.Layer, a.Scenario)
	}
	return nil
}
