package catalogue_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
)

const corpusDir = "testdata/corpus"

// TestCorpus replays every entry under testdata/corpus/ and asserts that
// every check gives the verdict the entry expects. Entries come from
// `kubesim run --save-failures DIR` and from shrunk rapid failures.
func TestCorpus(t *testing.T) {
	t.Parallel() // its subtests run beside the other long tests'
	files, err := scenarios.CorpusFiles(corpusDir)
	require.NoError(t, err)
	require.NotEmpty(t, files, "the corpus is empty")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			entry, opts, err := scenarios.LoadCorpusEntry(f)
			require.NoError(t, err)
			res, err := scenarios.Run(opts)
			require.NoError(t, err)
			seen := map[string]bool{}
			for _, c := range res.Checks {
				want, ok := entry.Expect[c.Name]
				if !ok {
					continue
				}
				seen[c.Name] = true
				if c.OK != want {
					t.Errorf("%s: check %s: got ok=%v, the corpus expects ok=%v\n%s", f, c.Name, c.OK, want, c.String())
				}
			}
			for name := range entry.Expect {
				require.True(t, seen[name], "%s expects a verdict of check %q, which the run does not have", f, name)
			}
			if t.Failed() {
				art, _ := scenarios.WriteArtifacts(opts, artifactDir())
				t.Log("\n" + scenarios.FailureReport(res, opts, art))
			}
		})
	}
}

// TestCorpusMalformed: a malformed entry gets an error that names the file
// and the field.
func TestCorpusMalformed(t *testing.T) {
	cases := []struct {
		body, want string
	}{
		{`{"scenario":"nope","members":3,"seed":1,"expect":{"raft-safety":true}}`, `field "scenario": unknown scenario "nope"`},
		{`{"scenario":"etcd-chaos","members":9,"seed":1,"expect":{"raft-safety":true}}`, `field "members": must be between 1 and 7, got 9`},
		{`{"scenario":"etcd-chaos","members":"three","seed":1}`, `field "members": json: cannot unmarshal string`},
		{`{"scenario":"etcd-chaos","members":3,"seed":1,"colour":"red"}`, `field "colour": unknown field`},
		{`{"scenario":"etcd-chaos","members":3,"seed":1,"duration":"soon","expect":{"raft-safety":true}}`, `field "duration": invalid duration "soon"`},
		{`{"scenario":"etcd-chaos","members":3,"seed":1,"schedule":["10s crash"],"expect":{"raft-safety":true}}`, `field "schedule": `},
		{`{"scenario":"etcd-chaos","members":3,"seed":1,"ablations":["nope"],"expect":{"raft-safety":true}}`, `field "ablations": unknown ablation "nope"`},
		{`{"scenario":"etcd-chaos","members":3,"seed":1}`, `field "expect": missing`},
		{`{"scenario":`, `bad.json: unexpected EOF`},
	}
	dir := t.TempDir()
	for _, c := range cases {
		path := filepath.Join(dir, "bad.json")
		require.NoError(t, os.WriteFile(path, []byte(c.body), 0o644))
		_, _, err := scenarios.LoadCorpusEntry(path)
		require.Error(t, err, c.body)
		require.Contains(t, err.Error(), path, "names the file")
		require.Contains(t, err.Error(), c.want, c.body)
	}
}

// TestCorpusRoundTrip: an entry saved for a run replays to the same
// verdicts.
func TestCorpusRoundTrip(t *testing.T) {
	t.Parallel()
	opts := scenarios.Options{Scenario: "etcd-leader-crash", Members: 3, Seed: 5}
	res, err := scenarios.Run(opts)
	require.NoError(t, err)
	path, err := scenarios.SaveCorpusEntry(t.TempDir(), scenarios.EntryFor(res, opts, "round trip"))
	require.NoError(t, err)
	entry, back, err := scenarios.LoadCorpusEntry(path)
	require.NoError(t, err)
	require.Equal(t, opts.Scenario, back.Scenario)
	require.Equal(t, opts.Seed, back.Seed)
	again, err := scenarios.Run(back)
	require.NoError(t, err)
	require.Equal(t, res.TraceHash, again.TraceHash)
	for _, c := range again.Checks {
		require.Equal(t, entry.Expect[c.Name], c.OK, c.Name)
	}
}
