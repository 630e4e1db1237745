// Command catchtimes measures how soon exploration catches each ablation
// from an empty start: the CPU-seconds that runs of one explorer spend
// before a check fails in a world with the ablation on. It is a measuring
// tool, not part of CI nor of `go test ./...`; docs/exploration.md gives
// the last figures.
//
//	go run ./internal/cmd/catchtimes [-cap 600s] [-explorers swarm,moments,fuzz,seeds] [-out FILE] [ABLATION...]
//
// The explorers, each tried from its first attempt, in turn, until one
// catches the ablation (-all tries every one):
//   - swarm: the ablation's layer's swarm scenario (etcd-swarm, api-swarm,
//     stack-swarm), seeds 1, 2, ..., 3 and 5 members in turn;
//   - moments: the ablation's own catalogue scenario with the moments
//     profile (a fault aimed at a named moment, as the trace marks it),
//     its moments of its layer in turn, then the next seed;
//   - fuzz: its layer's world fuzz target (FuzzEtcd, FuzzAPI, FuzzStack)
//     with -fuzz-ablate from an empty corpus, one worker, in a go test
//     process of its own (its CPU time is the process's, the link of its
//     test binary included);
//   - seeds: the ablation's own catalogue scenario as it is, seeds 1, 2,
//     ..., 3 and 5 members in turn: the baseline the others are read
//     against (the scenario was written for the mechanism).
//
// An attempt catches when any check fails: the explorers judge with every
// check, as a user's run does; the row names the check and whether it is
// one the registry says catches the ablation. A row is written (and
// flushed) as each ablation is done, and an ablation already in FILE is
// not run again, so an interrupted measurement keeps what it finished.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/kubesim/kubesim/ablation"
	_ "github.com/kubesim/kubesim/catalogue"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
)

// outcome is one explorer's result for one ablation.
type outcome struct {
	cpu      time.Duration
	attempts int
	caught   bool
	check    string // the first failed check of the catching attempt
	at       string // the catching attempt, as a replay names it
}

func (o outcome) String() string {
	if !o.caught {
		return fmt.Sprintf("not in %.0f s (%d runs)", o.cpu.Seconds(), o.attempts)
	}
	return fmt.Sprintf("%.1f s, %d runs: %s (%s)", o.cpu.Seconds(), o.attempts, o.check, o.at)
}

func main() {
	capFlag := flag.Duration("cap", 10*time.Minute, "CPU time an explorer may spend on one ablation")
	explorers := flag.String("explorers", "swarm,moments,fuzz", "the explorers, in the order tried")
	all := flag.Bool("all", false, "try every explorer, not only until one catches")
	outPath := flag.String("out", "", "append the rows to this file, skipping ablations it has (default: stdout only)")
	flag.Parse()
	names := flag.Args()
	var todo []ablation.Ablation
	for _, a := range ablation.All() {
		if a.Check == "" || (len(names) > 0 && !slices.Contains(names, a.Name)) {
			continue
		}
		todo = append(todo, a)
	}
	if len(names) > 0 && len(todo) != len(names) {
		fail(fmt.Sprintf("catchtimes: an ablation of %v is unknown or measured, not caught; `kubesim ablations` lists them", names))
	}
	done := map[string]bool{}
	var out *os.File
	if *outPath != "" {
		if data, err := os.ReadFile(*outPath); err == nil {
			for _, line := range strings.Split(string(data), "\n") {
				if f := strings.Split(line, "|"); len(f) > 2 {
					done[strings.TrimSpace(f[1])] = true
				}
			}
		}
		f, err := os.OpenFile(*outPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			fail(err.Error())
		}
		out = f
		defer out.Close()
	}
	exps := strings.Split(*explorers, ",")
	for _, e := range exps {
		if e != "swarm" && e != "moments" && e != "fuzz" && e != "seeds" {
			fail(fmt.Sprintf("catchtimes: -explorers %q: each is swarm, moments, fuzz or seeds", *explorers))
		}
	}
	header := "| ablation | layer | " + strings.Join(exps, " | ") + " |\n|" + strings.Repeat(" --- |", 2+len(exps)) + "\n"
	fmt.Print(header)
	if out != nil && len(done) == 0 {
		out.WriteString(header)
	}
	for _, a := range todo {
		if done[a.Name] {
			continue
		}
		cells := []string{a.Name, a.Layer}
		caught := false
		for _, e := range exps {
			if caught && !*all {
				cells = append(cells, "-")
				continue
			}
			var o outcome
			switch e {
			case "swarm":
				o = explore(a, *capFlag, swarmAttempt(a))
			case "moments":
				o = explore(a, *capFlag, momentsAttempt(a))
			case "fuzz":
				o = fuzz(a, *capFlag)
			case "seeds":
				o = explore(a, *capFlag, seedsAttempt(a))
			}
			caught = caught || o.caught
			cells = append(cells, o.String())
		}
		row := "| " + strings.Join(cells, " | ") + " |\n"
		fmt.Print(row)
		if out != nil {
			out.WriteString(row)
		}
	}
}

// swarmAttempt returns the i-th attempt of the swarm explorer.
func swarmAttempt(a ablation.Ablation) func(i int) (scenarios.Options, bool) {
	scenario := a.Layer + "-swarm"
	if a.Layer == "etcd" {
		scenario = "etcd-swarm"
	}
	return func(i int) (scenarios.Options, bool) {
		return scenarios.Options{Scenario: scenario, Members: 3 + 2*(i%2), Seed: uint64(1 + i/2), Ablations: []string{a.Name}}, true
	}
}

// seedsAttempt returns the i-th attempt of the seeds explorer.
func seedsAttempt(a ablation.Ablation) func(i int) (scenarios.Options, bool) {
	return func(i int) (scenarios.Options, bool) {
		return scenarios.Options{Scenario: a.Scenario, Members: 3 + 2*(i%2), Seed: uint64(1 + i/2), Ablations: []string{a.Name}}, true
	}
}

// momentsAttempt returns the i-th attempt of the moments explorer: the
// ablation's scenario under the moments profile, each moment of a layer
// the scenario has in turn, then the next seed.
func momentsAttempt(a ablation.Ablation) func(i int) (scenarios.Options, bool) {
	spec, err := scenarios.Lookup(a.Scenario)
	var ms []nemesis.Moment
	if err == nil {
		layer := spec.Layer()
		for _, m := range nemesis.Moments() {
			if layerRank(m.Layer) <= layerRank(layer) {
				ms = append(ms, m)
			}
		}
	}
	return func(i int) (scenarios.Options, bool) {
		if len(ms) == 0 {
			return scenarios.Options{}, false
		}
		m := ms[i%len(ms)]
		p := nemesis.Profile{Name: "moments", Params: map[string]string{"moment": m.Name, "times": "3"}}
		return scenarios.Options{Scenario: a.Scenario, Members: 3, Seed: uint64(1 + i/len(ms)), Profile: &p, Ablations: []string{a.Name}}, true
	}
}

func layerRank(l string) int { return strings.Index("etcd api stack", l) }

// explore runs attempts until one fails a check or the CPU time spent
// reaches capacity.
func explore(a ablation.Ablation, capacity time.Duration, attempt func(int) (scenarios.Options, bool)) outcome {
	var o outcome
	for i := 0; o.cpu < capacity; i++ {
		opts, ok := attempt(i)
		if !ok {
			break
		}
		start := cpu(syscall.RUSAGE_SELF)
		res, err := run(opts)
		o.cpu += cpu(syscall.RUSAGE_SELF) - start
		o.attempts++
		if err != nil {
			o.caught, o.check, o.at = true, "error: "+err.Error(), describe(opts)
			return o
		}
		if failed := res.Failed(); len(failed) > 0 {
			o.caught, o.check, o.at = true, failed[0].Name, describe(opts)
			if !slices.Contains(append([]string{a.Check}, a.AlsoCaughtBy...), failed[0].Name) {
				o.check += ", not the ablation's own check"
			}
			return o
		}
	}
	return o
}

// run runs one world, turning a panic into an error: an ablated world may
// break what a correct one never does.
func run(opts scenarios.Options) (res scenarios.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return scenarios.Run(opts)
}

func describe(o scenarios.Options) string {
	s := fmt.Sprintf("%s members=%d seed=%d", o.Scenario, o.Members, o.Seed)
	if o.Profile != nil {
		s += " faults=" + o.Profile.String()
	}
	return s
}

// fuzz runs the layer's fuzz target with the ablation on, from an empty
// corpus, until it fails or capacity of wall time passes on one worker.
func fuzz(a ablation.Ablation, capacity time.Duration) outcome {
	target := map[string]string{"etcd": "FuzzEtcd", "api": "FuzzAPI", "stack": "FuzzStack"}[a.Layer]
	cache, err := os.MkdirTemp("", "catchtimes-fuzz")
	if err != nil {
		fail(err.Error())
	}
	defer os.RemoveAll(cache)
	dir := "catalogue/testdata/fuzz/" + target
	before, _ := os.ReadDir(dir)
	cmd := exec.Command("go", "test", "./catalogue", "-run", "^$", "-fuzz", "^"+target+"$",
		"-fuzztime", fmt.Sprintf("%ds", int(capacity.Seconds())), "-fuzzminimizetime", "1x", "-parallel", "1",
		"-test.fuzzcachedir="+cache, "-fuzz-ablate", a.Name)
	start := cpu(syscall.RUSAGE_CHILDREN)
	outText, runErr := cmd.CombinedOutput()
	o := outcome{cpu: cpu(syscall.RUSAGE_CHILDREN) - start, attempts: execs(string(outText))}
	// Inputs the fuzzer saved are this measurement's, not the corpus's.
	after, _ := os.ReadDir(dir)
	for _, e := range after {
		if !slices.ContainsFunc(before, func(b os.DirEntry) bool { return b.Name() == e.Name() }) {
			os.Remove(dir + "/" + e.Name())
		}
	}
	if runErr != nil {
		o.caught, o.check, o.at = true, failedCheck(string(outText)), target
	}
	return o
}

// execs reads the last execution count the fuzzer printed.
func execs(out string) int {
	n := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if i := strings.Index(sc.Text(), "execs: "); i >= 0 {
			fmt.Sscanf(sc.Text()[i+len("execs: "):], "%d", &n)
		}
	}
	return n
}

// failedCheck names the first check a fuzz failure printed, or the
// failure's first line.
func failedCheck(out string) string {
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "FAIL ") || strings.HasPrefix(line, "fuzz_") || line == "" {
			continue
		}
		if strings.Contains(line, ": FAIL") || strings.Contains(line, "failed") {
			return line
		}
	}
	return "failed"
}

// cpu is the user and system time of the process (RUSAGE_SELF) or of its
// waited-for children (RUSAGE_CHILDREN).
func cpu(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		fail(err.Error())
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(2)
}
