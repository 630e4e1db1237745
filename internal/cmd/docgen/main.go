// Command docgen writes the reference pages of docs/ that mirror the code,
// and the generated blocks of README.md (see package internal/docgen). Run
// it through `go generate ./...`.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kubesim/kubesim/internal/docgen"
)

func main() {
	out := flag.String("out", "docs", "the directory to write the pages into")
	readme := flag.String("readme", "", "the README whose generated blocks to rewrite (none when empty)")
	flag.Parse()
	for _, p := range docgen.Pages() {
		if err := os.WriteFile(filepath.Join(*out, p.Name), []byte(p.Body), 0o644); err != nil {
			fail(err)
		}
	}
	if *readme == "" {
		return
	}
	body, err := os.ReadFile(*readme)
	if err != nil {
		fail(err)
	}
	doc := string(body)
	for _, b := range docgen.ReadmeBlocks() {
		if doc, err = docgen.Splice(doc, b); err != nil {
			fail(fmt.Errorf("%s: block %q: %w", *readme, b.Name, err))
		}
	}
	if doc != string(body) {
		if err := os.WriteFile(*readme, []byte(doc), 0o644); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "docgen:", err)
	os.Exit(1)
}
