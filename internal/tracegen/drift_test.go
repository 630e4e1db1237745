package tracegen

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedFilesFresh regenerates, in memory, the trace file of every
// package of the module that marks a type for the trace or holds one, and
// fails when the checked-in file differs: someone changed a trace tag, or
// the generator, without running go generate.
func TestGeneratedFilesFresh(t *testing.T) {
	root := moduleRoot(t)
	dirs := markedDirs(t, root)
	if len(dirs) == 0 {
		t.Fatalf("no package under %s marks a type for the trace", root)
	}
	for _, dir := range dirs {
		rel, _ := filepath.Rel(root, dir)
		if err := fresh(dir); err != nil {
			t.Errorf("%s: %v", rel, err)
		} else {
			t.Logf("%s/%s is fresh", rel, FileName)
		}
	}
}

// TestStaleFileDetected proves the freshness check can fail: a package whose
// trace tag changed after generation is reported stale.
func TestStaleFileDetected(t *testing.T) {
	dir := t.TempDir()
	src := "package p\n\n//trace:kind KindX x.event\ntype X struct {\n\tN uint64 `trace:\"%s\"`\n}\n"
	write(t, dir, "p.go", fmt.Sprintf(src, "n"))
	gen, err := Generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, FileName, string(gen))
	if err := fresh(dir); err != nil {
		t.Fatalf("fresh after generation: %v", err)
	}
	write(t, dir, "p.go", fmt.Sprintf(src, "count"))
	err = fresh(dir)
	if err == nil || !strings.Contains(err.Error(), "run go generate ./...") {
		t.Fatalf("after a tag changed: got %v, want a stale file telling to run go generate ./...", err)
	}
}

// fresh checks that dir's generated file is what Generate writes now.
func fresh(dir string) error {
	want, err := Generate(dir)
	if err != nil {
		return err
	}
	got, err := os.ReadFile(filepath.Join(dir, FileName))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s is missing: run go generate ./...", FileName)
	}
	if err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("%s is stale: run go generate ./...", FileName)
	}
	return nil
}

// moduleRoot is the directory of go.mod above the test's directory.
func moduleRoot(t *testing.T) string {
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = up
	}
}

// markedDirs lists the directories under root (but not testdata or hidden
// ones) with a generated trace file or a Go file with a //trace: directive.
func markedDirs(t *testing.T, root string) []string {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		dir := filepath.Dir(path)
		if len(dirs) > 0 && dirs[len(dirs)-1] == dir {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if name == FileName || bytes.Contains(src, []byte("\n//trace:")) {
			dirs = append(dirs, dir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// write writes a file of a test package.
func write(t *testing.T, dir, name, src string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}
