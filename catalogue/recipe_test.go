package catalogue_test

import (
	"bytes"
	"flag"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var recipesFlag = flag.Bool("recipes", false, "TestRecipes: follow CONTRIBUTING.md's recipes in a scratch copy of the repository (seconds with a warm build cache, minutes without; CI runs it)")

// recipeSpec is the scenario TestRecipes adds: an etcd scenario, the
// cheapest to run.
const (
	recipeName = "recipe-leader-pause"
	recipeSpec = `{
	Name:        "` + recipeName + `",
	Description: "the etcd leader freezes for 2 s every 25 s: the recipe test's scenario",
	Faults:      nemesis.Periodic(15*time.Second, 25*time.Second, sim.Fault{Kind: sim.FaultPause, Targets: [][]string{{"etcd-leader"}}, For: 2 * time.Second}),
},
`
)

// TestRecipes follows CONTRIBUTING.md's "Add a scenario" literally, in a
// scratch copy of the repository's tracked files: it appends a Spec to the
// list of the first file the recipe names, runs the recipe's commands
// (its sh block, NAME replaced), each of which must succeed, and fails if
// the recipe left out a file the steps changed. The recipe is the source:
// this test reads its commands and file list from CONTRIBUTING.md, so
// changing the recipe changes what is tested.
func TestRecipes(t *testing.T) {
	if !*recipesFlag {
		t.Skip("the recipes run with -recipes")
	}
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	doc, err := os.ReadFile(filepath.Join(root, "CONTRIBUTING.md"))
	require.NoError(t, err)
	commands, files := recipe(t, string(doc), "Add a scenario")
	require.NotEmpty(t, commands, "the recipe's sh block")
	require.NotEmpty(t, files, "the recipe's file list")

	scratch := t.TempDir()
	tracked := copyTracked(t, root, scratch)
	appendSpec(t, filepath.Join(scratch, files[0]), recipeSpec)
	for _, c := range commands {
		c = strings.ReplaceAll(c, "NAME", recipeName)
		cmd := exec.Command("bash", "-c", c)
		cmd.Dir = scratch
		// -trimpath keeps the scratch copy's builds apart from its path, so
		// that the build cache serves the packages it did not change (the
		// first run builds them all: a few minutes on 2 cores; later ones
		// take seconds); -count=1 runs the tests rather than their cached
		// results.
		cmd.Env = append(os.Environ(), "GOFLAGS=-trimpath -count=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "the recipe's %q:\n%s", c, out)
	}
	changed := changedFiles(t, root, scratch, tracked)
	for _, f := range changed {
		require.Contains(t, files, f, "the recipe changed %s, which its file list does not name", f)
	}
	require.Contains(t, changed, files[0], "the recipe's first file is the one to edit")
	pins, err := os.ReadFile(filepath.Join(scratch, "catalogue", traceHashesFile))
	require.NoError(t, err)
	require.Equal(t, 2, strings.Count(string(pins), "\n"+recipeName+" "), "the recipe pins the scenario's two runs")
	was, err := readPins(filepath.Join(root, "catalogue", traceHashesFile))
	require.NoError(t, err)
	require.Subset(t, strings.Split(string(pins), "\n"), was, "pinning it alone keeps every other pin")
	for _, f := range files {
		_, err := os.Stat(filepath.Join(root, f))
		require.NoError(t, err, "the recipe names %s", f)
	}
}

// recipe returns the sh commands (comments dropped) and the files (the
// backquoted paths of the sentence "It changes these files and no
// other: ...") of the section of doc titled title.
func recipe(t *testing.T, doc, title string) (commands, files []string) {
	start := strings.Index(doc, "## "+title+"\n")
	require.GreaterOrEqual(t, start, 0, "CONTRIBUTING.md has no section %q", title)
	section := doc[start+len(title)+4:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	block := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(section)
	require.NotNil(t, block, "section %q has no sh block", title)
	for _, line := range strings.Split(block[1], "\n") {
		line, _, _ = strings.Cut(line, " #")
		if line = strings.TrimSpace(line); line != "" {
			commands = append(commands, line)
		}
	}
	list := regexp.MustCompile(`(?s)It changes these files and no other: (.*?)\.\s`).FindStringSubmatch(section)
	require.NotNil(t, list, "section %q has no sentence \"It changes these files and no other: ...\"", title)
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(list[1], -1) {
		files = append(files, m[1])
	}
	return commands, files
}

// copyTracked copies the files git tracks under root to dir and returns
// their paths.
func copyTracked(t *testing.T, root, dir string) []string {
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	require.NoError(t, err, "git ls-files")
	var files []string
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join(root, f))
		if os.IsNotExist(err) {
			continue // deleted in the work tree
		}
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
		files = append(files, f)
	}
	return files
}

// changedFiles returns the files of dir that differ from root's: tracked
// files changed, and files that are new.
func changedFiles(t *testing.T, root, dir string, tracked []string) []string {
	var changed []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		now, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !slices.Contains(tracked, rel) {
			changed = append(changed, rel)
			return nil
		}
		was, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return err
		}
		if !bytes.Equal(was, now) {
			changed = append(changed, rel)
		}
		return nil
	})
	require.NoError(t, err)
	return changed
}

// appendSpec adds spec, a Spec literal, at the end of the first
// []scenarios.Spec list of the Go file path, as the recipe's first step
// says, and formats the file.
func appendSpec(t *testing.T, path, spec string) {
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	f, err := parser.ParseFile(token.NewFileSet(), path, src, 0)
	require.NoError(t, err)
	end := -1
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.CompositeLit); ok && end < 0 {
			if at, ok := lit.Type.(*ast.ArrayType); ok {
				if sel, ok := at.Elt.(*ast.SelectorExpr); ok && sel.Sel.Name == "Spec" {
					end = int(lit.Rbrace) - 1 // Pos is 1-based
				}
			}
		}
		return end < 0
	})
	require.GreaterOrEqual(t, end, 0, "%s has no []scenarios.Spec list to append to", path)
	out, err := format.Source([]byte(string(src[:end]) + spec + string(src[end:])))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, out, 0o644))
}
