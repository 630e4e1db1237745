package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// CorpusEntry is one regression case under testdata/corpus/: a run and the
// verdict every check is expected to give. A seed alone reproduces a run; an
// explicit schedule (in the text form) replaces the scenario's faults.
type CorpusEntry struct {
	Scenario  string   `json:"scenario"`
	Members   int      `json:"members"`
	Seed      uint64   `json:"seed"`
	Duration  string   `json:"duration,omitempty"`
	Schedule  []string `json:"schedule"`         // one fault per element, text form; null: the scenario's own faults
	Faults    string   `json:"faults,omitempty"` // a fault profile instead, as --faults takes it
	Ablations []string `json:"ablations,omitempty"`
	Clients   int      `json:"clients,omitempty"` // KV clients, when not the scenario's
	Think     string   `json:"think,omitempty"`   // clients' mean pause, when not the scenario's
	Buggify   bool     `json:"buggify,omitempty"` // BUGGIFY on (Options.Buggify)
	// Expect maps each check's name to whether it must pass.
	Expect map[string]bool `json:"expect"`
	// Note says where the case came from and what it shows.
	Note string `json:"note,omitempty"`
}

// CorpusError names the file and the field of a malformed corpus entry.
type CorpusError struct {
	File, Field, Msg string
}

func (e *CorpusError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s: field %q: %s", e.File, e.Field, e.Msg)
}

// Options turns the entry into run options; file names the entry in errors.
func (c *CorpusEntry) Options(file string) (Options, error) {
	bad := func(field, format string, args ...any) (Options, error) {
		return Options{}, &CorpusError{File: file, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	if _, err := Lookup(c.Scenario); err != nil {
		return bad("scenario", "%v", err)
	}
	if c.Members < 1 || c.Members > MaxMembers {
		return bad("members", "must be between 1 and %d, got %d", MaxMembers, c.Members)
	}
	o := Options{Scenario: c.Scenario, Members: c.Members, Seed: c.Seed, Ablations: c.Ablations, Clients: c.Clients, Buggify: c.Buggify}
	if c.Clients < 0 {
		return bad("clients", "must not be negative, got %d", c.Clients)
	}
	if c.Think != "" {
		d, err := time.ParseDuration(c.Think)
		if err != nil || d <= 0 {
			return bad("think", "invalid duration %q (want e.g. 50ms)", c.Think)
		}
		o.Think = d
	}
	if c.Duration != "" {
		d, err := time.ParseDuration(c.Duration)
		if err != nil || d <= 0 {
			return bad("duration", "invalid duration %q (want e.g. 90s)", c.Duration)
		}
		o.Duration = d
	}
	if c.Schedule != nil {
		s, err := sim.ParseSchedule(file+" schedule", strings.Join(c.Schedule, "\n"))
		if err != nil {
			return bad("schedule", "%v", err)
		}
		if s == nil {
			s = sim.Schedule{}
		}
		o.Schedule = s
	}
	if c.Faults != "" {
		if c.Schedule != nil {
			return bad("faults", "give schedule or faults, not both")
		}
		p, err := nemesis.ParseProfile(c.Faults)
		if err != nil {
			return bad("faults", "%v", err)
		}
		o.Profile = &p
	}
	if _, err := ResolveAblations(c.Ablations); err != nil {
		return bad("ablations", "%v", err)
	}
	if len(c.Expect) == 0 {
		return bad("expect", "missing: give each check's expected verdict, e.g. {\"raft-safety\": true}")
	}
	return o, nil
}

// LoadCorpusEntry reads and validates one entry file.
func LoadCorpusEntry(path string) (CorpusEntry, Options, error) {
	var c CorpusEntry
	data, err := os.ReadFile(path)
	if err != nil {
		return c, Options{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		field := ""
		var te *json.UnmarshalTypeError
		if ok := asTypeError(err, &te); ok {
			field = te.Field
		}
		msg := err.Error()
		if strings.HasPrefix(msg, "json: unknown field ") {
			field = strings.Trim(strings.TrimPrefix(msg, "json: unknown field "), `"`)
			msg = "unknown field (want scenario, members, seed, duration, schedule, faults, ablations, clients, think, buggify, expect, note)"
		}
		return c, Options{}, &CorpusError{File: path, Field: field, Msg: msg}
	}
	o, err := c.Options(path)
	return c, o, err
}

func asTypeError(err error, target **json.UnmarshalTypeError) bool {
	te, ok := err.(*json.UnmarshalTypeError)
	if ok {
		*target = te
	}
	return ok
}

// CorpusFiles lists the entries under dir, sorted.
func CorpusFiles(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	sort.Strings(files)
	return files, err
}

// EntryFor makes the corpus entry that pins r: the run's options and every
// check's verdict as it came out.
func EntryFor(r Result, o Options, note string) CorpusEntry {
	c := CorpusEntry{Scenario: r.Scenario, Members: r.Members, Seed: r.Seed, Ablations: r.Ablations,
		Clients: o.Clients, Buggify: o.Buggify, Expect: map[string]bool{}, Note: note}
	if o.Think != 0 {
		c.Think = o.Think.String()
	}
	if o.Duration != 0 {
		c.Duration = o.Duration.String()
	}
	if o.Profile != nil {
		c.Faults = o.Profile.String()
	}
	if o.Schedule != nil {
		c.Schedule = []string{}
		for _, f := range o.Schedule {
			c.Schedule = append(c.Schedule, f.String())
		}
	}
	for _, ch := range r.Checks {
		c.Expect[ch.Name] = ch.OK
	}
	return c
}

// SaveCorpusEntry writes c into dir under a name made from the run, and
// returns the path.
func SaveCorpusEntry(dir string, c CorpusEntry) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	name := fmt.Sprintf("%s-m%d-s%d", c.Scenario, c.Members, c.Seed)
	if len(c.Ablations) > 0 {
		name += "-" + strings.Join(c.Ablations, "+")
	}
	if c.Buggify {
		name += "-buggify"
	}
	if c.Schedule != nil {
		name += "-schedule"
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, name+".json")
	return path, os.WriteFile(path, append(data, '\n'), 0o644)
}
