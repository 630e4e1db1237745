package scenarios

// BugHuntRun is one run of a scenario in the bug-hunt set
// (internal/bughunt): a member count and a seed chosen to reach mechanisms
// of the node packages, or to catch an ablation of a check, fast enough
// to judge each mutant of a mutation-testing run (scripts/mutation.sh).
type BugHuntRun struct {
	// Rank is the run's place in the bug-hunt set, which runs in rank
	// order (from 1; each rank once across the catalogue): the fastest and
	// most telling runs first, since with -failfast a mutant stops at its
	// first failing run.
	Rank    int
	Members int
	Seed    uint64
	// Buggify runs it with BUGGIFY on (Options.Buggify): the only way the
	// set reaches the code of the BUGGIFY points' rare paths.
	Buggify bool
	// Reaches names the mechanisms this run is in the set for.
	Reaches string
}
