//go:build ignore

// mutationsample draws and reads the uniform random samples of mutants
// that `scripts/mutation.sh -m N` judges, so that a package's efficacy
// comes from a sample of all its mutants rather than from the files
// gremlins happens to reach first.
//
// Draw: from a gremlins dry run's report (PKG.dry.json), N of the
// package's mutants, uniformly at random without replacement with the
// given seed, covered or not; one mutant a line, "file:line:col TYPE",
// file relative to the module root:
//
//	go run scripts/mutationsample.go -draw 200 -seed 1 -pkg nodes/raft out/mutation/nodes_raft.dry.json
//
// Read: the verdicts of the sampled mutants in the run's reports
// (PKG.json, or PKG.log when the run was stopped), and the table of
// docs/mutation.md: per package, killed, lived, not reached (no run of
// the judging set reaches the mutant's line), timed out, not viable, the
// efficacy killed / (killed + lived) with its 95% Wilson interval, and
// the catch rate (killed + timed out) / sampled, which counts what no run
// reaches as missed:
//
//	go run scripts/mutationsample.go -dir out/mutation-scenarios nodes/raft nodes/etcd ...
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

type report struct {
	Files []struct {
		Name      string `json:"file_name"`
		Mutations []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
			Line   int    `json:"line"`
			Column int    `json:"column"`
		} `json:"mutations"`
	} `json:"files"`
}

// logLine is one mutant of gremlins' log: status, mutation, file:line:col.
var logLine = regexp.MustCompile(`^\s*(KILLED|LIVED|NOT COVERED|TIMED OUT|NOT VIABLE|RUNNABLE|SKIPPED) (\S+) at (\S+):(\d+):(\d+)$`)

// statuses reads a package's verdicts by mutant ("file:line:col TYPE",
// file relative to the module root): from the report, or from the log of
// a stopped run (what it logged before "Shutting down gracefully...").
func statuses(dir, pkg string) (map[string]string, error) {
	name := strings.ReplaceAll(pkg, "/", "_")
	out := map[string]string{}
	if data, err := os.ReadFile(filepath.Join(dir, name+".json")); err == nil {
		var r report
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("%s.json: %v", name, err)
		}
		for _, f := range r.Files {
			for _, m := range f.Mutations {
				out[fmt.Sprintf("%s/%s:%d:%d %s", pkg, f.Name, m.Line, m.Column, m.Type)] = m.Status
			}
		}
		return out, nil
	}
	f, err := os.Open(filepath.Join(dir, name+".log"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "Shutting down gracefully") {
			break
		}
		if m := logLine.FindStringSubmatch(sc.Text()); m != nil {
			out[fmt.Sprintf("%s/%s:%s:%s %s", pkg, m[3], m[4], m[5], m[2])] = m[1]
		}
	}
	return out, sc.Err()
}

// draw picks n of the dry run's mutants uniformly at random, without
// replacement, and returns them in source order. A mutant's draw is a
// hash of the seed and of what the mutant changes (its file, the text of
// its line and which occurrence of that text it is, its column and
// mutation), not of where it is: the n with the smallest hashes are the
// sample. So two builds' samples with one seed hold the same mutants on
// every line neither changed, and their verdicts compare one for one.
func draw(path, pkg string, n int, seed uint64) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	type drawn struct {
		mutant string
		hash   uint64
	}
	var all []drawn
	for _, f := range r.Files {
		file := pkg + "/" + f.Name
		src, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		lines := strings.Split(string(src), "\n")
		for _, m := range f.Mutations {
			text := ""
			occ := 0
			if m.Line <= len(lines) {
				text = strings.TrimSpace(lines[m.Line-1])
				for _, l := range lines[:m.Line-1] {
					if strings.TrimSpace(l) == text {
						occ++
					}
				}
			}
			h := fnv.New64a()
			fmt.Fprintf(h, "%d\x00%s\x00%s\x00%d\x00%d\x00%s", seed, file, text, occ, m.Column, m.Type)
			all = append(all, drawn{fmt.Sprintf("%s:%d:%d %s", file, m.Line, m.Column, m.Type), h.Sum64()})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].hash < all[j].hash })
	if n < len(all) {
		all = all[:n]
	}
	out := make([]string, len(all))
	for i, d := range all {
		out[i] = d.mutant
	}
	sortMutants(out)
	return out, nil
}

// sortMutants orders "file:line:col TYPE" by file, line, column, type.
func sortMutants(ms []string) {
	type key struct {
		file      string
		line, col int
		typ       string
	}
	parse := func(s string) key {
		pos, typ, _ := strings.Cut(s, " ")
		parts := strings.Split(pos, ":")
		l, _ := strconv.Atoi(parts[1])
		c, _ := strconv.Atoi(parts[2])
		return key{parts[0], l, c, typ}
	}
	sort.Slice(ms, func(i, j int) bool {
		a, b := parse(ms[i]), parse(ms[j])
		if a.file != b.file {
			return a.file < b.file
		}
		if a.line != b.line {
			return a.line < b.line
		}
		if a.col != b.col {
			return a.col < b.col
		}
		return a.typ < b.typ
	})
}

// wilson is the 95% Wilson score interval of k successes in n trials.
func wilson(k, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 0
	}
	const z = 1.959964
	p, nf := float64(k)/float64(n), float64(n)
	d := 1 + z*z/nf
	c := (p + z*z/(2*nf)) / d
	h := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / d
	return c - h, c + h
}

func pct(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}

func main() {
	n := flag.Int("draw", 0, "draw this many mutants from the dry-run report given as argument")
	seed := flag.Uint64("seed", 1, "the sample's seed")
	pkg := flag.String("pkg", "", "the package of the dry-run report (with -draw)")
	dir := flag.String("dir", "out/mutation", "results directory (to read)")
	flag.Parse()
	if *n > 0 {
		if *pkg == "" || flag.NArg() != 1 {
			fmt.Fprintln(os.Stderr, "mutationsample: -draw needs -pkg PKG and one dry-run report; see the head of scripts/mutationsample.go")
			os.Exit(2)
		}
		ms, err := draw(flag.Arg(0), *pkg, *n, *seed)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(strings.Join(ms, "\n"))
		return
	}
	fmt.Println("| package | sampled of | killed | lived | not reached | timed out | not viable | efficacy (95% interval) | catch rate |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	var tot [7]int
	for _, p := range flag.Args() {
		name := strings.ReplaceAll(p, "/", "_")
		data, err := os.ReadFile(filepath.Join(*dir, name+".sample"))
		if err != nil {
			fmt.Printf("| %s | not measured | | | | | | | |\n", p)
			continue
		}
		sample := strings.Fields(strings.ReplaceAll(string(data), " ", "|"))
		st, err := statuses(*dir, p)
		if err != nil {
			fmt.Printf("| %s | not measured | | | | | | | |\n", p)
			continue
		}
		total := "?"
		if dry, err := statuses(*dir, p+".dry"); err == nil {
			total = strconv.Itoa(len(dry))
		}
		var c [7]int // sampled, killed, lived, not covered, timed out, not viable, not yet judged
		var missing []string
		for _, s := range sample {
			m := strings.ReplaceAll(s, "|", " ")
			c[0]++
			switch st[m] {
			case "KILLED":
				c[1]++
			case "LIVED":
				c[2]++
			case "NOT COVERED":
				c[3]++
			case "TIMED OUT":
				c[4]++
			case "NOT VIABLE":
				c[5]++
			default:
				missing = append(missing, m)
			}
		}
		c[6] = len(missing)
		lo, hi := wilson(c[1], c[1]+c[2])
		note := ""
		if len(missing) > 0 {
			note = fmt.Sprintf(" (%d not yet judged)", len(missing))
		}
		fmt.Printf("| %s%s | %d of %s | %d | %d | %d | %d | %d | %s (%.0f–%.0f%%) | %s |\n",
			p, note, c[0], total, c[1], c[2], c[3], c[4], c[5], pct(c[1], c[1]+c[2]), 100*lo, 100*hi, pct(c[1]+c[4], c[0]-c[5]-c[6]))
		for i := range tot {
			tot[i] += c[i]
		}
	}
	if flag.NArg() > 1 {
		lo, hi := wilson(tot[1], tot[1]+tot[2])
		fmt.Printf("| all | %d | %d | %d | %d | %d | %d | %s (%.0f–%.0f%%) | %s |\n",
			tot[0], tot[1], tot[2], tot[3], tot[4], tot[5], pct(tot[1], tot[1]+tot[2]), 100*lo, 100*hi, pct(tot[1]+tot[4], tot[0]-tot[5]-tot[6]))
	}
}
