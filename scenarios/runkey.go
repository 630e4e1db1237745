package scenarios

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/kubesim/kubesim/buildinfo"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// Build names the kubesim build this process runs worlds with; every
// Result records it, and run keys include it, because the same seed gives
// the same run only under the same build. A kubesim that Go stamped with a
// module version (a release installed with `go install ...@v0.4.0`, or a
// pseudo-version) is named by that version; a development build (`go build`
// in a checkout, a test binary, uncommitted changes) by "devel-" and a hash
// of its executable, so that two different development builds never share
// results.
func Build() string { return buildinfo.String() }

// Key identifies the run across shards and restarts: everything that
// defines it. See RunKey.
func (o Options) Key() string {
	return runKey(o.Scenario, o.Members, o.Seed, o.RunDuration(), o.Profile, ScheduleHash(o.Schedule), o.Ablations, Build(), o.Buggify)
}

// RunDuration is the run's virtual length: Duration, or the scenario's own
// when Duration is 0 (0 when the scenario is not registered).
func (o Options) RunDuration() time.Duration {
	if o.Duration != 0 {
		return o.Duration
	}
	if spec, err := Lookup(o.Scenario); err == nil {
		return spec.Duration
	}
	return 0
}

// Key identifies the run r is the result of, as Options.Key does for the
// options that ran it.
//
// A result written before results recorded their duration, schedule hash
// and build (kubesim before the duration_ns, schedule_hash and build
// fields) is keyed by the virtual time it ended at for its duration, no
// schedule hash, and an empty build, which names no build: its run is
// therefore never taken for one of any current build.
func (r *Result) Key() string {
	return runKey(r.Scenario, r.Members, r.Seed, r.RunDuration(), r.Profile, r.ScheduleHash, r.Ablations, r.Build, r.Buggify != nil)
}

// RunDuration is the virtual length of the run: Duration, or for a result
// that did not record it, the virtual time the run ended at.
func (r *Result) RunDuration() time.Duration {
	if r.Duration != 0 {
		return r.Duration
	}
	return time.Duration(math.Round(r.VirtualSeconds * 1e9))
}

// ScheduleHash names an explicit fault schedule by its text form: the first
// 16 hex digits of the SHA-256 of s.String(), or "" for none (nil: the
// scenario's or a profile's faults).
func ScheduleHash(s sim.Schedule) string {
	if s == nil {
		return ""
	}
	sum := sha256.Sum256([]byte(s.String()))
	return hex.EncodeToString(sum[:8])
}

// runKey renders a run's identity:
// "scenario|members|seed|duration|profile|schedule|ablations|build", e.g.
// "etcd-profile|3|7|2m0s|crash-restart:mttf=1m0s,mttr=20s||raft-ack-before-fsync|v0.4.0",
// and "|buggify" after it for a run with BUGGIFY on (so that a run
// without it keeps the key it had before BUGGIFY existed).
func runKey(scenario string, members int, seed uint64, d time.Duration, profile *nemesis.Profile, schedule string, ablations []string, build string, buggify bool) string {
	prof := ""
	if profile != nil {
		prof = profile.String()
	}
	key := fmt.Sprintf("%s|%d|%d|%v|%s|%s|%s|%s", scenario, members, seed, d, prof, schedule, strings.Join(ablations, ","), build)
	if buggify {
		key += "|buggify"
	}
	return key
}

// CheckName returns an error unless name could be a registered scenario's
// (Register's rule: letters, digits, '-', '_' and '.', not starting with '-'
// or '.'), a name that is safe on a command line, in a file name and in
// markdown. Reports use it on names read from results files.
func CheckName(name string) error { return validName(name) }
