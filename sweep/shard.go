package sweep

import (
	"fmt"
	"iter"
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

// norm is the shard with the zero Shard read as the whole grid, 0/1.
func (s Shard) norm() Shard {
	if s.N <= 1 {
		return Shard{0, 1}
	}
	return s
}

// Len is the number of runs of a grid of total runs that this shard runs:
// those whose position modulo N is I.
func (s Shard) Len(total int) int {
	s = s.norm()
	if total <= s.I {
		return 0
	}
	return (total-s.I-1)/s.N + 1
}

// Owns reports whether this shard runs the run at position i.
func (s Shard) Owns(i int) bool { s = s.norm(); return i%s.N == s.I }

// Local is the rank of position i among this shard's positions.
func (s Shard) Local(i int) int { s = s.norm(); return i / s.N }

// Positions yields the positions of this shard's runs in a grid of total
// runs, in order, by arithmetic: nothing is listed.
func (s Shard) Positions(total int) iter.Seq[int] {
	s = s.norm()
	return func(yield func(int) bool) {
		for i := s.I; i < total; i += s.N {
			if !yield(i) {
				return
			}
		}
	}
}

// ResultsFile is the name of the JSONL file a sweep (or one shard of it)
// appends to in its output directory.
func (s Shard) ResultsFile() string {
	if s.N <= 1 {
		return "results.jsonl"
	}
	return fmt.Sprintf("results-shard-%d-of-%d.jsonl", s.I, s.N)
}
