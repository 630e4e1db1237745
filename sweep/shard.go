package sweep

import (
	"fmt"

	"github.com/kubesim/kubesim/scenarios"
)

// Shard is "i/n": this machine runs the jobs whose position modulo n is i.
type Shard struct{ I, N int }

// ParseShard parses "i/n" with 0 <= i < n.
func ParseShard(s string) (Shard, error) {
	var sh Shard
	if _, err := fmt.Sscanf(s, "%d/%d", &sh.I, &sh.N); err != nil || sh.N < 1 || sh.I < 0 || sh.I >= sh.N || fmt.Sprintf("%d/%d", sh.I, sh.N) != s {
		return Shard{}, fmt.Errorf("--shard %q: want i/n with 0 <= i < n, e.g. 0/4", s)
	}
	return sh, nil
}

// Pick returns the jobs of this shard.
func (s Shard) Pick(jobs []scenarios.Options) []scenarios.Options {
	if s.N <= 1 {
		return jobs
	}
	var out []scenarios.Options
	for i, j := range jobs {
		if i%s.N == s.I {
			out = append(out, j)
		}
	}
	return out
}

// ResultsFile is the name of the JSONL file a sweep (or one shard of it)
// appends to in its output directory.
func (s Shard) ResultsFile() string {
	if s.N <= 1 {
		return "results.jsonl"
	}
	return fmt.Sprintf("results-shard-%d-of-%d.jsonl", s.I, s.N)
}
