package reports

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds arbitrary bytes to a report as a results file: Load
// never panics, every result it keeps passes CheckResult, its counts add
// up, and what it keeps renders as markdown and claims without error. A
// failing input is saved under testdata/fuzz/FuzzLoad and replays first
// on every `go test`.
func FuzzLoad(f *testing.F) {
	good := result("etcd-profile", 3, 1, crash, 0.9, 0.9, true)
	line, err := json.Marshal(good)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(append(line, '\n'))
	f.Add(append(append(line, '\n'), line[:30]...))
	f.Add([]byte("garbage\n\n{}\n"))
	f.Add([]byte(`{"scenario":"etcd-profile","members":9}` + "\n"))
	f.Add([]byte{0, 0xff, '\n', '{'})
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "results.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		set, warnings, err := Load(path)
		if err != nil {
			if set != nil {
				t.Fatalf("an error (%v) with a set", err)
			}
			return
		}
		if len(warnings) > 1 {
			t.Fatalf("%d warnings for one file: %q", len(warnings), warnings)
		}
		if set.Skipped > 0 && len(warnings) != 1 {
			t.Fatalf("%d lines skipped without a warning", set.Skipped)
		}
		for i := range set.Results {
			if err := CheckResult(&set.Results[i]); err != nil {
				t.Fatalf("kept an impossible result: %v", err)
			}
		}
		if err := WriteMarkdown(io.Discard, set); err != nil {
			t.Fatalf("markdown: %v", err)
		}
		_ = Claims(set)
	})
}
