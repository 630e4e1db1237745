package simtest

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// The flags' names and help, defined on the standard flag set in a test
// binary (see the package documentation).
const (
	flagSeed    = "seed"
	flagMembers = "members"
	flagSeeds   = "seeds"
	flagAblate  = "ablate"
)

func init() {
	if testing.Testing() {
		define(flag.CommandLine)
	}
}

// define adds the harness's flags to fs, each only if fs has none of that
// name yet (another package's, read in its place).
func define(fs *flag.FlagSet) {
	if fs.Lookup(flagSeed) == nil {
		fs.Uint64(flagSeed, 0, "simtest: run this seed only (0: the test's seeds); a failure's replay command sets it")
	}
	if fs.Lookup(flagMembers) == nil {
		fs.Int(flagMembers, 0, "simtest: run with this many etcd members only (0: the test's member counts)")
	}
	if fs.Lookup(flagSeeds) == nil {
		fs.Int(flagSeeds, 0, "simtest: run this many seeds, from 1 (0: the test's number)")
	}
	if fs.Lookup(flagAblate) == nil {
		fs.Var(new(listFlag), flagAblate, "simtest: also turn on this ablation (repeatable; see `kubesim ablations`)")
	}
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// settings are the flags' values.
type settings struct {
	seed    uint64
	members int
	seeds   int
	ablate  []string
}

// read reads the harness's flags from fs, as their values print: its own,
// or another package's of the same names.
func read(fs *flag.FlagSet) (settings, error) {
	var s settings
	var err error
	value := func(name string) string {
		if f := fs.Lookup(name); f != nil {
			return f.Value.String()
		}
		return ""
	}
	parse := func(name string, set func(string) error) {
		if v := value(name); v != "" && err == nil {
			if perr := set(v); perr != nil {
				err = fmt.Errorf("simtest: flag -%s=%s: %v", name, v, perr)
			}
		}
	}
	parse(flagSeed, func(v string) (e error) { s.seed, e = strconv.ParseUint(v, 10, 64); return })
	parse(flagMembers, func(v string) (e error) { s.members, e = strconv.Atoi(v); return })
	parse(flagSeeds, func(v string) (e error) { s.seeds, e = strconv.Atoi(v); return })
	if v := value(flagAblate); v != "" {
		s.ablate = strings.Split(v, ",")
	}
	if err == nil && s.seeds < 0 {
		err = fmt.Errorf("simtest: flag -seeds must not be negative, got %d", s.seeds)
	}
	if err == nil && s.members < 0 {
		err = fmt.Errorf("simtest: flag -members must not be negative, got %d", s.members)
	}
	return s, err
}
