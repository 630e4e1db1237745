//go:build ignore

// mutationsummary reads the gremlins reports that scripts/mutation.sh
// writes and prints the table of docs/mutation.md: per package, killed,
// lived, not covered, timed out, not viable, efficacy = killed / (killed +
// lived) and mutant coverage = (killed + lived) / (killed + lived + not
// covered), gremlins' own definitions. It also writes, per package,
// PKG.lived.txt and PKG.notcovered.txt: one mutant a line, file:line:col
// and mutation; a lived mutant is marked "scenarios" when the bug-hunt
// set's coverage profile reaches its position and "unit" otherwise.
//
//	go run scripts/mutationsummary.go -dir out/mutation [-cover out/mutation/bughunt.cover] nodes/raft ...
//
// With -compare DIR -compare-commit C it prints instead the matched
// comparison of two runs: the mutants both judged (killed or lived) on
// source lines that are the same in both versions (same file, same line
// text and occurrence of it, column and mutation), DIR's run having
// judged the source of commit C and -dir's the working tree (or
// -commit's):
//
//	go run scripts/mutationsummary.go -dir out/mutation -compare docs/mutation/before -compare-commit ec2d9e7 nodes/raft ...
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// report is the part of gremlins' JSON output read here.
type report struct {
	Files []fileReport `json:"files"`
}

type fileReport struct {
	Name      string     `json:"file_name"`
	Mutations []mutation `json:"mutations"`
}

type mutation struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

// logLine is one mutant of gremlins' log: status, mutation, file:line:col.
var logLine = regexp.MustCompile(`^\s*(KILLED|LIVED|NOT COVERED|TIMED OUT|NOT VIABLE|RUNNABLE|SKIPPED) (\S+) at (\S+):(\d+):(\d+)$`)

// readReport reads a package's gremlins report, or, when the run was
// stopped before it wrote one, the mutants its log lists so far (partial).
// Statuses logged after gremlins' "Shutting down gracefully..." are left
// out: the mutants in flight when the budget's SIGINT came are reported as
// their interrupted tests exited, so an interrupted run that would have
// been killed can read LIVED.
func readReport(dir, name string) (r report, partial bool, err error) {
	data, err := os.ReadFile(filepath.Join(dir, name+".json"))
	if err == nil {
		err = json.Unmarshal(data, &r)
		return r, false, err
	}
	f, err := os.Open(filepath.Join(dir, name+".log"))
	if err != nil {
		return r, false, err
	}
	defer f.Close()
	files := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "Shutting down gracefully") {
			break
		}
		m := logLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		i, ok := files[m[3]]
		if !ok {
			i = len(r.Files)
			files[m[3]] = i
			r.Files = append(r.Files, fileReport{Name: m[3]})
		}
		line, _ := strconv.Atoi(m[4])
		col, _ := strconv.Atoi(m[5])
		r.Files[i].Mutations = append(r.Files[i].Mutations, mutation{Type: m[2], Status: m[1], Line: line, Column: col})
	}
	if len(r.Files) == 0 {
		return r, false, fmt.Errorf("%s: no mutants logged", name)
	}
	return r, true, sc.Err()
}

type block struct{ l0, c0, l1, c1, stmts, count int }

func (b block) holds(line, col int) bool {
	if line < b.l0 || line > b.l1 {
		return false
	}
	if line == b.l0 && col < b.c0 {
		return false
	}
	return line != b.l1 || col <= b.c1
}

// profile is a coverage profile: blocks by file, relative to the module.
type profile map[string][]block

func readProfile(path, module string) (profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p := profile{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "mode:") || line == "" {
			continue
		}
		// file.go:l0.c0,l1.c1 stmts count
		colon := strings.LastIndex(line, ":")
		var b block
		if _, err := fmt.Sscanf(line[colon+1:], "%d.%d,%d.%d %d %d", &b.l0, &b.c0, &b.l1, &b.c1, &b.stmts, &b.count); err != nil {
			return nil, fmt.Errorf("%s: %q: %v", path, line, err)
		}
		name := strings.TrimPrefix(line[:colon], module+"/")
		p[name] = append(p[name], b)
	}
	return p, sc.Err()
}

// reached reports whether the profile ran the position.
func (p profile) reached(file string, line, col int) bool {
	for _, b := range p[file] {
		if b.count > 0 && b.holds(line, col) {
			return true
		}
	}
	return false
}

// stmts counts the statements of a package's files, and those run. A
// block may appear more than once (coverpkg over several test binaries):
// it counts as run if any copy ran.
func (p profile) stmts(pkg string) (run, total int) {
	for file, blocks := range p {
		if filepath.Dir(file) != pkg {
			continue
		}
		seen := map[[4]int]bool{}
		for _, b := range blocks {
			k := [4]int{b.l0, b.c0, b.l1, b.c1}
			if _, ok := seen[k]; !ok {
				total += b.stmts
				seen[k] = false
			}
			if b.count > 0 && !seen[k] {
				run += b.stmts
				seen[k] = true
			}
		}
	}
	return run, total
}

func pct(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}

func main() {
	dir := flag.String("dir", "out/mutation", "results directory")
	cover := flag.String("cover", "", "the bug-hunt set's coverage profile (optional)")
	module := flag.String("module", "github.com/kubesim/kubesim", "module path")
	before := flag.String("compare", "", "an earlier run's results directory: print the matched comparison with it")
	beforeCommit := flag.String("compare-commit", "", "the commit whose source the -compare run judged")
	afterCommit := flag.String("commit", "", "the commit whose source the -dir run judged (default: the working tree)")
	flag.Parse()
	if *before != "" {
		if err := compare(*before, *beforeCommit, *dir, *afterCommit, flag.Args()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	var prof profile
	if *cover != "" {
		p, err := readProfile(*cover, *module)
		if err != nil && !os.IsNotExist(err) {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		prof = p
	}
	fmt.Println("| package | mutants | killed | lived | not covered | timed out | not viable | efficacy | mutant coverage | lived, reached by scenarios | bug-hunt stmt coverage | minutes |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	var tot [7]int
	livedByType := map[string]int{}
	livedByFile := map[string]int{}
	for _, pkg := range flag.Args() {
		name := strings.ReplaceAll(pkg, "/", "_")
		covCell := "-"
		if prof != nil {
			run, total := prof.stmts(pkg)
			covCell = pct(run, total)
		}
		r, partial, err := readReport(*dir, name)
		if err != nil {
			fmt.Printf("| %s | not measured | | | | | | | | | %s | |\n", pkg, covCell)
			continue
		}
		label := pkg
		if partial {
			label += " (partial)"
		}
		count := map[string]int{}
		var lived, notCovered []string
		reachedLived := 0
		for _, f := range r.Files {
			file := pkg + "/" + f.Name
			for _, m := range f.Mutations {
				count[m.Status]++
				pos := fmt.Sprintf("%s:%d:%d %s", file, m.Line, m.Column, m.Type)
				switch m.Status {
				case "LIVED":
					livedByType[m.Type]++
					livedByFile[file]++
					where := "unit"
					if prof.reached(file, m.Line, m.Column) {
						where = "scenarios"
						reachedLived++
					}
					lived = append(lived, pos+" "+where)
				case "NOT COVERED":
					notCovered = append(notCovered, pos)
				}
			}
		}
		sortPositions(lived)
		sortPositions(notCovered)
		for suffix, lines := range map[string][]string{".lived.txt": lived, ".notcovered.txt": notCovered} {
			text := strings.Join(lines, "\n")
			if text != "" {
				text += "\n"
			}
			if err := os.WriteFile(filepath.Join(*dir, name+suffix), []byte(text), 0o644); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		k, l, nc, to, nv := count["KILLED"], count["LIVED"], count["NOT COVERED"], count["TIMED OUT"], count["NOT VIABLE"]
		total := 0
		for _, n := range count {
			total += n
		}
		minutes := "-"
		if s, err := os.ReadFile(filepath.Join(*dir, name+".seconds")); err == nil {
			if sec, err := strconv.Atoi(strings.Fields(string(s))[0]); err == nil {
				minutes = fmt.Sprintf("%.0f", float64(sec)/60)
			}
		}
		if count["RUNNABLE"] > 0 { // a dry run
			fmt.Printf("| %s | %d | dry run: %d runnable | | %d | | | | %s | | %s | %s |\n",
				label, total, count["RUNNABLE"], nc, pct(count["RUNNABLE"], count["RUNNABLE"]+nc), covCell, minutes)
			continue
		}
		fmt.Printf("| %s | %d | %d | %d | %d | %d | %d | %s | %s | %d | %s | %s |\n",
			label, total, k, l, nc, to, nv, pct(k, k+l), pct(k+l, k+l+nc), reachedLived, covCell, minutes)
		for i, n := range []int{total, k, l, nc, to, nv, reachedLived} {
			tot[i] += n
		}
	}
	if len(flag.Args()) > 1 && tot[0] > 0 {
		fmt.Printf("| all measured | %d | %d | %d | %d | %d | %d | %s | %s | %d | | |\n",
			tot[0], tot[1], tot[2], tot[3], tot[4], tot[5], pct(tot[1], tot[1]+tot[2]), pct(tot[1]+tot[2], tot[1]+tot[2]+tot[3]), tot[6])
	}
	if len(livedByType) > 0 {
		fmt.Printf("\nLived mutants by mutation: %s\n\nFiles with the most lived mutants: %s\n",
			top(livedByType, 0), top(livedByFile, 12))
	}
}

// top lists a tally as "key n, ...", largest first (ties by key), at most
// n entries (0: all).
func top(tally map[string]int, n int) string {
	keys := make([]string, 0, len(tally))
	for k := range tally {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if tally[keys[i]] != tally[keys[j]] {
			return tally[keys[i]] > tally[keys[j]]
		}
		return keys[i] < keys[j]
	})
	if n > 0 && len(keys) > n {
		keys = keys[:n]
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, tally[k])
	}
	return strings.Join(parts, ", ")
}

// sortPositions orders "file:line:col ..." lines by file, then line and
// column as numbers.
func sortPositions(lines []string) {
	key := func(s string) (string, int, int) {
		pos := strings.Fields(s)[0]
		parts := strings.Split(pos, ":")
		l, _ := strconv.Atoi(parts[1])
		c, _ := strconv.Atoi(parts[2])
		return parts[0], l, c
	}
	sort.Slice(lines, func(i, j int) bool {
		fi, li, ci := key(lines[i])
		fj, lj, cj := key(lines[j])
		if fi != fj {
			return fi < fj
		}
		if li != lj {
			return li < lj
		}
		return ci < cj
	})
}

// mutantKey names a mutant by what it changes rather than where: a line
// that moved keeps its key, a line whose text changed gets a new one.
type mutantKey struct {
	path, text string
	occurrence int // earlier lines of the file with the same text
	col        int
	typ        string
}

// source returns a file's lines at commit (the working tree when "").
func source(commit, path string) ([]string, error) {
	var data []byte
	var err error
	if commit == "" {
		data, err = os.ReadFile(path)
	} else {
		data, err = exec.Command("git", "show", commit+":"+path).Output()
	}
	if err != nil {
		return nil, fmt.Errorf("%s at %q: %v", path, commit, err)
	}
	return strings.Split(string(data), "\n"), nil
}

// judged returns the statuses of a package's killed and lived mutants by
// key.
func judged(dir, commit, pkg string) (map[mutantKey]string, error) {
	r, _, err := readReport(dir, strings.ReplaceAll(pkg, "/", "_"))
	if err != nil {
		return nil, err
	}
	out := map[mutantKey]string{}
	for _, f := range r.Files {
		path := pkg + "/" + f.Name
		lines, err := source(commit, path)
		if err != nil {
			return nil, err
		}
		for _, m := range f.Mutations {
			if (m.Status != "KILLED" && m.Status != "LIVED") || m.Line > len(lines) {
				continue
			}
			text := strings.TrimSpace(lines[m.Line-1])
			occ := 0
			for _, l := range lines[:m.Line-1] {
				if strings.TrimSpace(l) == text {
					occ++
				}
			}
			out[mutantKey{path, text, occ, m.Column, m.Type}] = m.Status
		}
	}
	return out, nil
}

// compare prints the matched comparison of two runs, package by package.
func compare(beforeDir, beforeCommit, afterDir, afterCommit string, pkgs []string) error {
	fmt.Println("| package | matched mutants | efficacy before | efficacy after | lived before, killed after | killed before, lived after |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: |")
	var tot [5]int // matched, killed before, killed after, newly killed, newly lived
	for _, pkg := range pkgs {
		b, err := judged(beforeDir, beforeCommit, pkg)
		if err != nil {
			fmt.Printf("| %s | not in both runs | | | | |\n", pkg)
			continue
		}
		a, err := judged(afterDir, afterCommit, pkg)
		if err != nil {
			fmt.Printf("| %s | not in both runs | | | | |\n", pkg)
			continue
		}
		var n [5]int
		for k, sb := range b {
			sa, ok := a[k]
			if !ok {
				continue
			}
			n[0]++
			if sb == "KILLED" {
				n[1]++
			}
			if sa == "KILLED" {
				n[2]++
			}
			if sb == "LIVED" && sa == "KILLED" {
				n[3]++
			}
			if sb == "KILLED" && sa == "LIVED" {
				n[4]++
			}
		}
		fmt.Printf("| %s | %d | %s | %s | %d | %d |\n", pkg, n[0], pct(n[1], n[0]), pct(n[2], n[0]), n[3], n[4])
		for i := range tot {
			tot[i] += n[i]
		}
	}
	if len(pkgs) > 1 {
		fmt.Printf("| all | %d | %s | %s | %d | %d |\n", tot[0], pct(tot[1], tot[0]), pct(tot[2], tot[0]), tot[3], tot[4])
	}
	return nil
}
