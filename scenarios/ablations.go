package scenarios

import "github.com/kubesim/kubesim/ablation"

// Ablations lists the ablation switches a name turns on, in documentation
// order: the registry of package ablation, where each is declared.
func Ablations() []ablation.Ablation { return ablation.All() }

// ResolveAblations turns names into the run's switches; an unknown name is
// an error that lists the known ones.
func ResolveAblations(names []string) (ablation.Set, error) { return ablation.Parse(names) }
